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

// viaReader is what a Reader followed by rules gives for text: each
// request kept, or the error, one line each; and the first line's time.
func viaReader(text string, opts Options, rules Rules) (out []string, first int64) {
	rd := NewReader(strings.NewReader(text), "log", Combined, opts)
	seen := false
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out, first
		}
		var oe *OrderError
		if errors.As(err, &oe) {
			out = append(out, "error: "+err.Error())
			continue
		}
		if err != nil {
			return append(out, "error: "+err.Error()), first
		}
		if !seen {
			first, seen = rec.Time, true
		}
		if key, cost, keep := rules.Apply(&rec); keep {
			out = append(out, fmt.Sprintf("line %d at %d key %s cost %d", rec.Line, rec.Time, key, cost))
		}
	}
}

// viaRequests is the same through a RequestReader.
func viaRequests(text string, opts Options, rules Rules) (out []string, first int64, rr *RequestReader) {
	rr = NewRequestReader(strings.NewReader(text), "log", Combined, opts, rules)
	for {
		q, err := rr.Next()
		if err == io.EOF {
			first, _ = rr.First()
			return out, first, rr
		}
		var oe *OrderError
		if errors.As(err, &oe) {
			out = append(out, "error: "+err.Error())
			continue
		}
		if err != nil {
			return append(out, "error: "+err.Error()), first, rr
		}
		out = append(out, fmt.Sprintf("line %d at %d key %s cost %d", q.Line, q.Time, q.Key, q.Cost))
	}
}

// TestRequestsMatchAReaderAndRules: on shuffled logs with lines beyond the
// look-behind, bad lines and a filter dropping some, a RequestReader gives
// the requests, order errors and first time a Reader and Rules give.
func TestRequestsMatchAReaderAndRules(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	paths := []string{"/api/a", "/static/x.css", "/api/b?k=1", "/login"}
	for round := range 60 {
		lookBehind := time.Duration(rng.IntN(30)) * time.Second
		if round%10 == 0 {
			lookBehind = NoLookBehind
		}
		var b strings.Builder
		latest := 0
		for range 200 {
			s := latest + rng.IntN(4) - rng.IntN(40)
			s = max(s, 0)
			latest = max(latest, s)
			if rng.IntN(25) == 0 {
				b.WriteString("not a log line\n")
				continue
			}
			addr := fmt.Sprintf("192.0.2.%d", rng.IntN(5))
			req := "GET " + paths[rng.IntN(len(paths))] + " HTTP/1.1"
			b.WriteString(combinedLine(nginxEscape, addr, "", base.Add(time.Duration(s)*time.Second), req, 200+rng.IntN(2)*229, 10, "", "") + "\n")
		}
		rules := func() Rules {
			return Rules{Key: KeyRule{IPv4Bits: 24 + 8*(round%2)},
				Cost:   CostRule{Paths: []PathCost{{Prefix: "/api/", Cost: 3}}},
				Filter: Filter{PathPrefix: []string{"", "/api/"}[round%2], Statuses: []StatusRange{{200, 299}}}}
		}
		opts := Options{LookBehind: lookBehind}
		want, wantFirst := viaReader(b.String(), opts, rules())
		got, gotFirst, rr := viaRequests(b.String(), opts, rules())
		if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
			t.Fatalf("round %d (look-behind %v): a RequestReader gives\n%s\nwant\n%s", round, lookBehind, g, w)
		}
		if gotFirst != wantFirst {
			t.Errorf("round %d: First %d, want %d", round, gotFirst, wantFirst)
		}
		if rr.Dropped() == 0 {
			t.Errorf("round %d: the filter dropped nothing: the test tries no dropping", round)
		}
	}
}

// TestRequestsSpreadWhatIsKept: with SpreadEven, a second's requests kept
// by the filter are spread across it, the dropped lines taking no place.
func TestRequestsSpreadWhatIsKept(t *testing.T) {
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	line := func(s int, path string) string {
		return combinedLine(nginxEscape, "192.0.2.1", "", base.Add(time.Duration(s)*time.Second), "GET "+path+" HTTP/1.1", 200, 1, "", "")
	}
	text := strings.Join([]string{line(0, "/api/a"), line(0, "/static/x"), line(0, "/api/b"), line(0, "/static/y"), line(1, "/api/c")}, "\n") + "\n"
	got, _, _ := viaRequests(text, Options{Spread: SpreadEven}, Rules{Filter: Filter{PathPrefix: "/api/"}})
	s := base.UnixNano()
	want := []string{
		fmt.Sprintf("line 1 at %d key 192.0.2.1 cost 1", s),
		fmt.Sprintf("line 3 at %d key 192.0.2.1 cost 1", s+int64(time.Second)/2),
		fmt.Sprintf("line 5 at %d key 192.0.2.1 cost 1", s+int64(time.Second)),
	}
	diffLines(t, "requests", got, want)
}

// TestRequestsHoldLittle: a minute's look-behind over a log of 2,000 lines
// a second holds Requests, not lines: the records made stay few.
func TestRequestsHoldLittle(t *testing.T) {
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := range 200_000 {
		b.WriteString(combinedLine(nginxEscape, "192.0.2.1", "", base.Add(time.Duration(i/2000)*time.Second), "GET / HTTP/1.1", 200, 1, "", strings.Repeat("agent ", 30)) + "\n")
	}
	rr := NewRequestReader(strings.NewReader(b.String()), "", Combined, Options{}, Rules{})
	n := 0
	for {
		if _, err := rr.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if held := cap(rr.order.fifo); n != 200_000 || held < 100_000 {
		t.Fatalf("%d requests, at most %d held: the test holds too little to tell", n, held)
	}
	if made := len(rr.rd.free); made > 2 {
		t.Errorf("%d records made: the records are held, not reduced", made)
	}
}
