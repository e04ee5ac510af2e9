package algorithms

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestFifoCopyFromIsFreeThenShare: fifos of several instances pushing,
// dropping and copying one another's items (as racy reads copy a key's log
// between layers, back and forth) hold the same items and count the same
// bytes whether each copy is copyFrom or what it stands for (free, a copy,
// share), and copyFrom counts no more dropped; long enough that the logs
// span many chunks, a table of their own and tables shared.
func TestFifoCopyFromIsFreeThenShare(t *testing.T) {
	type world struct {
		ms []mem
		qs []fifo[logItem]
	}
	const n = 5
	worlds := [2]*world{}
	for w := range worlds {
		worlds[w] = &world{ms: make([]mem, n), qs: make([]fifo[logItem], n)}
		for i := range n {
			worlds[w].ms[i].epoch = newEpoch()
		}
	}
	r := rand.New(rand.NewPCG(5, 17))
	next := int64(0)
	for step := range 4000 {
		i, j := r.IntN(n), r.IntN(n)
		op, k := r.IntN(10), r.IntN(600)
		if op < 3 && j == i {
			op = 9
		}
		for w, x := range worlds {
			q, m := &x.qs[i], &x.ms[i]
			switch {
			case op < 3: // i reads j's items
				src := &x.qs[j]
				if w == 0 {
					q.copyFrom(src, m, &x.ms[j])
					// What the copy holds, the source no longer owns.
					if q.tab != nil {
						for _, c := range q.tab.ptrs[q.lo:q.hi] {
							if c.epoch == x.ms[j].epoch {
								t.Fatalf("step %d: a full chunk copied from %d is still its own", step, j)
							}
						}
					}
				} else {
					q.free(m)
					*q = *src
					q.share(&x.ms[j], m)
				}
			case op < 6:
				q.drop(m, min(k, q.len()))
			default:
				for v := range int64(k / 2) {
					q.push(m, logItem{at: time.Duration(next + v)})
				}
			}
		}
		if op >= 6 {
			next += int64(k / 2)
		}
		a, b := worlds[0], worlds[1]
		if got, want := a.qs[i].items(0), b.qs[i].items(0); !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: %d items after copyFrom, %d after free and share", step, len(got), len(want))
		}
		for x := range n {
			if a.ms[x].bytes != b.ms[x].bytes {
				t.Fatalf("step %d (op %d), instance %d: %d bytes counted after copyFrom, %d after free and share", step, op, x, a.ms[x].bytes, b.ms[x].bytes)
			}
			if a.ms[x].dropped > b.ms[x].dropped {
				t.Fatalf("step %d, instance %d: %d bytes dropped after copyFrom, %d after free and share", step, x, a.ms[x].dropped, b.ms[x].dropped)
			}
		}
	}
	// What two instances' fifos both hold, neither owns.
	x := worlds[0]
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			a, b := &x.qs[i], &x.qs[j]
			if a.tail != nil && a.tail == b.tail && (a.tail.epoch == x.ms[i].epoch || a.tail.epoch == x.ms[j].epoch) {
				t.Fatalf("fifos %d and %d share a tail one of them owns", i, j)
			}
			if a.tab != nil && a.tab == b.tab && (a.tab.epoch == x.ms[i].epoch || a.tab.epoch == x.ms[j].epoch) {
				t.Fatalf("fifos %d and %d share a table one of them owns", i, j)
			}
		}
	}
}

// TestSlidingLogCopyOfTheLogItShares: a sliding log of many chunks copied
// again and again into one copy, as a racy gateway reads a key it read
// before, while the source takes in and lets go of admissions: the copy
// shows the source's state, holds what a first copy would, and then
// decides as the source does.
func TestSlidingLogCopyOfTheLogItShares(t *testing.T) {
	p := Policy{Algorithm: SlidingLog, Limit: 3000, Window: time.Second}
	ks := NewKeys()
	k := ks.Key("k")
	src, _ := NewWithKeys(p, ks)
	dst, _ := NewWithKeys(p, ks)
	var now time.Duration
	for round := range 40 {
		for range 137 {
			now += 700 * time.Microsecond
			src.DecideKey(now, k, 1)
		}
		dst.(KeyCopier).CopyKey(src, k)
		if a, b := dst.Snapshot(now, "k"), src.Snapshot(now, "k"); !reflect.DeepEqual(a, b) {
			t.Fatalf("round %d: the copy shows %d entries, the source %d", round, len(a.(SlidingLogSnapshot).Entries), len(b.(SlidingLogSnapshot).Entries))
		}
		fresh, _ := NewWithKeys(p, ks)
		fresh.(KeyCopier).CopyKey(src, k)
		if got, want := dst.Memory().State, fresh.Memory().State; got != want {
			t.Fatalf("round %d: the copy holds %d bytes, a first copy %d", round, got, want)
		}
	}
	alone := src.Clone()
	for range 2000 {
		now += 300 * time.Microsecond
		a, b := dst.DecideKey(now, k, 1), src.DecideKey(now, k, 1)
		if c := alone.DecideKey(now, k, 1); a.Outcome != c.Outcome || b.Outcome != c.Outcome || a.RetryAfter != c.RetryAfter {
			t.Fatalf("at %v: the copy %v, the source %v, a clone %v", now, a.Outcome, b.Outcome, c.Outcome)
		}
	}
}

// TestFifoCopyFromTouchesWhatMoved: copying a long log into a copy of it
// in the same table of chunks (a racy read of a key read just before, or
// a stack's put-back) that moved on by a chunk since gives back and counts
// the chunks one view holds and the other does not, not the log's length.
// The chunks touched are seen from outside: every full chunk is marked the
// source instance's own, after which a Clone was made, so that each chunk
// the copy counts is disowned and each it gives back counts as dropped.
func TestFifoCopyFromTouchesWhatMoved(t *testing.T) {
	from, m := mem{epoch: newEpoch()}, mem{epoch: newEpoch()}
	var src, q fifo[logItem]
	next := time.Duration(0)
	push := func(n int) {
		for range n {
			src.push(&from, logItem{at: next})
			next++
		}
	}
	const long = 200 // full chunks
	push(long*fifoChunk + 10)
	for round := range 20 {
		q.copyFrom(&src, &m, &from)
		push(fifoChunk + 3) // a chunk sealed
		src.drop(&from, fifoChunk+1)
		if q.tab != src.tab {
			continue // the source's seal found its table full: another table
		}
		for _, c := range src.tab.ptrs[min(q.lo, src.lo):max(q.hi, src.hi)] {
			c.epoch = from.epoch
		}
		cloned(newEpoch())
		dropped := m.dropped
		q.copyFrom(&src, &m, &from)
		released := (m.dropped - dropped) / chunkBytes[logItem](fifoChunk)
		shared := 0
		for _, c := range src.tab.ptrs[src.lo:src.hi] {
			if c.epoch != from.epoch {
				shared++
			}
		}
		if released+int64(shared) > 4 {
			t.Fatalf("round %d: a copy of a log of %d chunks that moved on by one gave back %d chunks and counted %d", round, src.segs(), released, shared)
		}
		if got, want := q.items(0), src.items(0); len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
			t.Fatalf("round %d: the copy holds %d items, the source %d", round, len(got), len(want))
		}
		return
	}
	t.Fatal("no round left the two views in one table")
}
