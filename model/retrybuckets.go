package model

import (
	"time"

	"ratelab/internal/minheap"
)

// retryBuckets is the retries one lane owes in a summary run (runByLane), taken
// in the order of a retryCalendar's (due earlier, or made earlier), where
// the lane runs alone and its clock only moves on: nobody asks when its
// next retry is due, it is never cloned, and no retry is pushed due before
// the day being taken but by a skewed gateway's clock. Time is cut into
// days of 1<<shift nanoseconds, as the calendar's; a retry due within
// calendarDays days from the day being taken (cur) is appended to its
// day's bucket, unsorted, those due later wait in a min-heap (far) and are
// moved to their buckets as their days come within reach. A bucket is
// sorted when the clock reaches it (mostly it holds one retry), and then
// taken by a cursor (pos): a push is mostly an append and a pop a read,
// where the calendar keeps every day's list sorted and compares the
// wheel's first with its heap's at every pop.
type retryBuckets struct {
	heldReqs
	shift uint
	// cur is the day being taken: every retry held is due on it or later
	// (a skewed gateway's early one is put in its bucket). Its bucket is
	// sorted, and pos of it taken.
	cur int64
	pos int
	// made counts the retries pushed to far, each one's Seq there.
	made    int64
	buckets *[calendarDays][]dueRetry
	dayBits // which buckets hold any, cur's not among them once taken
	far     []owedTry
}

// dueRetry is attempt n of the request in slot, due at.
type dueRetry struct {
	at      time.Duration
	slot, n int32
}

func newRetryBuckets(shift uint) *retryBuckets {
	return &retryBuckets{shift: shift, buckets: new([calendarDays][]dueRetry)}
}

// push adds attempt n of the request in slot, due at, made after every
// retry pushed before; when slot is −1, a copy of q is held in a slot of
// its own.
func (b *retryBuckets) push(at time.Duration, slot, n int32, q *retryReq) {
	if slot < 0 {
		slot = b.hold(q)
	}
	x := dueRetry{at: at, slot: slot, n: n}
	day := int64(at) >> (b.shift & 63)
	switch {
	case day <= b.cur:
		b.insert(x)
	case uint64(day-b.cur) < calendarDays:
		bk := &b.buckets[day&(calendarDays-1)]
		*bk = append(*bk, x)
		b.set(day)
	default:
		b.far = minheap.Push(b.far, owedTry{At: at, Seq: b.made, V: owedRef{slot: slot, n: n}})
		b.made++
	}
}

// insert puts x in cur's bucket, sorted, after the retries due no later.
func (b *retryBuckets) insert(x dueRetry) {
	bk := &b.buckets[b.cur&(calendarDays-1)]
	*bk = append(*bk, x)
	s := *bk
	i := len(s) - 1
	for ; i > b.pos && s[i-1].at > x.at; i-- {
		s[i] = s[i-1]
	}
	s[i] = x
}

// popUntil removes and returns the earliest retry if it is due by t, which
// must be no earlier than the last t asked for.
func (b *retryBuckets) popUntil(t time.Duration) (dueRetry, bool) {
	for {
		bk := &b.buckets[b.cur&(calendarDays-1)]
		if b.pos < len(*bk) {
			x := (*bk)[b.pos]
			if x.at > t {
				return dueRetry{}, false
			}
			b.pos++
			return x, true
		}
		// cur's bucket is taken: on to the next day that holds any, if
		// it is due by t's; else to t's, as no retry is pushed due
		// before it from now on.
		*bk = (*bk)[:0]
		b.pos = 0
		b.clear(b.cur)
		tday := int64(t) >> (b.shift & 63)
		next, ok := b.nextDay()
		if !ok || next > tday {
			if tday > b.cur {
				b.moveTo(tday)
			}
			return dueRetry{}, false
		}
		b.moveTo(next)
	}
}

// nextDay is the first day after cur whose bucket holds any, or else the
// day of far's root; false when none is held.
func (b *retryBuckets) nextDay() (int64, bool) {
	if b.words != 0 {
		return b.firstFrom(b.cur), true
	}
	if len(b.far) > 0 {
		return int64(b.far[0].At) >> (b.shift & 63), true
	}
	return 0, false
}

// moveTo makes day, later than cur and no later than any retry held, the
// day being taken: the retries of far now within reach go to their
// buckets, in their order, and day's bucket is sorted.
func (b *retryBuckets) moveTo(day int64) {
	b.cur = day
	for len(b.far) > 0 && uint64(int64(b.far[0].At)>>(b.shift&63)-day) < calendarDays {
		var x owedTry
		x, b.far = minheap.Pop(b.far)
		d := int64(x.At) >> (b.shift & 63)
		bk := &b.buckets[d&(calendarDays-1)]
		*bk = append(*bk, dueRetry{at: x.At, slot: x.V.slot, n: x.V.n})
		b.set(d)
	}
	// Insertion sort, stable: a day's retries were appended in the order
	// they were made, and mostly there is one.
	s := b.buckets[day&(calendarDays-1)]
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for ; j > 0 && s[j-1].at > x.at; j-- {
			s[j] = s[j-1]
		}
		s[j] = x
	}
}
