package algorithms

// fifo is a queue kept in a slice: items[head:] are in it. Taking from the
// front only moves head, and push first compacts the slice when at least
// half of it is taken, so the backing array is reused: a push costs
// amortised O(1) and allocates only when the queue outgrows every length it
// had before. The sliding log keeps its recent admissions in one, the leaky
// bucket its waiting requests.
type fifo[T any] struct {
	items []T
	head  int
}

// live is the queue, oldest first. It shares the fifo's array.
func (q *fifo[T]) live() []T { return q.items[q.head:] }

// drop takes the n oldest items off the queue.
func (q *fifo[T]) drop(n int) {
	q.head += n
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
}

// push adds x at the back.
func (q *fifo[T]) push(x T) {
	if q.head > 0 && 2*q.head >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, x)
}

// clone is an independent copy of the queue.
func (q *fifo[T]) clone() fifo[T] {
	return fifo[T]{items: append([]T(nil), q.live()...)}
}
