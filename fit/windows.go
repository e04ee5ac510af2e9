package fit

import (
	"math/bits"
	"time"
)

// windowTrack follows one state's aligned windows of one length W (index
// ⌊t / W⌋, as algorithms.FixedWindow and SlidingCounter keep them): the
// cost in the current window and in the one before, rolled as those
// algorithms roll them. While nothing is refused the counts do not depend
// on the limit, so:
//
//	fixed window:    the smallest limit is the largest cost in a window,
//	                 the current count after adding the request;
//	sliding counter: a request of cost c at elapsed e into its window is
//	                 admitted iff cur + c + prev × (W − e) / W ≤ limit,
//	                 compared exactly, so the smallest limit is the largest
//	                 cur + c + ⌈prev × (W − e) / W⌉.
type windowTrack struct {
	win, cur, prev int64
	// end is where window win ends: a request before it needs no
	// division; 0 before the state's first request.
	end         time.Duration
	maxCount    int64 // fixed window
	maxEstimate int64 // sliding counter
}

func (t *windowTrack) add(at time.Duration, cost, w int64) {
	if t.end == 0 || at >= t.end {
		win := int64(at) / w
		switch {
		case t.end == 0:
		case win == t.win+1:
			t.prev, t.cur = t.cur, 0
		default:
			t.prev, t.cur = 0, 0
		}
		t.win, t.end = win, time.Duration((win+1)*w)
	}
	// The weighed part is at most prev: only a request that could pass
	// the largest estimate so far is weighed exactly.
	if t.prev > 0 && t.cur+cost+t.prev > t.maxEstimate {
		// ⌈prev × (W − e) / W⌉ in 128 bits: the quotient is at most prev.
		hi, lo := bits.Mul64(uint64(t.prev), uint64(w-(int64(at)-t.win*w)))
		q, r := bits.Div64(hi, lo, uint64(w))
		if r != 0 {
			q++
		}
		t.maxEstimate = max(t.maxEstimate, t.cur+cost+int64(q))
	} else {
		t.maxEstimate = max(t.maxEstimate, t.cur+cost)
	}
	t.cur += cost
	t.maxCount = max(t.maxCount, t.cur)
}
