package model

import (
	"math/bits"
	"time"

	"ratelab/internal/minheap"
	"ratelab/scenarios"
)

// owedTry is a retry a lane owes: attempt V.n of the request in slot V.slot
// of its calendar's requests, due At; Seq is the order the lane made its
// retries in (never the same twice), the order of those due at the same
// instant. Before orders them: due earlier, or made earlier.
type owedTry = minheap.Entry[owedRef]

// owedRef is which attempt of which held request a retry is.
type owedRef struct{ slot, n int32 }

// retryCalendar is the retries one lane owes, taken in time order, ties in
// the order the lane made them (Seq, never the same twice), and the
// requests they retry (reqs, a slot a request, reused by its next attempt
// and freed by its last). The retries wait in a calendar queue: time is
// cut into days of 1<<shift nanoseconds; those due in the calendarDays
// days from base wait unsorted in one bucket a day, a bit of full telling
// which buckets hold any, and the rest (due later, or on a crowded day)
// in a min-heap, over. The earliest retry is the earliest of the first
// non-empty bucket, a scan of at most bucketCap, or over's root.
//
// A retry is due no earlier than the refusal that made it, and the
// clients' waits are bounded, so with shift fitted to them (calendarShift)
// nearly every retry goes to a bucket: a push is an append and a pop a bit
// scan and a short one, where a heap pays a branch it mispredicts at every
// level. Where a retry waits changes the cost, never the order.
type retryCalendar struct {
	shift uint
	base  int64  // the first day the buckets hold
	full  uint64 // bit day mod calendarDays: that day's bucket is not empty
	count int    // retries in the buckets
	// low is due no later than any retry held (when one is), and exact
	// tells that one is due at low: a lane asks after every original
	// whether a retry is due, and mostly none is, and the lab asks every
	// lane when its next is due before each retry it decides.
	low     time.Duration
	exact   bool
	buckets *[calendarDays][]owedTry // nil until a retry goes to one
	over    []owedTry                // a min-heap (minheap)
	reqs    []retryReq
	free    []int32 // reqs' empty slots
}

const (
	// calendarDays is how many days the buckets hold: one bit each in full.
	calendarDays = 64
	// bucketCap is the most retries a bucket takes before the heap takes
	// the day's others: a bucket is scanned whole for its earliest.
	bucketCap = 16
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

// hold keeps a copy of q, for its request's retries: its slot.
func (c *retryCalendar) hold(q *retryReq) int32 {
	if n := len(c.free); n > 0 {
		s := c.free[n-1]
		c.free = c.free[:n-1]
		c.reqs[s] = *q
		return s
	}
	c.reqs = append(c.reqs, *q)
	return int32(len(c.reqs) - 1)
}

// release frees slot, whose request the lane will not try again.
func (c *retryCalendar) release(slot int32) {
	c.reqs[slot] = retryReq{} // drop what it refers to
	c.free = append(c.free, slot)
}

// push adds x.
func (c *retryCalendar) push(x owedTry) {
	if c.len() == 0 || x.At < c.low {
		c.low, c.exact = x.At, true
	}
	day := int64(x.At) >> c.shift
	if c.count == 0 {
		c.base = day
	}
	if uint64(day-c.base) < calendarDays {
		if c.buckets == nil {
			c.buckets = new([calendarDays][]owedTry)
		}
		b := &c.buckets[day&(calendarDays-1)]
		if len(*b) < bucketCap {
			*b = append(*b, x)
			c.full |= 1 << (day & (calendarDays - 1))
			c.count++
			return
		}
	}
	c.over = minheap.Push(c.over, x)
}

// first is the earliest retry c holds, nil when none: in bucket b at i,
// or over's root (b < 0). It moves base to the first non-empty day.
func (c *retryCalendar) first() (x *owedTry, b, i int) {
	if c.count == 0 {
		if len(c.over) == 0 {
			return nil, -1, 0
		}
		return &c.over[0], -1, 0
	}
	c.base += int64(bits.TrailingZeros64(bits.RotateLeft64(c.full, -int(c.base&(calendarDays-1)))))
	b = int(c.base & (calendarDays - 1))
	bucket := c.buckets[b]
	x = &bucket[0]
	for k := 1; k < len(bucket); k++ {
		if bucket[k].Before(x) {
			x, i = &bucket[k], k
		}
	}
	if len(c.over) > 0 && c.over[0].Before(x) {
		return &c.over[0], -1, 0
	}
	return x, b, i
}

// next is when the earliest retry c holds is due; false when it holds none.
func (c *retryCalendar) next() (time.Duration, bool) {
	if c.len() == 0 {
		return 0, false
	}
	if !c.exact {
		x, _, _ := c.first()
		c.low, c.exact = x.At, true
	}
	return c.low, true
}

// popUntil removes and returns the earliest retry if it is due by t.
func (c *retryCalendar) popUntil(t time.Duration) (owedTry, bool) {
	if c.low > t {
		return owedTry{}, false
	}
	p, b, i := c.first()
	if p == nil {
		return owedTry{}, false
	}
	if c.low, c.exact = p.At, true; p.At > t {
		return owedTry{}, false
	}
	x := *p
	c.exact = false
	if b < 0 {
		_, c.over = minheap.Pop(c.over)
		return x, true
	}
	bucket := c.buckets[b]
	last := len(bucket) - 1
	bucket[i] = bucket[last]
	c.buckets[b] = bucket[:last]
	if last == 0 {
		c.full &^= 1 << b
	}
	c.count--
	return x, true
}

// clone is a copy of c that shares no memory with it, no larger than its
// retries: all of them in over, made a heap in O(n), their requests packed
// in slots of their own. Retries pushed later go to buckets as in c.
func (c *retryCalendar) clone() retryCalendar {
	d := retryCalendar{shift: c.shift, base: c.base, low: c.low, exact: c.exact}
	n := c.len()
	if n == 0 {
		return d
	}
	d.over = make([]owedTry, 0, n)
	if c.buckets != nil {
		for b := range c.buckets {
			d.over = append(d.over, c.buckets[b]...)
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
