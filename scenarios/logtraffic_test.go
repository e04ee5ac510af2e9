package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// combinedLine is a line of nginx's combined format at second sec of
// 2026-11-24 09:00 UTC.
func combinedLine(addr string, sec int, path string, status int) string {
	t := time.Date(2026, 11, 24, 9, 0, sec, 0, time.UTC)
	return fmt.Sprintf(`%s - - [%s] "GET %s HTTP/1.1" %d 12 "-" "curl/8.5"`, addr, t.Format("02/Jan/2006:15:04:05 -0700"), path, status)
}

// writeScenario writes a scenario whose traffic is items, beside a log
// of lines, and loads it.
func writeScenario(t *testing.T, lines []string, items ...string) (*Scenario, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "access.log"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := "title: a log\nlimiters:\n  - {name: bucket, algorithm: token-bucket, capacity: 2, rate: 1/s}\ntraffic:\n"
	for _, it := range items {
		yaml += "  - " + it + "\n"
	}
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path)
}

func requestsOf(s *Scenario) []Request {
	var rs []Request
	for r := range s.Requests() {
		rs = append(rs, r)
	}
	return rs
}

func TestLogItemReplaysTheLog(t *testing.T) {
	lines := []string{
		combinedLine("192.0.2.1", 0, "/api/a", 200),
		combinedLine("192.0.2.9", 0, "/api/search?q=x", 200),
		combinedLine("2001:db8::1", 2, "/static/x.css", 304),
		"garbage",
		combinedLine("192.0.2.1", 1, "/api/b", 500), // a second behind: within the look-behind
	}
	for _, tc := range []struct {
		name, item string
		want       []Request
	}{
		{"as logged", "{log: access.log}", []Request{
			{At: 0, Key: "192.0.2.1", Cost: 1}, {At: 0, Key: "192.0.2.9", Cost: 1},
			{At: time.Second, Key: "192.0.2.1", Cost: 1}, {At: 2 * time.Second, Key: "2001:db8::1", Cost: 1}}},
		{"by network", "{log: access.log, key: remote_addr/24}", []Request{
			{At: 0, Key: "192.0.2.0/24", Cost: 1}, {At: 0, Key: "192.0.2.0/24", Cost: 1},
			{At: time.Second, Key: "192.0.2.0/24", Cost: 1}, {At: 2 * time.Second, Key: "2001:db8::/64", Cost: 1}}},
		{"costs by path and a filter", "{log: access.log, cost: {paths: {/api/search: 5, ~^/api/: 2}}, filter: {path: /api/, status: [2xx, 5xx]}}", []Request{
			{At: 0, Key: "192.0.2.1", Cost: 2}, {At: 0, Key: "192.0.2.9", Cost: 5}, {At: time.Second, Key: "192.0.2.1", Cost: 2}}},
		{"spread even", "{log: access.log, spread: even}", []Request{
			{At: 0, Key: "192.0.2.1", Cost: 1}, {At: 500 * time.Millisecond, Key: "192.0.2.9", Cost: 1},
			{At: time.Second, Key: "192.0.2.1", Cost: 1}, {At: 2 * time.Second, Key: "2001:db8::1", Cost: 1}}},
		{"from and until", "{log: access.log, from: 1s, until: '2026-11-24T09:00:02Z'}", []Request{
			{At: 0, Key: "192.0.2.1", Cost: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := writeScenario(t, lines, tc.item)
			if err != nil {
				t.Fatal(err)
			}
			got := requestsOf(s)
			if !slices.Equal(got, tc.want) {
				t.Errorf("requests %v, want %v", got, tc.want)
			}
			if s.RequestCount() != int64(len(tc.want)) || s.Err() != nil {
				t.Errorf("RequestCount %d, Err %v; want %d, nil", s.RequestCount(), s.Err(), len(tc.want))
			}
			l := s.Logs[0]
			if l.Lines.Bad != 1 || len(l.Bad) != 1 || !strings.Contains(l.Bad[0].Error(), "access.log:4:") {
				t.Errorf("bad lines %d %v, want line 4 counted", l.Lines.Bad, l.Bad)
			}
			if !strings.Contains(l.ResolutionNote(), "whole seconds") {
				t.Errorf("resolution note %q names no whole seconds", l.ResolutionNote())
			}
		})
	}
}

func TestLogItemMergesWithItems(t *testing.T) {
	lines := []string{combinedLine("192.0.2.1", 0, "/", 200), combinedLine("192.0.2.1", 2, "/", 200)}
	s, err := writeScenario(t, lines, "{log: access.log}", "{at: 1s, key: synthetic}", "{at: 2s, key: synthetic}")
	if err != nil {
		t.Fatal(err)
	}
	want := []Request{{At: 0, Key: "192.0.2.1", Cost: 1}, {At: time.Second, Key: "synthetic", Cost: 1},
		{At: 2 * time.Second, Key: "synthetic", Cost: 1}, {At: 2 * time.Second, Key: "192.0.2.1", Cost: 1}}
	if got := requestsOf(s); !slices.Equal(got, want) {
		t.Errorf("requests %v, want %v (at one time the items' first, then the log's)", got, want)
	}
	if got := s.Keys(); !slices.Equal(got, []string{"192.0.2.1", "synthetic"}) {
		t.Errorf("keys %v, want the log's first", got)
	}
}

func TestLogItemErrors(t *testing.T) {
	good := []string{combinedLine("192.0.2.1", 0, "/", 200)}
	for _, tc := range []struct {
		name  string
		lines []string
		item  string
		want  string
	}{
		{"no file", good, "{log: missing.log}", "missing.log"},
		{"wrong format", good, "{log: access.log, format: json}", "the format is probably wrong"},
		{"unknown format", good, "{log: access.log, format: apache}", `unknown format "apache"`},
		{"bad key", good, "{log: access.log, key: remote_addr/40}", "from 0 to 32"},
		{"bad status", good, "{log: access.log, filter: {status: 2x}}", "neither a status"},
		{"bad bound", good, "{log: access.log, from: yesterday}", "RFC 3339"},
		{"all filtered", good, "{log: access.log, filter: {method: POST}}", "1 left out"},
		{"strict", []string{"garbage", good[0]}, "{log: access.log, strict: true}", "access.log:1:"},
		{"beyond the look-behind", []string{combinedLine("192.0.2.1", 5, "/", 200), combinedLine("192.0.2.1", 0, "/", 200)}, "{log: access.log, look_behind: 2s}", "access.log:2"},
		{"unknown field", good, "{log: access.log, every: 1s}", "every"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := writeScenario(t, tc.lines, tc.item)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestLogItemMarshals writes a scenario with a log back and reads it again:
// the same requests.
func TestLogItemMarshals(t *testing.T) {
	lines := []string{combinedLine("192.0.2.1", 0, "/api/x", 200), combinedLine("192.0.2.7", 1, "/api/y", 429)}
	s, err := writeScenario(t, lines, "{log: access.log, key: remote_addr/24, cost: {paths: {/api/x: 3}, default: 2}, filter: {method: [GET], status: [2xx, 429]}, spread: even, look_behind: 5s, until: 1h, strict: true}")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Marshal(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(filepath.Join(t.TempDir(), "elsewhere.yaml"), out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got, want := requestsOf(back), requestsOf(s); !slices.Equal(got, want) || len(want) != 2 {
		t.Errorf("read back %v, want %v\n%s", got, want, out)
	}
}

// TestCannedLog: the log shipped with the lessons is read by any file as
// canned:NAME, and written back so.
func TestCannedLog(t *testing.T) {
	yaml := "title: shipped\nlimiters:\n  - {name: bucket, algorithm: token-bucket, capacity: 2, rate: 1/s}\ntraffic:\n  - {log: 'canned:api.log'}\n"
	s, err := Parse(filepath.Join(t.TempDir(), "s.yaml"), []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	if s.RequestCount() != 2400 || len(requestsOf(s)) != 2400 {
		t.Errorf("canned:api.log holds %d requests (%d read), want 2400", s.RequestCount(), len(requestsOf(s)))
	}
	out, err := Marshal(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `{log: "canned:api.log"`) {
		t.Errorf("written back as\n%s", out)
	}
	if slices.Contains(names(), "logs") || slices.Contains(names(), "api.log") {
		t.Errorf("the lessons' names %v include the logs", names())
	}
}
