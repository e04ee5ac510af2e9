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

// readRequests reads text through a RequestReader, with workers parsing
// goroutines and blocks of lines lines: each request, or error, a line,
// then the counts, the bad lines kept and the diagnosis.
func readRequests(t *testing.T, text string, opts Options, rules Rules, workers, lines int) string {
	t.Helper()
	oldWorkers, oldLines := parseWorkers, blockLines
	parseWorkers, blockLines = func() int { return workers }, lines
	defer func() { parseWorkers, blockLines = oldWorkers, oldLines }()
	rr := NewRequestReader(strings.NewReader(text), "log", Combined, opts, rules)
	var b strings.Builder
	for {
		q, err := rr.Next()
		if err == io.EOF {
			break
		}
		var oe *OrderError
		if errors.As(err, &oe) {
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			break
		}
		fmt.Fprintf(&b, "line %d at %d key %s cost %d\n", q.Line, q.Time, q.Key, q.Cost)
	}
	first, _ := rr.First()
	fmt.Fprintf(&b, "stats %+v first %d dropped %d\n", rr.Stats(), first, rr.Dropped())
	for _, le := range rr.BadLines() {
		fmt.Fprintf(&b, "bad: %v\n", le)
	}
	fmt.Fprintf(&b, "diagnosis: %s\n", rr.Diagnosis())
	return b.String()
}

// TestParallelMatchesOneReader: logs parsed by several goroutines in
// blocks give what one goroutine gives, line for line: the requests, the
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
		want := readRequests(t, b.String(), opts, rules, 1, blockLines)
		for _, lines := range []int{1, 7, 64} {
			if got := readRequests(t, b.String(), opts, rules, 3, lines); got != want {
				t.Fatalf("round %d, blocks of %d lines: three goroutines give\n%s\none gives\n%s", round, lines, got, want)
			}
		}
	}
}
