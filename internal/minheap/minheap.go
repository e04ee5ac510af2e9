// Package minheap keeps a slice a binary min-heap: the element that must come
// out first sits at index 0. It is container/heap without the interface
// boxing: the order is the elements' own Before method, and the functions
// take and return the slice, so a heap is any []T a caller already holds.
//
// Elements that are neither Before the other come out in no promised order;
// a caller that needs ties broken (file order, a sequence number) says so in
// Before.
package minheap

// Item is an element of a heap of Ts: Before reports whether it must come
// out before other. It must be a strict weak order: never both a.Before(b)
// and b.Before(a), and never a.Before(a).
type Item[T any] interface {
	Before(other T) bool
}

// Init orders h as a heap, in O(len(h)).
func Init[T Item[T]](h []T) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		Down(h, i)
	}
}

// Push adds x to the heap h and returns the heap, which may be a new slice
// as append's result is. O(log len(h)).
func Push[T Item[T]](h []T, x T) []T {
	h = append(h, x)
	up(h, len(h)-1)
	return h
}

// Pop removes the first element of the non-empty heap h and returns it and
// the heap, one shorter. O(log len(h)).
func Pop[T Item[T]](h []T) (T, []T) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	var zero T
	h[last] = zero // drop what the removed element referred to
	h = h[:last]
	Down(h, 0)
	return top, h
}

// Down restores the heap order after h[i] became later (its Before against
// the others changed in their favour), as when the top is advanced in
// place. O(log len(h)).
func Down[T Item[T]](h []T, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) || l < 0 {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].Before(h[l]) {
			m = r
		}
		if !h[m].Before(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// up moves h[i] towards the top while it comes before its parent.
func up[T Item[T]](h []T, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].Before(h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}
