package model

import "ratelab/algorithms"

// Tally counts a lane's outcomes over a run of requests.
type Tally struct {
	Allowed, Delayed, Rejected int
}

// Total is the number of requests counted.
func (t Tally) Total() int { return t.Allowed + t.Delayed + t.Rejected }

func (t *Tally) add(o algorithms.Outcome) {
	switch o {
	case algorithms.Allowed:
		t.Allowed++
	case algorithms.Delayed:
		t.Delayed++
	case algorithms.Rejected:
		t.Rejected++
	}
}

func (t *Tally) plus(u Tally) {
	t.Allowed += u.Allowed
	t.Delayed += u.Delayed
	t.Rejected += u.Rejected
}

// tallyBlock is how many requests one precomputed tally covers: a Tally of
// any range reads at most two partial blocks and one sum per whole block,
// so a zoomed-out timeline costs what is on screen, not what is in it.
const tallyBlock = 256 // divides CheckpointEvery

// Tally counts lane's outcomes on requests lo ≤ i < hi.
func (l *Lab) Tally(lane, lo, hi int) Tally { return l.engine.tally(lane, lo, hi) }

// tally counts lane's outcomes on events[lo:hi], deciding them if need be.
func (e *engine) tally(lane, lo, hi int) Tally {
	lo, hi = max(lo, 0), min(hi, e.tl.len())
	var t Tally
	if lo >= hi {
		return t
	}
	e.ensure(hi)
	outcomes, blocks := e.outcomes[lane], e.blocks[lane]
	for ; lo < hi && lo%tallyBlock != 0; lo++ {
		t.add(outcomes[lo])
	}
	for ; lo+tallyBlock <= hi; lo += tallyBlock {
		t.plus(blocks[lo/tallyBlock])
	}
	for ; lo < hi; lo++ {
		t.add(outcomes[lo])
	}
	return t
}
