package fit

import (
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
)

func TestLadderIsAscending(t *testing.T) {
	for i := 1; i < len(ladder); i++ {
		if cmpRate(ladder[i-1], ladder[i]) >= 0 {
			t.Fatalf("ladder[%d] %s is not below ladder[%d] %s", i-1, ladder[i-1], i, ladder[i])
		}
	}
	if last := ladder[len(ladder)-1]; last != (algorithms.Rate{N: 1_000_000, Per: time.Second}) {
		t.Fatalf("the ladder ends at %s", last)
	}
}

func TestRateGrid(t *testing.T) {
	perS := func(n int64) algorithms.Rate { return algorithms.Rate{N: n, Per: time.Second} }
	// 300 over 100s is 3/s; the peak, 2 in 10ms, is 200/s. The ladder
	// from 3/s to 200/s has 21 rates: 12 of them, both ends kept.
	sv := survey{requests: 300, busiestCost: 300, busiestFirst: 0, busiestLast: 100 * time.Second, peak: 2}
	got := rateGrid(sv, nil)
	if len(got) != gridPoints || got[0] != perS(3) || got[len(got)-1] != perS(200) {
		t.Fatalf("grid %v", got)
	}
	// Extras are merged in order; 60/min is 1/s, listed once.
	got = rateGrid(sv, []algorithms.Rate{perS(1), {N: 60, Per: time.Minute}, {N: 7, Per: 3 * time.Second}})
	if got[0] != perS(1) || got[1] != (algorithms.Rate{N: 7, Per: 3 * time.Second}) || len(got) != gridPoints+2 {
		t.Fatalf("grid with extras %v", got)
	}
	if !slices.IsSortedFunc(got, cmpRate) {
		t.Fatalf("not in order: %v", got)
	}
	// A mean at the peak, 100/s: the grid is widened below to three rates.
	sv = survey{requests: 100, busiestCost: 100, busiestLast: time.Second, peak: 1}
	if got := rateGrid(sv, nil); !slices.Equal(got, []algorithms.Rate{perS(70), perS(80), perS(100)}) {
		t.Fatalf("narrow grid %v", got)
	}
}

func TestWindowGrid(t *testing.T) {
	sv := survey{requests: 2, first: time.Second, last: 11 * time.Minute}
	got := windowGrid(sv, []time.Duration{3 * time.Second, time.Minute})
	want := []time.Duration{time.Second, 3 * time.Second, 10 * time.Second, time.Minute, 10 * time.Minute}
	if !slices.Equal(got, want) {
		t.Fatalf("windows %v, want %v", got, want)
	}
	if got := windowGrid(survey{requests: 1}, nil); !slices.Equal(got, []time.Duration{time.Second}) {
		t.Fatalf("an instant's windows %v", got)
	}
}
