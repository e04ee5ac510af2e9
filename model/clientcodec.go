package model

import (
	"math/bits"
	"time"

	"ratelab/scenarios"
)

// A clientLog keeps its entries in chunks of chunkLen, each coded in a few
// bits an entry once full (sealed), the latest chunk plainly (open). An
// entry's time is not kept when its client's rule gives it: a backoff's
// (jitter included, drawn from the request alone) or an at-once retry's is
// the original's arrival plus the rule's waits, worked out again when read
// (attemptTimes). When the rule does not give it exactly (a Retry-After,
// a gateway's skewed clock), the time is coded with the entry.
//
// A sealed entry is, in order (bits first to last, least significant
// bit of a word first):
//
//   - the pos step from the entry before (not for a chunk's first, whose
//     pos is the chunk's start): 0 as "0", 1 as "10", 2 as "110", s ≥ 3
//     as "111" and long(s − 3);
//   - the attempt: 2 bits, 0 to 2 for attempts 2 to 4 at their rule's
//     time, 3 for any other: long(n), then a bit set when the time is
//     coded, and then a bit set for whole seconds, and long(zigzag(the
//     time less the original's arrival, in ns or in seconds));
//   - for a retry (n ≥ 2), pos − orig − 1 in a Rice code of parameter k
//     (k low bits after the quotient, written as the pos step is, capped
//     at riceCap ones), k chosen for the chunk for each of n = 2, n = 3
//     and n ≥ 4: a retry's original is the nearer the fewer its waits.
//
// long(v) is v's bit length in 7 bits and then its bits. Whether an
// entry was admitted is not coded: the log's admits list it.
const chunkLen = 64

// riceCap is the most ones a quotient is written with; a larger one
// follows them in long().
const riceCap = 20

// pageWords is the size of a page of sealed chunks, in 64-bit words: a
// chunk never straddles two, and the last one grows by doubling up to it.
const pageWords = 1 << 15

// logChunk is a chunk of a clientLog's entries, decoded (or the open one):
// pos, orig, attempt number and outcome of each, and the times known.
type logChunk struct {
	k int // which chunk; −1: none
	n int // how many entries (of a sealed one, decoded so far)
	// rest is where a sealed chunk's entries not yet decoded begin.
	rest bitReader
	// ok's bit i tells entry i was admitted, once okKnown.
	ok      uint64
	okKnown bool
	known   uint64 // bit i: at[i] holds entry i's time
	pos     [chunkLen]int32
	orig    [chunkLen]int32
	att     [chunkLen]uint8
	at      [chunkLen]time.Duration
}

// event is entry i of the chunk, its time worked out by p if not known.
func (c *logChunk) event(p *attemptTimes, i int) clientEvent {
	return clientEvent{at: c.time(p, i), pos: c.pos[i], orig: c.orig[i], n: c.att[i], ok: c.ok>>i&1 != 0}
}

// head is event without the time.
func (c *logChunk) head(i int) clientEvent {
	return clientEvent{pos: c.pos[i], orig: c.orig[i], n: c.att[i], ok: c.ok>>i&1 != 0}
}

// time is entry i's time, worked out by p once and then remembered.
func (c *logChunk) time(p *attemptTimes, i int) time.Duration {
	if c.known>>i&1 == 0 {
		c.at[i], _ = p.at(int(c.orig[i]), int(c.att[i]))
		c.known |= 1 << i
	}
	return c.at[i]
}

// attemptTimes works out when attempt n of the original request
// events[orig] comes by its client's rule alone: what the lanes make of it
// when every decision's time is its request's (a plain lane, or gateways
// without skew). nil knows no rule: every time is coded whole.
type attemptTimes struct {
	tl   *timeline
	book *clientBook
}

// base is what a coded time is relative to: the original's arrival (0
// with no timeline).
func (p *attemptTimes) base(orig int) time.Duration {
	if p == nil {
		return 0
	}
	return p.tl.at(orig)
}

// at is when attempt n ≥ 1 of events[orig] comes by its client's rule;
// false when the rule does not say (a Retry-After's wait is the
// refusal's, and a request without a client has no attempt but its
// first). The first attempt is the arrival.
func (p *attemptTimes) at(orig, n int) (time.Duration, bool) {
	if p == nil {
		return 0, false
	}
	first := p.tl.at(orig)
	if n == 1 {
		return first, true
	}
	client := int(p.tl.kind(orig).client)
	if client == 0 {
		return 0, false
	}
	rule := &p.book.plans[client]
	switch rule.c.Retry {
	case scenarios.AtOnce:
		return first, true
	case scenarios.Backoff:
		// As plan.retry: each attempt's time plus its wait, the plan's,
		// the jitter drawn from the request's salt. (The log holds no
		// more attempts than the client makes: n − 1 ≤ len(rule.steps).)
		salt := p.book.salt(client, first, p.rank(orig))
		at := first
		for m := int32(1); m < int32(n); m++ {
			at += min(rule.wait(m, salt), scenarios.MaxTime)
		}
		return at, true
	}
	return 0, false
}

// rank is events[orig]'s place among the requests arriving at its instant,
// from 0, as lanes.arrive counts it.
func (p *attemptTimes) rank(orig int) int {
	first := p.tl.at(orig)
	if orig == 0 || p.tl.at(orig-1) != first {
		return 0
	}
	return orig - p.tl.searchBefore(first)
}

// bitWriter appends bits to w, n written so far.
type bitWriter struct {
	w []uint64
	n int
}

// put writes the k ≤ 64 low bits of v.
func (b *bitWriter) put(v uint64, k int) {
	if k == 0 {
		return
	}
	if k < 64 {
		v &= 1<<k - 1
	}
	for len(b.w) <= (b.n+k-1)>>6 {
		b.w = append(b.w, 0)
	}
	i, sh := b.n>>6, uint(b.n&63)
	b.w[i] |= v << sh
	if sh != 0 && int(sh)+k > 64 {
		b.w[i+1] |= v >> (64 - sh)
	}
	b.n += k
}

// small writes v as min(v, most) ones, then a zero if v < most, else
// long(v − most).
func (b *bitWriter) small(v uint64, most int) {
	if v < uint64(most) {
		b.put(1<<v-1, int(v)+1)
		return
	}
	b.put(1<<most-1, most)
	b.long(v - uint64(most))
}

// long writes v's bit length in 7 bits, then its bits.
func (b *bitWriter) long(v uint64) {
	l := bits.Len64(v)
	b.put(uint64(l), 7)
	b.put(v, l)
}

// rice writes v in a Rice code of parameter k.
func (b *bitWriter) rice(v uint64, k int) {
	b.small(v>>k, riceCap)
	b.put(v, k)
}

// bitReader reads bits from w from bit n on.
type bitReader struct {
	w []uint64
	n int
}

// peek is the next 64 bits, zeros past the end.
func (b *bitReader) peek() uint64 {
	i, sh := b.n>>6, uint(b.n&63)
	if i >= len(b.w) {
		return 0
	}
	v := b.w[i] >> sh
	if sh != 0 && i+1 < len(b.w) {
		v |= b.w[i+1] << (64 - sh)
	}
	return v
}

// get reads k ≤ 64 bits.
func (b *bitReader) get(k int) uint64 {
	if k == 0 {
		return 0
	}
	v := b.peek()
	b.n += k
	if k < 64 {
		v &= 1<<k - 1
	}
	return v
}

// small reads what bitWriter.small wrote.
func (b *bitReader) small(most int) uint64 {
	t := bits.TrailingZeros64(^b.peek())
	if t < most {
		b.n += t + 1
		return uint64(t)
	}
	b.n += most
	return uint64(most) + b.long()
}

// long reads what bitWriter.long wrote.
func (b *bitReader) long() uint64 { return b.get(int(b.get(7))) }

// rice reads what bitWriter.rice wrote.
func (b *bitReader) rice(k int) uint64 {
	q := b.small(riceCap)
	return q<<k | b.get(k)
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// riceClass is which of a chunk's Rice parameters codes attempt n's
// distance to its original.
func riceClass(n uint8) int { return int(min(n, 4)) - 2 }

// chunkMeta packs a sealed chunk's highest retry attempt (0 with none)
// and its three Rice parameters.
func chunkMeta(highest uint8, ks [3]int) uint32 {
	return uint32(highest) | uint32(ks[0])<<8 | uint32(ks[1])<<13 | uint32(ks[2])<<18
}

func metaHighest(m uint32) uint8 { return uint8(m) }

func metaKs(m uint32) [3]int {
	return [3]int{int(m >> 8 & 31), int(m >> 13 & 31), int(m >> 18 & 31)}
}

// riceParams are the Rice parameters that code c's retries' distances to
// their originals in the fewest bits, of those within 2 of the bit length
// of their mean (the best one is near it).
func riceParams(c *logChunk) [3]int {
	var sum [3]uint64
	var count [3]int
	for i := range c.n {
		if c.att[i] >= 2 {
			x := riceClass(c.att[i])
			sum[x] += uint64(c.pos[i] - c.orig[i] - 1)
			count[x]++
		}
	}
	var ks [3]int
	for x := range ks {
		if count[x] == 0 {
			continue
		}
		k0 := max(bits.Len64(sum[x]/uint64(count[x]))-2, 0)
		var cost [5]int
		for i := range c.n {
			if c.att[i] < 2 || riceClass(c.att[i]) != x {
				continue
			}
			v := uint64(c.pos[i] - c.orig[i] - 1)
			for d := range cost {
				k := min(k0+d, 31)
				if q := v >> k; q < riceCap {
					cost[d] += k + int(q) + 1
				} else {
					cost[d] += k + riceCap + 7 + bits.Len64(q-riceCap)
				}
			}
		}
		best := 0
		for d := range cost {
			if cost[d] < cost[best] {
				best = d
			}
		}
		ks[x] = min(k0+best, 31)
	}
	return ks
}

// encode writes c's entries into w, in the chunk's code with parameters
// ks, p working out the times that need not be written.
func encodeChunk(w *bitWriter, c *logChunk, p *attemptTimes, ks [3]int) {
	for i := range c.n {
		if i > 0 {
			w.small(uint64(c.pos[i]-c.pos[i-1]), 3)
		}
		n, orig := c.att[i], int(c.orig[i])
		want, ok := p.at(orig, int(n))
		ruled := ok && want == c.at[i]
		if ruled && n >= 2 && n <= 4 {
			w.put(uint64(n-2), 2)
		} else {
			w.put(3, 2)
			w.long(uint64(n))
			if ruled {
				w.put(0, 1)
			} else {
				w.put(1, 1)
				d := c.at[i] - p.base(orig)
				if d%time.Second == 0 {
					w.put(1, 1)
					w.long(zigzag(int64(d / time.Second)))
				} else {
					w.put(0, 1)
					w.long(zigzag(int64(d)))
				}
			}
		}
		if n >= 2 {
			if c.pos[i] <= c.orig[i] {
				panic("model: a retry logged before its original")
			}
			w.rice(uint64(c.pos[i]-c.orig[i]-1), ks[riceClass(n)])
		}
	}
}

// decodeChunk reads a chunk's entries c.n to n − 1, coded from r on,
// into c (their times coded, the others not yet known); the chunk's
// first entry's pos is start.
func decodeChunk(r *bitReader, c *logChunk, p *attemptTimes, start int32, ks [3]int, n int) {
	pos := start
	if c.n > 0 {
		pos = c.pos[c.n-1]
	}
	w := r.w
	for i := c.n; i < n; i++ {
		// r.common, by hand: most of a chunk's decoding.
		if wi, sh := r.n>>6, uint(r.n&63); wi+1 < len(w) {
			v := w[wi]>>sh | w[wi+1]<<(64-sh) // a shift by 64 is 0
			step, used := 0, 0
			if i > 0 {
				step = bits.TrailingZeros64(^v)
				used = step + 1
				v >>= used
			}
			if code := int(v & 3); step < 3 && code < 3 {
				k := ks[code] // riceClass(code + 2)
				v >>= 2
				q := bits.TrailingZeros64(^v)
				if used += 2 + q + 1 + k; q < riceCap && used <= 64 {
					v >>= q + 1
					r.n += used
					pos += int32(step)
					c.pos[i], c.att[i], c.orig[i] = pos, uint8(code+2), pos-1-int32(uint64(q)<<k|v&(1<<k-1))
					continue
				}
			}
		}
		if step, att, back, ok := r.common(i > 0, ks); ok {
			pos += int32(step)
			c.pos[i], c.att[i], c.orig[i] = pos, att, pos-1-int32(back)
			continue
		}
		if i > 0 {
			pos += int32(r.small(3))
		}
		c.pos[i] = pos
		att, orig, d, timed := decodeEntry(r, pos, ks)
		c.att[i], c.orig[i] = att, orig
		if timed {
			c.at[i] = p.base(int(orig)) + d
			c.known |= 1 << i
		}
	}
	c.n = n
}

// common reads the common entry from one peek: a pos step under 3 (read
// only when stepped), attempt 2 to 4 at its rule's time, a Rice quotient
// under riceCap, all within 64 bits; false, having read nothing, for any
// other.
func (r *bitReader) common(stepped bool, ks [3]int) (step int, att uint8, back uint64, ok bool) {
	v, used := r.peek(), 0
	if stepped {
		step = bits.TrailingZeros64(^v)
		used = step + 1
		v >>= used
	}
	code := int(v & 3)
	if step >= 3 || code == 3 {
		return 0, 0, 0, false
	}
	att = uint8(code + 2)
	k := ks[riceClass(att)]
	v >>= 2
	q := bits.TrailingZeros64(^v)
	if used += 2 + q + 1 + k; q >= riceCap || used > 64 {
		return 0, 0, 0, false
	}
	v >>= q + 1
	r.n += used
	return step, att, uint64(q)<<k | v&(1<<k-1), true
}

// decodeEntry reads an entry of pos pos after its pos step: its attempt,
// its original and, when timed, its time less the original's arrival.
func decodeEntry(r *bitReader, pos int32, ks [3]int) (att uint8, orig int32, d time.Duration, timed bool) {
	if code := r.get(2); code < 3 {
		att = uint8(code) + 2
	} else {
		att = uint8(r.long())
		if r.get(1) == 1 {
			timed = true
			if r.get(1) == 1 {
				d = time.Duration(unzigzag(r.long())) * time.Second
			} else {
				d = time.Duration(unzigzag(r.long()))
			}
		}
	}
	orig = pos
	if att >= 2 {
		orig = pos - 1 - int32(r.rice(ks[riceClass(att)]))
	}
	return att, orig, d, timed
}
