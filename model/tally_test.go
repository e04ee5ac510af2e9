package model

import (
	"math/rand/v2"
	"testing"
)

func TestTallyCountsLikeALoop(t *testing.T) {
	s := randomScenario(t, 9, 3000)
	l := newLab(t, s)
	rng := rand.New(rand.NewPCG(9, 9))
	for range 300 {
		lo := rng.IntN(l.Len() + 10)
		hi := lo + rng.IntN(l.Len()-min(lo, l.Len())+10)
		lane := rng.IntN(len(s.Lanes))
		var want Tally
		for i := max(lo, 0); i < min(hi, l.Len()); i++ {
			want.add(l.Outcome(lane, i))
		}
		if got := l.Tally(lane, lo, hi); got != want {
			t.Fatalf("Tally(%d, %d, %d) = %+v, want %+v", lane, lo, hi, got, want)
		}
	}
	// A what-if changes the tallies after it.
	l.FireAt(0, "k0", 3)
	var want Tally
	for i := 0; i < l.Len(); i++ {
		want.add(l.Outcome(0, i))
	}
	if got := l.Tally(0, 0, l.Len()); got != want {
		t.Fatalf("after a what-if, Tally = %+v, want %+v", got, want)
	}
}
