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
	// aside marks the account of a copy an instance keeps aside of one of
	// its own states (keyed.saveKey): what the copy shares with the
	// instance stays the instance's in the accounts (see fifo.share).
	aside bool
}

var epochs atomic.Uint64

func newEpoch() uint64 { return epochs.Add(1) }

// lastClone is the latest epoch a Clone gave (of any instance): a chunk of
// an earlier epoch may be held by a clone, one of a later epoch by none.
var lastClone atomic.Uint64

// cloned records that a Clone gave epoch e.
func cloned(e uint64) {
	for {
		old := lastClone.Load()
		if e <= old || lastClone.CompareAndSwap(old, e) {
			return
		}
	}
}

// release accounts for letting go of b bytes that the chunk of epoch e
// holds: dropped too when a clone may still hold them (another instance's
// chunk, or one of this instance's from before its Clone, made before the
// latest Clone). A chunk that states of several instances share through
// CopyKey alone (see fifo.share) is not counted dropped: no clone holds it.
func (m *mem) release(b int64, e uint64) {
	m.bytes -= b
	if e != m.epoch && e < lastClone.Load() {
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
// tail that grows from a few items to fifoChunk. Copies of a fifo (a clone's
// state) share everything: the chunks, and the table of full chunks, which
// is appended in place like a chunk; pushing and taking from the front
// change nothing another copy sees, so a copy costs nothing until it
// pushes past a shared end. A push costs amortised O(1) and allocates only
// when the tail outgrows its chunk (or first after a clone).
type fifo[T any] struct {
	tab    *segTable[T] // full chunks: tab.ptrs[lo:hi], oldest first
	tail   *chunk[T]    // the newest items: tail.items[:tailN] in this view
	lo, hi int32
	tailN  int32
	head   int32 // items taken off the front of the first full chunk, or of the tail when there is none
}

// segTable is a table of full chunks that several fifos may share, as
// chunks are shared: ptrs[:len(ptrs)] were written once; a fifo whose view
// ends at len(ptrs) may append in place. The instance that allocated it may
// also clear and compact it, no other seeing it.
type segTable[T any] struct {
	ptrs  []*chunk[T]
	epoch uint64
}

func sizeOf[T any]() int64 {
	var x T
	return int64(unsafe.Sizeof(x))
}

// chunkBytes is what a chunk of capacity n takes.
func chunkBytes[T any](n int) int64 { return int64(n)*sizeOf[T]() + 48 }

// segs is the number of full chunks.
func (q *fifo[T]) segs() int { return int(q.hi - q.lo) }

// len is the number of items in the queue.
func (q *fifo[T]) len() int { return q.segs()*fifoChunk + int(q.tailN-q.head) }

// front is the oldest items up to the end of the first chunk: a prefix of
// the queue, empty only when the queue is.
func (q *fifo[T]) front() []T {
	if q.hi > q.lo {
		return q.tab.ptrs[q.lo].items[q.head:]
	}
	if q.tail == nil {
		return nil
	}
	return q.tail.items[q.head:q.tailN]
}

// at is the i-th oldest item, 0 ≤ i < len.
func (q *fifo[T]) at(i int) *T {
	if q.hi == q.lo {
		return &q.tail.items[int(q.head)+i]
	}
	return q.atFull(i)
}

// atFull is at when there are full chunks.
func (q *fifo[T]) atFull(i int) *T {
	p := int(q.head) + i
	if s := p / fifoChunk; s < q.segs() {
		return &q.tab.ptrs[int(q.lo)+s].items[p%fifoChunk]
	}
	return &q.tail.items[p-q.segs()*fifoChunk]
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

// free gives back to m's account everything q holds, its chunks and its
// table, and leaves q empty: for a state about to be overwritten or
// forgotten.
func (q *fifo[T]) free(m *mem) {
	q.drop(m, q.len())
	if q.tail != nil {
		m.release(chunkBytes[T](cap(q.tail.items)), q.tail.epoch)
	}
	if q.tab != nil {
		m.release(int64(cap(q.tab.ptrs))*8, q.tab.epoch)
	}
	*q = fifo[T]{}
}

// share readies q for a copy of it that another instance (of account m)
// keeps, q being a state of the instance of account from: what of q from
// owns takes a new epoch, no instance's, so that neither changes in place
// what the other sees (appending past the end every view sees stays
// allowed, as for a Clone's), and m counts q's chunks and table. It
// changes only what from alone holds: nothing a Clone of from (in another
// goroutine, perhaps) still sees. The new epoch is later than every
// Clone's so far: letting go of those chunks counts them dropped only
// after another Clone (see mem.release).
func (q *fifo[T]) share(from, m *mem) {
	o := disowner{from: from}
	if t := q.tab; t != nil {
		o.disown(&t.epoch)
		m.bytes += int64(cap(t.ptrs)) * 8
		if !m.aside {
			// Full chunks never change: their epoch only says whose
			// account they leave as dropped. A copy kept aside by from
			// itself leaves them from's (not O(chunks) a decision).
			for _, c := range t.ptrs[q.lo:q.hi] {
				o.disown(&c.epoch)
			}
		}
		m.bytes += int64(q.hi-q.lo) * chunkBytes[T](fifoChunk)
	}
	if t := q.tail; t != nil {
		o.disown(&t.epoch)
		m.bytes += chunkBytes[T](cap(t.items))
	}
}

// disowner gives what the instance of account from owns an epoch no
// instance has (one for all it disowns, made when first needed), so that
// neither from nor the instance that copies it changes in place what the
// other sees: see share.
type disowner struct {
	from *mem
	none uint64
}

func (o *disowner) disown(e *uint64) {
	if *e == o.from.epoch {
		if o.none == 0 {
			o.none = newEpoch()
		}
		*e = o.none
	}
}

// copyFrom sets q, a fifo of the instance of account m, to src's items,
// src being a fifo of the instance of account from: what free, a copy of
// src and share do, but what q already shares with src (a racy gateway's
// read of a key it read before, or a stack's put-back: the same table of
// full chunks, the same tail) stays as it is, counted once in m. Only the
// chunks one of the two views holds and the other does not are given back
// or counted, so that copying a long log that moved on by a few items
// costs those few, not its length. What q and src both hold was shared
// when it first reached a second view (share disowned what from owned),
// so only what src holds alone is disowned here.
func (q *fifo[T]) copyFrom(src *fifo[T], m, from *mem) {
	if *q != *src { // else the same view of the same chunks
		q.copyOther(src, m, from)
	}
}

// copyOther is copyFrom of another view.
func (q *fifo[T]) copyOther(src *fifo[T], m, from *mem) {
	o := disowner{from: from}
	if q.tab != src.tab {
		// Another table: every full chunk of one and the other. (Two
		// tables hold the same chunks only where one was copied from the
		// other when a seal found it full, once in hundreds of seals; the
		// racy histories of a key whose writes take long to land hold
		// logs of their own, which share no chunk.)
		q.releaseFull(m, q.lo, q.hi)
		q.shareFull(src, m, &o, src.lo, src.hi)
		if t := q.tab; t != nil {
			m.release(int64(cap(t.ptrs))*8, t.epoch)
		}
		if t := src.tab; t != nil {
			o.disown(&t.epoch)
			m.bytes += int64(cap(t.ptrs)) * 8
		}
	} else if q.tab != nil {
		// The same table: the chunks of each view outside the other's.
		q.releaseFull(m, q.lo, min(q.hi, src.lo))
		q.releaseFull(m, max(q.lo, src.hi), q.hi)
		q.shareFull(src, m, &o, src.lo, min(src.hi, q.lo))
		q.shareFull(src, m, &o, max(src.lo, q.hi), src.hi)
	}
	if q.tail != src.tail {
		if t := q.tail; t != nil {
			m.release(chunkBytes[T](cap(t.items)), t.epoch)
		}
		if t := src.tail; t != nil {
			o.disown(&t.epoch)
			m.bytes += chunkBytes[T](cap(t.items))
		}
	}
	*q = *src
}

// releaseFull gives back to m the full chunks of q's table numbered lo to
// hi − 1 (none when lo ≥ hi), as free does.
func (q *fifo[T]) releaseFull(m *mem, lo, hi int32) {
	if lo >= hi {
		return
	}
	size := chunkBytes[T](fifoChunk)
	for _, c := range q.tab.ptrs[lo:hi] {
		m.release(size, c.epoch)
	}
}

// shareFull counts in m the full chunks of src's table numbered lo to hi −
// 1, disowning with o those its from owns, as share does.
func (q *fifo[T]) shareFull(src *fifo[T], m *mem, o *disowner, lo, hi int32) {
	if lo >= hi {
		return
	}
	if !m.aside {
		for _, c := range src.tab.ptrs[lo:hi] {
			o.disown(&c.epoch)
		}
	}
	m.bytes += int64(hi-lo) * chunkBytes[T](fifoChunk)
}

// drop takes the n oldest items off the queue.
func (q *fifo[T]) drop(m *mem, n int) {
	if h := q.head + int32(n); q.hi == q.lo && h < q.tailN {
		q.head = h // inside the tail, which stays non-empty
		return
	}
	q.dropSlow(m, n)
}

func (q *fifo[T]) dropSlow(m *mem, n int) {
	q.head += int32(n)
	for q.hi > q.lo && q.head >= fifoChunk {
		t := q.tab
		c := t.ptrs[q.lo]
		m.release(chunkBytes[T](fifoChunk), c.epoch)
		if t.epoch == m.epoch {
			t.ptrs[q.lo] = nil // no one else sees this table
		}
		q.lo++
		q.head -= fifoChunk
	}
	if t := q.tab; t != nil && t.epoch == m.epoch && q.lo >= 32 && 2*q.lo >= q.hi && int(q.hi) == len(t.ptrs) {
		// A table of one's own, at least half taken: move the rest to
		// its front.
		n := copy(t.ptrs, t.ptrs[q.lo:q.hi])
		clear(t.ptrs[n:q.hi])
		t.ptrs = t.ptrs[:n]
		q.lo, q.hi = 0, int32(n)
	}
	if q.hi == q.lo && q.head == q.tailN && q.tail != nil {
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

// seal appends the full tail to the table of full chunks.
func (q *fifo[T]) seal(m *mem) {
	t := q.tab
	if t == nil || int(q.hi) != len(t.ptrs) || len(t.ptrs) == cap(t.ptrs) {
		// No table, or another view wrote past this one's end, or no
		// room: a table of this instance's own.
		n := q.segs()
		ptrs := make([]*chunk[T], 0, max(4, 2*n+1))
		if t != nil {
			ptrs = append(ptrs, t.ptrs[q.lo:q.hi]...)
			m.release(int64(cap(t.ptrs))*8, t.epoch)
		}
		m.bytes += int64(cap(ptrs)) * 8
		q.tab = &segTable[T]{ptrs: ptrs, epoch: m.epoch}
		q.lo, q.hi = 0, int32(n)
	}
	q.tab.ptrs = append(q.tab.ptrs, q.tail)
	q.hi++
}

// push adds x at the back.
func (q *fifo[T]) push(m *mem, x T) {
	if t := q.tail; t != nil && int(q.tailN) == len(t.items) && len(t.items) < cap(t.items) {
		// Append in place: no other view reaches this far.
		t.items = t.items[:q.tailN+1]
		t.items[q.tailN] = x
		q.tailN++
		return
	}
	q.pushSlow(m, x)
}

// rewind cuts off q's tail chunk the items q alone appended in place since
// saved was copied from it: what a stack does when it puts saved back in
// the same decision (keyed.restoreKey). saved's view then ends at the
// chunk's end again, so its next push appends in place instead of copying
// the chunk (up to fifoChunk items a refused request). No other view can
// see those items: between the save and the put-back only q changed, and
// had any view reached past saved's end, q's push would have copied
// rather than appended in place.
func (q *fifo[T]) rewind(saved *fifo[T]) {
	if t := q.tail; t != nil && t == saved.tail && int(q.tailN) == len(t.items) && saved.tailN < q.tailN {
		clear(t.items[saved.tailN:q.tailN])
		t.items = t.items[:saved.tailN]
	}
}

// pushSlow is push when the tail has no room of its own to append in place
// (push's fast path has ruled that out).
func (q *fifo[T]) pushSlow(m *mem, x T) {
	t := q.tail
	switch {
	case t != nil && q.hi == q.lo && t.epoch == m.epoch && int(q.tailN) == len(t.items) && q.head > 0 && 2*q.head >= q.tailN:
		// A full tail of this instance's own, at least half taken: move
		// the live items to its front.
		n := copy(t.items, t.items[q.head:q.tailN])
		t.items = t.items[:n]
		q.tailN, q.head = int32(n), 0
	case t != nil && q.tailN == fifoChunk:
		// Seal the full tail and start another.
		q.seal(m)
		q.tail = q.newChunk(m, fifoChunk)
		q.tailN = 0
	default:
		// No tail, a full small one, or another view wrote past this one's
		// end: copy the live items into a chunk of this instance's.
		from := 0
		if q.hi == q.lo {
			from = int(q.head)
		}
		n := 0
		if t != nil {
			n = int(q.tailN) - from
		}
		size := fifoChunk
		if q.hi == q.lo {
			size = min(fifoChunk, max(4, 2*(n+1)))
		}
		c := q.newChunk(m, size)
		if t != nil {
			c.items = append(c.items, t.items[from:q.tailN]...)
			m.release(chunkBytes[T](cap(t.items)), t.epoch)
		}
		if q.hi == q.lo {
			q.head = 0
		}
		q.tail, q.tailN = c, int32(n)
	}
	q.tail.items = append(q.tail.items, x)
	q.tailN++
}

func (q *fifo[T]) newChunk(m *mem, n int) *chunk[T] {
	m.bytes += chunkBytes[T](n)
	return &chunk[T]{items: make([]T, 0, n), epoch: m.epoch}
}

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
