package peak

import (
	"encoding/binary"
	"time"
)

// Small is a Tracker for one key's passages, made to be kept by the
// hundred thousand: its zero value is empty, it keeps no window length
// (every call passes the same one), and its passages, the window's and the
// pending releases alike, are one varint-encoded list of runs: a run is n
// passages of one cost at one gap each from the passage before it (the
// first run's gap is from time 0). A key's regular traffic is a run of a
// few bytes whatever its length, and irregular traffic 2 to 6 bytes a
// passage. Small itself is 104 bytes: a caller of many keys keeps each one
// encoded (Append, Load: about 30 bytes for a key that sent ten requests
// a second apart) and decodes the few it works on. It finds the same peak
// as a Tracker fed the same admissions.
//
// The pending releases must come in release order, as one key's do through
// a plain lane (a leaky bucket's queue is a FIFO, x/time/rate's and the
// other shapers' next free times only move on). The first admission that
// would break the order (a lane of gateways releasing a key's requests out
// of order) turns the Small into a Tracker, which it then holds and feeds.
type Small struct {
	buf []byte
	// last is where the last run starts in buf, and lastAt the latest
	// passage's time. (shelfAt, below, sits beside last.)
	last    int32
	shelfAt int32
	lastAt  time.Duration
	// head is the oldest passage kept in the window, rel the first one
	// not released yet: buf's passages before head have left the window,
	// those from head to rel are in it, those from rel on are pending.
	head, rel smallCursor
	sum, peak int64
	peakAt    time.Duration
	// big, once set, holds everything instead. shelfAt is 1 + s's place
	// on the shelf Append keeps it on (see Append), 0 while it is not.
	big *Tracker
}

// smallCursor is a place in a Small's runs: done passages of the run at
// off have been read (done is never the run's n unless it is the last
// run), the latest of them, or of the run before, at base.
type smallCursor struct {
	off, done int32
	base      time.Duration
}

// run reads the run at off: its gap, its cost, its number of passages,
// and where the next run starts.
func (s *Small) run(off int32) (gap time.Duration, cost, n int64, next int32) {
	b := s.buf[off:]
	g, k := binary.Uvarint(b)
	c, k2 := binary.Uvarint(b[k:])
	m, k3 := binary.Uvarint(b[k+k2:])
	return time.Duration(g), int64(c), int64(m), off + int32(k+k2+k3)
}

// peek is the passage at c, if there is one.
func (s *Small) peek(c *smallCursor) (Passage, bool) {
	if int(c.off) >= len(s.buf) {
		return Passage{}, false
	}
	gap, cost, n, next := s.run(c.off)
	if int64(c.done) < n {
		return Passage{c.base + gap, cost}, true
	}
	if int(next) >= len(s.buf) {
		return Passage{}, false
	}
	gap, cost, _, _ = s.run(next)
	return Passage{c.base + gap, cost}, true
}

// step moves c past the passage peek read, x.
func (s *Small) step(c *smallCursor, x Passage) {
	_, _, n, next := s.run(c.off)
	if int64(c.done) == n {
		c.off, c.done = next, 0
	}
	c.done++
	c.base = x.At
	if _, _, n, next := s.run(c.off); int64(c.done) == n && int(next) < len(s.buf) {
		c.off, c.done = next, 0
	}
}

// before reports whether c is before d in the list.
func (c *smallCursor) before(d *smallCursor) bool {
	return c.off < d.off || c.off == d.off && c.done < d.done
}

// push appends a passage at or after lastAt.
func (s *Small) push(x Passage) {
	gap := x.At - s.lastAt
	if len(s.buf) > 0 {
		g, c, n, _ := s.run(s.last)
		if g == gap && c == x.Cost {
			s.buf = s.appendRun(s.buf[:s.last], g, c, n+1)
			s.lastAt = x.At
			return
		}
	}
	s.compact()
	s.last = int32(len(s.buf))
	s.buf = s.appendRun(s.buf, gap, x.Cost, 1)
	s.lastAt = x.At
}

func (s *Small) appendRun(b []byte, gap time.Duration, cost, n int64) []byte {
	b = binary.AppendUvarint(b, uint64(gap))
	b = binary.AppendUvarint(b, uint64(cost))
	return binary.AppendUvarint(b, uint64(n))
}

// compact drops the runs wholly before head once they are most of buf.
func (s *Small) compact() {
	d := s.head.off
	if d < 64 || int(d)*2 < len(s.buf) {
		return
	}
	s.buf = s.buf[:copy(s.buf, s.buf[d:])]
	s.head.off -= d
	s.rel.off -= d
	s.last -= d
}

// pass lets the passage at rel, x, pass: it enters the window (lastPassed −
// w, lastPassed], what leaves it goes, and the peak follows.
func (s *Small) pass(x Passage, w time.Duration) {
	s.step(&s.rel, x)
	s.sum += x.Cost
	cut := x.At - w
	for s.head.before(&s.rel) {
		y, _ := s.peek(&s.head)
		if y.At > cut {
			break
		}
		s.step(&s.head, y)
		s.sum -= y.Cost
	}
	if s.sum > s.peak {
		s.peak, s.peakAt = s.sum, x.At
	}
}

// Admit is Tracker.Admit for windows of length w.
func (s *Small) Admit(at, delay time.Duration, cost int64, src int64, w time.Duration) {
	if s.big != nil {
		s.big.Admit(at, delay, cost, src)
		return
	}
	for {
		x, ok := s.peek(&s.rel)
		if !ok || x.At > at {
			break
		}
		s.pass(x, w)
	}
	release := at + delay
	if release < s.lastAt {
		s.grow(at, w)
		s.big.Admit(at, delay, cost, src)
		return
	}
	s.push(Passage{release, cost})
	if delay == 0 {
		s.pass(Passage{at, cost}, w)
	}
}

// grow turns s into a Tracker with the same window, peak and pending
// releases; lastAdmit is the arrival of the admission about to be made.
func (s *Small) grow(lastAdmit, w time.Duration) {
	t := NewTracker(w)
	c := s.head
	for c.before(&s.rel) {
		x, _ := s.peek(&c)
		s.step(&c, x)
		t.kept.Add(x, w)
	}
	for {
		x, ok := s.peek(&c)
		if !ok {
			break
		}
		s.step(&c, x)
		t.pending.Push(x, 0)
	}
	t.peak, t.peakAt = s.peak, s.peakAt
	t.admitted, t.lastAdmit = true, lastAdmit
	*s = Small{big: &t, shelfAt: s.shelfAt}
}

// PeakBy is Tracker.PeakBy for windows of length w: the peak counting
// also the pending releases due by t, without changing s.
func (s *Small) PeakBy(t, w time.Duration) (int64, time.Duration) {
	if s.big != nil {
		return s.big.PeakBy(t)
	}
	c := *s
	for {
		x, ok := c.peek(&c.rel)
		if !ok || x.At > t {
			return c.peak, c.peakAt
		}
		c.pass(x, w)
	}
}

// Bytes is about what s holds beside itself.
func (s *Small) Bytes() int64 {
	if s.big != nil {
		return s.big.CloneBytes()
	}
	return int64(cap(s.buf))
}

// The encoded Small (Append, Load): a key's tracker kept as bytes between
// its requests, by the hundred thousand. A tag, then what it says:
//
//	0                          the empty Small
//	1, i                       on the shelf: shelf[i−1]
//	2 + len(buf), buf, last, lastAt, head, rel, sum, peak, lastAt − peakAt
//
// a cursor being off, done and, for rel, lastAt − base (0 once everything
// is released), for head its base (0 until the window first slides). Every
// number is a varint, times signed: a key of regular requests inside one
// window encodes in about 30 bytes, its runs included. A Small whose runs
// outgrow shelfBytes, or that grew into a Tracker, is kept on a shelf
// instead, and loading it or putting it back copies the Small, not its
// runs: a key's encoded bytes stay small, so that copying them in and out
// at each of its requests costs little whatever it keeps.

// shelfBytes is the most runs a Small encodes in its bytes.
const shelfBytes = 64

// Append appends s's encoding to b: s itself, or its place on the shelf,
// where it is put (or put back) if it is too big for bytes. A Small taken
// from the shelf (Load) must go back before the shelf is loaded from again.
func (s *Small) Append(b []byte, shelf *[]Small) []byte {
	if s.shelfAt == 0 && (s.big != nil || len(s.buf) > shelfBytes) {
		*shelf = append(*shelf, Small{})
		s.shelfAt = int32(len(*shelf))
	}
	if s.shelfAt != 0 {
		(*shelf)[s.shelfAt-1] = *s
		b = append(b, 1)
		return binary.AppendUvarint(b, uint64(s.shelfAt))
	}
	if len(s.buf) == 0 {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(s.buf))+2)
	b = append(b, s.buf...)
	b = binary.AppendUvarint(b, uint64(s.last))
	b = binary.AppendVarint(b, int64(s.lastAt))
	b = binary.AppendUvarint(b, uint64(s.head.off))
	b = binary.AppendUvarint(b, uint64(s.head.done))
	b = binary.AppendVarint(b, int64(s.head.base))
	b = binary.AppendUvarint(b, uint64(s.rel.off))
	b = binary.AppendUvarint(b, uint64(s.rel.done))
	b = binary.AppendVarint(b, int64(s.lastAt-s.rel.base))
	b = binary.AppendVarint(b, s.sum)
	b = binary.AppendVarint(b, s.peak)
	return binary.AppendVarint(b, int64(s.lastAt-s.peakAt))
}

// Load sets s to the Small encoded at the start of b by Append, reusing
// s's buffer (unless it is a shelved Small's), and returns how many bytes
// it read; shelf is Append's.
func (s *Small) Load(b []byte, shelf []Small) int {
	buf := s.ownBuf()
	tag, n := binary.Uvarint(b)
	switch tag {
	case 0:
		*s = Small{buf: buf}
		return n
	case 1:
		i, k := binary.Uvarint(b[n:])
		*s = shelf[i-1] // its runs are the shelf's until Append puts it back
		return n + k
	}
	*s = Small{}
	end := n + int(tag-2)
	s.buf = append(buf, b[n:end]...)
	d := decoder{b: b, at: end}
	s.last = int32(d.uvarint())
	s.lastAt = time.Duration(d.varint())
	s.head.off, s.head.done = int32(d.uvarint()), int32(d.uvarint())
	s.head.base = time.Duration(d.varint())
	s.rel.off, s.rel.done = int32(d.uvarint()), int32(d.uvarint())
	s.rel.base = s.lastAt - time.Duration(d.varint())
	s.sum, s.peak = d.varint(), d.varint()
	s.peakAt = s.lastAt - time.Duration(d.varint())
	return d.at
}

// ownBuf is s's buffer emptied to be written over, nil when it is a
// shelved Small's.
func (s *Small) ownBuf() []byte {
	if s.shelfAt != 0 {
		return nil
	}
	return s.buf[:0]
}

// decoder reads varints from b at at.
type decoder struct {
	b  []byte
	at int
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b[d.at:])
	d.at += n
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b[d.at:])
	d.at += n
	return v
}

// Equal reports whether s and o encode alike (see Append): the same
// passages and cursors, or the same Tracker.
func (s *Small) Equal(o *Small) bool {
	return s.big == o.big && s.shelfAt == o.shelfAt && s.last == o.last && s.lastAt == o.lastAt && s.head == o.head && s.rel == o.rel &&
		s.sum == o.sum && s.peak == o.peak && s.peakAt == o.peakAt && string(s.buf) == string(o.buf)
}

// CopyFrom sets s to a copy of o that shares no passage with it, reusing
// s's buffer (unless it is a shelved Small's); o must not be shelved.
func (s *Small) CopyFrom(o *Small) {
	buf := append(s.ownBuf(), o.buf...)
	*s = *o
	s.buf = buf
}
