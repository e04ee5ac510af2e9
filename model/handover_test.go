package model

import (
	"testing"
	"time"
)

// TestHandOverYieldsInOrder: handOver yields seq's pairs in order at block
// boundaries and between them, and a caller that stops early gets no more
// and leaves the producer to finish (no deadlock).
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
		got := 0
		for range handOver(seq(handoverBlock * handoverBlocks * 4)) {
			if got == stop {
				break
			}
			got++
		}
		if got != stop {
			t.Errorf("stopped after %d pairs, want %d", got, stop)
		}
	}
}
