package model

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestTimelineKeepsEveryTime: times spread so that blocks are narrow, wide
// and both by turns, cut and grown again, read back exactly.
func TestTimelineKeepsEveryTime(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	var tl events
	var want []event
	var at time.Duration
	check := func() {
		t.Helper()
		if tl.len() != len(want) {
			t.Fatalf("%d requests, want %d", tl.len(), len(want))
		}
		for i, e := range want {
			if got := tl.event(i); got != e {
				t.Fatalf("request %d of %d: %+v, want %+v", i, len(want), got, e)
			}
		}
	}
	for round := range 30 {
		for range r.IntN(3 * timeBlock) {
			switch r.IntN(4) {
			case 0:
				at += time.Duration(r.Int64N(1 << 34))
			case 1:
				at += time.Duration(r.Int64N(1 << 20))
			}
			e := event{at: at, kind: uint32(r.IntN(1000))}
			tl.push(e)
			want = append(want, e)
		}
		check()
		if round%3 == 2 && len(want) > 0 {
			n := r.IntN(len(want))
			tl.truncate(n)
			want = want[:n]
			if n > 0 {
				at = want[n-1].at
			} else {
				at = 0
			}
			tl.clip()
			check()
		}
	}
	// Mostly wide blocks: 12 bytes a request, and room to grow.
	if perReq := float64(tl.bytes()) / float64(tl.len()); perReq > 24 {
		t.Errorf("%.1f bytes a request", perReq)
	}
	// A request a millisecond: 8 bytes a request, and room to grow.
	var dense events
	for i := range 1_000_000 {
		dense.push(event{at: time.Duration(i) * time.Millisecond})
	}
	if perReq := float64(dense.bytes()) / float64(dense.len()); perReq > 11 {
		t.Errorf("a request a millisecond: %.1f bytes a request", perReq)
	}
	for i := range dense.len() {
		if dense.at(i) != time.Duration(i)*time.Millisecond {
			t.Fatalf("request %d at %v", i, dense.at(i))
		}
	}
}

// TestRewriteInPlaceMatchesACopy: rewriting a timeline in place from a
// random index, inserting and removing requests at random (blocks narrow,
// wide and both by turns, high words reused out of block order), reads
// back exactly what the same rewrite of a plain slice gives, round after
// round, and the high words do not grow beyond what the blocks use.
func TestRewriteInPlaceMatchesACopy(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var tl events
	var want []event
	var at time.Duration
	gap := func() time.Duration {
		switch r.IntN(4) {
		case 0:
			return time.Duration(r.Int64N(1 << 34))
		case 1:
			return time.Duration(r.Int64N(1 << 20))
		}
		return 0
	}
	for range 3000 {
		at += gap()
		e := event{at: at, kind: uint32(r.IntN(1000))}
		tl.push(e)
		want = append(want, e)
	}
	for round := range 200 {
		from := r.IntN(len(want) + 1)
		var got []event
		adds := r.IntN(3 * timeBlock)
		if r.IntN(4) == 0 {
			adds = 0
		}
		removeOdds := r.IntN(3) // 0: remove none
		// The new tail: the old one with some removed and up to adds
		// inserted, in time order.
		old := slices.Clone(want[from:])
		var next []event
		prev := time.Duration(0)
		if from > 0 {
			prev = want[from-1].at
		}
		inserted := 0
		for _, e := range old {
			for inserted < adds && r.IntN(3) == 0 {
				x := event{at: prev + time.Duration(r.Int64N(int64(e.at-prev)+1)), kind: 7777}
				prev = x.at
				next = append(next, x)
				inserted++
			}
			if removeOdds > 0 && r.IntN(4) < removeOdds {
				continue
			}
			next = append(next, e)
			prev = e.at
		}
		for ; inserted < adds; inserted++ {
			prev += gap()
			next = append(next, event{at: prev, kind: 8888})
		}
		tl.grow(tl.len() + adds)
		rw := tl.rewriteFrom(from)
		for {
			if _, ok := rw.next(); !ok {
				break
			}
		}
		// Push the new tail after reading everything: the queue holds the
		// old tail whole, the hardest case for the arrays' reuse. Every
		// other round, interleave instead, as the lab does.
		if round%2 == 1 {
			rw = nil
			tl2 := &tl
			rw2 := tl2.rewriteFrom(from)
			j, k := 0, 0 // k: the old requests read
			read := func() (event, bool) {
				x, ok := rw2.next()
				if ok {
					if k >= len(old) || x != old[k] {
						t.Fatalf("round %d: read %+v as old request %d of %d, want %+v", round, x, k, len(old), old[min(k, len(old)-1)])
					}
					k++
				}
				return x, ok
			}
			for _, e := range next {
				if e.kind < 7777 {
					for {
						x, ok := read()
						if !ok || x == e {
							break
						}
					}
				}
				if got := rw2.push(e); got != from+j {
					t.Fatalf("round %d: push wrote %d, want %d", round, got, from+j)
				}
				j++
			}
			for {
				if _, ok := read(); !ok {
					break
				}
			}
			if k != len(old) {
				t.Fatalf("round %d: read %d old requests of %d", round, k, len(old))
			}
			rw2.done()
		} else {
			for _, e := range next {
				rw.push(e)
			}
			rw.done()
		}
		want = append(want[:from:from], next...)
		got = got[:0]
		for i := range tl.len() {
			got = append(got, tl.event(i))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (from %d, %d added): the rewritten timeline differs", round, from, adds)
		}
		wide := 0
		for _, w := range tl.wide {
			if w >= 0 {
				wide++
			}
		}
		if len(tl.high) > 2*(wide+1)*timeBlock+4*timeBlock {
			t.Fatalf("round %d: %d high words for %d wide blocks", round, len(tl.high), wide)
		}
	}
}
