package model

import (
	"slices"
	"time"
)

// timeBlock is how many requests' times one base time serves.
const timeBlock = 256

// timeline is the lab's requests in time order, compactly: each request's
// kind (an index into Lab.kinds: key, cost, fire action) in 4 bytes, and its
// time as 4 bytes of offset from the first time of its block of timeBlock
// requests, plus 4 bytes more in a block that spans 2^32 ns (4.3 s) or more.
// So a timeline costs 8 bytes a request where requests come at least 60 a
// second on average, 12 bytes elsewhere.
type timeline struct {
	base []time.Duration // base[b] is the time of request b×timeBlock
	// wide[b] is −1 for a block whose offsets fit 32 bits, else where its
	// high words start in high.
	wide []int32
	low  []uint32 // low 32 bits of each request's offset from its block's base
	high []uint32 // high 32 bits of the offsets of wide blocks, timeBlock each
	kind []uint32
}

// event is one request of a timeline, outside it.
type event struct {
	at   time.Duration
	kind uint32
}

func (t *timeline) len() int { return len(t.kind) }

// at is the time of request i.
func (t *timeline) at(i int) time.Duration {
	b := i / timeBlock
	off := uint64(t.low[i])
	if w := t.wide[b]; w >= 0 {
		off |= uint64(t.high[int(w)+i%timeBlock]) << 32
	}
	return t.base[b] + time.Duration(off)
}

// event is request i.
func (t *timeline) event(i int) event { return event{t.at(i), t.kind[i]} }

// reserve makes room for n requests in all, so that a timeline built to a
// known length holds no slack from growing.
func (t *timeline) reserve(n int) {
	blocks := (n + timeBlock - 1) / timeBlock
	t.base = slices.Grow(t.base, blocks-len(t.base))
	t.wide = slices.Grow(t.wide, blocks-len(t.wide))
	t.low = slices.Grow(t.low, n-len(t.low))
	t.kind = slices.Grow(t.kind, n-len(t.kind))
}

// push adds a request at the end, at or after the last one.
func (t *timeline) push(e event) {
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
func (t *timeline) truncate(n int) {
	if n >= t.len() {
		return
	}
	blocks := (n + timeBlock - 1) / timeBlock
	t.base, t.wide = t.base[:blocks], t.wide[:blocks]
	t.low, t.kind = t.low[:n], t.kind[:n]
	// Wide blocks' high words are in block order: keep those of the
	// blocks kept.
	h := 0
	for _, w := range t.wide {
		if w >= 0 {
			h = int(w) + timeBlock
		}
	}
	t.high = t.high[:h]
	// A block cut short stays wide if it was: harmless.
}

// clip gives back the memory a shorter timeline no longer needs.
func (t *timeline) clip() {
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
func (t *timeline) bytes() int64 {
	return int64(cap(t.base))*8 + int64(cap(t.wide))*4 + int64(cap(t.low)+cap(t.high)+cap(t.kind))*4
}
