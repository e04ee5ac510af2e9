package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestMarkedMatchesAFreshRun: the lab's count of fallback refusals and
// admissions beyond the policy over any span equals a fresh run's, after
// the clock went back and forth and the timeline was rewritten.
func TestMarkedMatchesAFreshRun(t *testing.T) {
	t.Parallel()
	s := randomTraffic(t, 15, 2*CheckpointEvery+100, gatewayLanes, 2)
	lab, err := New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := reference(t, s, 0)
	lanes := len(lab.Lanes())
	rng := rand.New(rand.NewPCG(15, 2))
	check := func(when string) {
		for range 30 {
			lo := rng.IntN(lab.Len())
			hi := lo + rng.IntN(lab.Len()-lo+1)
			for lane := range lanes {
				var down, beyond int
				for i := lo; i < hi; i++ {
					d := recs[i*lanes+lane].Decision
					if d.Fallback != algorithms.NoFallback && d.Outcome == algorithms.Rejected {
						down++
					}
					if d.Beyond > 0 {
						beyond++
					}
				}
				if gd, gb := lab.Marked(lane, lo, hi); gd != down || gb != beyond {
					t.Fatalf("%s: lane %d [%d, %d): marked %d down, %d beyond; a fresh run %d, %d", when, lane, lo, hi, gd, gb, down, beyond)
				}
			}
		}
	}
	check("first")
	lab.Seek(lab.End())
	lab.Seek(time.Second)
	check("after going back")
	// Requests fired early rewrite what follows; undoing them rewrites it
	// back, and the marks must follow both.
	if _, err := lab.FireAt(500*time.Millisecond, "k1", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := lab.FireBurst("k2", 1, 20); err != nil {
		t.Fatal(err)
	}
	lab.Seek(lab.End()) // decide past the rewrite
	lab.Undo()
	lab.Undo()
	check("after firing and undoing")
	total := 0
	for lane := range lanes {
		_, b := lab.Marked(lane, 0, lab.Len())
		total += b
	}
	if total == 0 {
		t.Errorf("nothing marked: the lanes are too tame to test marks")
	}
}
