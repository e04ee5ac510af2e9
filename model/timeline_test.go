package model

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// TestTimelineKeepsEveryTime: times spread so that blocks are narrow, wide
// and both by turns, cut and grown again, read back exactly.
func TestTimelineKeepsEveryTime(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	var tl timeline
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
	var dense timeline
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

// TestUndoGivesBackTheMemory: bursts fired into a sandbox and undone leave
// the lab about as small as before them (before: undo freed nothing).
func TestUndoGivesBackTheMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("fires 200,000 requests")
	}
	l := newLab(t, sandboxLog(t))
	before := heapInUse()
	for i := range 10 {
		l.Seek(time.Duration(i) * time.Second)
		if _, err := l.FireBurst("k", 1, 20_000); err != nil {
			t.Fatal(err)
		}
	}
	l.Seek(l.End())
	full := heapInUse()
	for range 10 {
		if _, ok := l.Undo(); !ok {
			t.Fatal("nothing to undo")
		}
	}
	l.Seek(l.End())
	after := heapInUse()
	runtime.KeepAlive(l)
	t.Logf("heap: %d before the bursts, %d with them, %d undone", before, full, after)
	if after > before+(full-before)/10 {
		t.Errorf("after undoing every burst the lab still holds %d bytes more than before (%d with them)", after-before, full-before)
	}
	if l.Len() != 0 {
		t.Errorf("%d requests left", l.Len())
	}
}
