package accesslog

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// readRequests reads text in the format f through a RequestReader, with
// workers parsing goroutines (for nginx's formats) and blocks of lines
// lines: each request, or error, a line, then the counts, the bad lines
// kept and the diagnosis.
func readRequests(t *testing.T, text string, f Format, opts Options, rules Rules, workers, lines int) string {
	t.Helper()
	oldWorkers, oldLines := parseWorkers, blockLines
	parseWorkers, blockLines = func() int { return workers }, lines
	defer func() { parseWorkers, blockLines = oldWorkers, oldLines }()
	rr := NewRequestReader(strings.NewReader(text), "log", f, opts, rules)
	var b strings.Builder
	var err error
	for {
		var q Request
		q, err = rr.Next()
		var oe *OrderError
		if errors.As(err, &oe) {
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		if err != nil {
			break
		}
		fmt.Fprintf(&b, "line %d at %d key %s cost %d\n", q.Line, q.Time, q.Key, q.Cost)
	}
	first, _ := rr.First()
	return b.String() + tail(err, rr.Stats(), first, rr.Dropped(), rr.BadLines(), rr.Diagnosis())
}

// readThroughReader is what readRequests writes, read by a Reader and
// then Rules: one goroutine, whole records, the rules after the order.
func readThroughReader(text string, f Format, opts Options, rules Rules) string {
	rd := NewReader(strings.NewReader(text), "log", f, opts)
	var b strings.Builder
	var err error
	var first, kept, dropped int64
	seen := false
	for {
		var rec Record
		rec, err = rd.Next()
		var oe *OrderError
		if errors.As(err, &oe) {
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		if err != nil {
			break
		}
		if !seen {
			first, seen = rec.Time, true
		}
		key, cost, keep := rules.Apply(&rec)
		if !keep {
			dropped++
			continue
		}
		kept++
		fmt.Fprintf(&b, "line %d at %d key %s cost %d\n", rec.Line, rec.Time, key, cost)
	}
	st := rd.Stats()
	st.Records = kept
	return b.String() + tail(err, st, first, dropped, rd.BadLines(), rd.Diagnosis())
}

// tail writes how a reading ended: its error, counts, first time and
// lines dropped (these two only for a reading that reached the end: one
// stopped by an error may have read lines its records never came from),
// the bad lines kept and the diagnosis.
func tail(err error, st Stats, first, dropped int64, bad []*LineError, diagnosis string) string {
	var b strings.Builder
	if err != io.EOF {
		fmt.Fprintf(&b, "error: %v\n", err)
		fmt.Fprintf(&b, "stats %+v\n", st)
	} else {
		fmt.Fprintf(&b, "stats %+v first %d dropped %d\n", st, first, dropped)
	}
	for _, le := range bad {
		fmt.Fprintf(&b, "bad: %v\n", le)
	}
	fmt.Fprintf(&b, "diagnosis: %s\n", diagnosis)
	return b.String()
}

// TestParallelMatchesOneReader: logs parsed in blocks by one goroutine
// or several give what a Reader and Rules give, line for line: the requests, the
// order errors, the counts, the bad lines kept, the diagnosis, Strict's
// stop at the first bad line, a last line without a newline, a line too
// long, empty lines, CRLF and a byte order mark.
func TestParallelMatchesOneReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	for round := range 40 {
		var b strings.Builder
		if round%7 == 0 {
			b.WriteString("\xef\xbb\xbf") // a byte order mark, dropped from the first line only
		}
		latest := 0
		n := 50 + rng.IntN(300)
		badShare := []int{0, 3, 30, 45}[round%4] // percent: round%4 == 3 is mostly bad, for a diagnosis
		for i := range n {
			s := max(0, latest+rng.IntN(3)-rng.IntN(20))
			latest = max(latest, s)
			switch r := rng.IntN(100); {
			case r < badShare:
				b.WriteString("not a log line")
			case r < badShare+2:
				// empty
			case r < badShare+3:
				b.WriteString(strings.Repeat("x", 300)) // past MaxLineBytes below
			case round%3 == 2 && r < 60:
				// The common format, which Diagnosis names when most
				// lines are in it: "the first 16 lines parse best as …".
				at := base.Add(time.Duration(s) * time.Second).Format("02/Jan/2006:15:04:05 -0700")
				fmt.Fprintf(&b, `192.0.2.9 - - [%s] "GET / HTTP/1.1" 200 1`, at)
			default:
				addr := fmt.Sprintf("192.0.2.%d", rng.IntN(4))
				b.WriteString(combinedLine(nginxEscape, addr, "", base.Add(time.Duration(s)*time.Second), "GET /api/x HTTP/1.1", 200+rng.IntN(2)*229, 1, "", ""))
			}
			if i < n-1 || rng.IntN(2) == 0 {
				b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
			}
		}
		if round%4 == 1 {
			b.WriteString("\n192.0.2.1 - - [01/Ma") // cut short, with no newline
		}
		opts := Options{LookBehind: time.Duration(rng.IntN(15)) * time.Second, Strict: round%5 == 4, KeepBad: 1 + rng.IntN(4), MaxLineBytes: 250}
		rules := Rules{Filter: Filter{Statuses: []StatusRange{{200, 299}}}}
		want := readThroughReader(b.String(), Combined, opts, rules)
		for _, workers := range []int{1, 3} {
			for _, lines := range []int{1, 7, 64} {
				if got := readRequests(t, b.String(), Combined, opts, rules, workers, lines); got != want {
					t.Fatalf("round %d, %d goroutines, blocks of %d lines give\n%s\na Reader and Rules give\n%s", round, workers, lines, got, want)
				}
			}
		}
	}
}

// TestBlocksKeepALinesState: a CSV log's header and a JSON log's
// resolution, learned from their first lines, hold across blocks: read
// in blocks of a line, they give what a Reader and Rules give.
func TestBlocksKeepALinesState(t *testing.T) {
	csv, err := ParseFormat("csv", "time=t,unit=ms")
	if err != nil {
		t.Fatal(err)
	}
	jsonl, err := ParseFormat("json", "time=t")
	if err != nil {
		t.Fatal(err)
	}
	var c, j strings.Builder
	c.WriteString("t,remote_addr\n")
	for i := range 40 {
		fmt.Fprintf(&c, "%d,192.0.2.%d\n", 1700000000000+int64(i*250), i%3)
		fmt.Fprintf(&j, `{"t": "2026-11-24T09:00:%02d.%03dZ", "remote_addr": "192.0.2.%d"}`+"\n", i/4, i%4*250, i%3)
		if i%9 == 0 {
			c.WriteString("not,a,row,at,all\n")
			j.WriteString("{not json\n")
		}
	}
	for _, tc := range []struct {
		name string
		f    Format
		text string
	}{{"csv", csv, c.String()}, {"json", jsonl, j.String()}} {
		want := readThroughReader(tc.text, tc.f, Options{}, Rules{})
		if got := readRequests(t, tc.text, tc.f, Options{}, Rules{}, 3, 1); got != want {
			t.Errorf("%s in blocks of a line:\n%s\na Reader and Rules give\n%s", tc.name, got, want)
		}
		if !strings.Contains(want, "line 5 at") || !strings.Contains(want, "bad: ") {
			t.Errorf("%s: the test's log reads as\n%s\nwant requests and bad lines", tc.name, want)
		}
	}
}
