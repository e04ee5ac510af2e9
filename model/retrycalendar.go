package model

import (
	"math/bits"
	"time"

	"ratelab/internal/minheap"
	"ratelab/scenarios"
)

// owedTry is a retry a lane owes: attempt V.n of the request in slot V.slot
// of its calendar's requests, due At; Seq is the order the lane made its
// retries in (its calendar's count, never the same twice), the order of
// those due at the same instant. Before orders them: due earlier, or made earlier.
type owedTry = minheap.Entry[owedRef]

// owedRef is which attempt of which held request a retry is.
type owedRef struct{ slot, n int32 }

// retryCalendar is the retries one lane owes, taken in time order, ties in
// the order the lane made them (Seq, never the same twice), and the
// requests they retry (reqs, a slot a request, reused by its next attempt
// and freed by its last). A request is owed at most one retry at a time, so
// a retry is known by its request's slot. The retries wait on a timing
// wheel: time is cut into days of 1<<shift nanoseconds; those due in the
// calendarDays days from base wait in one list a day, sorted, linked
// through their slots, a bit a day telling which lists hold any; the rest
// (due later, before base, or behind a crowd on their day) in a min-heap,
// over. The earliest retry is the head of the first day's list, found by
// two bit scans, or over's root; the calendar keeps when it is due and
// where it waits at hand, so that asking whether a retry is due, after
// every original, is one comparison, and taking it needs no search. Its
// zero value is no calendar (it would say a retry is due at every time):
// newRetryCalendar makes one.
//
// A retry is due no earlier than the refusal that made it, and the
// clients' waits are bounded, so with shift fitted to them (calendarShift)
// nearly every retry goes to the wheel, a day's list mostly holding one: a
// push is a link and a pop an unlink, where a heap pays a branch it
// mispredicts at every level. Where a retry waits changes the cost, never
// the order.
type retryCalendar struct {
	shift uint
	// made counts the retries pushed, each one's Seq.
	made int64
	// base is a day no later than any retry the wheel holds (the day of
	// the last retry taken, or, when the wheel is empty, of the latest
	// refusal pushed): a retry due before it goes to over.
	base  int64
	count int // retries on the wheel
	// low is when the earliest retry held is due, endOfTime when none is
	// (no retry is due then: each comes before the scenario's end), and
	// lowDay the day of its list, or −1 for over's root.
	low    time.Duration
	lowDay int64
	wheel  *retryWheel // nil until a request is held (fitWheel)
	over   []owedTry   // a min-heap (minheap)
	reqs   []retryReq
	free   []int32 // reqs' empty slots
}

// retryWheel is the days of a retryCalendar: day d's list starts at
// head[d mod calendarDays], bit d mod calendarDays of days is set when it
// holds any, and bit i of words when days' word i has one set.
type retryWheel struct {
	words uint64
	days  [calendarDays / 64]uint64
	head  [calendarDays]int32 // 1 + the slot of the day's first retry; 0: none
	owed  []wheelRetry        // by slot: the retry its request is owed
}

// wheelRetry is a retry on the wheel, by its request's slot (its owedTry
// but the slot): due at, made seq-th, attempt n; next is 1 + the slot of
// the next on its day's list.
type wheelRetry struct {
	at   time.Duration
	seq  int64
	n    int32
	next int32
}

// owed is the retry held in slot s.
func (r *wheelRetry) owed(s int32) owedTry {
	return owedTry{At: r.at, Seq: r.seq, V: owedRef{slot: s, n: r.n}}
}

const (
	// calendarDays is how many days the wheel holds: a bit each, in
	// words of 64, a bit a word in retryWheel.words.
	calendarDays = 1024
	// listCap is the most retries a push walks past on its day's list
	// before it leaves the retry to over: a crowded instant stays cheap.
	listCap = 16
)

// calendarShift is the shift for clients whose longest wait between
// attempts is wait: the smallest whose calendarDays days cover it.
func calendarShift(wait time.Duration) uint {
	return uint(bits.Len64(uint64(max(wait, 0)) / calendarDays))
}

// longestWait is about the longest wait between two attempts of b's
// clients, for calendarShift: a backoff's last nominal wait (its jitter
// only shortens it), a second for Retry-After (the header's least; longer
// ones go to the heap), 0 for the others.
func (b *clientBook) longestWait() time.Duration {
	var w time.Duration
	for i := range b.clients {
		switch c := &b.clients[i]; c.Retry {
		case scenarios.Backoff:
			w = max(w, c.Nominal(max(c.Attempts-1, 1)))
		case scenarios.AfterRetryAfter:
			w = max(w, time.Second)
		}
	}
	return w
}

// len is how many retries c holds.
func (c *retryCalendar) len() int { return c.count + len(c.over) }

// newRetryCalendar is an empty calendar whose days are 1<<shift
// nanoseconds.
func newRetryCalendar(shift uint) retryCalendar {
	return retryCalendar{shift: shift, low: endOfTime}
}

// hold keeps a copy of q, for its request's retries: its slot.
func (c *retryCalendar) hold(q *retryReq) int32 {
	if n := len(c.free); n > 0 {
		s := c.free[n-1]
		c.free = c.free[:n-1]
		c.reqs[s] = *q
		return s
	}
	c.reqs = append(c.reqs, *q)
	c.fitWheel()
	return int32(len(c.reqs) - 1)
}

// fitWheel makes the wheel, at the first request held, and keeps a
// wheelRetry for each slot of reqs, so that a push finds its slot's entry
// without a test. A clone has no wheel until it holds a request of its
// own: till then its retries wait in over.
func (c *retryCalendar) fitWheel() {
	if c.wheel == nil {
		c.wheel = new(retryWheel)
	}
	if w := c.wheel; len(w.owed) < len(c.reqs) {
		w.owed = append(w.owed, make([]wheelRetry, len(c.reqs)-len(w.owed))...)
		w.owed = w.owed[:cap(w.owed)]
	}
}

// release frees slot, whose request the lane will not try again.
func (c *retryCalendar) release(slot int32) {
	c.reqs[slot] = retryReq{} // drop what it refers to
	c.free = append(c.free, slot)
}

// push adds attempt r.n of the request held in slot r.slot (see hold),
// due at, owed since a refusal at now (no later than at), made after every
// retry pushed before.
func (c *retryCalendar) push(now, at time.Duration, r owedRef) {
	seq := c.made
	c.made++
	if c.count == 0 {
		// The wheel's days start at the clock's, not at this retry's:
		// a shorter wait pushed next, due before this one, still
		// falls on them.
		c.base = int64(now) >> (c.shift & 63)
	}
	day := int64(at) >> (c.shift & 63)
	if w := c.wheel; w != nil && uint64(day-c.base) < calendarDays {
		// In its place on its day's list, after those due no later
		// (made before it), unless listCap of them stand in the way.
		d := day & (calendarDays - 1)
		next := &w.head[d]
		for range listCap {
			if *next == 0 || at < w.owed[*next-1].at {
				w.owed[r.slot] = wheelRetry{at: at, seq: seq, n: r.n, next: *next}
				*next = r.slot + 1
				w.days[d>>6] |= 1 << (d & 63)
				w.words |= 1 << (d >> 6)
				c.count++
				c.pushed(at, day)
				return
			}
			next = &w.owed[*next-1].next
		}
	}
	c.pushOver(owedTry{At: at, Seq: seq, V: r})
}

// pushOver is push of x to over: the wheel is not made yet (a clone's),
// x is due out of its reach, or listCap retries stand before x on its day.
//
//go:noinline
func (c *retryCalendar) pushOver(x owedTry) {
	c.over = minheap.Push(c.over, x)
	c.pushed(x.At, -1)
}

// pushed keeps low and lowDay after a retry due at was pushed to day's
// list (−1: over): made after every retry held, it is the earliest only
// if due before them all.
func (c *retryCalendar) pushed(at time.Duration, day int64) {
	if at < c.low {
		c.low, c.lowDay = at, day
	}
}

// next is when the earliest retry c holds is due; false when it holds none.
func (c *retryCalendar) next() (time.Duration, bool) {
	return c.low, c.low != endOfTime
}

// due tells whether a retry c holds is due by t, for any
// t before endOfTime.
func (c *retryCalendar) due(t time.Duration) bool { return c.low <= t }

// pop removes the earliest retry, c holding any, returns when it is due
// and which attempt of which held request it is (its Seq is of no use to
// a caller, and one word fewer to load and return), and finds
// the next: the head of the wheel's first day from base whose list holds
// any (all are due within calendarDays days of base), found by a bit scan
// in base's word of days, or two when it is in a later word, unless
// over's root comes first.
func (c *retryCalendar) pop() (at time.Duration, r owedRef) {
	if day := c.lowDay; day < 0 {
		var x owedTry
		x, c.over = minheap.Pop(c.over)
		at, r = x.At, x.V
	} else {
		c.base = day
		c.count--
		w := c.wheel
		d := day & (calendarDays - 1)
		s := w.head[d] - 1
		at, r = w.owed[s].at, owedRef{slot: s, n: w.owed[s].n}
		if w.head[d] = w.owed[s].next; w.head[d] == 0 {
			if w.days[d>>6] &^= 1 << (d & 63); w.days[d>>6] == 0 {
				w.words &^= 1 << (d >> 6)
			}
		}
	}
	if c.count > 0 {
		w := c.wheel
		b := c.base & (calendarDays - 1)
		i := b >> 6
		var day int64
		if m := w.days[i] >> (b & 63); m != 0 {
			day = c.base + int64(bits.TrailingZeros64(m))
		} else {
			// The words after i, round to i itself (its days before b).
			j := (i + 1 + int64(bits.TrailingZeros64(bits.RotateLeft64(w.words, -int(i+1))))) & (calendarDays/64 - 1)
			day = c.base + (j<<6+int64(bits.TrailingZeros64(w.days[j]))-b)&(calendarDays-1)
		}
		e := &w.owed[w.head[day&(calendarDays-1)]-1]
		if len(c.over) == 0 || !c.over[0].Before(&owedTry{At: e.at, Seq: e.seq}) {
			c.low, c.lowDay = e.at, day
			return at, r
		}
	}
	if len(c.over) > 0 {
		c.low, c.lowDay = c.over[0].At, -1
	} else {
		c.low = endOfTime
	}
	return at, r
}

// clone is a copy of c that shares no memory with it, no larger than its
// retries: all of them in over, made a heap in O(n), their requests packed
// in slots of their own. Retries pushed later go to the wheel's days as in c.
func (c *retryCalendar) clone() retryCalendar {
	d := retryCalendar{shift: c.shift, made: c.made, base: c.base, low: c.low, lowDay: -1}
	n := c.len()
	if n == 0 {
		return d
	}
	d.over = make([]owedTry, 0, n)
	if w := c.wheel; w != nil {
		// The occupied days only, found by bit scans.
		for words := w.words; words != 0; words &= words - 1 {
			i := bits.TrailingZeros64(words)
			for days := w.days[i]; days != 0; days &= days - 1 {
				for s := w.head[i<<6|bits.TrailingZeros64(days)]; s != 0; s = w.owed[s-1].next {
					d.over = append(d.over, w.owed[s-1].owed(s-1))
				}
			}
		}
	}
	d.over = append(d.over, c.over...)
	minheap.Init(d.over)
	d.reqs = make([]retryReq, n)
	for k := range d.over {
		d.reqs[k] = c.reqs[d.over[k].V.slot]
		d.over[k].V.slot = int32(k)
	}
	return d
}
