package fit

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// refusals runs the real limiter of p over reqs, one state for all or one
// a key, independently of fit's own passes: how many it refused, and the
// longest delay it gave.
func refusals(t *testing.T, p algorithms.Policy, reqs []scenarios.Request, byKey bool) (int64, time.Duration) {
	t.Helper()
	lim, err := algorithms.New(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	var refused int64
	var wait time.Duration
	for _, r := range reqs {
		key := ""
		if byKey {
			key = r.Key
		}
		d := lim.Decide(r.At, key, r.Cost)
		if d.Outcome == algorithms.Rejected {
			refused++
		}
		wait = max(wait, d.Delay)
	}
	return refused, wait
}

// pointAt is the point of algorithm a at rate r or window w.
func pointAt(t *testing.T, res *Result, a algorithms.Algorithm, r algorithms.Rate, w time.Duration) Point {
	t.Helper()
	f := res.Frontier(a)
	if f == nil {
		t.Fatalf("no frontier for %s", a)
	}
	for _, p := range f.Points {
		if (f.Axis == ByRate && p.Rate == r) || (f.Axis == ByWindow && p.Window == w) {
			return p
		}
	}
	t.Fatalf("%s has no point at %s / %s", a, r, w)
	return Point{}
}

// randomTrace is n requests over keys, seeded: runs of bursts and quiet,
// costs from 1 to maxCost, times sometimes equal.
func randomTrace(seed uint64, n, keys int, maxCost int64) []scenarios.Request {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	reqs := make([]scenarios.Request, n)
	at := time.Duration(rng.Int64N(int64(time.Second)))
	for i := range reqs {
		switch rng.IntN(10) {
		case 0: // a burst: the same instant
		case 1: // a pause
			at += time.Duration(rng.Int64N(int64(20 * time.Second)))
		default:
			at += time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
		}
		key := string(rune('a' + rng.IntN(keys)))
		if rng.IntN(3) == 0 {
			key = "a" // one busy key
		}
		reqs[i] = scenarios.Request{At: at, Key: key, Cost: 1 + rng.Int64N(maxCost)}
	}
	return reqs
}
