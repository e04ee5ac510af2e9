package algorithms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// sharing is a request of a trace on many keys.
type sharing struct {
	at   time.Duration
	key  string
	cost int64
}

// TestClonesOfClonesShareExactly: a limiter cloned again and again, as the
// lab's checkpoints are, and clones of those clones deciding on (as a
// restored checkpoint does), each decide and show every key exactly as a
// fresh limiter fed the same requests, with states large enough to span
// many chunks of a fifo and keys enough to span several chunks of states.
func TestClonesOfClonesShareExactly(t *testing.T) {
	policies := []Policy{
		{Algorithm: SlidingLog, Limit: 700, Window: sec},
		{Algorithm: LeakyBucket, Queue: 900, Rate: Rate{500, sec}},
		{Algorithm: SlidingLog, Limit: 5, Window: 10 * ms},
		{Algorithm: LeakyBucket, Queue: 3, Rate: Rate{300, sec}},
		{Algorithm: FixedWindow, Limit: 30, Window: 100 * ms},
		{Algorithm: SlidingCounter, Limit: 30, Window: 100 * ms},
		{Algorithm: TokenBucket, Capacity: 30, Rate: Rate{300, sec}},
		{Algorithm: GCRA, Burst: 30, Rate: Rate{300, sec}},
	}
	r := rand.New(rand.NewPCG(7, 7))
	for _, p := range policies {
		t.Run(fmt.Sprintf("%s-%d", p.Algorithm, p.Limit+p.Queue+p.Capacity+p.Burst), func(t *testing.T) {
			type line struct {
				lim  Limiter
				hist []sharing
			}
			var at time.Duration
			next := func() sharing {
				at += time.Duration(r.Int64N(int64(2 * ms)))
				key := "hot"
				if r.IntN(3) == 0 {
					key = fmt.Sprintf("k%d", r.IntN(80))
				}
				return sharing{at, key, 1 + r.Int64N(min(p.MaxCost(), 3))}
			}
			check := func(l *line, n int) {
				ref := mustNew(t, p)
				for _, q := range l.hist {
					ref.Decide(q.at, q.key, q.cost)
				}
				for range n {
					q := next()
					got, want := l.lim.Decide(q.at, q.key, q.cost), ref.Decide(q.at, q.key, q.cost)
					if got.Outcome != want.Outcome || got.Delay != want.Delay || got.RetryAfter != want.RetryAfter || got.Explain() != want.Explain() {
						t.Fatalf("request %d: %s\nwant %s", len(l.hist), got.Explain(), want.Explain())
					}
					l.hist = append(l.hist, q)
				}
				for _, key := range []string{"hot", "k0", "k33", "k79", "never"} {
					if got, want := l.lim.Snapshot(at, key), ref.Snapshot(at, key); !reflect.DeepEqual(got, want) {
						t.Fatalf("after %d requests, key %q:\n got  %+v\n want %+v", len(l.hist), key, got, want)
					}
				}
			}
			frontier := &line{lim: mustNew(t, p)}
			var checkpoints []*line
			for step := range shortened(60) {
				check(frontier, 100+r.IntN(200))
				checkpoints = append(checkpoints, &line{lim: frontier.lim.Clone(), hist: frontier.hist})
				// A working copy of a random checkpoint decides on,
				// then is dropped.
				c := checkpoints[r.IntN(len(checkpoints))]
				at = c.hist[len(c.hist)-1].at
				w := &line{lim: c.lim.Clone(), hist: append([]sharing(nil), c.hist...)}
				check(w, r.IntN(300))
				if step%7 == 6 {
					// The frontier goes back to a checkpoint (a what-if).
					k := r.IntN(len(checkpoints))
					checkpoints = checkpoints[:k+1]
					c := checkpoints[k]
					frontier = &line{lim: c.lim.Clone(), hist: append([]sharing(nil), c.hist...)}
				}
				at = frontier.hist[len(frontier.hist)-1].at
			}
			// The checkpoints themselves never changed.
			for _, c := range checkpoints {
				at = c.hist[len(c.hist)-1].at
				check(&line{lim: c.lim.Clone(), hist: append([]sharing(nil), c.hist...)}, 0)
			}
		})
	}
}

// TestCloneSharesMemory: a clone costs a table of pointers, not a copy of
// the state; a state's memory is accounted for, and what a limiter drops of
// what its clone shares is counted.
func TestCloneSharesMemory(t *testing.T) {
	l := mustNew(t, Policy{Algorithm: SlidingLog, Limit: 1_000_000, Window: time.Hour})
	for i := range 100_000 {
		l.Decide(time.Duration(i)*ms, "k", 1)
	}
	m := l.Memory()
	if m.State < 100_000*24 || m.State > 100_000*24*5/4+10_000 {
		t.Errorf("a log of 100,000 admissions takes %d bytes of state", m.State)
	}
	if m.Clone > 8_000 {
		t.Errorf("a clone would take %d bytes", m.Clone)
	}
	c := l.Clone()
	if m2 := l.Memory(); m2.Dropped != 0 {
		t.Errorf("dropped %d bytes before deciding", m2.Dropped)
	}
	// Every admission expires: l lets go of all that c still holds.
	l.Decide(2*time.Hour, "k", 1)
	if d := l.Memory().Dropped; d < 100_000*24 {
		t.Errorf("dropped %d bytes after the whole log expired, want at least %d", d, 100_000*24)
	}
	if s := l.Memory().State; s > 20_000 {
		t.Errorf("a log of one admission takes %d bytes", s)
	}
	if s := c.Memory().State; s < 100_000*24 {
		t.Errorf("the clone's state takes %d bytes", s)
	}
}

// TestFifoCopiesStayApart: copies of a fifo taken at random (each copy and
// its original taking a new epoch, as a Clone does), pushed to and taken
// from at random, long enough to seal, drop and compact many chunks and
// tables, each hold exactly what a plain slice fed the same would.
func TestFifoCopiesStayApart(t *testing.T) {
	type inst struct {
		q    fifo[int]
		m    mem
		want []int
	}
	r := rand.New(rand.NewPCG(11, 11))
	insts := []*inst{{m: mem{epoch: newEpoch()}}}
	next := 0
	for step := range shortened(4000) {
		x := insts[r.IntN(len(insts))]
		switch k := r.IntN(100); {
		case k < 3 && len(insts) < 12:
			x.m.epoch = newEpoch()
			c := &inst{q: x.q, m: mem{epoch: newEpoch()}, want: append([]int(nil), x.want...)}
			insts = append(insts, c)
		case k < 5 && len(insts) > 1:
			insts = append(insts[:0:0], insts[1:]...) // forget the oldest
		case k < 40:
			n := r.IntN(len(x.want) + 1)
			if r.IntN(4) > 0 {
				n = min(n, r.IntN(300))
			}
			x.q.drop(&x.m, n)
			x.want = x.want[n:]
		default:
			for range r.IntN(600) {
				x.q.push(&x.m, next)
				x.want = append(x.want, next)
				next++
			}
		}
		for j, y := range insts {
			if y.q.len() != len(y.want) {
				t.Fatalf("step %d, fifo %d: %d items, want %d", step, j, y.q.len(), len(y.want))
			}
			for i := range y.want {
				if v := *y.q.at(i); v != y.want[i] {
					t.Fatalf("step %d, fifo %d, item %d of %d: %d, want %d", step, j, i, len(y.want), v, y.want[i])
				}
			}
		}
	}
}

// TestSharedKeys: limiters sharing one Keys, decided by DecideKey, and
// their clones, decide and show keys as limiters of their own decided by
// Decide.
func TestSharedKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	ks := NewKeys()
	var shared, own []Limiter
	for _, p := range eachPolicy {
		a, err := NewWithKeys(p, ks)
		if err != nil {
			t.Fatal(err)
		}
		shared, own = append(shared, a), append(own, mustNew(t, p))
	}
	at := time.Duration(0)
	for i := range 3000 {
		at += time.Duration(r.Int64N(int64(300 * ms)))
		key := fmt.Sprintf("k%d", r.IntN(40))
		if i == 1500 {
			for j := range shared {
				shared[j] = shared[j].Clone()
			}
		}
		k := ks.Key(key)
		for j := range shared {
			got, want := shared[j].DecideKey(at, k, 1), own[j].Decide(at, key, 1)
			if got.Outcome != want.Outcome || got.Explain() != want.Explain() {
				t.Fatalf("%v request %d: %s\nwant %s", eachPolicy[j], i, got.Explain(), want.Explain())
			}
			if got, want := shared[j].Snapshot(at, "k7"), own[j].Snapshot(at, "k7"); !reflect.DeepEqual(got, want) {
				t.Fatalf("%v after request %d: %+v, want %+v", eachPolicy[j], i, got, want)
			}
		}
	}
	if k := ks.Key("k3"); k.String() != "k3" {
		t.Errorf("Key(k3) is %q", k)
	}
}
