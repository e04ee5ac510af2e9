package scenarios

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"runtime"
	"time"
)

// replay is what a log's scan yielded, packed into a temporary file, so
// that every later pass over the log's requests decodes a few bytes a
// request instead of parsing a line: a run, a check or a fit reads the
// log itself once, whatever the number of passes.
//
// A request whose key and cost are the previous request's takes 1 byte at
// the same instant, up to 4 within 67 ms of it and 5 within 8 s (a log of
// whole seconds: 1 byte at the same second, 5 at the next); a new key or
// cost adds its own varint.
// The file is removed from its directory as soon as it is made (where the
// system allows it), so that nothing is left behind even if ratelab is
// killed; it is closed when its LogTraffic is no longer reachable. The
// keys are not written: a request names its key by its index in the
// LogTraffic's keys, which memory holds once each.
type replay struct {
	f     *os.File
	size  int64
	keys  []keyFirst // by id, in the order they first appear
	count int64
}

// replayRecorder packs a scan's requests as they are yielded. Any failure
// (no temporary directory, a full disk, a time beyond the packing's
// range) drops the recording, and the log is read again on each pass, as
// it would be without one.
type replayRecorder struct {
	f       *os.File
	w       *bufio.Writer
	last    time.Duration
	lastKey uint64
	lastCst int64
	count   int64
	failed  bool
	buf     [3 * binary.MaxVarintLen64]byte
}

// The low bits of a request's first varint: its key, or its cost, differs
// from the previous request's and follows as a varint of its own.
const (
	newKey  = 1
	newCost = 2
	// maxGap is the largest gap between requests the packing holds (the
	// gap is shifted left by two bits): 2^61 ns, 73 years.
	maxGap = 1<<61 - 1
)

// newReplayRecorder starts a recording in a new temporary file; nil when
// none can be made.
func newReplayRecorder() *replayRecorder {
	f, err := os.CreateTemp("", "ratelab-log-*")
	if err != nil {
		return nil
	}
	// Unlinked at once: the open file stays readable, and no crash can
	// leave it behind. Where that is refused (Windows), it is kept until
	// closed and removed then.
	_ = os.Remove(f.Name())
	return &replayRecorder{f: f, w: bufio.NewWriterSize(f, 64<<10), lastKey: ^uint64(0), lastCst: 1}
}

// add records one request, its key by its index id; the times must not
// decrease.
func (r *replayRecorder) add(at time.Duration, id uint64, cost int64) {
	if r == nil || r.failed {
		return
	}
	gap := at - r.last
	if gap < 0 || gap > maxGap || cost < 1 {
		r.failed = true
		return
	}
	head := uint64(gap) << 2
	if id != r.lastKey {
		head |= newKey
	}
	if cost != r.lastCst {
		head |= newCost
	}
	b := binary.AppendUvarint(r.buf[:0], head)
	if head&newKey != 0 {
		b = binary.AppendUvarint(b, id)
	}
	if head&newCost != 0 {
		b = binary.AppendUvarint(b, uint64(cost))
	}
	if _, err := r.w.Write(b); err != nil {
		r.failed = true
		return
	}
	r.last, r.lastKey, r.lastCst = at, id, cost
	r.count++
}

// finish ends the recording of requests whose keys are keys: the replay,
// or nil when the recording failed (its file then closed).
func (r *replayRecorder) finish(keys []keyFirst) *replay {
	if r == nil {
		return nil
	}
	var size int64
	err := r.w.Flush()
	if err == nil {
		size, err = r.f.Seek(0, io.SeekCurrent)
	}
	if r.failed || err != nil {
		r.drop()
		return nil
	}
	return &replay{f: r.f, size: size, keys: keys, count: r.count}
}

// drop abandons the recording.
func (r *replayRecorder) drop() {
	if r == nil {
		return
	}
	name := r.f.Name()
	r.f.Close()
	_ = os.Remove(name) // where it could not be removed while open
}

// closeWhenUnreachable closes rp's file once owner is garbage.
func (rp *replay) closeWhenUnreachable(owner *LogTraffic) {
	runtime.AddCleanup(owner, func(f *os.File) {
		name := f.Name()
		f.Close()
		_ = os.Remove(name)
	}, rp.f)
}

// errReplayShort is a replay that ends before its count: its file was
// changed or cut under ratelab.
var errReplayShort = errors.New("the copy of the log's requests kept in a temporary file was cut short")

// each yields the recorded requests in order until yield returns false.
// Passes may run at once: each reads the file at its own offsets, a
// block at a time, decoding the varints in place.
func (rp *replay) each(yield func(at time.Duration, key string, cost int64) bool) error {
	var d replayDecoder
	d.r = io.NewSectionReader(rp.f, 0, rp.size)
	d.buf = make([]byte, 0, 64<<10)
	var at time.Duration
	var key string
	cost := int64(1)
	for range rp.count {
		head, ok := d.uvarint()
		if !ok {
			return errReplayShort
		}
		at += time.Duration(head >> 2)
		if head&newKey != 0 {
			id, ok := d.uvarint()
			if !ok || id >= uint64(len(rp.keys)) {
				return errReplayShort
			}
			key = rp.keys[id].key
		}
		if head&newCost != 0 {
			c, ok := d.uvarint()
			if !ok || c < 1 || c > 1<<62 {
				return errReplayShort
			}
			cost = int64(c)
		}
		if !yield(at, key, cost) {
			return nil
		}
	}
	return nil
}

// replayDecoder reads varints from r through buf[pos:], refilling buf a
// block at a time: a varint is decoded from the slice, without a call per
// byte.
type replayDecoder struct {
	r   io.Reader
	buf []byte
	pos int
	eof bool
}

// uvarint is the next varint; ok is false at the end of the input or on
// a malformed varint.
func (d *replayDecoder) uvarint() (uint64, bool) {
	if len(d.buf)-d.pos < binary.MaxVarintLen64 && !d.eof {
		d.fill()
	}
	v, n := binary.Uvarint(d.buf[d.pos:])
	if n <= 0 {
		return 0, false
	}
	d.pos += n
	return v, true
}

// fill moves what is left of buf to its start and reads after it.
func (d *replayDecoder) fill() {
	n := copy(d.buf[:cap(d.buf)], d.buf[d.pos:])
	d.buf, d.pos = d.buf[:n], 0
	for len(d.buf) < cap(d.buf) && !d.eof {
		m, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+m]
		if err != nil {
			d.eof = true // io.EOF, or a read that failed: what was read is decoded, then the replay is short
		}
	}
}
