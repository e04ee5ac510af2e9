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
	case a.before(&b):
		return -1
	case b.before(&a):
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
