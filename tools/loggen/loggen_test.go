package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratelab/accesslog"
)

// logOf runs the command with args and returns what it wrote to stdout.
func logOf(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errs bytes.Buffer
	if code := run(args, &out, &errs); code != 0 {
		t.Fatalf("loggen %s: exit %d: %s", strings.Join(args, " "), code, errs.String())
	}
	return out.Bytes()
}

// formatOf is the -format in args, combined if none.
func formatOf(args []string) string {
	for i, a := range args {
		if a == "-format" {
			return args[i+1]
		}
	}
	return "combined"
}

// readAll reads log with the repository's own reader in the format args
// name and returns its records' copies and the reader's stats and bad
// lines. An *OrderError fails the test unless lookBehind allows it.
func readAll(t *testing.T, log []byte, format string, opts accesslog.Options) ([]record, accesslog.Stats, []*accesslog.LineError) {
	t.Helper()
	f, err := accesslog.ParseFormat(format, "")
	if err != nil {
		t.Fatal(err)
	}
	opts.KeepBad = 100
	rd := accesslog.NewReader(bytes.NewReader(log), "gen.log", f, opts)
	var recs []record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the log: %v", err)
		}
		recs = append(recs, record{
			time:    rec.Time,
			line:    rec.Line,
			status:  rec.Status,
			addr:    string(rec.Field("remote_addr")),
			request: string(rec.Field("request")),
			agent:   string(rec.Field("http_user_agent")),
		})
	}
	return recs, rd.Stats(), rd.BadLines()
}

// record is what the tests look at in an accesslog.Record, copied.
type record struct {
	time                 int64
	line                 int64
	status               int
	addr, request, agent string
	present              bool // the request was logged, not "-"
}

func TestSameFlagsSameBytes(t *testing.T) {
	for _, args := range [][]string{
		{"-lines", "3000"},
		{"-lines", "3000", "-format", "json", "-odd"},
		{"-lines", "3000", "-format", "common", "-gzip", "-rate", "40/s"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			a, b := logOf(t, args...), logOf(t, args...)
			if !bytes.Equal(a, b) {
				t.Fatal("two runs with the same flags wrote different bytes")
			}
			c := logOf(t, append(args, "-seed", "2")...)
			if bytes.Equal(a, c) {
				t.Fatal("-seed 2 wrote the same bytes as -seed 1")
			}
		})
	}
}

func TestEveryLineParses(t *testing.T) {
	for _, tc := range []struct {
		lines int64
		flags []string
		bad   int64 // 1: the cut last line, with -odd
	}{
		{5000, nil, 0},
		{5000, []string{"-format", "common"}, 0},
		{5000, []string{"-format", "json"}, 0},
		{5000, []string{"-odd"}, 1},
		{5000, []string{"-odd", "-format", "common"}, 1},
		{5000, []string{"-odd", "-format", "json"}, 1},
		{1, nil, 0},
		{1, []string{"-odd"}, 1},
	} {
		args := append([]string{"-lines", strconv.FormatInt(tc.lines, 10)}, tc.flags...)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			log := logOf(t, args...)
			recs, stats, bad := readAll(t, log, formatOf(args), accesslog.Options{})
			newlines := int64(bytes.Count(log, []byte("\n")))
			if cut := !bytes.HasSuffix(log, []byte("\n")); cut != (tc.bad == 1) {
				t.Errorf("the last line is cut short: %v, want %v", cut, tc.bad == 1)
			}
			if newlines+tc.bad != tc.lines || stats.Lines != tc.lines {
				t.Errorf("%d newlines, %d lines read, want %d lines", newlines, stats.Lines, tc.lines)
			}
			if stats.Bad != tc.bad || int64(len(recs)) != tc.lines-tc.bad {
				t.Errorf("%d bad lines and %d records, want %d and %d; bad: %v", stats.Bad, len(recs), tc.bad, tc.lines-tc.bad, bad)
			}
			if tc.bad == 1 && (len(bad) != 1 || bad[0].Line != tc.lines) {
				t.Errorf("bad lines %v, want only the last, line %d", bad, tc.lines)
			}
		})
	}
}

func TestTimesInOrderWithoutOdd(t *testing.T) {
	for _, format := range []string{"combined", "common", "json"} {
		t.Run(format, func(t *testing.T) {
			args := []string{"-lines", "20000", "-rate", "20/s", "-format", format, "-start", "2026-03-01T12:00:00+01:00"}
			// NoLookBehind makes any line earlier than one before it an
			// *OrderError, which readAll fails on.
			recs, _, _ := readAll(t, logOf(t, args...), format, accesslog.Options{LookBehind: accesslog.NoLookBehind})
			start := time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC).UnixNano()
			if recs[0].time < start || recs[0].time >= start+int64(time.Second) {
				t.Errorf("first time %v, want within the second of -start", time.Unix(0, recs[0].time).UTC())
			}
			span := time.Duration(recs[len(recs)-1].time - recs[0].time)
			if want := 1000 * time.Second; span < want*9/10 || span > want*11/10 {
				t.Errorf("20,000 lines at 20/s span %v, want about %v", span, want)
			}
		})
	}
}

func TestOddLines(t *testing.T) {
	for _, format := range []string{"combined", "common", "json"} {
		t.Run(format, func(t *testing.T) {
			log := logOf(t, "-lines", "20000", "-odd", "-format", format)
			recs, _, _ := readAll(t, log, format, accesslog.Options{})
			var early, quoted, noRequest, tls, ipv6 int
			var latest int64
			for _, r := range recs { // in time order; lines say the file's order
				switch {
				case r.agent == quotedAgent:
					quoted++
				case r.request == "" && r.status == 400: // "-", or "" in JSON
					noRequest++
				case r.request == tlsHello:
					tls++
				case r.addr == "2001:db8::42":
					ipv6++
				}
			}
			byLine := make([]int64, len(recs)+1)
			for _, r := range recs {
				byLine[r.line-1] = r.time
			}
			for _, tm := range byLine[:len(recs)] {
				if tm < latest {
					early++
				}
				latest = max(latest, tm)
			}
			wantQuoted := 1
			if format == "common" {
				wantQuoted = 0 // it logs no user agent
			}
			if quoted != wantQuoted || noRequest != 1 || tls != 1 || ipv6 != 1 {
				t.Errorf("quoted agents %d (want %d), \"-\" requests %d, TLS probes %d, 2001:db8::42 %d; want 1 each", quoted, wantQuoted, noRequest, tls, ipv6)
			}
			if crlf := bytes.Count(log, []byte("\r\n")); crlf != 1 {
				t.Errorf("%d CRLF lines, want 1", crlf)
			}
			if want := 20000 / outOfOrderEvery; early < want/2 || early > want*2 {
				t.Errorf("%d lines earlier than one before them, want about %d", early, want)
			}
		})
	}
}

// The top talkers' share is what -top says, whatever the hour and span,
// and splits between them as the command's doc says.
func TestTopTalkersShare(t *testing.T) {
	for _, tc := range []struct {
		top   float64
		flags []string
	}{
		{0, nil},
		{0.1, nil},
		{0.3, nil},
		{0.3, []string{"-start", "2026-10-10T03:00:00Z", "-rate", "2/s"}},  // the night's trough
		{0.3, []string{"-start", "2026-10-10T14:00:00Z", "-rate", "50/s"}}, // an hour at the peak
		{0.6, []string{"-format", "json"}},
		{1, nil},
	} {
		args := append([]string{"-lines", "20000", "-top", strconv.FormatFloat(tc.top, 'g', -1, 64)}, tc.flags...)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			recs, _, _ := readAll(t, logOf(t, args...), formatOf(args), accesslog.Options{})
			by := map[string]float64{}
			for _, r := range recs {
				by[r.addr]++
			}
			n := float64(len(recs))
			scraper, batch, mobile := by[scraperAddr]/n, by[batchAddr]/n, by[mobileAddr]/n
			const tolerance = 0.02
			for _, c := range []struct {
				who       string
				got, want float64
			}{
				{"all top talkers", scraper + batch + mobile, tc.top},
				{"the scraper", scraper, tc.top * scraperShare},
				{"the batch job", batch, tc.top * batchShare},
				{"the mobile client", mobile, tc.top * mobileShare},
			} {
				if c.got < c.want-tolerance || c.got > c.want+tolerance {
					t.Errorf("%s sent %.3f of the requests, want %.3f ± %v", c.who, c.got, c.want, tolerance)
				}
			}
		})
	}
}

// The light clients are many, each with a few requests.
func TestLightClientsAreLight(t *testing.T) {
	recs, _, _ := readAll(t, logOf(t, "-lines", "20000"), "combined", accesslog.Options{})
	by := map[string]int{}
	for _, r := range recs {
		switch r.addr {
		case scraperAddr, batchAddr, mobileAddr, healthAddr:
		default:
			by[r.addr]++
		}
	}
	most := 0
	for _, n := range by {
		most = max(most, n)
	}
	if len(by) < 2000 || most > 25 {
		t.Errorf("%d light clients, the busiest with %d requests; want thousands, none over 25", len(by), most)
	}
}

// The batch job bursts at the top of each minute, and the server refused
// what passed batchAllowed in the second.
func TestBatchBursts(t *testing.T) {
	recs, _, _ := readAll(t, logOf(t, "-lines", "20000", "-rate", "10/s"), "combined", accesslog.Options{})
	perSecond := map[int64][2]int{} // answered, refused
	for _, r := range recs {
		if r.addr != batchAddr {
			continue
		}
		sec := r.time / int64(time.Second)
		if sec%60 != 0 {
			t.Fatalf("line %d: the batch job at %v, not at the top of a minute", r.line, time.Unix(sec, 0).UTC())
		}
		c := perSecond[sec]
		if r.status == 429 {
			c[1]++
		} else {
			c[0]++
		}
		perSecond[sec] = c
	}
	// 10/s · 0.3 · 0.3 is 54 a minute: 20 answered, 34 refused.
	if len(perSecond) < 30 {
		t.Fatalf("%d bursts in 2,000 s, want about 33", len(perSecond))
	}
	for sec, c := range perSecond {
		if c[0] > batchAllowed || c[0]+c[1] > batchAllowed && c[0] != batchAllowed {
			t.Errorf("%v: %d answered and %d refused, want the first %d answered", time.Unix(sec, 0).UTC(), c[0], c[1], batchAllowed)
		}
	}
}

func TestGzipReadsBack(t *testing.T) {
	for _, format := range []string{"combined", "json"} {
		t.Run(format, func(t *testing.T) {
			plain := logOf(t, "-lines", "4000", "-odd", "-format", format)
			zipped := logOf(t, "-lines", "4000", "-odd", "-format", format, "-gzip")
			zr, err := gzip.NewReader(bytes.NewReader(zipped))
			if err != nil {
				t.Fatal(err)
			}
			unzipped, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(unzipped, plain) {
				t.Fatal("-gzip's output unzipped differs from the plain output")
			}
			a, _, _ := readAll(t, plain, format, accesslog.Options{})
			b, _, _ := readAll(t, zipped, format, accesslog.Options{})
			if len(a) != len(b) || len(a) != 3999 {
				t.Errorf("%d records from the plain log, %d from the gzipped, want 3999 each", len(a), len(b))
			}
		})
	}
}
