package fit

import "time"

// logTrack finds, for one state and several windows at once, the largest
// cost of requests in any window (t − W, t] ending at a request: the
// sliding log's smallest limit refusing nothing, since it admits a request
// at t iff the cost it admitted in (t − W, t] plus the request's is at most
// the limit, and while nothing is refused it admitted everything.
//
// The requests still inside the longest window are kept in a ring of bytes,
// each as two varints (the ns since the request before, and the cost):
// typically 3 to 5 bytes a request. Each window has a cursor into the ring
// that passes the requests as they leave that window; the ring keeps only
// what the longest window's cursor has not passed.
type logTrack struct {
	buf       []byte // a ring; its length is a power of two
	head      uint64 // bytes ever written: the next byte goes at head & mask
	headAt    time.Duration
	headTotal int64 // cost of every request written
	started   bool
	tails     []logTail // one per window, in the order of the windows
}

// logTail is one window's cursor: the requests before pos have left the
// window; at is the time of the last of them (or of the first request)
// and total their cost.
type logTail struct {
	pos   uint64
	at    time.Duration
	total int64
	// next is the time of the request at pos, read once: nextLen is the
	// length of its time's varint, 0 when not read yet.
	next    time.Duration
	nextLen uint64
	// max is the largest cost in a window so far.
	max int64
}

func newLogTrack(windows int) *logTrack {
	return &logTrack{buf: make([]byte, 64), tails: make([]logTail, windows)}
}

// add records a request and moves each window's cursor past the requests
// that no longer count at its time: those at or before at − W.
func (l *logTrack) add(at time.Duration, cost int64, windows []time.Duration) {
	if !l.started {
		l.started, l.headAt = true, at
		for i := range l.tails {
			l.tails[i].at = at
		}
	}
	l.reserve(20) // two varints of at most 10 bytes
	l.putUvarint(uint64(at - l.headAt))
	l.putUvarint(uint64(cost))
	l.headAt = at
	l.headTotal += cost
	for i := range l.tails {
		t := &l.tails[i]
		edge := at - windows[i]
		for t.pos < l.head {
			if t.nextLen == 0 {
				dt, n := l.uvarint(t.pos)
				t.next, t.nextLen = t.at+time.Duration(dt), n
			}
			if t.next > edge {
				break
			}
			c, n := l.uvarint(t.pos + t.nextLen)
			t.pos += t.nextLen + n
			t.at, t.nextLen = t.next, 0
			t.total += int64(c)
		}
		t.max = max(t.max, l.headTotal-t.total)
	}
}

// reserve makes room for n more bytes, growing the ring when the bytes no
// cursor has passed would otherwise be overwritten.
func (l *logTrack) reserve(n uint64) {
	oldest := l.head
	for _, t := range l.tails {
		oldest = min(oldest, t.pos)
	}
	if l.head-oldest+n <= uint64(len(l.buf)) {
		return
	}
	size := len(l.buf) * 2
	for uint64(size) < l.head-oldest+n {
		size *= 2
	}
	grown := make([]byte, size)
	oldMask, newMask := uint64(len(l.buf)-1), uint64(size-1)
	for p := oldest; p < l.head; p++ {
		grown[p&newMask] = l.buf[p&oldMask]
	}
	l.buf = grown
}

func (l *logTrack) putUvarint(v uint64) {
	mask := uint64(len(l.buf) - 1)
	for v >= 0x80 {
		l.buf[l.head&mask] = byte(v) | 0x80
		l.head++
		v >>= 7
	}
	l.buf[l.head&mask] = byte(v)
	l.head++
}

// uvarint reads the varint at pos: its value and its length in bytes.
func (l *logTrack) uvarint(pos uint64) (uint64, uint64) {
	mask := uint64(len(l.buf) - 1)
	var v uint64
	for i, shift := uint64(0), uint(0); ; i, shift = i+1, shift+7 {
		b := l.buf[(pos+i)&mask]
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, i + 1
		}
	}
}
