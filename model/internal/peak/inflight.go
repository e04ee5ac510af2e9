package peak

import (
	"slices"
	"time"
	"unsafe"

	"ratelab/internal/minheap"
)

// InFlight is the delayed passages not yet released, as a Tracker holds
// them until the clock reaches their release: pushed in arrival order,
// taken in release order. The zero InFlight is empty.
//
// A heap of them cost 16 bytes a delayed request in flight, and a shaper
// with a deep queue has millions in flight. But every delaying algorithm
// releases each key's requests in arrival order (a leaky bucket's queue is
// a FIFO; x/time/rate's reservations, Guava's and nginx's next free time
// only move on: TestDelayingLanesReleaseEachKeyInOrder), and at its rate:
// a run at a regular step (a leaky bucket at 1/ms releases at 0, 1 ms,
// 2 ms, …), or of two adjacent steps (at k/r rounded, for a rate r that
// does not divide a second). So the passages are grouped by source, the
// request's key and gateway (see Source), and each group is a trail,
// which keeps such runs in a few words and a bit per point at most: the
// memory grows with the sources in flight, not with their requests.
// (x/time/rate's float64 puts some releases a nanosecond early, which
// cuts its runs to a few dozen points: a quarter of a byte a request.) A
// passage released before its source's latest (a store shared by racy or
// synced gateways that decide on stale reads; the lab refilling a lane of
// gateways without knowing the gateway) goes loose, to a heap, merged
// when taken.
//
// Passages at one instant of one group are one point of their total cost,
// and are taken together: costs are positive, so the peak over the
// windows ending at an instant is the same whether its passages pass one
// by one or at once (the last sum is the largest, at the same instant).
type InFlight struct {
	groups []flightGroup // by slot; a slot on more.free is empty
	// heads holds every group that holds a passage, a min-heap by its
	// oldest instant (which a push, always later, does not change).
	heads []flightRef
	// more is nil while one source is in flight at a time and every push
	// came in order: the common case costs no map.
	more *flightIndex
}

// flightGroup is one source's passages, in time order.
type flightGroup struct {
	trail
	src int64
}

// flightRef is a group's place in heads: due At its oldest instant, V
// its slot in groups (Seq unused: groups due together come out in no
// promised order).
type flightRef = minheap.Entry[int32]

// flightIndex is what several sources in flight at once need.
type flightIndex struct {
	slot  map[int64]int32 // the source of each group that holds a passage
	free  []int32         // the empty slots
	loose []loosePassage  // the passages pushed out of order: a min-heap by time
}

// loosePassage is a passage pushed out of its source's order, in the
// loose heap: due At the passage's instant, V its cost and its source
// (which PopBy returns).
type loosePassage = minheap.Entry[looseRelease]

// looseRelease is what a loose passage holds beside its instant.
type looseRelease struct {
	cost, src int64
}

// loose is x of source src as a loose passage.
func loose(x Passage, src int64) loosePassage {
	return loosePassage{At: x.At, V: looseRelease{x.Cost, src}}
}

// passage is the passage l holds.
func (l looseRelease) passage(at time.Duration) Passage { return Passage{at, l.cost} }

// empty reports whether g holds no passage: its latest instant is always
// its open point, taken last.
func (g *flightGroup) empty() bool { return g.pointCost == 0 }

// index is f.more, made when first needed.
func (f *InFlight) index() *flightIndex {
	if f.more == nil {
		f.more = &flightIndex{}
	}
	return f.more
}

// groupOf is the slot of src's group, made if it has none.
func (f *InFlight) groupOf(src int64) int32 {
	if f.more == nil || f.more.slot == nil {
		switch {
		case len(f.groups) == 0:
			f.groups = append(f.groups, flightGroup{src: src})
			return 0
		case f.groups[0].src == src || f.groups[0].empty():
			f.groups[0].src = src
			return 0
		}
		// A second source in flight: from now on a map finds the groups.
		f.index().slot = map[int64]int32{f.groups[0].src: 0}
	}
	m := f.more
	if s, ok := m.slot[src]; ok {
		return s
	}
	var s int32
	if n := len(m.free); n > 0 {
		s, m.free = m.free[n-1], m.free[:n-1]
		f.groups[s].src = src
	} else {
		s = int32(len(f.groups))
		f.groups = append(f.groups, flightGroup{src: src})
	}
	m.slot[src] = s
	return s
}

// Push adds x, released by source src: x is pushed after every passage
// of src that arrived before it.
func (f *InFlight) Push(x Passage, src int64) {
	s := f.groupOf(src)
	g := &f.groups[s]
	switch {
	case g.empty():
		g.put(x)
		f.heads = minheap.Push(f.heads, flightRef{At: x.At, V: s})
	case x.At >= g.point:
		g.put(x)
	default:
		m := f.index()
		m.loose = minheap.Push(m.loose, loose(x, src))
	}
}

// PopBy removes and returns the passages of the earliest instant at or
// before t of one group, or one loose passage, and their source; false
// when none is due.
func (f *InFlight) PopBy(t time.Duration) (Passage, int64, bool) {
	var due []loosePassage
	if f.more != nil {
		due = f.more.loose
	}
	if len(due) > 0 && due[0].At <= t && (len(f.heads) == 0 || due[0].At < f.heads[0].At) {
		x, rest := minheap.Pop(due)
		f.more.loose = rest
		return x.V.passage(x.At), x.V.src, true
	}
	if len(f.heads) == 0 || f.heads[0].At > t {
		return Passage{}, 0, false
	}
	ref := f.heads[0]
	g := &f.groups[ref.V]
	x := Passage{ref.At, g.takeOldest(ref.At)}
	if at, ok := g.oldest(); ok {
		f.heads[0].At = at // the group stays, later: a sift down, not a pop and a push
		minheap.Down(f.heads, 0)
	} else {
		_, f.heads = minheap.Pop(f.heads)
		if m := f.more; m != nil && m.slot != nil {
			delete(m.slot, g.src)
			m.free = append(m.free, ref.V)
		}
	}
	return x, g.src, true
}

// DueBy reports whether a passage is due at or before t.
func (f *InFlight) DueBy(t time.Duration) bool {
	if len(f.heads) > 0 && f.heads[0].At <= t {
		return true
	}
	return f.more != nil && len(f.more.loose) > 0 && f.more.loose[0].At <= t
}

// Held reports whether f holds a passage.
func (f *InFlight) Held() bool {
	return len(f.heads) > 0 || f.more != nil && len(f.more.loose) > 0
}

// flightReader reads an InFlight's passages in the order PopBy takes them,
// from copies of its groups' cursors, leaving it as it is.
type flightReader struct {
	f     *InFlight
	cur   []cursor // by slot, for the groups in heads
	heads []flightRef
	loose []loosePassage
}

func (f *InFlight) reader() flightReader {
	r := flightReader{f: f, heads: slices.Clone(f.heads)}
	if len(f.heads) > 0 {
		r.cur = make([]cursor, len(f.groups))
		for _, h := range f.heads {
			r.cur[h.V] = f.groups[h.V].cursor
		}
	}
	if f.more != nil {
		r.loose = slices.Clone(f.more.loose)
	}
	return r
}

// next is PopBy on r's copies.
func (r *flightReader) next(t time.Duration) (Passage, bool) {
	if len(r.loose) > 0 && r.loose[0].At <= t && (len(r.heads) == 0 || r.loose[0].At < r.heads[0].At) {
		var x loosePassage
		x, r.loose = minheap.Pop(r.loose)
		return x.V.passage(x.At), true
	}
	if len(r.heads) == 0 || r.heads[0].At > t {
		return Passage{}, false
	}
	ref := r.heads[0]
	c := &r.cur[ref.V]
	x := Passage{ref.At, c.evict(r.f.groups[ref.V].buf, ref.At)}
	if at, ok := c.oldest(); ok {
		r.heads[0].At = at
		minheap.Down(r.heads, 0)
	} else {
		_, r.heads = minheap.Pop(r.heads)
	}
	return x, true
}

// Clone is a copy of f that shares no memory with it.
func (f *InFlight) Clone() InFlight {
	c := InFlight{groups: slices.Clone(f.groups), heads: slices.Clone(f.heads)}
	for i := range c.groups {
		c.groups[i].trail = f.groups[i].trail.clone()
	}
	if m := f.more; m != nil {
		c.more = &flightIndex{free: slices.Clone(m.free), loose: slices.Clone(m.loose)}
		if m.slot != nil {
			c.more.slot = make(map[int64]int32, len(m.slot))
			for k, v := range m.slot {
				c.more.slot[k] = v
			}
		}
	}
	return c
}

// flightMapEntryBytes is about what a map entry of flightIndex.slot takes.
const flightMapEntryBytes = 24

// Bytes is about what f holds beside its own fields (and what Clone
// allocates).
func (f *InFlight) Bytes() int64 {
	n := int64(len(f.groups))*int64(unsafe.Sizeof(flightGroup{})) + int64(len(f.heads))*int64(unsafe.Sizeof(flightRef{}))
	for i := range f.groups {
		n += int64(f.groups[i].bytes())
	}
	if m := f.more; m != nil {
		n += int64(unsafe.Sizeof(*m)) + int64(len(m.free))*4 + int64(len(m.loose))*int64(unsafe.Sizeof(loosePassage{}))
		n += int64(len(m.slot)) * flightMapEntryBytes
	}
	return n
}
