package model

import (
	"testing"
	"time"
)

// TestHandOverYieldsInOrder: handOver yields seq's pairs in order at block
// boundaries and between them, and a caller that stops early leaves the
// merge to run to its end rather than blocked for ever.
func TestHandOverYieldsInOrder(t *testing.T) {
	seq := func(n int) func(func(int, time.Duration) bool) {
		return func(yield func(int, time.Duration) bool) {
			for i := range n {
				if !yield(i*7%1000, time.Duration(i)) {
					return
				}
			}
		}
	}
	for _, n := range []int{0, 1, handoverBlock - 1, handoverBlock, handoverBlock + 1, handoverBlock*handoverBlocks*3 + 5} {
		i := 0
		for item, at := range handOver(seq(n)) {
			if item != i*7%1000 || at != time.Duration(i) {
				t.Fatalf("n=%d: pair %d is (%d, %v)", n, i, item, at)
			}
			i++
		}
		if i != n {
			t.Errorf("n=%d: %d pairs", n, i)
		}
	}
	for _, stop := range []int{0, handoverBlock + 3} {
		n := handoverBlock * handoverBlocks * 4
		finished := make(chan int, 1)
		counted := func(yield func(int, time.Duration) bool) {
			i := 0
			for item, at := range seq(n) {
				if !yield(item, at) {
					break
				}
				i++
			}
			finished <- i
		}
		got := 0
		for range handOver(counted) {
			if got == stop {
				break
			}
			got++
		}
		select {
		case i := <-finished:
			if i != n {
				t.Errorf("stopped after %d pairs: the merge yielded %d of %d, want all", stop, i, n)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("stopped after %d pairs: the merge never finished", stop)
		}
	}
}
