package model

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// latencyOf is, for the test, the Latency of n served requests of which the nonzero
// latencies are nonzero (any order; it is sorted in place) and the rest 0.
func latencyOf(n int64, nonzero []time.Duration) Latency {
	if n == 0 {
		return Latency{}
	}
	slices.Sort(nonzero)
	zeros := n - int64(len(nonzero))
	at := func(q int64) time.Duration {
		rank := (q*n + 99) / 100 // 1-based
		if rank <= zeros {
			return 0
		}
		return nonzero[rank-zeros-1]
	}
	l := Latency{N: n, P50: at(50), P95: at(95), P99: at(99)}
	if len(nonzero) > 0 {
		l.Max = nonzero[len(nonzero)-1]
	}
	return l
}

func TestLatencyCountsAreTheSortedList(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for range 200 {
		n := rng.Int64N(60)
		var waits []time.Duration
		var c latencyCounts
		for range rng.Int64N(n + 1) {
			d := time.Duration(1 + rng.Int64N(5))
			waits = append(waits, d)
			c.add(d)
		}
		if got, want := c.latency(n), latencyOf(n, waits); got != want {
			t.Fatalf("%d served, waits %v: counts %+v, list %+v", n, waits, got, want)
		}
	}
	// Nearest rank by hand: 0 0 1 2 3 4 5 6 7 8.
	waits := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8}
	if got := latencyOf(10, waits); got != (Latency{N: 10, P50: 3, P95: 8, P99: 8, Max: 8}) {
		t.Errorf("%+v", got)
	}
}
