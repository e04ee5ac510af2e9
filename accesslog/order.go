package accesslog

import (
	"fmt"
	"io"
	"time"
)

// stamp is an element's time and line, and moving its time (for a
// spread). It takes the element by value, not by address, so that an
// element is not moved to the heap to be asked.
type stamp[T any] struct {
	of  func(T) (at, line int64)
	set func(e *T, at int64)
}

// orderer puts elements read nearly in time order into time order, lines
// of one time in file order, holding each until no line within the
// look-behind of the latest time can come before it. Elements in order
// sit in fifo[head:]; those that came earlier than the fifo's last, in
// heap. Reader holds its Records so; RequestReader its Requests.
type orderer[T any] struct {
	stamp   stamp[T]
	lookNs  int64
	fifo    []T
	head    int
	heap    []T
	maxTime int64 // the latest time seen, on line maxLine (0: none yet)
	maxLine int64
}

// empty reports whether nothing is held.
func (o *orderer[T]) empty() bool { return o.head == len(o.fifo) && len(o.heap) == 0 }

// passes reports whether an element at t on line can be returned at once:
// nothing is held, there is no look-behind, and it is not earlier than
// the latest time seen (which it then becomes).
func (o *orderer[T]) passes(t, line int64) bool {
	if o.lookNs != 0 || !o.empty() || o.maxLine != 0 && t < o.maxTime {
		return false
	}
	o.maxTime, o.maxLine = t, line
	return true
}

// see notes a line at t that is not held (a line the rules left out):
// whether it is within the look-behind (else behind is how far beyond
// the latest time it is), and the latest time it may move on.
func (o *orderer[T]) see(t, line int64) (ok bool, behind time.Duration, latest int64) {
	if o.maxLine > 0 && t < minus(o.maxTime, o.lookNs) {
		return false, time.Duration(o.maxTime - t), o.maxLine
	}
	if o.maxLine == 0 || t >= o.maxTime {
		o.maxTime, o.maxLine = t, line
	}
	return true, 0, 0
}

// insert holds e, or says (as see) that it is too early to be held.
func (o *orderer[T]) insert(e T) (ok bool, behind time.Duration, latest int64) {
	at, line := o.stamp.of(e)
	if ok, behind, latest = o.see(at, line); !ok {
		return
	}
	if n := len(o.fifo); n == o.head || at >= o.at(o.fifo[n-1]) {
		o.fifo = append(o.fifo, e)
		return true, 0, 0
	}
	o.push(e)
	return true, 0, 0
}

func (o *orderer[T]) at(e T) int64 { t, _ := o.stamp.of(e); return t }

// before orders elements by time, then line.
func (o *orderer[T]) before(a, b T) bool {
	ta, la := o.stamp.of(a)
	tb, lb := o.stamp.of(b)
	return ta < tb || ta == tb && la < lb
}

// ready takes out the earliest element held if no line to come can be
// earlier (it is at least the look-behind older than the latest time,
// or done says the lines are all read).
func (o *orderer[T]) ready(done bool) (T, bool) {
	var zero T
	var top *T
	fromFifo := false
	if o.head < len(o.fifo) {
		top, fromFifo = &o.fifo[o.head], true
	}
	if len(o.heap) > 0 && (top == nil || o.before(o.heap[0], *top)) {
		top, fromFifo = &o.heap[0], false
	}
	if top == nil || !done && o.at(*top) > minus(o.maxTime, o.lookNs) {
		return zero, false
	}
	if !fromFifo {
		return o.pop(), true
	}
	e := *top
	*top = zero
	o.head++
	switch {
	case o.head == len(o.fifo):
		o.fifo, o.head = o.fifo[:0], 0
	case o.head >= 1024 && o.head*2 >= len(o.fifo):
		n := copy(o.fifo, o.fifo[o.head:])
		clear(o.fifo[n:])
		o.fifo, o.head = o.fifo[:n], 0
	}
	return e, true
}

func (o *orderer[T]) push(e T) {
	h := append(o.heap, e)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !o.before(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	o.heap = h
}

func (o *orderer[T]) pop() T {
	var zero T
	h := o.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = zero
	h = h[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if l+1 < n && o.before(h[l+1], h[l]) {
			m = l + 1
		}
		if !o.before(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	o.heap = h
	return top
}

// minus is t-d, stopping at the smallest int64 rather than wrapping.
func minus(t, d int64) int64 {
	if t < -1<<63+d {
		return -1 << 63
	}
	return t - d
}

// spreader is SpreadEven over elements in time order: it holds one
// second's elements to count them, and moves the i-th of n to the
// second's start plus i/n of a second.
type spreader[T any] struct {
	stamp   stamp[T]
	group   []T // group[pos:] are still to be returned
	pos     int
	filling bool
	pending T // the first element of the next second
	has     bool
}

// next returns the next element of the current second, spread, pulling
// elements in time order from pull (io.EOF after the last).
func (s *spreader[T]) next(pull func() (T, error)) (T, error) {
	var zero T
	if !s.filling && s.pos < len(s.group) {
		s.pos++
		return s.group[s.pos-1], nil
	}
	if !s.filling {
		clear(s.group)
		s.group, s.pos, s.filling = s.group[:0], 0, true
	}
	for {
		e, has := s.pending, s.has
		s.pending, s.has = zero, false
		if !has {
			var err error
			e, err = pull()
			if err == io.EOF && len(s.group) > 0 {
				break
			}
			if err != nil {
				return zero, err
			}
		}
		if len(s.group) > 0 && floorSecond(s.at(e)) != floorSecond(s.at(s.group[0])) {
			s.pending, s.has = e, true
			break
		}
		s.group = append(s.group, e)
	}
	s.filling = false
	sec, n := floorSecond(s.at(s.group[0])), int64(len(s.group))
	for i := range s.group {
		s.stamp.set(&s.group[i], sec+int64(i)*int64(time.Second)/n)
	}
	s.pos = 1
	return s.group[0], nil
}

func (s *spreader[T]) at(e T) int64 { t, _ := s.stamp.of(e); return t }

// floorSecond is the start of the second holding t.
func floorSecond(t int64) int64 {
	s := t / 1e9 * 1e9
	if s > t {
		s -= 1e9
	}
	return s
}

// needWholeSeconds is the error of SpreadEven over times that are not in
// whole seconds.
func needWholeSeconds(f Format, res time.Duration) error {
	return fmt.Errorf("spreading evenly needs times in whole seconds, and %s has times in steps of %v", f, res)
}
