package model

import "time"

// braid is the passages inside a trailing window, as the peak tracker keeps
// them: traffic is a merge of regular streams (a traffic item's period, a
// burst at one instant), and a merge of several periods has no regular
// step of its own, so the passages are split into strands, each a trail:
// one per regular stream found, and a loose one for the rest. A passage
// goes to a strand that expects its instant (the strand's latest instant
// or the next one at its step) and whose run it keeps regular (see
// strand.takes); one that no strand takes is loose, and
// three loose instants at one step (found among the latest ringSize) make
// a new strand for that step, in a free slot or one whose stream stopped.
// Which strand holds a passage only changes how well it is compressed:
// the window's sum is every strand's. A new strand is looked for only
// when the loose passages stop being regular on their own (see run.fits).
// So a merge of up to maxStrands regular streams costs O(maxStrands)
// whatever the window's length; anything else a bit (an uneven burst) or
// a few bytes per instant (see trail).
type braid struct {
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
func (s *strand) takes(x passage) bool {
	if x.at != s.latest && x.at != s.latest+s.step {
		return false
	}
	t := &s.trail
	return t.pointCost == 0 || t.point != x.at || t.tail.n == 0 || t.pointCost+x.cost <= t.tail.cost
}

// add puts x, no earlier than any passage kept, in the window (x.at − w,
// x.at] and drops what leaves it.
func (b *braid) add(x passage, w time.Duration) {
	cut := x.at - w
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
			if s.latest+s.step == x.at && (i == to || s.pointCost > 0 && s.point == s.latest) {
				s.latest = x.at
			}
		}
		t := &b.strands[to].trail
		before := t.sum
		t.add(x, w)
		b.sum += t.sum - before
	} else {
		t := &b.loose
		newInstant := t.pointCost == 0 || t.point != x.at
		before := t.sum
		t.add(x, w)
		b.sum += t.sum - before
		if newInstant {
			b.found(x.at)
		}
	}
	b.last = to
	if b.sum == x.cost {
		b.oldest = x.at // nothing else is kept
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

// drop evicts what is at or before cut, returning its cost.
func (t *trail) drop(cut time.Duration) int64 {
	gone := t.evict(t.buf, cut)
	t.sum -= gone
	return gone
}

// oldest is the time of the oldest passage kept, if any.
func (c *cursor) oldest() (time.Duration, bool) {
	switch {
	case c.head.n > 0:
		return c.head.at, true
	case c.tail.n > 0:
		return c.tail.at, true
	}
	return c.point, c.pointCost > 0
}

// found looks, among the latest loose instants, for two at the step that
// leads to at, and makes a strand expecting that step after at.
func (b *braid) found(at time.Duration) {
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

// fits reports whether an instant at, after the point r ends with, can
// extend r, cost aside.
func (r *run) fits(at time.Duration) bool {
	g := at - r.end
	if r.bits != nil {
		return g == r.step || g == r.step+1
	}
	return g == r.step || r.n <= twoStepsUpTo && (g == r.step+1 || g == r.step-1)
}

func (b *braid) ringAt(i int) time.Duration { return b.ring[(b.ringHead+i)%ringSize] }

func (b *braid) remember(at time.Duration) {
	if b.ringLen < ringSize {
		b.ring[(b.ringHead+b.ringLen)%ringSize] = at
		b.ringLen++
		return
	}
	b.ring[b.ringHead] = at
	b.ringHead = (b.ringHead + 1) % ringSize
}

// bytes is what the braid's strands hold encoded, or as bits.
func (b *braid) bytes() int {
	n := b.loose.bytes()
	for i := range b.strands {
		n += b.strands[i].bytes()
	}
	return n
}

func (t *trail) bytes() int { return len(t.buf) + len(t.head.bits) + len(t.tail.bits) }

// braidCursor reads a braid's strands from their oldest passage without
// changing them.
type braidCursor struct {
	b       *braid
	loose   cursor
	strands []cursor
}

func (b *braid) cursor() braidCursor {
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
