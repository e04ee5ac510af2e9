package model

import (
	"slices"
	"sort"
	"time"

	"ratelab/algorithms"
)

// releaseBlocks index the release times of one delaying lane's delayed
// requests by tally block: block b's releases, sorted, are
// times[start[b]:start[b+1]]. A block is added when its last request is
// decided, beside its tally.
type releaseBlocks struct {
	times []time.Duration
	start []int // len = complete blocks + 1
}

// add indexes the delayed requests among events[lo:lo+tallyBlock].
func (rb *releaseBlocks) add(e *engine, lane, lo int) {
	if rb.start == nil {
		rb.start = []int{0}
	}
	from := len(rb.times)
	dl := e.delays[lane]
	for j := dl.search(lo); j < len(dl.idx) && int(dl.idx[j]) < lo+tallyBlock; j++ {
		if i := int(dl.idx[j]); e.outcomes[lane][i] == algorithms.Delayed {
			rb.times = append(rb.times, e.tl.at(i)+dl.d[j])
		}
	}
	slices.Sort(rb.times[from:])
	rb.start = append(rb.start, len(rb.times))
}

// delayLog is the delays a lane gave, those not zero: d[j] is the delay of
// events[idx[j]], idx ascending. A timeline costs 12 bytes for each request
// delayed, nothing for the others.
type delayLog struct {
	idx []int32
	d   []time.Duration
}

// add records that events[i], after every one recorded, was delayed by d.
func (dl *delayLog) add(i int, d time.Duration) {
	dl.idx = append(dl.idx, int32(i))
	dl.d = append(dl.d, d)
}

// search is the number of entries for events before i.
func (dl *delayLog) search(i int) int {
	j, _ := slices.BinarySearch(dl.idx, int32(i))
	return j
}

// delay is the delay of events[i].
func (dl *delayLog) delay(i int) time.Duration {
	if j := dl.search(i); j < len(dl.idx) && int(dl.idx[j]) == i {
		return dl.d[j]
	}
	return 0
}

// truncate forgets the delays of events[n:].
func (dl *delayLog) truncate(n int) {
	j := dl.search(n)
	dl.idx, dl.d = shrink(dl.idx[:j]), shrink(dl.d[:j])
}

// truncate keeps the first n blocks.
func (rb *releaseBlocks) truncate(n int) {
	if len(rb.start) > n+1 {
		rb.start = shrink(rb.start[:n+1])
		rb.times = shrink(rb.times[:rb.start[n]])
	}
}

// count is how many of block b's releases are in [from, to).
func (rb *releaseBlocks) count(b int, from, to time.Duration) int {
	ts := rb.times[rb.start[b]:rb.start[b+1]]
	if len(ts) == 0 || ts[0] >= to || ts[len(ts)-1] < from {
		return 0
	}
	lo, _ := slices.BinarySearch(ts, from)
	hi, _ := slices.BinarySearch(ts[lo:], to)
	return hi
}

// Released is how many of the decided requests (the first Pos) lane delayed
// with a release (arrival + delay) in [from, to): what the service behind a
// shaper receives. Releases after Now of requests already decided count;
// requests not yet decided do not. It is 0 for a lane that never delays, and
// for to ≤ from.
//
// Only requests that arrived in [from − the lane's longest delay, to) can be
// released in [from, to), and each block of 256 of them is counted by two
// binary searches over its sorted releases (or skipped at once when none
// falls in the range); at most one partial block, the one where the decided
// requests end, is read request by request. So a call costs the same
// however long the timeline is.
func (l *Lab) Released(lane int, from, to time.Duration) int64 {
	e := l.engine
	if e.delays[lane] == nil || from >= to {
		return 0
	}
	reach := maxDelay(e.defs[lane].Policy)
	start := from - reach
	if start > from { // overflowed below the smallest time
		start = from
	}
	if e.book != nil {
		// Retries pass too, and a wait given back does not: counted on
		// a replay of the span.
		rs := l.spanFrom(lane, start).releases
		lo, _ := slices.BinarySearch(rs, from)
		hi, _ := slices.BinarySearch(rs, to)
		return int64(hi - lo)
	}
	return int64(e.released(lane, l.timeline.searchBefore(start), l.clock.pos, from, to))
}

// released is how many of events[:pos], decided, lane delayed with a
// release in [from, to), where no request before events[lo] can be
// released there (lo is the first to arrive at from − the lane's longest
// delay or later).
func (e *engine) released(lane, lo, pos int, from, to time.Duration) int {
	hi := min(sort.Search(pos, func(i int) bool { return e.tl.at(i) >= to }), pos)
	if lo >= hi {
		return 0
	}
	rb := &e.releases[lane]
	var n int
	// Whole blocks: requests of a block before lo or from hi on cannot be
	// released in [from, to), so counting them whole is exact as long as
	// the whole block is decided.
	b := lo / tallyBlock
	for ; (b+1)*tallyBlock <= pos && b*tallyBlock < hi; b++ {
		n += rb.count(b, from, to)
	}
	for i := max(b*tallyBlock, lo); i < hi; i++ {
		if e.outcomes[lane][i] == algorithms.Delayed {
			if at := e.passage(lane, i); from <= at && at < to {
				n++
			}
		}
	}
	return n
}
