package fleet

import (
	"runtime"
	"testing"
	"time"

	"ratelab/algorithms"
)

// heapOf is the bytes of the heap that make, run once, leaves reachable
// from what it returns.
func heapOf(make func() any) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := make()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(x)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestAHotKeyKeepsItsSlots: one hot key whose writes take long to land
// holds many reads at once, and so makes many layers of slots; the other
// keys, each read now and then, keep the few slots they need, not a slot
// in every layer the hot key made; and the hot key's layers take a table
// of a pointer for every 16 keys numbered before it, not a chunk of
// states. 400 keys read once every 400 ms and a hot key read every
// millisecond for a second, writes landing 100 ms after their reads: the
// lane takes about what the 400 keys alone take plus what the hot key
// alone does, and the hot key alone about as much whether 400 keys (which
// the lane never sees) were numbered before it or not. Before, each key's
// reads walked through the hot key's hundred layers, a slot and a chunk
// of states in each, and each of the hot key's layers made a chunk of
// states for every 16 keys numbered before it.
func TestAHotKeyKeepsItsSlots(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 2, Per: sec}}
	c := Config{Gateways: 8, Store: Racy, Latency: 100 * time.Millisecond}
	const cold = 400
	type run struct {
		l     *Limiter
		heap  int64
		slots int
	}
	lane := func(hotAfter, hot, others bool) (r run) {
		r.heap = heapOf(func() any {
			ids := algorithms.NewKeys()
			var h algorithms.Key
			if !hotAfter {
				h = ids.Key("hot")
			}
			keys := benchKeys(ids, cold)
			if hotAfter {
				h = ids.Key("hot")
			}
			l, err := New(p, c, ids)
			if err != nil {
				t.Fatal(err)
			}
			for ms := range 8000 {
				now := time.Duration(ms) * time.Millisecond
				if hot && ms < 1000 {
					l.DecideKey(now, h, 1)
				}
				if others {
					l.DecideKey(now, keys[ms%cold], 1)
				}
			}
			r.l = l
			return l
		})
		for _, k := range r.l.reads.per {
			r.slots += int(k.n)
		}
		return r
	}
	hot, hotAfter, others := lane(false, true, false), lane(true, true, false), lane(false, false, true)
	both, bothAfter := lane(false, true, true), lane(true, true, true)
	layers := len(both.l.reads.layers)
	if layers < 100 {
		t.Fatalf("%d layers: the hot key should hold about 100 reads at once", layers)
	}
	for _, b := range []struct{ both, hot run }{{both, hot}, {bothAfter, hotAfter}} {
		if b.both.slots > b.hot.slots+others.slots+cold {
			t.Errorf("%d slots with the hot key, want at most the hot key's alone (%d) and the other keys' alone (%d), and one more a key", b.both.slots, b.hot.slots, others.slots)
		}
		if b.both.heap > (b.hot.heap+others.heap)*5/4 {
			t.Errorf("the lane takes %d bytes, the hot key's alone %d and the other keys' alone %d", b.both.heap, b.hot.heap, others.heap)
		}
	}
	// The keys numbered before the hot key cost the lane what its tables
	// by key number take, not half a bucket's state in each layer.
	if extra := hotAfter.heap - hot.heap; extra > int64(cold*layers*8) {
		t.Errorf("the hot key alone takes %d bytes numbered after 400 keys, %d numbered first", hotAfter.heap, hot.heap)
	}
}
