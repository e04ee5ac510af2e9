package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// checkBruteForce is what Check answers, computed the slow way: every
// expectation looks at every request, and the peak is brute force over the
// selected admissions' releases. It returns every expectation's "got".
func checkBruteForce(t *testing.T, s *scenarios.Scenario) []string {
	t.Helper()
	var recs []Record
	if _, err := Run(s, Options{}, func(r Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	var gots []string
	for i := range s.Expect {
		e := &s.Expect[i]
		var o Tally
		var rel []passage
		var mismatch *Record
		for _, r := range recs {
			if s.Lanes[r.Lane].Name != e.Lane || !e.Selects(r.Request) {
				continue
			}
			o.add(r.Decision.Outcome)
			if r.Decision.Outcome.Admitted() {
				rel = append(rel, passage{r.Request.At + r.Decision.Delay, r.Request.Cost})
			}
			if e.Outcome != nil && r.Decision.Outcome != *e.Outcome && mismatch == nil {
				mismatch = &r
			}
		}
		var got []string
		for _, c := range []struct {
			name string
			want *int64
			got  int
		}{{"allowed", e.Allowed, o.Allowed}, {"admitted", e.Admitted, o.Allowed + o.Delayed}, {"delayed", e.Delayed, o.Delayed}, {"rejected", e.Rejected, o.Rejected}} {
			if c.want != nil {
				got = append(got, fmt.Sprintf("%s %d", c.name, c.got))
			}
		}
		if e.Peak != nil {
			peak, at := bruteForcePeak(rel, e.PeakWindow)
			got = append(got, fmt.Sprintf("peak %d per %s (window ending %s)", peak, algorithms.FormatDuration(e.PeakWindow), algorithms.FormatSeconds(at)))
		}
		if e.Outcome != nil {
			switch {
			case o.Total() == 0:
				got = append(got, "no request selected")
			case mismatch != nil:
				got = append(got, fmt.Sprintf("the request at %s (key %s) was %s: %s", algorithms.FormatSeconds(mismatch.Request.At),
					mismatch.Request.Key, mismatch.Decision.Outcome, mismatch.Decision.Explain()))
			default:
				got = append(got, fmt.Sprintf("all %d %s", o.Total(), *e.Outcome))
			}
		}
		gots = append(gots, strings.Join(got, ", "))
	}
	return gots
}

// trafficShape bounds writeRandomTraffic's items: times in ms.
type trafficShape struct {
	items, maxCost              int
	burstAt, burstCount, spread int    // a burst: at < burstAt, 1 to burstCount requests over < spread
	every                       [2]int // a periodic item's step, in [every[0], every[1])
	from, span                  int    // its from < from, until from + 1 to span later
	singleAt                    int    // a single request: at < singleAt
}

// writeRandomTraffic writes a traffic list of sh.items random items —
// bursts, periodic items and single requests on keys a, b and c, of costs 1
// to sh.maxCost (single requests cost 1) — as the random check scenarios
// use.
func writeRandomTraffic(b *strings.Builder, rng *rand.Rand, sh trafficShape) {
	ms := func(lo, hi int) string { return fmt.Sprintf("%dms", lo+rng.IntN(hi-lo)) }
	b.WriteString("traffic:\n")
	keys := []string{"a", "b", "c"}
	for range sh.items {
		key, cost := keys[rng.IntN(3)], 1+rng.IntN(sh.maxCost)
		switch rng.IntN(3) {
		case 0:
			fmt.Fprintf(b, "  - {at: %s, count: %d, spread: %s, key: %s, cost: %d}\n", ms(0, sh.burstAt), 1+rng.IntN(sh.burstCount), ms(0, sh.spread), key, cost)
		case 1:
			from := rng.IntN(sh.from)
			fmt.Fprintf(b, "  - {every: %s, from: %dms, until: %dms, key: %s, cost: %d}\n", ms(sh.every[0], sh.every[1]), from, from+1+rng.IntN(sh.span), key, cost)
		default:
			fmt.Fprintf(b, "  - {at: %s, key: %s}\n", ms(0, sh.singleAt), key)
		}
	}
}

// randomCheckScenario is a small scenario of every kind of lane and
// traffic, with n random expectations that all fail (each asserts a count
// of −1 beside what it measures), so that Check reports what it measured
// for every one of them.
func randomCheckScenario(t *testing.T, rng *rand.Rand, n int) *scenarios.Scenario {
	t.Helper()
	ms := func(lo, hi int) string { return fmt.Sprintf("%dms", lo+rng.IntN(hi-lo)) }
	var b strings.Builder
	b.WriteString("title: t\nduration: 3s\nlimiters:\n")
	b.WriteString("  - {name: fixed, algorithm: fixed-window, limit: " + fmt.Sprint(3+rng.IntN(6)) + ", window: " + ms(50, 400) + "}\n")
	b.WriteString("  - {name: log, algorithm: sliding-log, limit: " + fmt.Sprint(3+rng.IntN(6)) + ", window: " + ms(50, 400) + "}\n")
	b.WriteString("  - {name: bucket, algorithm: token-bucket, capacity: " + fmt.Sprint(3+rng.IntN(4)) + ", rate: " + fmt.Sprint(5+rng.IntN(30)) + "/s}\n")
	b.WriteString("  - {name: shaper, algorithm: leaky-bucket, queue: " + fmt.Sprint(2+rng.IntN(5)) + ", rate: " + fmt.Sprint(5+rng.IntN(30)) + "/s}\n")
	writeRandomTraffic(&b, rng, trafficShape{items: 1 + rng.IntN(5), maxCost: 3, burstAt: 2500, burstCount: 20, spread: 300,
		every: [2]int{5, 60}, from: 1500, span: 1500, singleAt: 2900})
	s := parse(t, b.String())
	lanes := []string{"fixed", "log", "bucket", "shaper"}
	minus := int64(-1)
	var ats []time.Duration
	for r := range s.Requests() {
		ats = append(ats, r.At)
	}
	// near is a random time, or often one where a request arrives, or a
	// nanosecond either side of one: the boundaries that matter.
	near := func() time.Duration {
		if len(ats) == 0 || rng.IntN(3) == 0 {
			return time.Duration(rng.IntN(3000)) * time.Millisecond
		}
		return max(0, ats[rng.IntN(len(ats))]+time.Duration(rng.IntN(3)-1))
	}
	for range n {
		e := scenarios.Expectation{Lane: lanes[rng.IntN(len(lanes))], Admitted: &minus}
		if k := rng.IntN(5); k < 4 {
			e.Key = []string{"", "a", "b", "d"}[k] // d sends no request
		}
		switch rng.IntN(4) {
		case 0: // the whole run
			e.Until = s.Duration
		case 1: // an instant
			at := near()
			e.From, e.Until, e.Instant = at, at+1, true
		default:
			e.From, e.Until = near(), near()
			if e.From > e.Until {
				e.From, e.Until = e.Until, e.From
			}
			e.Until = min(e.Until+1, s.Duration)
		}
		if rng.IntN(2) == 0 {
			peak := int64(-1)
			e.Peak = &peak
			e.PeakWindow = []time.Duration{1, time.Millisecond, 50 * time.Millisecond, 333 * time.Millisecond, time.Second, 8784 * time.Hour}[rng.IntN(6)]
			if rng.IntN(2) == 0 { // the gap between two requests, give or take 1ns
				if d := near() - near() + time.Duration(rng.IntN(3)-1); d > 0 {
					e.PeakWindow = d
				}
			}
		}
		if rng.IntN(2) == 0 {
			o := algorithms.Outcome(rng.IntN(3))
			e.Outcome = &o
		}
		if rng.IntN(3) == 0 {
			a := int64(-1)
			e.Rejected = &a
		}
		s.Expect = append(s.Expect, e)
	}
	return s
}

// TestCheckMatchesBruteForce compares every expectation's measures (counts,
// peak and its window, the first request with another outcome) with a
// brute force over random scenarios; many expectations share a lane, key
// and window with different ranges, or are identical.
func TestCheckMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for trial := range 300 {
		s := randomCheckScenario(t, rng, 1+rng.IntN(40))
		// Some identical expectations, sharing a tracker or a group.
		for _, i := range []int{rng.IntN(len(s.Expect)), rng.IntN(len(s.Expect))} {
			s.Expect = append(s.Expect, s.Expect[i])
		}
		want := checkBruteForce(t, s)
		failures, err := Check(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(failures) != len(s.Expect) {
			t.Fatalf("trial %d: %d failures for %d expectations that all fail", trial, len(failures), len(s.Expect))
		}
		for i, f := range failures {
			if f.Got != want[i] {
				t.Fatalf("trial %d, expectation %d (%s):\n got %s\nwant %s", trial, i, s.Expect[i].String(), f.Got, want[i])
			}
		}
	}
}

// TestRangeMaxMatchesBruteForce: each query's answer is the largest value
// pushed while it was open, first reached.
func TestRangeMaxMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for trial := range 300 {
		var m rangeMax
		type q struct {
			id       int32
			from, to int // values[from:to] arrived while open
		}
		var values []int64
		var open, done []q
		for range rng.IntN(200) {
			switch rng.IntN(4) {
			case 0:
				open = append(open, q{id: m.open(), from: len(values)})
			case 1:
				if len(open) > 0 {
					i := rng.IntN(len(open))
					x := open[i]
					x.to = len(values)
					best, at := m.result(x.id)
					wantBest, wantAt := int64(-1), time.Duration(0)
					for j := x.from; j < x.to; j++ {
						if values[j] > wantBest {
							wantBest, wantAt = values[j], time.Duration(j)
						}
					}
					if best != wantBest || at != wantAt {
						t.Fatalf("trial %d: query over values %d..%d: %d at %d, want %d at %d", trial, x.from, x.to, best, at, wantBest, wantAt)
					}
					done = append(done, x)
					open = append(open[:i], open[i+1:]...)
				}
			default:
				v := int64(rng.IntN(20))
				m.push(v, time.Duration(len(values)))
				values = append(values, v)
			}
		}
	}
}

// TestCheckDelayingPeaksMatchBruteForce: peaks on lanes that delay, over
// ranges long and short against window + the lane's longest delay D, so
// that the group's middle and the trackers' edges all take part: windows,
// Froms and Untils on a request's arrival or release or D away from it,
// give or take a nanosecond, ranges of exactly window + D give or take a
// nanosecond, and identical and overlapping expectations.
func TestCheckDelayingPeaksMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	for trial := range 150 {
		ms := func(lo, hi int) string { return fmt.Sprintf("%dms", lo+rng.IntN(hi-lo)) }
		var b strings.Builder
		b.WriteString("title: t\nduration: 12s\nlimiters:\n")
		// s1 is any delaying algorithm, or gateways of a leaky bucket each
		// with its own queue (whose releases come in order per gateway,
		// not per key): their releases wait grouped by source.
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "  - {name: s1, algorithm: x-time-rate-reserve, burst: %d, rate: %d/s, max_wait: 1s}\n", 2+rng.IntN(4), 5+rng.IntN(60))
		case 1:
			fmt.Fprintf(&b, "  - {name: s1, algorithm: guava-try, rate: %d/s, timeout: 700ms}\n", 5+rng.IntN(60))
		case 2:
			fmt.Fprintf(&b, "  - {name: s1, algorithm: nginx-limit-req, rate: %dr/s, burst: %d, delay: %d}\n", 5+rng.IntN(60), 2+rng.IntN(8), rng.IntN(2))
		case 3:
			fmt.Fprintf(&b, "  - {name: s1, algorithm: leaky-bucket, queue: %d, rate: %d/s, gateways: 3}\n", 1+rng.IntN(8), 5+rng.IntN(60))
		default:
			fmt.Fprintf(&b, "  - {name: s1, algorithm: leaky-bucket, queue: %d, rate: %d/s}\n", 1+rng.IntN(8), 5+rng.IntN(60))
		}
		fmt.Fprintf(&b, "  - {name: s2, algorithm: leaky-bucket, queue: %d, rate: 1/%s}\n", 1+rng.IntN(4), ms(20, 300))
		b.WriteString("  - {name: log, algorithm: sliding-log, limit: 5, window: 200ms}\n")
		writeRandomTraffic(&b, rng, trafficShape{items: 2 + rng.IntN(6), maxCost: 2, burstAt: 10000, burstCount: 30, spread: 500,
			every: [2]int{3, 80}, from: 8000, span: 4000, singleAt: 11000})
		s := parse(t, b.String())
		defs := LanesOf(s)
		var recs []Record
		if _, err := Run(s, Options{}, func(r Record) error { recs = append(recs, r); return nil }); err != nil {
			t.Fatal(err)
		}
		// Instants that matter: arrivals and releases.
		var ats []time.Duration
		for _, r := range recs {
			ats = append(ats, r.Request.At, r.Request.At+r.Decision.Delay)
		}
		lanes := []string{"s1", "s1", "s2", "log"}
		near := func(d time.Duration) time.Duration {
			at := time.Duration(rng.IntN(12000)) * time.Millisecond
			if len(ats) > 0 && rng.IntN(4) > 0 {
				at = ats[rng.IntN(len(ats))]
			}
			switch rng.IntN(3) {
			case 1:
				at += d
			case 2:
				at -= d
			}
			return min(max(0, at+time.Duration(rng.IntN(3)-1)), s.Duration)
		}
		for range 1 + rng.IntN(30) {
			minus := int64(-1)
			e := scenarios.Expectation{Lane: lanes[rng.IntN(len(lanes))], Peak: &minus}
			if k := rng.IntN(4); k < 3 {
				e.Key = []string{"", "a", "b"}[k]
			}
			var d time.Duration
			for i, l := range s.Lanes {
				if l.Name == e.Lane {
					d = maxDelay(defs[i].Policy)
				}
			}
			switch rng.IntN(4) {
			case 0:
				e.PeakWindow = []time.Duration{1, time.Millisecond, 50 * time.Millisecond, 333 * time.Millisecond, time.Second, 8784 * time.Hour}[rng.IntN(6)]
			case 1:
				e.PeakWindow = max(1, d+time.Duration(rng.IntN(3)-1))
			default: // the gap between two instants, give or take 1ns
				e.PeakWindow = max(1, near(0)-near(0)+time.Duration(rng.IntN(3)-1))
				if e.PeakWindow <= 1 {
					e.PeakWindow = time.Duration(1+rng.IntN(500)) * time.Millisecond
				}
			}
			switch rng.IntN(5) {
			case 0:
				e.Until = s.Duration
			case 1: // a range of exactly window + D, give or take 1ns
				e.From = near(d)
				e.Until = min(e.From+e.PeakWindow+d+time.Duration(rng.IntN(3)-1), s.Duration)
			case 2: // the left edge ends on an arrival or release, give or take 1ns
				e.From, e.Until = near(e.PeakWindow+d), s.Duration
				if len(ats) > 0 && rng.IntN(2) == 0 { // a window ending there and starting after From + D
					e.From = max(0, ats[rng.IntN(len(ats))]-e.PeakWindow-d+1)
				}
			default:
				e.From, e.Until = near(d), near(d)
				if e.From > e.Until {
					e.From, e.Until = e.Until, e.From
				}
			}
			if rng.IntN(4) == 0 { // Until just after an arrival delayed by D: its release ends the last window
				var maxed []time.Duration
				for _, r := range recs {
					if s.Lanes[r.Lane].Name == e.Lane && r.Decision.Delay == d && d > 0 {
						maxed = append(maxed, r.Request.At)
					}
				}
				if len(maxed) > 0 {
					e.Until = maxed[rng.IntN(len(maxed))] + 1
					e.From = min(e.From, e.Until)
				}
			}
			s.Expect = append(s.Expect, e)
			if rng.IntN(4) == 0 { // one overlapping it, sharing an edge
				o := e
				if rng.IntN(2) == 0 {
					o.Until = near(d)
				} else {
					o.From = near(d)
				}
				s.Expect = append(s.Expect, o)
			}
		}
		s.Expect = append(s.Expect, s.Expect[rng.IntN(len(s.Expect))]) // identical
		want := checkBruteForce(t, s)
		if trial%2 == 1 { // the edges' windows move to a braid
			edgePlain = 1 + rng.IntN(4)
		}
		if trial%3 > 0 { // the releases due wait grouped by source, not in a plain queue
			duePlain = rng.IntN(4)
		}
		failures, err := Check(s)
		edgePlain, duePlain = 1024, 1024
		if err != nil {
			t.Fatal(err)
		}
		if len(failures) != len(s.Expect) {
			t.Fatalf("trial %d: %d failures for %d expectations that all fail", trial, len(failures), len(s.Expect))
		}
		for i, f := range failures {
			if f.Got != want[i] {
				t.Fatalf("trial %d, expectation %d (%s):\n got %s\nwant %s", trial, i, s.Expect[i].String(), f.Got, want[i])
			}
		}
	}
}
