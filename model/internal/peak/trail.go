package peak

import (
	"encoding/binary"
	mbits "math/bits"
	"slices"
	"time"
)

// run is n passing instants of cost each, from at to end: at, at + step,
// …, end (step is meaningless when n is 1), or, when bits is set, with
// gaps of step or step + 1 (an uneven burst: the i-th request at at +
// ⌊i × spread / count⌋): the gap after the point at is step + bit pos of
// bits, the next one step + bit pos + 1, and so on. n = 0 is no run.
type run struct {
	at, end, step time.Duration
	cost, n       int64
	bits          []byte // bit i is bits[i/8] >> (i%8) & 1
	pos           int64
}

func (r *run) bit(i int64) time.Duration { return time.Duration(r.bits[i>>3] >> (i & 7) & 1) }

// setBit sets bit i of bits, the first not yet written, to v.
func setBit(bits []byte, i int64, v time.Duration) []byte {
	for int64(len(bits)) <= i>>3 {
		bits = append(bits, 0)
	}
	bits[i>>3] |= byte(v) << (i & 7)
	return bits
}

// maxRunBytes bounds a run's encoding, its bits aside: five varints.
const maxRunBytes = 5 * binary.MaxVarintLen64

// twoStepsUpTo is the longest regular run that a gap one off its step
// turns into a run of two steps (longer, it ends there): converting costs
// a bit per point.
const twoStepsUpTo = 64

// trail is the passages inside a trailing window, in time order, summed:
// passages at one instant are one point of their total cost, and points
// at a regular step with the same cost are one run, or with gaps of two
// adjacent lengths a run of one bit per point. The oldest run (head)
// and the newest (tail, still growing) are kept as they are; the runs
// between them are varint-encoded in buf. Regular traffic is a run per
// regularity, whatever the window's length; each irregular point costs
// its gap from the previous one and its cost, varint-encoded: 2 to 6
// bytes for gaps up to 2^35 ns (34 s) and costs under 64, at most 40
// bytes for a run. buf is compacted once half of it has been read, so the
// memory is at most twice the encoded window plus a fixed part.
type trail struct {
	cursor
	buf []byte
	// encEnd is the last instant before the tail's run: the end of the
	// last run encoded, or of the head when buf holds none.
	encEnd time.Duration
	sum    int64 // the cost of every passage kept
}

// cursor is the oldest part of a trail: its head run, where to decode the
// next one, the tail and the open point. Copying it lets peakBy evict
// without changing the trail.
type cursor struct {
	head   run
	off    int           // buf[off:] is still to decode
	decEnd time.Duration // the end of the last run decoded (the head's)
	tail   run
	// point is the latest instant, with the cost passing at it so far
	// (pointCost 0: none), not yet in the tail.
	point     time.Duration
	pointCost int64
}

// add puts x, no earlier than any passage kept, in the window (x.At − w,
// x.At] and drops what leaves it.
func (t *trail) add(x Passage, w time.Duration) {
	if t.put(x) {
		// A new instant: what it leaves behind goes (never the instant
		// itself, the open point, at x.At > x.At − w).
		t.sum -= t.evict(t.buf, x.At-w)
		t.readAll()
	}
}

// commit moves the open point into the tail's run, or starts a new one.
func (t *trail) commit() {
	at, cost := t.point, t.pointCost
	t.pointCost = 0
	tl := &t.tail
	if tl.n > 0 && tl.cost == cost {
		g := at - tl.end
		switch {
		case tl.n == 1:
			tl.step, tl.end, tl.n, tl.bits, tl.pos = g, at, 2, nil, 0
			return
		case tl.bits == nil && g == tl.step:
			tl.end, tl.n = at, tl.n+1
			return
		case tl.bits == nil && tl.n <= twoStepsUpTo && (g == tl.step+1 || g == tl.step-1 && g > 0):
			q := min(g, tl.step)
			tl.bits, tl.pos = make([]byte, 0, 16), 0
			for i := range tl.n - 1 {
				tl.bits = setBit(tl.bits, i, tl.step-q)
			}
			tl.step = q
		}
		if tl.bits != nil && (g == tl.step || g == tl.step+1) {
			tl.bits = setBit(tl.bits, tl.pos+tl.n-1, g-tl.step)
			tl.end, tl.n = at, tl.n+1
			if tl.pos >= 8192 { // drop the bits of points evicted
				drop := tl.pos >> 3
				tl.bits = tl.bits[:copy(tl.bits, tl.bits[drop:])]
				tl.pos -= drop << 3
			}
			return
		}
	}
	t.closeTail()
	t.tail = run{at: at, end: at, cost: cost, n: 1}
}

// closeTail makes the tail's run the head, when nothing else is kept, or
// encodes it after the others.
func (t *trail) closeTail() {
	tl := t.tail
	if tl.n == 0 {
		return
	}
	t.tail = run{}
	if t.head.n == 0 { // then buf holds nothing unread either
		t.head, t.decEnd, t.encEnd = tl, tl.end, tl.end
		t.buf, t.off = t.buf[:0], 0
		return
	}
	if t.off >= 256 && t.off*2 >= len(t.buf) {
		t.buf = t.buf[:copy(t.buf, t.buf[t.off:])]
		t.off = 0
	}
	if need := len(t.buf) + maxRunBytes + int(tl.n+7)/8; need > cap(t.buf) && cap(t.buf) >= 1024 {
		// Doubling a large buf: append's growth, by a quarter past a few
		// hundred bytes, made a window of a million irregular passages
		// allocate five times what it holds. (Small ones, the many
		// sources in flight, grow as append grows them.)
		b := make([]byte, len(t.buf), max(need, 2*cap(t.buf)))
		t.buf = b[:copy(b, t.buf)]
	}
	b := binary.AppendUvarint(t.buf, uint64(tl.at-t.encEnd))
	switch {
	case tl.n == 1:
		b = binary.AppendUvarint(b, uint64(tl.cost)<<2)
	case tl.bits == nil:
		b = binary.AppendUvarint(b, uint64(tl.cost)<<2|1)
		b = binary.AppendUvarint(b, uint64(tl.n-2))
		b = binary.AppendUvarint(b, uint64(tl.step))
	default: // then the n − 1 gaps' bits, from pos
		b = binary.AppendUvarint(b, uint64(tl.cost)<<2|2)
		b = binary.AppendUvarint(b, uint64(tl.n-2))
		b = binary.AppendUvarint(b, uint64(tl.step))
		for i := int64(0); i < tl.n-1; i += 8 {
			var by byte
			for j := i; j < min(i+8, tl.n-1); j++ {
				by |= byte(tl.bit(tl.pos+j)) << (j - i)
			}
			b = append(b, by)
		}
	}
	t.buf, t.encEnd = b, tl.end
}

// evict drops the passages at or before cut, oldest first, and returns
// their cost.
func (c *cursor) evict(buf []byte, cut time.Duration) (gone int64) {
	for {
		r := &c.head
		if r.n == 0 {
			if c.off < len(buf) {
				c.decode(buf)
				continue
			}
			r = &c.tail
			if r.n == 0 {
				if c.pointCost > 0 && c.point <= cut {
					gone += c.pointCost
					c.pointCost = 0
				}
				return gone
			}
		}
		if r.at > cut {
			return gone
		}
		if r.bits != nil {
			for r.n > 0 && r.at <= cut {
				gone += r.cost
				if r.n--; r.n > 0 {
					r.at += r.step + r.bit(r.pos)
					r.pos++
				}
			}
			if r.n > 0 {
				return gone
			}
			continue // the next run, or the point, may go too
		}
		k := int64(1)
		if r.n > 1 && r.at+r.step <= cut {
			k = min(r.n, int64((cut-r.at)/r.step)+1)
		}
		gone += k * r.cost
		r.n -= k
		if r.n > 0 {
			r.at += time.Duration(k) * r.step
			return gone
		}
	}
}

// decode reads the next run from buf into the head.
func (c *cursor) decode(buf []byte) {
	next := func() uint64 {
		v, n := binary.Uvarint(buf[c.off:])
		c.off += n
		return v
	}
	at := c.decEnd + time.Duration(next())
	costKind := next()
	r := run{at: at, end: at, cost: int64(costKind >> 2), n: 1}
	if costKind&3 != 0 {
		r.n = int64(next()) + 2
		r.step = time.Duration(next())
		r.end = at + time.Duration(r.n-1)*r.step
	}
	if costKind&3 == 2 { // a copy: compacting buf moves what it reads
		nb := int((r.n - 1 + 7) / 8)
		r.bits = append([]byte(nil), buf[c.off:c.off+nb]...)
		c.off += nb
		for _, by := range r.bits {
			r.end += time.Duration(mbits.OnesCount8(by))
		}
	}
	c.head, c.decEnd = r, r.end
}

// put appends x, no earlier than any passage t keeps, and drops nothing;
// it reports whether x began an instant of its own.
func (t *trail) put(x Passage) bool {
	t.sum += x.Cost
	if t.pointCost > 0 && x.At == t.point {
		t.pointCost += x.Cost
		return false
	}
	if t.pointCost > 0 {
		t.commit()
	}
	t.point, t.pointCost = x.At, x.Cost
	return true
}

// readAll forgets buf once every run encoded in it has been read.
func (t *trail) readAll() {
	if t.head.n == 0 && len(t.buf) > 0 {
		t.buf, t.off = t.buf[:0], 0
	}
}

// takeOldest removes the passages at t's oldest instant, at, and returns
// their cost.
func (t *trail) takeOldest(at time.Duration) int64 {
	gone := t.drop(at)
	t.readAll()
	return gone
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

// fits reports whether an instant at, after the point r ends with, can
// extend r, cost aside.
func (r *run) fits(at time.Duration) bool {
	g := at - r.end
	if r.bits != nil {
		return g == r.step || g == r.step+1
	}
	return g == r.step || r.n <= twoStepsUpTo && (g == r.step+1 || g == r.step-1)
}

// bytes is what t holds encoded, or as bits.
func (t *trail) bytes() int { return len(t.buf) + len(t.head.bits) + len(t.tail.bits) }

// clone is a copy of t that shares no memory with it.
func (t *trail) clone() trail {
	c := *t
	c.buf = slices.Clone(t.buf)
	c.head.bits = slices.Clone(t.head.bits)
	c.tail.bits = slices.Clone(t.tail.bits)
	return c
}
