package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestClientLogSpans checks the log's block sums against counting, through
// appends and truncations.
func TestClientLogSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var cl clientLog
	var at time.Duration
	pos := 0
	for round := range 8000 {
		if rng.IntN(500) == 0 && pos > 0 {
			pos -= rng.IntN(min(pos, 300) + 1)
			cl.truncate(pos)
			if n := len(cl.ev); n > 0 {
				at = cl.ev[n-1].at
			}
		}
		at += time.Duration(rng.IntN(3))
		pos += rng.IntN(2)
		n := 1 + rng.IntN(3)
		if rng.IntN(150) == 0 {
			n = 12 // rare: a truncation must forget it
		}
		d := algorithms.Decision{Outcome: algorithms.Rejected}
		if rng.IntN(3) == 0 {
			d.Outcome = algorithms.Allowed
		}
		a := Attempt{N: n, Original: pos, Fate: Retrying}
		if n == 1 {
			a.Fate, a.Latency = Served, 1
		}
		cl.add(pos, at, &d, &a)
		if round%7 != 0 {
			continue
		}
		j0 := rng.IntN(len(cl.ev) + 1)
		j1 := j0 + rng.IntN(len(cl.ev)-j0+1)
		var want RetrySpan
		for _, e := range cl.ev[j0:j1] {
			if e.n > 1 {
				want.Retries++
				if e.ok {
					want.Admitted++
				}
				want.Highest = max(want.Highest, int(e.n))
			}
		}
		if got := cl.span(j0, j1); got != want {
			t.Fatalf("round %d, span [%d, %d) of %d: %+v, counted %+v", round, j0, j1, len(cl.ev), got, want)
		}
	}
}
