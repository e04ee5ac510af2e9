// Package peak measures the largest cost passing a limiter in any trailing
// window (t − w, t]: what the service behind it sees at its busiest. A
// request passes when it is released, at its arrival or, delayed, at
// arrival + delay.
//
// Its parts, each usable alone:
//
//   - Tracker follows one lane's admissions in arrival order and keeps its
//     peak; PeakBy reads the peak counting also the delayed requests released
//     by a time, leaving the tracker as it is. A tracker can be cloned whole,
//     or cut down to its peak (PeakOnly) and refilled later (Refill,
//     Refilled) by a caller that keeps the admissions elsewhere.
//   - Braid is the passages inside a trailing window, summed and kept
//     compressed: regular streams (a traffic item's period, a burst at one
//     instant) cost a few words whatever the window's length.
//   - InFlight is the delayed passages not yet released, grouped by source
//     (see Source): pushed in arrival order, taken in release order.
//
// Times are whole nanoseconds from a run's start; costs are positive. Nothing
// here allocates per passage for regular traffic, and nothing is safe for
// concurrent use.
package peak

import (
	"math"
	"time"
	"unsafe"
)

// Passage is an admitted request passing the limiter at At, with its cost.
type Passage struct {
	At   time.Duration
	Cost int64
}

// Source names the sequence of releases a passage belongs to: its key's
// number and the gateway that took it (gateways that keep their own state
// each release a key's requests in order, not all together). Any number
// will do where there is one source: only memory depends on it.
func Source(key int, gateway uint16) int64 { return int64(key)<<16 | int64(gateway) }

// endOfTime is later than any passage.
const endOfTime = time.Duration(math.MaxInt64)

// Tracker finds the largest cost passing in any window (t − w, t]. The
// maximum over all t is reached when something passes, so it is enough to
// measure after each passage. Requests must be admitted in arrival order;
// delayed ones wait, pending, until the clock reaches their release.
//
// The passages inside the window are kept compressed and exactly (see
// Braid and trail): the tracker's memory does not grow with the window's
// length for traffic made of up to maxStrands regular streams (bursts at
// one instant included), grows by a bit per passing instant for an uneven
// burst, and by a few bytes per instant for irregular traffic. (No exact
// tracker can do without the window's instants in general: a later
// passage can make any of them decide the peak.) The pending releases are
// kept as trails too, one per source in flight (see InFlight): a shaper's
// queue of millions costs a few runs. Amortised O(1) per passage, plus
// O(log sources in flight) for a delayed one.
type Tracker struct {
	window  time.Duration
	kept    Braid // the passages inside the window
	pending InFlight
	peak    int64
	peakAt  time.Duration
	// admitted tells whether anything was admitted yet, and lastAdmit is
	// the arrival of the latest admission: every release up to it has
	// passed, every later one is still pending.
	admitted  bool
	lastAdmit time.Duration
	// reorder holds, while a refill is under way, the passages released
	// after the latest arrival refilled (see Refill); nil otherwise.
	reorder *InFlight
}

// NewTracker is a tracker of the windows of length window, empty.
func NewTracker(window time.Duration) Tracker { return Tracker{window: window} }

// Window is the length of the windows p measures.
func (p *Tracker) Window() time.Duration { return p.window }

// Peak is the largest cost passed in a window so far (delayed requests
// still pending not counted) and the end of the first window that reached
// it; 0, 0 before anything passed.
func (p *Tracker) Peak() (int64, time.Duration) { return p.peak, p.peakAt }

// LastAdmit is the arrival of the latest admission; false before any.
func (p *Tracker) LastAdmit() (time.Duration, bool) { return p.lastAdmit, p.admitted }

// Admit records an admission arriving at, released after delay, by source
// src (see Source).
func (p *Tracker) Admit(at, delay time.Duration, cost int64, src int64) {
	p.advance(at)
	p.admitted, p.lastAdmit = true, at
	if delay > 0 {
		p.pending.Push(Passage{at + delay, cost}, src)
		return
	}
	p.pass(Passage{at, cost})
}

// advance lets every delayed request released at or before t pass.
func (p *Tracker) advance(t time.Duration) {
	for {
		x, _, ok := p.pending.PopBy(t)
		if !ok {
			return
		}
		p.pass(x)
	}
}

func (p *Tracker) pass(x Passage) {
	p.kept.Add(x, p.window)
	if p.kept.sum > p.peak {
		p.peak, p.peakAt = p.kept.sum, x.At
	}
}

// Push adds a delayed passage of source src to the pending ones, without
// an admission: a refill's passage released after the latest admission.
func (p *Tracker) Push(x Passage, src int64) { p.pending.Push(x, src) }

// Refill puts a passage back into the window of a tracker that keeps only
// its peak and latest admission (see PeakOnly), without changing the peak:
// the caller calls it for each admission that had passed by LastAdmit and
// is inside the window then, in arrival order, with arrival the request's
// arrival and src its source, and then Refilled. Delayed passages are put
// in release order through an InFlight that holds those released after the
// latest arrival refilled: at most what the lane's queues held, compressed
// as the pending ones are.
func (p *Tracker) Refill(arrival time.Duration, x Passage, src int64) {
	if p.reorder != nil {
		for {
			y, _, ok := p.reorder.PopBy(arrival)
			if !ok {
				break
			}
			p.kept.Add(y, p.window)
		}
	}
	if x.At > arrival {
		if p.reorder == nil {
			p.reorder = &InFlight{}
		}
		p.reorder.Push(x, src)
		return
	}
	p.kept.Add(x, p.window)
}

// Refilled ends a refill.
func (p *Tracker) Refilled() {
	if p.reorder != nil {
		for {
			y, _, ok := p.reorder.PopBy(endOfTime)
			if !ok {
				break
			}
			p.kept.Add(y, p.window)
		}
	}
	p.reorder = nil
}

// PeakBy is the peak counting also the delayed requests released by t,
// which must not be before the latest admission, without changing p.
func (p *Tracker) PeakBy(t time.Duration) (int64, time.Duration) {
	if !p.pending.DueBy(t) {
		return p.peak, p.peakAt
	}
	peak, peakAt := p.peak, p.peakAt
	sum := p.kept.sum
	c := p.kept.cursor() // reads p.kept's strands, leaving them alone
	// due reads the pending passages released by t, in release order;
	// gone reads the same behind it, the ones that left the window since.
	due, gone := p.pending.reader(), p.pending.reader()
	for {
		x, ok := due.next(t)
		if !ok {
			return peak, peakAt
		}
		// Evict from the kept passages, then from those due read
		// before, which all come later: the whole window is that
		// sequence, in time order.
		cut := x.At - p.window
		sum -= c.evict(cut)
		for {
			y, ok := gone.next(cut)
			if !ok {
				break
			}
			sum -= y.Cost
		}
		sum += x.Cost
		if sum > peak {
			peak, peakAt = sum, x.At
		}
	}
}

// Clone is a copy of p that shares no memory with it: its window's
// passages (the braid's strands, their encoded runs and bits) and its
// pending releases. A caller keeps one where it is small (see CloneBytes),
// so that restoring it refills nothing.
func (p *Tracker) Clone() Tracker {
	c := *p
	c.kept = p.kept.Clone()
	c.pending = p.pending.Clone()
	c.reorder = nil
	return c
}

// PeakOnly is a copy of p that keeps only its window's length, its peak
// and its latest admission: a caller that keeps the admissions refills its
// window and pending releases (Push, Refill, Refilled) before it admits
// more.
func (p *Tracker) PeakOnly() Tracker {
	return Tracker{window: p.window, peak: p.peak, peakAt: p.peakAt, admitted: p.admitted, lastAdmit: p.lastAdmit}
}

// CloneBytes is about what Clone allocates, the tracker itself included.
func (p *Tracker) CloneBytes() int64 {
	n := int64(unsafe.Sizeof(*p)) + p.pending.Bytes()
	n += int64(len(p.kept.strands))*int64(unsafe.Sizeof(strand{})) + int64(p.kept.Bytes())
	return n
}
