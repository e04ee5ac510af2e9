package minheap

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

type entry = Entry[int]

func cmp(a, b entry) int {
	switch {
	case a.Before(&b):
		return -1
	case b.Before(&a):
		return 1
	}
	return 0
}

// TestPushPopSorts: whatever the pushes and pops interleaved, each pop
// gives the first of what is held, by time and then by Seq.
func TestPushPopSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var h, held []entry
		for step := range 300 {
			if len(h) > 0 && r.IntN(3) == 0 {
				var got entry
				got, h = Pop(h)
				want := slices.MinFunc(held, cmp)
				if cmp(got, want) != 0 {
					t.Fatalf("trial %d step %d: popped %v, want %v", trial, step, got, want)
				}
				i := slices.Index(held, got)
				held = slices.Delete(held, i, i+1)
				continue
			}
			x := entry{At: time.Duration(r.IntN(20)), Seq: int64(r.IntN(5)), V: step}
			h, held = Push(h, x), append(held, x)
		}
		if len(h) != len(held) {
			t.Fatalf("trial %d: heap holds %d, want %d", trial, len(h), len(held))
		}
	}
}

// TestInitAndDown: Init orders any slice; advancing the top in place and
// calling Down keeps the order (a merge of sorted runs, as a cursor heap
// does), ties coming out by Seq.
func TestInitAndDown(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		n := r.IntN(40)
		h := make([]entry, n)
		for i := range h {
			h[i] = entry{At: time.Duration(r.IntN(50)), Seq: int64(i)}
		}
		in := n
		Init(h)
		var got []entry
		for len(h) > 0 {
			got = append(got, h[0])
			if h[0].At < 50 && r.IntN(2) == 0 {
				h[0].At += time.Duration(1 + r.IntN(10)) // later: the cursor moves on
				in++
				Down(h, 0)
				continue
			}
			_, h = Pop(h)
		}
		if !slices.IsSortedFunc(got, cmp) {
			t.Fatalf("out of order: %v", got)
		}
		if len(got) != in {
			t.Fatalf("%d out, %d in", len(got), in)
		}
	}
}

// TestPopClearsTheSlot: a popped entry's value is not kept alive by the
// slice's spare capacity.
func TestPopClearsTheSlot(t *testing.T) {
	h := []Entry[*int]{{At: 1, V: new(int)}, {At: 2, V: new(int)}}
	Init(h)
	_, h = Pop(h)
	if spare := h[:2][1]; spare.V != nil {
		t.Errorf("the popped slot still refers to %p", spare.V)
	}
}

// BenchmarkOwed is a lane's owed retries in a retry storm, as
// tools/million-retries.yaml's lanes hold them: a few dozen, each pop
// followed by a push due up to 40 ms after the one popped (the longest
// backoff there); and a heap of 5000, as a longer backoff keeps.
func BenchmarkOwed(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
		wait time.Duration
	}{{"storm", 64, 40 * time.Millisecond}, {"long", 5000, time.Second}} {
		b.Run(c.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			var h []Entry[int32]
			seq := int64(0)
			for i := range c.n {
				h = Push(h, Entry[int32]{At: time.Duration(r.Int64N(int64(c.wait))), Seq: seq, V: int32(i)})
				seq++
			}
			for b.Loop() {
				var x Entry[int32]
				x, h = Pop(h)
				x.At += time.Duration(r.Int64N(int64(c.wait)))
				x.Seq = seq
				seq++
				h = Push(h, x)
			}
		})
	}
}

// TestDeepHeaps: pops from heaps deeper than the tests above reach come
// out sorted.
func TestDeepHeaps(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 2, 4, 5, 6, 21, 22, 85, 86, 1000, 5000} {
		var h []entry
		for i := range n {
			h = Push(h, entry{At: time.Duration(r.IntN(n/2 + 1)), Seq: int64(r.IntN(3)), V: i})
		}
		var got []entry
		for len(h) > 0 {
			var x entry
			x, h = Pop(h)
			got = append(got, x)
		}
		if len(got) != n || !slices.IsSortedFunc(got, cmp) {
			t.Fatalf("%d entries: %d out, sorted %v", n, len(got), slices.IsSortedFunc(got, cmp))
		}
	}
}
