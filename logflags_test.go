package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// accessLog writes a combined-format log of n requests from one address,
// four a second, and returns its path.
func accessLog(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC).Add(time.Duration(i/4) * time.Second)
		fmt.Fprintf(&b, "192.0.2.1 - - [%s] \"GET /api/x HTTP/1.1\" 200 1 \"-\" \"x\"\n", at.Format("02/Jan/2006:15:04:05 -0700"))
	}
	return writeFile(t, "access.log", b.String())
}

func TestRunALog(t *testing.T) {
	log := accessLog(t, 400) // 100 s at 4 a second: 240 a minute against 120
	for _, tc := range []struct {
		name string
		args []string
		want []string // lines the output holds, as regular expressions
	}{
		{"the default lanes", []string{"run", "--format", "summary", log},
			[]string{`^fixed +fixed-window limit 120 per 60s +400 +`, `^shaper +leaky-bucket queue 120, rate 2/s +400 `,
				`^log .*access.log: 400 requests from 400 lines \(0 bad.*whole seconds; each request stands at its logged second`}},
		{"cut by --until", []string{"run", "--format", "summary", "--until", "10s", log},
			[]string{`^fixed +fixed-window limit 120 per 60s +40 +40 `}},
		{"spread and keyed", []string{"run", "--format", "summary", "--by-key", "--key", "remote_addr/24", "--spread", "even", log},
			[]string{`^fixed +192\.0\.2\.0/24 `, `log .*spread evenly across it$`}},
		{"other lanes", []string{"run", "--format", "summary", "--lanes", "boundary", log},
			[]string{`^fixed +fixed-window limit 120 per 60s +400 `}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := ratelab(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			// The log's line is wrapped at 80 columns: read it whole.
			out = strings.ReplaceAll(out, "\n  ", " ")
			for _, w := range tc.want {
				if !regexpLine(out, w) {
					t.Errorf("no line matches %s in\n%s", w, out)
				}
			}
		})
	}
}

func TestLogFlagsAreForLogs(t *testing.T) {
	log := accessLog(t, 4)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--key", "remote_addr/24", "boundary"}, "apply to a log only"},
		{[]string{"run", "--log-format", "json", log}, "the format is probably wrong"},
		{[]string{"run", "--key", "remote_addr/99", log}, "from 0 to 32"},
		{[]string{"run", "--from", "tomorrow", log}, "RFC 3339"},
	} {
		code, _, errs := ratelab(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", tc.args, code, errs, tc.want)
		}
		if base := filepath.Base(log) + ":"; strings.Count(errs, base) > 1 {
			t.Errorf("%v: %q names the log more than once", tc.args, errs)
		}
	}
}
