package model

import (
	"cmp"
	"slices"
	"time"

	"ratelab/algorithms"
)

// Stats are one lane's running totals over the requests decided so far.
type Stats struct {
	// Admitted counts requests that got through, now or after a delay;
	// Delayed counts those of them that waited; Rejected the rest.
	Admitted, Delayed, Rejected int64
	// AdmittedCost is the admitted requests' total cost.
	AdmittedCost int64
	// Peak is the largest admitted cost passing in any trailing window (t −
	// PeakWindow, t]. A request passes when it is released: at its arrival,
	// or for a delayed one at arrival + delay, which is what the service
	// behind the limiter sees. PeakAt is the end t of the first window that
	// reached the peak.
	Peak       int64
	PeakAt     time.Duration
	PeakWindow time.Duration
}

// Requests is the number of requests decided.
func (s Stats) Requests() int64 { return s.Admitted + s.Rejected }

// count adds one decision to the totals, not to the peak.
func (s *Stats) count(d algorithms.Decision) { s.add(d.Outcome, d.Cost) }

// add counts one request of the given cost with outcome o, not in the peak.
func (s *Stats) add(o algorithms.Outcome, cost int64) {
	switch o {
	case algorithms.Rejected:
		s.Rejected++
		return
	case algorithms.Delayed:
		s.Delayed++
	}
	s.Admitted++
	s.AdmittedCost += cost
}

// passage is an admitted request passing the limiter at a time, with its cost.
type passage struct {
	at   time.Duration
	cost int64
}

// peakTracker finds the largest cost passing in any window (t − w, t]. The
// maximum over all t is reached when something passes, so it is enough to
// measure after each passage. Requests must be admitted in arrival order;
// delayed ones wait in a heap until the clock reaches their release.
// Amortised O(log delayed) per admission.
type peakTracker struct {
	window  time.Duration
	passed  []passage // passed[head:] are inside the window, in time order
	head    int
	sum     int64 // cost of passed[head:]
	pending []passage
	peak    int64
	peakAt  time.Duration
	// admitted tells whether anything was admitted yet, and lastAdmit is
	// the arrival of the latest admission: every release up to it has
	// passed, every later one is still pending.
	admitted  bool
	lastAdmit time.Duration
}

// admit records an admission arriving at, released after delay.
func (p *peakTracker) admit(at, delay time.Duration, cost int64) {
	p.advance(at)
	p.admitted, p.lastAdmit = true, at
	if delay > 0 {
		p.push(passage{at + delay, cost})
		return
	}
	p.pass(passage{at, cost})
}

// advance lets every delayed request released at or before t pass.
func (p *peakTracker) advance(t time.Duration) {
	for len(p.pending) > 0 && p.pending[0].at <= t {
		p.pass(p.pop())
	}
}

func (p *peakTracker) pass(x passage) {
	for p.head < len(p.passed) && p.passed[p.head].at <= x.at-p.window {
		p.sum -= p.passed[p.head].cost
		p.head++
	}
	if p.head > 1024 && p.head*2 > len(p.passed) {
		p.passed = append(p.passed[:0], p.passed[p.head:]...)
		p.head = 0
	}
	p.passed = append(p.passed, x)
	p.sum += x.cost
	if p.sum > p.peak {
		p.peak, p.peakAt = p.sum, x.at
	}
}

// peakBy is the peak counting also the delayed requests released by t,
// without changing p.
func (p *peakTracker) peakBy(t time.Duration) (int64, time.Duration) {
	var due []passage
	for _, x := range p.pending {
		if x.at <= t {
			due = append(due, x)
		}
	}
	if len(due) == 0 {
		return p.peak, p.peakAt
	}
	slices.SortStableFunc(due, func(a, b passage) int { return cmp.Compare(a.at, b.at) })
	peak, peakAt := p.peak, p.peakAt
	head, sum := p.head, p.sum
	dueHead := 0
	for _, x := range due {
		// Evict from passed[head:] first, then from due[:dueHead]: the whole
		// window is that sequence, in time order.
		for head < len(p.passed) && p.passed[head].at <= x.at-p.window {
			sum -= p.passed[head].cost
			head++
		}
		if head == len(p.passed) {
			for due[dueHead].at <= x.at-p.window {
				sum -= due[dueHead].cost
				dueHead++
			}
		}
		sum += x.cost
		if sum > peak {
			peak, peakAt = sum, x.at
		}
	}
	return peak, peakAt
}

// push and pop keep pending a min-heap by release time.
func (p *peakTracker) push(x passage) {
	h := append(p.pending, x)
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if h[parent].at <= h[i].at {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
	p.pending = h
}

func (p *peakTracker) pop() passage {
	h := p.pending
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		small, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].at < h[small].at {
			small = l
		}
		if r < len(h) && h[r].at < h[small].at {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	p.pending = h
	return top
}
