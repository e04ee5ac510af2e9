package algorithms

import (
	"sync/atomic"
	"unsafe"
)

// Memory is what a limiter's state takes, for a caller that keeps clones of
// it (the lab's checkpoints). A limiter and its clones share every part of
// their states that neither has changed since the Clone: a part is copied
// only when one of them first changes it, so a clone costs a table of
// pointers, not a copy of every key's state and every logged admission.
type Memory struct {
	// State is the bytes of the state, parts shared with clones included:
	// what a copy sharing nothing would take.
	State int64
	// Clone is about the bytes a Clone made now would allocate of its own.
	Clone int64
	// Dropped counts the bytes of state this limiter held in common with a
	// clone (or with the limiter it was cloned from) and has since let go
	// or replaced by a copy of its own: memory only those clones still hold
	// because of it. It only grows.
	Dropped int64
}

// mem is one limiter instance's account of its state's memory. Every chunk
// it allocates carries its epoch; a Clone gives both the clone and the
// original a new epoch, so that neither changes in place a chunk the other
// may still see.
type mem struct {
	epoch   uint64
	bytes   int64 // Memory.State
	dropped int64 // Memory.Dropped
}

var epochs atomic.Uint64

func newEpoch() uint64 { return epochs.Add(1) }

// release accounts for letting go of b bytes that the chunk of epoch e
// holds: dropped too when another instance may still hold them.
func (m *mem) release(b int64, e uint64) {
	m.bytes -= b
	if e != m.epoch {
		m.dropped += b
	}
}

// fifoChunk is how many items a full chunk of a fifo holds.
const fifoChunk = 256

// chunk is a run of a fifo's items, which several fifos (a limiter's and its
// clones') may share. items[:len(items)] have been written once and never
// change; a fifo whose view ends exactly at len(items) may append in place
// (every other view ends before), any other copies first.
type chunk[T any] struct {
	items []T
	epoch uint64 // the instance that allocated it
}

// fifo is a queue of items in chunks: full chunks of fifoChunk items, then a
// tail that grows from a few items to fifoChunk. A copy of a fifo (a clone's
// state) shares the chunks and copies only segs, the table of full chunks,
// so a clone costs one pointer per fifoChunk items; pushing and taking from
// the front change nothing another fifo sees. A push costs amortised O(1)
// and allocates only when the tail outgrows its chunk (or after a clone).
type fifo[T any] struct {
	segs  []*chunk[T] // full chunks, oldest first; this fifo's own table
	tail  *chunk[T]   // the newest items: tail.items[:tailN] in this view
	tailN int
	head  int // items taken off the front of segs[0], or of the tail when segs is empty
}

func sizeOf[T any]() int64 {
	var x T
	return int64(unsafe.Sizeof(x))
}

// chunkBytes is what a chunk of capacity n takes.
func chunkBytes[T any](n int) int64 { return int64(n)*sizeOf[T]() + 48 }

// len is the number of items in the queue.
func (q *fifo[T]) len() int { return len(q.segs)*fifoChunk + q.tailN - q.head }

// at is the i-th oldest item, 0 ≤ i < len.
func (q *fifo[T]) at(i int) *T {
	p := q.head + i
	if s := p / fifoChunk; s < len(q.segs) {
		return &q.segs[s].items[p%fifoChunk]
	}
	return &q.tail.items[p-len(q.segs)*fifoChunk]
}

// search is the least i in [0, len) with f(at(i)), or len if none, for f
// false then true along the queue.
func (q *fifo[T]) search(f func(*T) bool) int {
	lo, hi := 0, q.len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if !f(q.at(mid)) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// drop takes the n oldest items off the queue.
func (q *fifo[T]) drop(m *mem, n int) {
	q.head += n
	for len(q.segs) > 0 && q.head >= fifoChunk {
		c := q.segs[0]
		m.release(chunkBytes[T](fifoChunk), c.epoch)
		q.segs[0] = nil
		q.segs = q.segs[1:]
		q.head -= fifoChunk
	}
	if len(q.segs) == 0 && q.head == q.tailN && q.tail != nil {
		// Empty: reuse a tail of one's own, let go of a shared one.
		if q.tail.epoch == m.epoch {
			q.tail.items = q.tail.items[:0]
		} else {
			m.release(chunkBytes[T](cap(q.tail.items)), q.tail.epoch)
			q.tail = nil
		}
		q.tailN, q.head = 0, 0
	}
}

// push adds x at the back.
func (q *fifo[T]) push(m *mem, x T) {
	t := q.tail
	switch {
	case t != nil && q.tailN == len(t.items) && q.tailN < cap(t.items):
		// Append in place: no other view reaches this far.
	case t != nil && len(q.segs) == 0 && t.epoch == m.epoch && q.tailN == len(t.items) && q.head > 0 && 2*q.head >= q.tailN:
		// A full tail of this instance's own, at least half taken: move
		// the live items to its front.
		n := copy(t.items, t.items[q.head:q.tailN])
		t.items = t.items[:n]
		q.tailN, q.head = n, 0
	case t != nil && q.tailN == fifoChunk:
		// Seal the full tail and start another.
		if len(q.segs) == cap(q.segs) {
			old := int64(cap(q.segs)) * 8
			q.segs = append(make([]*chunk[T], 0, max(4, 2*len(q.segs))), q.segs...)
			m.bytes += int64(cap(q.segs))*8 - old
		}
		q.segs = append(q.segs, t)
		q.tail = q.newChunk(m, fifoChunk)
		q.tailN = 0
	default:
		// No tail, a full small one, or another view wrote past this one's
		// end: copy the live items into a chunk of this instance's.
		from := 0
		if len(q.segs) == 0 {
			from = q.head
		}
		n := 0
		if t != nil {
			n = q.tailN - from
		}
		size := fifoChunk
		if len(q.segs) == 0 {
			size = min(fifoChunk, max(4, 2*(n+1)))
		}
		c := q.newChunk(m, size)
		if t != nil {
			c.items = append(c.items, t.items[from:q.tailN]...)
			m.release(chunkBytes[T](cap(t.items)), t.epoch)
		}
		if len(q.segs) == 0 {
			q.head = 0
		}
		q.tail, q.tailN = c, n
	}
	q.tail.items = append(q.tail.items, x)
	q.tailN++
}

func (q *fifo[T]) newChunk(m *mem, n int) *chunk[T] {
	m.bytes += chunkBytes[T](n)
	return &chunk[T]{items: make([]T, 0, n), epoch: m.epoch}
}

// clone is a copy of the queue that shares its chunks: the copy's own is
// only the table of full chunks.
func (q *fifo[T]) clone(m *mem) fifo[T] {
	c := *q
	if len(q.segs) > 0 {
		c.segs = append([]*chunk[T](nil), q.segs...)
		m.bytes += int64(cap(c.segs)) * 8
	}
	return c
}

// tableBytes is what the fifo's own table takes.
func (q *fifo[T]) tableBytes() int64 { return int64(cap(q.segs)) * 8 }

// items is a copy of the queue's items from the i-th oldest on.
func (q *fifo[T]) items(i int) []T {
	n := q.len() - i
	if n <= 0 {
		return nil
	}
	out := make([]T, n)
	for j := range out {
		out[j] = *q.at(i + j)
	}
	return out
}
