package ui

import (
	"time"

	"ratelab/model"
)

// place is where the clock stands: an instant and how many of the
// requests arriving at it are decided ("request k of m" in the header).
// A change that rebuilds the lab (M, a reloaded file, an undo far back)
// returns to its place, not only to its time, which would decide the
// whole instant.
type place struct {
	t time.Duration
	k int
}

// placeOf is where lab's clock stands.
func placeOf(lab *model.Lab) place {
	k, _ := lab.Instant()
	return place{t: lab.Now(), k: k}
}

// seek returns lab's clock to p: the instant p.t, with the first p.k
// of its requests decided (all of them when it has p.k or fewer).
func (p place) seek(lab *model.Lab) {
	lab.Seek(p.t)
	if _, m := lab.Instant(); p.k < m {
		lab.SeekPos(lab.Pos() - m + p.k)
	}
}
