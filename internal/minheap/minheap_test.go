package minheap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// pair orders by at, then by seq: a tie-broken order, so every heap run
// has one right answer.
type pair struct{ at, seq int }

func (a pair) Before(b pair) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

func sorted(xs []pair) []pair {
	out := slices.Clone(xs)
	slices.SortFunc(out, func(a, b pair) int {
		if a.Before(b) {
			return -1
		}
		if b.Before(a) {
			return 1
		}
		return 0
	})
	return out
}

// TestPushPopSorts: whatever the pushes and pops interleaved, each pop
// gives the first of what is held.
func TestPushPopSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var h, held []pair
		for step := range 300 {
			if len(h) > 0 && r.IntN(3) == 0 {
				var got pair
				got, h = Pop(h)
				want := sorted(held)[0]
				if got != want {
					t.Fatalf("trial %d step %d: popped %v, want %v", trial, step, got, want)
				}
				i := slices.Index(held, want)
				held = slices.Delete(held, i, i+1)
				continue
			}
			x := pair{r.IntN(20), step}
			h, held = Push(h, x), append(held, x)
		}
		if len(h) != len(held) {
			t.Fatalf("trial %d: heap holds %d, want %d", trial, len(h), len(held))
		}
	}
}

// TestInitAndDown: Init orders any slice; advancing the top in place and
// calling Down keeps the order (a merge of sorted runs, as a cursor heap does).
func TestInitAndDown(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		n := r.IntN(40)
		h := make([]pair, n)
		var all []pair
		for i := range h {
			h[i] = pair{r.IntN(50), i}
			all = append(all, h[i])
		}
		Init(h)
		var got []pair
		for len(h) > 0 {
			got = append(got, h[0])
			if h[0].at < 50 && r.IntN(2) == 0 {
				h[0].at += 1 + r.IntN(10) // later: the cursor moves on
				all = append(all, h[0])
				Down(h, 0)
				continue
			}
			_, h = Pop(h)
		}
		if !slices.IsSortedFunc(got, func(a, b pair) int {
			if a.Before(b) {
				return -1
			}
			return 1
		}) {
			t.Fatalf("out of order: %v", got)
		}
		if len(got) != len(all) {
			t.Fatalf("%d out, %d in", len(got), len(all))
		}
	}
}

// TestPopClearsTheSlot: a popped element is not kept alive by the slice's
// spare capacity.
func TestPopClearsTheSlot(t *testing.T) {
	h := []refItem{{new(int), 1}, {new(int), 2}}
	Init(h)
	_, h = Pop(h)
	if spare := h[:2][1]; spare.p != nil {
		t.Errorf("the popped slot still refers to %p", spare.p)
	}
}

type refItem struct {
	p  *int
	at int
}

func (a refItem) Before(b refItem) bool { return a.at < b.at }
