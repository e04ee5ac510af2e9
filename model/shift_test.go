package model

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestRewriteRestMovesBlocks inserts and removes requests early in
// timelines of narrow and wide blocks, the rest written by rest (moved a
// block at a time where it can be), and checks every request against the
// same edit of a plain slice.
func TestRewriteRestMovesBlocks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	for round := range 300 {
		n := rng.IntN(6 * timeBlock)
		var ref []event
		var ev events
		at := time.Duration(0)
		wideAt := -1
		if round%3 == 0 {
			wideAt = rng.IntN(n + 1) // one gap of 5 s: a wide block
		}
		for i := range n {
			at += time.Duration(rng.IntN(3)) * time.Millisecond
			if i == wideAt {
				at += 5 * time.Second
			}
			e := event{at: at, kind: uint32(i)}
			ref = append(ref, e)
			ev.push(e)
		}
		p := 0
		if n > 0 {
			p = rng.IntN(n + 1)
		}
		var want []event
		ev.grow(n + 300)
		rw := ev.rewriteFrom(p)
		if rng.IntN(2) == 0 {
			// Insert m at p's time (or 0).
			m := 1 + rng.IntN(300)
			tm := time.Duration(0)
			if p < n {
				tm = ref[p].at
			} else if n > 0 {
				tm = ref[n-1].at
			}
			want = slices.Clone(ref[:p])
			for j := range m {
				e := event{at: tm, kind: uint32(1_000_000 + j)}
				want = append(want, e)
				rw.push(e)
			}
			want = append(want, ref[p:]...)
		} else {
			k := rng.IntN(n - p + 1)
			for range k {
				rw.next()
			}
			want = append(slices.Clone(ref[:p]), ref[p+k:]...)
		}
		rw.rest()
		rw.done()
		if ev.len() != len(want) {
			t.Fatalf("round %d: %d requests, want %d", round, ev.len(), len(want))
		}
		for i, w := range want {
			if got := ev.event(i); got != w {
				t.Fatalf("round %d (n %d, at %d): request %d is %+v, want %+v", round, n, p, i, got, w)
			}
		}
	}
}
