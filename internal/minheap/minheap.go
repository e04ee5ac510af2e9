// Package minheap keeps a slice of Entries a binary min-heap by time: the
// entry due first sits at index 0, ties broken by Seq, the smaller first.
// It is container/heap without the interface boxing or the indirect calls:
// the order is fixed (time, then sequence), so every comparison is two
// integer compares the compiler inlines, and the functions take and return
// the slice, so a heap is any []Entry a caller already holds.
package minheap

import "time"

// Entry is a value V due at At. Of two entries due at the same instant,
// the smaller Seq comes out first; entries equal in both come out in no
// promised order.
type Entry[V any] struct {
	At  time.Duration
	Seq int64
	V   V
}

// Before reports whether e comes out before o.
func (e *Entry[V]) Before(o *Entry[V]) bool {
	return e.At < o.At || e.At == o.At && e.Seq < o.Seq
}

// Init orders h as a heap, in O(len(h)).
func Init[V any](h []Entry[V]) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		Down(h, i)
	}
}

// Push adds e to the heap h and returns the heap, which may be a new slice
// as append's result is. O(log len(h)).
func Push[V any](h []Entry[V], e Entry[V]) []Entry[V] {
	h = append(h, e)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].Before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// Pop removes the first entry of the non-empty heap h and returns it and
// the heap, one shorter. O(log len(h)).
func Pop[V any](h []Entry[V]) (Entry[V], []Entry[V]) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = Entry[V]{} // drop what the removed entry referred to
	h = h[:last]
	Down(h, 0)
	return top, h
}

// Down restores the heap order after h[i] became later (its At or Seq
// grew), as when the top is advanced in place. O(log len(h)).
func Down[V any](h []Entry[V], i int) {
	for {
		l := 2*i + 1
		if l >= len(h) || l < 0 {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].Before(&h[l]) {
			m = r
		}
		if !h[m].Before(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
