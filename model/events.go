package model

import (
	"slices"
	"time"
)

// timeBlock is how many requests' times one base time serves.
const timeBlock = 256

// events is a timeline's requests in time order, compactly: each
// request's kind (an index into timeline.kinds: key, cost, fire action) in
// 4 bytes, and its time as 4 bytes of offset from the first time of its
// block of timeBlock requests, plus 4 bytes more in a block that spans
// 2^32 ns (4.3 s) or more. So a timeline costs 8 bytes a request where
// requests come at least 60 a second on average, 12 bytes elsewhere.
type events struct {
	base []time.Duration // base[b] is the time of request b×timeBlock
	// wide[b] is −1 for a block whose offsets fit 32 bits, else where its
	// high words start in high.
	wide []int32
	low  []uint32 // low 32 bits of each request's offset from its block's base
	high []uint32 // high 32 bits of the offsets of wide blocks, timeBlock each
	kind []uint32
}

// event is one request of events, outside them.
type event struct {
	at   time.Duration
	kind uint32
}

func (t *events) len() int { return len(t.kind) }

// at is the time of request i.
func (t *events) at(i int) time.Duration {
	b := i / timeBlock
	off := uint64(t.low[i])
	if w := t.wide[b]; w >= 0 {
		off |= uint64(t.high[int(w)+i%timeBlock]) << 32
	}
	return t.base[b] + time.Duration(off)
}

// event is request i.
func (t *events) event(i int) event { return event{t.at(i), t.kind[i]} }

// reserve makes room for n requests in all, so that a timeline built to a
// known length holds no slack from growing.
func (t *events) reserve(n int) {
	blocks := (n + timeBlock - 1) / timeBlock
	t.base = slices.Grow(t.base, blocks-len(t.base))
	t.wide = slices.Grow(t.wide, blocks-len(t.wide))
	t.low = slices.Grow(t.low, n-len(t.low))
	t.kind = slices.Grow(t.kind, n-len(t.kind))
}

// push adds a request at the end, at or after the last one.
func (t *events) push(e event) {
	i := len(t.kind)
	b := i / timeBlock
	if i%timeBlock == 0 {
		t.base = append(t.base, e.at)
		t.wide = append(t.wide, -1)
	}
	off := uint64(e.at - t.base[b])
	if off>>32 != 0 && t.wide[b] < 0 {
		t.wide[b] = int32(len(t.high))
		t.high = append(t.high, make([]uint32, timeBlock)...)
	}
	if w := t.wide[b]; w >= 0 {
		t.high[int(w)+i%timeBlock] = uint32(off >> 32)
	}
	t.low = append(t.low, uint32(off))
	t.kind = append(t.kind, e.kind)
}

// truncate keeps the first n requests.
func (t *events) truncate(n int) {
	if n >= t.len() {
		return
	}
	blocks := (n + timeBlock - 1) / timeBlock
	t.base, t.wide = t.base[:blocks], t.wide[:blocks]
	t.low, t.kind = t.low[:n], t.kind[:n]
	// Keep the high words of the blocks kept (a rewrite may have put
	// them out of block order).
	h := 0
	for _, w := range t.wide {
		if w >= 0 {
			h = max(h, int(w)+timeBlock)
		}
	}
	t.high = t.high[:h]
	// A block cut short stays wide if it was: harmless.
}

// slack is the room for requests a timeline of n keeps beyond them, so
// that firing a few requests shifts it in place (see rewriter) rather than
// copying it: n/256, 0.4%.
func slack(n int) int { return n / 256 }

// grow makes room for n requests in all, with slack, copying the arrays
// only when they have not that room.
func (t *events) grow(n int) {
	if n <= cap(t.kind) {
		return
	}
	n += slack(n)
	t.low = growTo(t.low, n)
	t.kind = growTo(t.kind, n)
	blocks := (n + timeBlock - 1) / timeBlock
	t.base, t.wide = growTo(t.base, blocks), growTo(t.wide, blocks)
}

// growTo is s with room for n elements, copied to an array of exactly that
// size if it has less (append's growth would leave a quarter more).
func growTo[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s
	}
	c := make([]T, len(s), n)
	copy(c, s)
	return c
}

// rewriter rewrites a timeline in place from an index on: next reads the
// old requests from there on, in order, and push writes those that take
// their place. A request is read before anything it is stored with is
// overwritten: those of a block that push is about to write are read
// ahead into a queue, so the queue holds at most the requests inserted
// so far plus a block. done ends the rewrite.
type rewriter struct {
	t      *events
	oldLen int
	r      int     // the old requests before r have been read
	q      []event // read ahead, not yet taken by next: q[qh:]
	qh     int
	w      int     // push writes request w next
	free   []int32 // high words no block uses, timeBlock each
}

func (t *events) rewriteFrom(from int) *rewriter {
	rw := &rewriter{t: t, oldLen: t.len(), r: from, w: from}
	used := make([]bool, len(t.high)/timeBlock)
	for _, w := range t.wide {
		if w >= 0 {
			used[int(w)/timeBlock] = true
		}
	}
	for i, u := range used {
		if !u {
			rw.free = append(rw.free, int32(i*timeBlock))
		}
	}
	return rw
}

// next is the next old request, if any is left.
func (rw *rewriter) next() (event, bool) {
	if rw.qh < len(rw.q) {
		e := rw.q[rw.qh]
		rw.qh++
		if rw.qh == len(rw.q) {
			rw.q, rw.qh = rw.q[:0], 0
		}
		return e, true
	}
	if rw.r < rw.oldLen {
		rw.r++
		return rw.t.event(rw.r - 1), true
	}
	return event{}, false
}

// readThrough reads the old requests before n into the queue.
func (rw *rewriter) readThrough(n int) {
	n = min(n, rw.oldLen)
	if rw.r >= n {
		return
	}
	if rw.qh > 0 && rw.qh*2 >= len(rw.q) {
		rw.q = rw.q[:copy(rw.q, rw.q[rw.qh:])]
		rw.qh = 0
	}
	for ; rw.r < n; rw.r++ {
		rw.q = append(rw.q, rw.t.event(rw.r))
	}
}

// push writes e as the next request, at or after the one written before,
// and returns its index.
func (rw *rewriter) push(e event) int {
	t, i := rw.t, rw.w
	b := i / timeBlock
	rw.readThrough((b + 1) * timeBlock)
	if i%timeBlock == 0 {
		if b < len(t.base) {
			if w := t.wide[b]; w >= 0 {
				rw.free = append(rw.free, w) // its old requests are read
			}
			t.base[b], t.wide[b] = e.at, -1
		} else {
			t.base = append(t.base, e.at)
			t.wide = append(t.wide, -1)
		}
	}
	off := uint64(e.at - t.base[b])
	if off>>32 != 0 && t.wide[b] < 0 {
		if n := len(rw.free); n > 0 {
			t.wide[b] = rw.free[n-1]
			rw.free = rw.free[:n-1]
			clear(t.high[t.wide[b] : t.wide[b]+timeBlock])
		} else {
			t.wide[b] = int32(len(t.high))
			t.high = append(t.high, make([]uint32, timeBlock)...)
		}
	}
	if w := t.wide[b]; w >= 0 {
		t.high[int(w)+i%timeBlock] = uint32(off >> 32)
	}
	if i < len(t.kind) {
		t.low[i], t.kind[i] = uint32(off), e.kind
	} else {
		t.low = append(t.low, uint32(off))
		t.kind = append(t.kind, e.kind)
	}
	rw.w++
	return i
}

// rest writes every old request not yet taken by next, unchanged and in
// order, after those pushed: the rewrite is then complete (done). The
// requests from a whole block on are moved at once where they can be (see
// shift): an insertion or a removal near the start of a long timeline costs
// a move of its arrays, not a request-by-request rewrite.
func (rw *rewriter) rest() {
	// The old requests left are q[qh:], then old[r:oldLen]; they go to
	// [w, newLen). The first whole block of those from old[r:] on moves
	// at once; the others are pushed.
	newLen := rw.w + len(rw.q) - rw.qh + rw.oldLen - rw.r
	delta := newLen - rw.oldLen // where old[x] goes: x + delta
	s0 := (rw.r + delta + timeBlock - 1) / timeBlock * timeBlock
	if s0 < newLen && s0-delta >= rw.r && rw.shift(s0, delta, newLen) {
		rw.readThrough(s0 - delta)
		rw.r = rw.oldLen // the rest is moved
		for e, ok := rw.next(); ok; e, ok = rw.next() {
			rw.push(e)
		}
		rw.w = newLen
		return
	}
	for e, ok := rw.next(); ok; e, ok = rw.next() {
		rw.push(e)
	}
}

// shift moves old[s0−delta:oldLen] to [s0, newLen), s0 a block's start,
// re-basing each block of the offsets by one addition a run, when the old
// blocks are all narrow and the new ones fit 32 bits too; it reports
// whether it did (nothing changed otherwise). The old requests before
// s0−delta are read into the queue first, before the move overwrites
// any of them.
func (rw *rewriter) shift(s0, delta, newLen int) bool {
	t := rw.t
	from := s0 - delta // the first old request moved
	for b := rw.r / timeBlock; b < len(t.wide); b++ {
		if t.wide[b] >= 0 {
			return false
		}
	}
	for b := s0 / timeBlock; b*timeBlock < newLen; b++ {
		lo, hi := b*timeBlock-delta, min((b+1)*timeBlock, newLen)-1-delta
		if uint64(t.at(hi)-t.at(lo))>>32 != 0 {
			return false
		}
	}
	rw.readThrough(from)
	oldBase := slices.Clone(t.base[from/timeBlock:])
	baseOf := func(x int) time.Duration { return oldBase[x/timeBlock-from/timeBlock] }
	t.low, t.kind = growTo(t.low, newLen)[:max(newLen, len(t.low))], growTo(t.kind, newLen)[:max(newLen, len(t.kind))]
	copy(t.low[s0:newLen], t.low[from:rw.oldLen])
	copy(t.kind[s0:newLen], t.kind[from:rw.oldLen])
	blocks := (newLen + timeBlock - 1) / timeBlock
	for len(t.base) < blocks {
		t.base, t.wide = append(t.base, 0), append(t.wide, -1)
	}
	for b := s0 / timeBlock; b < blocks; b++ {
		start, end := b*timeBlock, min((b+1)*timeBlock, newLen)
		// The first moved request of the block is its base.
		nb := baseOf(start-delta) + time.Duration(t.low[start])
		for j := start; j < end; {
			ob := (j - delta) / timeBlock
			runEnd := min(end, (ob+1)*timeBlock+delta)
			c := uint32(uint64(baseOf(j-delta) - nb))
			low := t.low[j:runEnd]
			for k := range low {
				low[k] += c
			}
			j = runEnd
		}
		t.base[b], t.wide[b] = nb, -1
	}
	return true
}

// done ends the rewrite: the timeline is the requests pushed (old ones not
// read are dropped).
func (rw *rewriter) done() { rw.t.truncate(rw.w) }

// clip gives back the memory a shorter timeline no longer needs.
func (t *events) clip() {
	t.base, t.wide = shrink(t.base), shrink(t.wide)
	t.low, t.high, t.kind = shrink(t.low), shrink(t.high), shrink(t.kind)
}

// shrink is s, copied to a smaller array if s uses under half of its own.
func shrink[T any](s []T) []T {
	if cap(s) > 2*len(s)+64 {
		return slices.Clone(s)
	}
	return s
}

// bytes is what the timeline's arrays take.
func (t *events) bytes() int64 {
	return int64(cap(t.base))*8 + int64(cap(t.wide))*4 + int64(cap(t.low)+cap(t.high)+cap(t.kind))*4
}
