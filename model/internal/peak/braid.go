package peak

import (
	"slices"
	"time"
)

// Braid is the passages inside a trailing window, as a Tracker keeps them,
// summed (Sum). The zero Braid is empty. Traffic is a merge of regular
// streams (a traffic item's period, a burst at one instant), and a merge of
// several periods has no regular step of its own, so the passages are
// split into strands, each a trail: one per regular stream found, and a
// loose one for the rest. A passage goes to a strand that expects its
// instant (the strand's latest instant or the next one at its step) and
// whose run it keeps regular (see strand.takes); one that no strand takes
// is loose, and three loose instants at one step (found among the latest
// ringSize) make a new strand for that step, in a free slot or one whose
// stream stopped. Which strand holds a passage only changes how well it is
// compressed: the window's sum is every strand's. A new strand is looked
// for only when the loose passages stop being regular on their own (see
// run.fits). So a merge of up to maxStrands regular streams costs O(maxStrands)
// whatever the window's length; anything else a bit (an uneven burst) or
// a few bytes per instant (see trail).
type Braid struct {
	loose   trail
	strands []strand
	sum     int64
	last    int // the strand that took the latest passage, −1 loose
	// Nothing kept is older than oldest (when any is kept): strands other
	// than the one a passage goes to are looked at only when the window
	// leaves oldest behind, so a long window costs nothing to slide.
	oldest time.Duration
	// ring holds the latest loose instants, oldest first from ringHead.
	ring     [ringSize]time.Duration
	ringLen  int
	ringHead int
	// A search that finds no step skips the next skip loose instants,
	// backoff more after each failure (up to 15), so that irregular
	// traffic pays little for the search.
	skip, backoff int
}

const (
	maxStrands = 8
	ringSize   = 32
)

// strand is a trail fed one regular stream: it expects at next + step.
type strand struct {
	trail
	latest, step time.Duration
}

// takes reports whether x keeps s's run regular: s expects its instant
// (its latest, or the next at its step) and x is the first passage of that
// instant in s, or fills its point no further than its run's cost per
// instant. Streams that meet at one instant thus keep a passage each, and
// what overflows a strand goes loose.
func (s *strand) takes(x Passage) bool {
	if x.At != s.latest && x.At != s.latest+s.step {
		return false
	}
	t := &s.trail
	return t.pointCost == 0 || t.point != x.At || t.tail.n == 0 || t.pointCost+x.Cost <= t.tail.cost
}

// Add puts x, no earlier than any passage kept, in the window (x.At − w,
// x.At] and drops what leaves it. Every passage of a braid must be added
// with the same w.
func (b *Braid) Add(x Passage, w time.Duration) {
	cut := x.At - w
	to := -1
	if b.last >= 0 && b.last < len(b.strands) && b.strands[b.last].takes(x) {
		to = b.last
	} else {
		for i := range b.strands {
			if b.strands[i].takes(x) {
				to = i
				break
			}
		}
	}
	if to >= 0 {
		// The strand moves on to this instant, and so do the others that
		// expect it next and took a passage at their latest, so that
		// streams meeting at one instant keep their strands (the next
		// passage at this instant goes to the next of them), while a strand
		// that takes nothing stops and leaves its slot to another.
		for i := range b.strands {
			s := &b.strands[i]
			if s.latest+s.step == x.At && (i == to || s.pointCost > 0 && s.point == s.latest) {
				s.latest = x.At
			}
		}
		t := &b.strands[to].trail
		before := t.sum
		t.add(x, w)
		b.sum += t.sum - before
	} else {
		t := &b.loose
		newInstant := t.pointCost == 0 || t.point != x.At
		before := t.sum
		t.add(x, w)
		b.sum += t.sum - before
		if newInstant {
			b.found(x.At)
		}
	}
	b.last = to
	if b.sum == x.Cost {
		b.oldest = x.At // nothing else is kept
	}
	if cut < b.oldest {
		return
	}
	oldest := endOfTime
	if to >= 0 {
		b.sum -= b.loose.drop(cut)
	}
	if at, ok := b.loose.oldest(); ok {
		oldest = at
	}
	for i := range b.strands {
		t := &b.strands[i].trail
		if i != to {
			b.sum -= t.drop(cut)
		}
		if at, ok := t.oldest(); ok {
			oldest = min(oldest, at)
		}
	}
	b.oldest = oldest
}

// found looks, among the latest loose instants, for two at the step that
// leads to at, and makes a strand expecting that step after at.
func (b *Braid) found(at time.Duration) {
	defer b.remember(at)
	if t := &b.loose.tail; t.n < 2 || t.fits(at) {
		return // the loose passages are regular on their own so far
	}
	if b.skip > 0 {
		b.skip--
		return
	}
	// The ring is sorted: for q from the newest down, the instant 2q − at
	// falls too, so one pass of two indices finds a pair.
	step := time.Duration(0)
	k := b.ringLen - 2
	for j := b.ringLen - 1; j > 0 && step == 0; j-- {
		q := b.ringAt(j)
		want := 2*q - at
		if k >= j {
			k = j - 1
		}
		for k >= 0 && b.ringAt(k) > want {
			k--
		}
		if k < 0 {
			break
		}
		if b.ringAt(k) == want && q < at {
			step = at - q
		}
	}
	if step == 0 {
		b.backoff = min(2*b.backoff+1, 15)
		b.skip = b.backoff
		return
	}
	b.backoff = 0
	s := strand{latest: at, step: step}
	for i := range b.strands {
		if o := &b.strands[i]; o.latest+o.step < at { // its stream stopped
			o.latest, o.step = at, step
			return
		}
	}
	if len(b.strands) < maxStrands {
		b.strands = append(b.strands, s)
	}
}

func (b *Braid) ringAt(i int) time.Duration { return b.ring[(b.ringHead+i)%ringSize] }

func (b *Braid) remember(at time.Duration) {
	if b.ringLen < ringSize {
		b.ring[(b.ringHead+b.ringLen)%ringSize] = at
		b.ringLen++
		return
	}
	b.ring[b.ringHead] = at
	b.ringHead = (b.ringHead + 1) % ringSize
}

// Bytes is what the braid's strands hold encoded, or as bits: beside a
// fixed part, what it costs.
func (b *Braid) Bytes() int {
	n := b.loose.bytes()
	for i := range b.strands {
		n += b.strands[i].bytes()
	}
	return n
}

// braidCursor reads a braid's strands from their oldest passage without
// changing them.
type braidCursor struct {
	b       *Braid
	loose   cursor
	strands []cursor
}

func (b *Braid) cursor() braidCursor {
	c := braidCursor{b: b, loose: b.loose.cursor}
	for i := range b.strands {
		c.strands = append(c.strands, b.strands[i].cursor)
	}
	return c
}

// evict drops what is at or before cut, returning its cost.
func (c *braidCursor) evict(cut time.Duration) int64 {
	gone := c.loose.evict(c.b.loose.buf, cut)
	for i := range c.strands {
		gone += c.strands[i].evict(c.b.strands[i].buf, cut)
	}
	return gone
}

// Sum is the cost of every passage kept: what passed in the window ending
// at the latest passage.
func (b *Braid) Sum() int64 { return b.sum }

// Clone is a copy of b that shares no memory with it.
func (b *Braid) Clone() Braid {
	c := *b
	c.loose = b.loose.clone()
	c.strands = slices.Clone(b.strands)
	for i := range c.strands {
		c.strands[i].trail = b.strands[i].trail.clone()
	}
	return c
}

// Reset empties b, as a new Braid, but keeps its buffers for reuse.
func (b *Braid) Reset() {
	strands, loose := b.strands[:0], b.loose.buf[:0]
	*b = Braid{strands: strands}
	b.loose.buf = loose
}
