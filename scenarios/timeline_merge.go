package scenarios

import (
	"iter"
	"math"
	"math/bits"
	"sort"
	"time"

	"ratelab/internal/minheap"
)

// How merge orders the requests of many items: a calendar of windows of
// time, each window's requests generated and sorted at once (see
// calendarMerge), where a heap of one cursor an item would pay its depth on
// every request. The figures are measured (docs/performance.md, "Startup
// to the first frame"):
const (
	// calendarItems is the fewest items with requests for which merge
	// uses the calendar: with fewer, the heap is shallow and cheaper than
	// sorting.
	calendarItems = 64
	// calendarWindow is the number of requests a window of the calendar
	// is sized to hold on average: its keys and their sorting space (16
	// bytes a request, 512 KiB) stay in the cache.
	calendarWindow = 1 << 15
	// calendarMost is the most requests one window sorts at once (1 MiB
	// with their sorting space); a window holding more (uneven traffic: a
	// burst among sparse items) is merged through a heap of its items
	// instead, so that memory stays bounded whatever the traffic.
	calendarMost = 1 << 16
)

// merge calls yield with every request in time order and its item, until
// yield returns false: requests at the same time in item order, an item's
// own in its order. It holds O(items) state plus at most calendarMost
// requests, never the whole traffic.
func (s *Scenario) merge(yield func(item int, r Request) bool) {
	if len(s.Logs) > 0 {
		s.mergeLogs(yield)
		return
	}
	s.mergeItems(yield)
}

// mergeItems is merge of s.Traffic's items alone.
func (s *Scenario) mergeItems(yield func(item int, r Request) bool) {
	s.mergeTimes(calendarMost, func(item int, at time.Duration) bool {
		t := &s.Traffic[item]
		return yield(item, Request{At: at, Key: t.Key, Cost: t.Cost, Client: t.Client})
	})
}

// ItemTimes yields the time of every request of s.Traffic's items in the
// order of Requests, each with its item (an index in s.Traffic): what
// RequestsOfItems yields without reading the item for each request. A
// log's requests, whose keys and costs are their own, are not among them:
// RequestsOfItems yields those. A reader that keeps
// something per item (the explorer's timeline) looks the item up once.
func (s *Scenario) ItemTimes() iter.Seq2[int, time.Duration] {
	return func(yield func(int, time.Duration) bool) { s.mergeTimes(calendarMost, yield) }
}

// mergeTimes is merge's order of the requests' items and times; a window of
// the calendar sorts at most most requests at once.
func (s *Scenario) mergeTimes(most int, yield func(item int, at time.Duration) bool) {
	cs := make([]cursor, 0, len(s.Traffic))
	for i := range s.Traffic {
		if t := &s.Traffic[i]; t.Count > 0 {
			c := cursor{at: t.Time(0), count: t.Count, item: int32(i)}
			if t.Form == Periodic {
				c.every = t.Every
			}
			cs = append(cs, c)
		}
	}
	if len(cs) < calendarItems {
		all := make([]int32, len(cs))
		for j := range all {
			all[j] = int32(j)
		}
		s.heapMerge(cs, all, math.MaxInt64, yield)
		return
	}
	if first, width, ok := inStep(cs); ok {
		periodicMerge(cs, first, width, yield)
		return
	}
	s.calendarMerge(cs, most, yield)
}

// inStep reports whether every cursor is periodic with one period and
// their first requests lie within one period of each other: many accounts
// polling at one rate, staggered (a file's accounts: with stagger). Each
// round of their requests, the k-th of every item, then comes wholly
// before the next round, in the order of the first round. It gives the
// earliest first request and the bits of the sort keys periodicMerge
// packs, (offset from it, cursor), and is false when they would take more
// than 64 (a period of days over 100,000 items: the calendar takes them).
func inStep(cs []cursor) (first time.Duration, width int, ok bool) {
	every := cs[0].every
	if every <= 0 {
		return 0, 0, false
	}
	first, last := cs[0].at, cs[0].at
	for _, c := range cs {
		if c.every != every || c.v != 0 {
			return 0, 0, false
		}
		first, last = min(first, c.at), max(last, c.at)
	}
	width = bits.Len64(uint64(last-first)) + bits.Len(uint(len(cs)-1))
	return first, width, last-first < every && width <= 64
}

// periodicMerge is merge of cursors in step (see inStep; first and width
// are its): their first requests sorted once by (time, item), then each
// round yielded in that order, the k-th request of each item at its first
// time + k × every, leaving out the items with fewer than k + 1 requests.
// It sorts the items once where the calendar sorts each window's
// requests, and reads the order sequentially where the calendar visits
// each cursor anew.
func periodicMerge(cs []cursor, first time.Duration, width int, yield func(item int, at time.Duration) bool) {
	every := cs[0].every
	itemBits := bits.Len(uint(len(cs) - 1))
	keys := make([]uint64, len(cs))
	for j, c := range cs {
		// The cursors are in item order, so that j orders ties as the
		// item does.
		keys[j] = uint64(c.at-first)<<itemBits | uint64(j)
	}
	keys, _ = radixSort(keys, make([]uint64, len(keys)), width)
	mask := uint64(1)<<itemBits - 1
	order := make([]int32, len(keys))
	for i, k := range keys {
		order[i] = int32(k & mask)
	}
	for round := int64(0); len(order) > 0; round++ {
		kept := order[:0]
		for _, j := range order {
			c := &cs[j]
			if !yield(int(c.item), c.at+time.Duration(round)*every) {
				return
			}
			if round+1 < c.count {
				kept = append(kept, j)
			}
		}
		order = kept
	}
}

// cursor is an item's place in a merge: its request v, at at, comes next;
// the item is done when v reaches count. It holds what the merge reads for
// every request, so that the item itself (s.Traffic's much larger
// entry) is read only for a form whose next time is not at + every.
type cursor struct {
	at       time.Duration
	every    time.Duration // a periodic item's Every; 0 for the others
	v, count int64
	item     int32
}

// advance moves c to its next request.
func (s *Scenario) advance(c *cursor) {
	c.v++
	switch {
	case c.v == c.count:
	case c.every > 0:
		c.at += c.every
	default:
		c.at = s.Traffic[c.item].Time(c.v)
	}
}

// heapMerge yields, in merge's order, the requests before until of the
// cursors cs[j] for j in which, from each cursor's v on, advancing each past
// what it yielded, until yield returns false; it reports whether yield
// never did.
func (s *Scenario) heapMerge(cs []cursor, which []int32, until time.Duration, yield func(int, time.Duration) bool) bool {
	// One entry per cursor with a request before until: due At its next
	// request, Seq the item (so that equal times come out in item order),
	// V the cursor's index in cs.
	h := make([]minheap.Entry[int32], 0, len(which))
	for _, j := range which {
		if c := &cs[j]; c.v < c.count && c.at < until {
			h = append(h, minheap.Entry[int32]{At: c.at, Seq: int64(c.item), V: j})
		}
	}
	minheap.Init(h)
	for len(h) > 0 {
		e := &h[0]
		c := &cs[e.V]
		if !yield(int(c.item), c.at) {
			return false
		}
		s.advance(c)
		if c.v == c.count || c.at >= until {
			_, h = minheap.Pop(h)
			continue
		}
		e.At = c.at
		if len(h) > 1 { // a heap of one is in order: skip the call
			minheap.Down(h, 0)
		}
	}
	return true
}

// calendarMerge is merge through a calendar: time from the first request
// to the last is cut into windows of 2^shift ns, sized to hold about
// calendarWindow requests each, and each cursor waits in the list of the
// window of its next request. A window's requests are generated cursor by
// cursor, each packed as its offset in the window above its item, and
// radix-sorted: the order of (time, item) is merge's, whatever order the
// list holds them in. Each window visits only the cursors with a request
// in it, so the cost is linear in the requests, plus the windows. A window
// of more than most requests is merged through a heap of its cursors
// instead, so that no traffic, however uneven, makes it hold more.
func (s *Scenario) calendarMerge(cs []cursor, most int, yield func(int, time.Duration) bool) {
	first, last := time.Duration(math.MaxInt64), time.Duration(math.MinInt64)
	var n int64
	for _, c := range cs {
		first, last = min(first, c.at), max(last, s.Traffic[c.item].Time(c.count-1))
		n += c.count
	}
	itemBits := bits.Len(uint(len(s.Traffic) - 1))
	span := uint64(last - first)
	// 2^shift ≥ span × calendarWindow / n, at most what leaves itemBits.
	shift := bits.Len64(span / uint64(n/calendarWindow+1))
	shift = min(shift, 64-itemBits)
	windows := int(span>>shift) + 1
	// Window w's list runs from head[w] to tail[w] by next; −1 ends it.
	// A cursor joins the end of its list, so that a list is a few runs
	// of cursors in order, which the window reads nearly in order.
	head, tail := make([]int32, windows), make([]int32, windows)
	for w := range head {
		head[w] = -1
	}
	next := make([]int32, len(cs))
	enlist := func(j int32) {
		w := int(uint64(cs[j].at-first) >> shift)
		if head[w] < 0 {
			head[w] = j
		} else {
			next[tail[w]] = j
		}
		tail[w], next[j] = j, -1
	}
	for j := range cs {
		enlist(int32(j))
	}
	var in []int32 // the window's cursors
	var from []int64
	var keys, spare []uint64
	mask := uint64(1)<<itemBits - 1
	for w := range windows {
		start := first + time.Duration(uint64(w)<<shift)
		end := start + time.Duration(uint64(1)<<shift)
		if w == windows-1 {
			end = last + 1 // past the last request (start + 2^shift may overflow)
		}
		in = in[:0]
		for j := head[w]; j >= 0; j = next[j] {
			in = append(in, j)
		}
		keys = keys[:0]
		over := false
		for k, j := range in {
			c := &cs[j]
			from = append(from[:k], c.v)
			for c.v < c.count && c.at < end && len(keys) <= most {
				keys = append(keys, uint64(c.at-start)<<itemBits|uint64(c.item))
				s.advance(c)
			}
			if len(keys) > most {
				// Too many to sort: put back the cursors read so far and
				// merge the window through a heap.
				for k, j := range in[:k+1] {
					c := &cs[j]
					c.v, c.at = from[k], s.Traffic[c.item].Time(from[k])
				}
				over = true
				break
			}
		}
		if over {
			if !s.heapMerge(cs, in, end, yield) {
				return
			}
		} else {
			if cap(spare) < len(keys) {
				spare = make([]uint64, len(keys), cap(keys))
			}
			keys, spare = radixSort(keys, spare[:len(keys)], shift+itemBits)
			for _, k := range keys {
				if !yield(int(k&mask), start+time.Duration(k>>itemBits)) {
					return
				}
			}
		}
		for _, j := range in {
			if c := &cs[j]; c.v < c.count {
				enlist(j)
			}
		}
	}
}

// before is the number of t's requests before at: the index of the first
// at or after it.
func (t *Traffic) before(at time.Duration) int64 {
	switch t.Form {
	case Burst:
		// ⌊i×Spread/Count⌋ < d ⟺ i×Spread < d×Count ⟺ i < ⌈d×Count/Spread⌉.
		d := at - t.At
		switch {
		case d <= 0:
			return 0
		case d >= t.Spread: // every offset is below Spread
			return t.Count
		}
		hi, lo := bits.Mul64(uint64(d), uint64(t.Count))
		q, r := bits.Div64(hi, lo, uint64(t.Spread)) // q < Count: d < Spread
		if r != 0 {
			q++
		}
		return min(int64(q), t.Count)
	case Periodic:
		return min(periodicCount(t.From, at, t.Every), t.Count)
	case Poisson:
		return int64(sort.Search(len(t.times), func(i int) bool { return t.times[i] >= at }))
	}
	if t.At < at {
		return t.Count
	}
	return 0
}

// radixDigit is the width of a digit of radixSort: 4096 counts of 4
// bytes, which stay in the first-level cache.
const radixDigit = 12

// radixSort sorts keys, whose values are below 2^width, by a least
// significant digit first radix sort through spare (of the same length),
// and returns the sorted slice and the other one. One pass counts every
// digit; a digit that every key shares then costs no move.
func radixSort(keys, spare []uint64, width int) (sorted, other []uint64) {
	const mask = 1<<radixDigit - 1
	digits := (width + radixDigit - 1) / radixDigit
	if len(keys) < 2 || digits == 0 {
		return keys, spare
	}
	var counts [(64 + radixDigit - 1) / radixDigit][1 << radixDigit]uint32
	for _, k := range keys {
		for d := range digits {
			counts[d][(k>>(d*radixDigit))&mask]++
		}
	}
	for d := range digits {
		count, lo := &counts[d], d*radixDigit
		if count[(keys[0]>>lo)&mask] == uint32(len(keys)) {
			continue
		}
		var sum uint32
		for x, c := range count {
			count[x] = sum
			sum += c
		}
		for _, k := range keys {
			x := (k >> lo) & mask
			spare[count[x]] = k
			count[x]++
		}
		keys, spare = spare, keys
	}
	return keys, spare
}
