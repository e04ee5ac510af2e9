package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

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
	for trial := range rounds(150, 50) {
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
