package algorithms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// held is how many runs the queue's chunks and its back have room for.
func (q *releaseRuns) held() int {
	if q.log == nil {
		return 0
	}
	return q.log.runs.held() + 1
}

// runCount is how many runs the queue keeps.
func (q *releaseRuns) runCount() int {
	if q.log == nil || q.n == 0 {
		return 0
	}
	return q.log.runs.len() + 1
}

// plainLeaky is the leaky bucket as it was written before its queue became
// runs: every request waiting in a plain list, the reference the runs must
// match decision for decision, snapshot for snapshot and state for state.
type plainLeaky struct {
	next  instant
	last  time.Duration
	queue []Release
}

func (s *plainLeaky) clone() *plainLeaky {
	c := *s
	c.queue = slices.Clone(s.queue)
	return &c
}

func (s *plainLeaky) decide(p *Policy, now time.Duration, cost int64) Decision {
	eff := max(now, s.last)
	s.last = eff
	i := 0
	for i < len(s.queue) && s.queue[i].At <= eff {
		i++
	}
	s.queue = s.queue[i:]
	d := Decision{At: now, Cost: cost, policy: p, explain: explainLeakyBucket, v: [4]int64{s.next.ns, s.next.frac, int64(eff)}}
	if cost > p.Queue+1 {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	per, n := int64(p.Rate.Per), p.Rate.N
	t := at(eff)
	free := max2(s.next, t)
	if limit := t.add((p.Queue-cost+1)*per, n); limit.before(free) {
		d.Outcome = Rejected
		d.RetryAfter = time.Duration(free.minus(limit, n).ceil()) + eff - now
	} else {
		s.next = free.add(cost*per, n)
		release := time.Duration(free.ceil())
		if d.Delay = release - now; d.Delay > 0 {
			d.Outcome = Delayed
		}
		if release > eff {
			s.queue = append(s.queue, Release{Arrived: now, At: release, Cost: cost})
		}
	}
	d.v[3] = int64(len(s.queue))
	return d
}

// waiting is the requests not released at now (≥ last).
func (s *plainLeaky) waiting(now time.Duration) []Release {
	var out []Release
	for _, r := range s.queue {
		if r.At > now {
			out = append(out, r)
		}
	}
	return out
}

func (s *plainLeaky) snapshot(p Policy, now time.Duration) LeakyBucketSnapshot {
	now = max(now, s.last)
	return LeakyBucketSnapshot{
		Now: now, Queue: p.Queue, Rate: p.Rate, Interval: Quantity{int64(p.Rate.Per), p.Rate.N},
		NextFree: time.Duration(max2(s.next, at(now)).ceil()), Waiting: s.waiting(now),
	}
}

func (s *plainLeaky) state() State {
	st := State{Fields: []int64{s.next.ns, s.next.frac, int64(s.last)}}
	for _, r := range s.queue {
		st.Log = append(st.Log, int64(r.Arrived), int64(r.At), r.Cost)
	}
	return st
}

func plainFromState(st State) *plainLeaky {
	s := &plainLeaky{next: instant{st.Fields[0], st.Fields[1]}, last: time.Duration(st.Fields[2])}
	for i := 0; i < len(st.Log); i += 3 {
		s.queue = append(s.queue, Release{Arrived: time.Duration(st.Log[i]), At: time.Duration(st.Log[i+1]), Cost: st.Log[i+2]})
	}
	return s
}

// checkRuns verifies the runs' own bookkeeping: the count, the front and
// its rounded release.
func checkRuns(q *releaseRuns, per, den int64) error {
	if q.n == 0 {
		return nil
	}
	l := q.log
	var total int64
	for i := 0; i <= l.runs.len(); i++ {
		r := l.run(i)
		if r.count() < 1 || int64(r.frac) >= den || r.cost() < 1 {
			return fmt.Errorf("run %d: %+v", i, *r)
		}
		total += r.count()
	}
	fr := l.frontRun()
	want := fr.first().add(q.skip*fr.cost()*per, den)
	switch {
	case total-q.skip != q.n || q.skip < 0 || q.skip >= fr.count():
		return fmt.Errorf("%d requests in runs, skip %d, n %d", total, q.skip, q.n)
	case l.front != want || (l.frontStep != instant{} && l.frontStep != (instant{}).add(fr.cost()*per, den)):
		return fmt.Errorf("front %v step %v, want %v", l.front, l.frontStep, want)
	case q.frontAt != time.Duration(l.front.ceil()):
		return fmt.Errorf("frontAt %v, front %v", q.frontAt, l.front)
	}
	return nil
}

// randLeakyPolicy draws a leaky bucket of queue 1 to 10^6 at rates whose
// interval is rarely a whole number of nanoseconds.
func randLeakyPolicy(r *rand.Rand) Policy {
	for {
		p := Policy{Algorithm: LeakyBucket,
			Queue: []int64{1, 2, 3, 5, 10, 100, 1000, 1_000_000, 1 + r.Int64N(1_000_000)}[r.IntN(9)],
			Rate: Rate{
				N:   []int64{1, 2, 3, 7, 10, 1000, 1_000_003, 1 + r.Int64N(1<<31)}[r.IntN(8)],
				Per: []time.Duration{1, 7, time.Millisecond, 100 * time.Millisecond, time.Second, 3 * time.Second, time.Duration(1 + r.Int64N(1e9))}[r.IntN(7)],
			}}
		if p.Validate() == nil {
			return p
		}
	}
}

// foreignState is a state decide would not make but decode accepts: the
// requests of st with releases redrawn (in order, after last, by the pipe's
// next free), arrivals at or before last and costs the queue admits; or a
// made-up queue on st's next free and last.
func foreignState(r *rand.Rand, p Policy, st State) State {
	next := instant{st.Fields[0], st.Fields[1]}
	last := st.Fields[2]
	hi := next.ceil()
	out := State{Fields: slices.Clone(st.Fields)}
	if hi <= last {
		return out
	}
	n := len(st.Log) / 3
	if r.IntN(2) == 0 || n == 0 {
		n = 1 + r.IntN(8)
	}
	ats := make([]int64, n)
	for i := range ats {
		ats[i] = last + 1 + r.Int64N(hi-last)
	}
	slices.Sort(ats)
	for i := range n {
		if r.IntN(3) == 0 && i > 0 {
			ats[i] = ats[i-1] // several released in one nanosecond
		}
		arrived := r.Int64N(last + 1)
		if i > 0 && r.IntN(2) == 0 {
			arrived = out.Log[3*(i-1)]
		}
		cost := int64(1)
		if r.IntN(3) == 0 {
			cost = 1 + r.Int64N(p.Queue+1)
		}
		out.Log = append(out.Log, arrived, ats[i], cost)
	}
	return out
}

// TestLeakyBucketRunsAgainstPlainList: random leaky buckets (queues of 1 to
// 10^6, rates whose interval falls between nanoseconds), several keys,
// bursts at one instant, steady streams, irregular and late arrivals, idle
// gaps, costs up to the queue + 1 and beyond; clones deciding apart,
// states exported and imported back (and states decide would not make
// imported), keys forgotten. After every decision the limiter, its runs
// and a plain list of the requests waiting agree on the decision and its
// explanation, and, whenever the queue is small enough to list or at
// random, on the snapshot at the decision and later, the exported state and
// the key's bytes; at the end, every key forgotten gives back exactly the
// bytes its queue was accounted, through clones and imports.
func TestLeakyBucketRunsAgainstPlainList(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 31))
	policies, steps := 80, 300
	if testing.Short() {
		policies, steps = 5, 100
	}
	keys := []string{"a", "b", "c"}
	for pi := range policies {
		p := randLeakyPolicy(r)
		per, den := int64(p.Rate.Per), p.Rate.N
		u := max(1, int64(p.Rate.Per)/p.Rate.N)
		ks := NewKeys()
		type inst struct {
			lim   *keyed[leakyBucketState]
			plain map[string]*plainLeaky
		}
		fresh := func() inst {
			l, _ := NewWithKeys(p, ks)
			return inst{l.(*keyed[leakyBucketState]), map[string]*plainLeaky{}}
		}
		insts := []inst{fresh()}
		var now time.Duration
		check := func(in inst, key string, at time.Duration, where func() string, full bool) {
			t.Helper()
			k := ks.Key(key)
			ref := in.plain[key]
			if ref == nil {
				return
			}
			s := in.lim.seenSlot(k.id)
			if s == nil {
				t.Fatalf("policy %d %v %s: key %s has no state", pi, p, where(), key)
			}
			if s.s.queue.n != int64(len(ref.queue)) {
				t.Fatalf("policy %d %v %s: key %s: %d waiting, the list %d", pi, p, where(), key, s.s.queue.n, len(ref.queue))
			}
			if !full {
				return
			}
			if err := checkRuns(&s.s.queue, per, den); err != nil {
				t.Fatalf("policy %d %v %s: key %s: %v", pi, p, where(), key, err)
			}
			if got, ok := in.lim.ExportKey(k); !ok || !sameState(got, ref.state()) {
				t.Fatalf("policy %d %v %s: state of %s\n got  %v\n want %v", pi, p, where(), key, got, ref.state())
			}
			for _, when := range []time.Duration{at, ref.last, ref.last + time.Duration(r.Int64N(int64(p.Horizon())+2)), ref.last + p.Horizon() + 1} {
				if got, want := in.lim.Snapshot(when, key), ref.snapshot(p, when); !reflect.DeepEqual(got, Snapshot(want)) {
					t.Fatalf("policy %d %v %s: snapshot of %s at %v\n got  %+v\n want %+v", pi, p, where(), key, when, got, want)
				}
				want := int64(unsafeSizeOf[leakyBucketState]()) + int64(len(ref.waiting(max(when, ref.last))))*sizeOf[Release]()
				if got := in.lim.KeyBytes(when, k); got != want {
					t.Fatalf("policy %d %v %s: %s takes %d B at %v, want %d", pi, p, where(), key, got, when, want)
				}
			}
		}
		for step := range steps {
			in := insts[r.IntN(len(insts))]
			key := keys[r.IntN(len(keys))]
			switch k := r.IntN(100); {
			case k < 4 && len(insts) < 4: // a clone, deciding apart from now on
				c := inst{in.lim.Clone().(*keyed[leakyBucketState]), map[string]*plainLeaky{}}
				for key, s := range in.plain {
					c.plain[key] = s.clone()
				}
				insts = append(insts, c)
				continue
			case k < 8: // the state written out and read back
				if ref := in.plain[key]; ref != nil {
					st, _ := in.lim.ExportKey(ks.Key(key))
					if r.IntN(3) == 0 {
						st = foreignState(r, p, st)
						in.plain[key] = plainFromState(st)
					}
					if err := in.lim.ImportKey(ks.Key(key), st); err != nil {
						t.Fatalf("policy %d %v: importing %v: %v", pi, p, st, err)
					}
					check(in, key, now, func() string { return "after an import" }, true)
				}
				continue
			case k < 9: // forgotten
				in.lim.ForgetKey(ks.Key(key))
				delete(in.plain, key)
				continue
			}
			// A batch of requests of one shape.
			count := 1 + r.IntN(5)
			if r.IntN(4) == 0 {
				count = 1 + r.IntN(int(min(3*p.Queue+3, 3000)))
			}
			cost := int64(1)
			if r.IntN(4) == 0 {
				cost = 1 + r.Int64N(p.Queue+2)
			}
			var gap int64 // between the batch's requests
			switch r.IntN(5) {
			case 0: // all at one instant
			case 1:
				gap = u * (1 + r.Int64N(3)) / (1 + r.Int64N(3))
			case 2:
				gap = 1 + r.Int64N(u)
			default:
				gap = -1 // irregular
			}
			switch r.IntN(10) {
			case 0: // idle
				now += p.Horizon() + time.Duration(r.Int64N(int64(p.Horizon())+1))
			case 1: // late
				now = max(0, now-time.Duration(r.Int64N(2*u+1)))
			default:
				now += time.Duration(r.Int64N(2*u + 1))
			}
			ref := in.plain[key]
			if ref == nil {
				ref = &plainLeaky{next: at(now), last: now}
				in.plain[key] = ref
			}
			for i := range count {
				if i > 0 {
					if gap >= 0 {
						now += time.Duration(gap)
					} else {
						now += time.Duration(r.Int64N(2*u + 1))
					}
				}
				c := cost
				if r.IntN(8) == 0 {
					c = 1 + r.Int64N(p.Queue+2)
				}
				got, want := in.lim.Decide(now, key, c), ref.decide(&p, now, c)
				// The explanation is written from v: its text, at random.
				if got.Outcome != want.Outcome || got.Delay != want.Delay || got.RetryAfter != want.RetryAfter ||
					got.At != want.At || got.Cost != want.Cost || got.v != want.v || (r.IntN(50) == 0 && got.Explain() != want.Explain()) {
					t.Fatalf("policy %d %v step %d request %d at %v cost %d:\n got  %v %v %v %q\n want %v %v %v %q",
						pi, p, step, i, now, c, got.Outcome, got.Delay, got.RetryAfter, got.Explain(),
						want.Outcome, want.Delay, want.RetryAfter, want.Explain())
				}
				check(in, key, now, func() string { return fmt.Sprintf("step %d request %d", step, i) }, len(ref.queue) < 20 || r.IntN(500) == 0)
			}
			check(in, key, now, func() string { return fmt.Sprintf("after step %d", step) }, len(ref.queue) < 500 || r.IntN(20) == 0)
		}
		for _, in := range insts {
			for _, key := range keys {
				check(in, key, now, func() string { return "at the end" }, true)
			}
			// Forgotten, every key gives back what its queue took, shared
			// with clones or not: what stays is the table of states.
			for _, key := range keys {
				in.lim.ForgetKey(ks.Key(key))
			}
			table := int64(len(in.lim.chunks))*int64(unsafe.Sizeof(stateChunk[leakyBucketState]{})) + int64(cap(in.lim.chunks))*8
			if got := in.lim.m.bytes; got != table {
				t.Fatalf("policy %d %v: every key forgotten, %d bytes of state, the table of states %d", pi, p, got, table)
			}
		}
	}
}

// TestLeakyBucketQueueHoldsRuns: a burst at one instant and a steady
// stream of delayed requests each take a run, whatever their length, where
// a list of the requests took 24 bytes each (48 MB here), also when the
// interval is not a whole number of nanoseconds so that the rounded
// release steps alternate; the key's bytes, the snapshot and the state
// still count and list every request.
func TestLeakyBucketQueueHoldsRuns(t *testing.T) {
	const burst, stream = 1_000_000, 1_000_000
	p := Policy{Algorithm: LeakyBucket, Queue: 10_000_000, Rate: Rate{N: 3, Per: time.Millisecond}} // I = 333,333⅓ ns
	ks := NewKeys()
	l, _ := NewWithKeys(p, ks)
	k := ks.Key("k")
	for range burst {
		l.DecideKey(0, k, 1)
	}
	for i := range stream { // one every 100µs, three times the pace
		if d := l.DecideKey(time.Duration(i)*100*time.Microsecond, k, 1); d.Outcome != Delayed {
			t.Fatalf("request %d of the stream: %v", i, d.Outcome)
		}
	}
	last := time.Duration(stream-1) * 100 * time.Microsecond
	q := &l.(*keyed[leakyBucketState]).chunks[0].slots[0].s.queue
	if q.runCount() != 2 {
		t.Errorf("the queue keeps %d runs, want 2", q.runCount())
	}
	if m := l.Memory().State; m > 64<<10 {
		t.Errorf("the queue of %d requests takes %d bytes of state", q.n, m)
	}
	waiting := q.n
	if got, want := l.KeyBytes(last, k), 56+waiting*24; got != want {
		t.Errorf("KeyBytes %d, want %d", got, want)
	}
	snap := l.Snapshot(last, "k").(LeakyBucketSnapshot)
	if int64(len(snap.Waiting)) != waiting {
		t.Fatalf("%d waiting in the snapshot, %d in the queue", len(snap.Waiting), waiting)
	}
	// Request k overall (from 0) is released at ⌈k × I⌉: the first of the
	// burst at once; the stream follows the burst.
	first := int64(burst + stream - waiting)
	for i, w := range snap.Waiting {
		k := first + int64(i)
		want := Release{Arrived: 0, At: time.Duration(ceilDiv(k*1_000_000, 3)), Cost: 1}
		if k >= burst {
			want.Arrived = time.Duration(k-burst) * 100 * time.Microsecond
		}
		if w != want {
			t.Fatalf("waiting request %d: %+v, want %+v", i, w, want)
		}
	}
}

// TestLeakyBucketRunsAfterImport: a state decide made reads back into the
// same runs (its releases lie on the pipe's grid), and the next request
// extends the last one.
func TestLeakyBucketRunsAfterImport(t *testing.T) {
	p := Policy{Algorithm: LeakyBucket, Queue: 1000, Rate: Rate{N: 7, Per: time.Second}}
	ks := NewKeys()
	l, _ := NewWithKeys(p, ks)
	k := ks.Key("k")
	for range 500 {
		l.DecideKey(0, k, 1)
	}
	st, _ := l.(StateCodec).ExportKey(k)
	b, _ := NewWithKeys(p, ks)
	if err := b.(StateCodec).ImportKey(k, st); err != nil {
		t.Fatal(err)
	}
	b.DecideKey(0, k, 1)
	l.DecideKey(0, k, 1)
	q := &b.(*keyed[leakyBucketState]).chunks[0].slots[0].s.queue
	if q.runCount() != 1 {
		t.Errorf("imported: %d runs, want 1", q.runCount())
	}
	x, _ := l.(StateCodec).ExportKey(k)
	y, _ := b.(StateCodec).ExportKey(k)
	if !sameState(x, y) {
		t.Errorf("after one more request: %v, imported %v", y, x)
	}
}

// TestLeakyBucketRunsAtTheirBounds: a burst longer than a run may count
// takes a second run, and requests arriving further apart than a run's
// step may be (2^31 ns) take a run each; both list every request.
func TestLeakyBucketRunsAtTheirBounds(t *testing.T) {
	p := Policy{Algorithm: LeakyBucket, Queue: 1 << 30, Rate: Rate{N: 3, Per: time.Millisecond}}
	ks := NewKeys()
	l, _ := NewWithKeys(p, ks)
	burst, far := ks.Key("burst"), ks.Key("far")
	const n = maxRunCount + 5
	for range n {
		l.DecideKey(0, burst, 1)
	}
	k := l.(*keyed[leakyBucketState])
	q := &k.chunks[0].slots[burst.id].s.queue
	if q.n != n-1 || q.runCount() != 2 {
		t.Fatalf("%d waiting in %d runs, want %d in 2", q.n, q.runCount(), n-1)
	}
	i := int64(1) // the first was released at once
	for r := range q.all(int64(p.Rate.Per), p.Rate.N) {
		if want := (Release{Arrived: 0, At: time.Duration(ceilDiv(i*1_000_000, 3)), Cost: 1}); r != want {
			t.Fatalf("request %d: %+v, want %+v", i, r, want)
		}
		i++
	}
	// 3s apart at 1 per 2s: each waits longer than the one before.
	slow := Policy{Algorithm: LeakyBucket, Queue: 100, Rate: Rate{N: 1, Per: 2 * time.Second}}
	s, _ := NewWithKeys(slow, ks)
	var want []Release
	for j := range 20 {
		d := s.DecideKey(time.Duration(j)*time.Second/2*3, far, 1) // 1.5s apart
		if d.Outcome == Delayed {
			want = append(want, Release{Arrived: d.At, At: d.At + d.Delay, Cost: 1})
		}
	}
	for j := range 5 {
		d := s.DecideKey(30*time.Second+time.Duration(j)*3*time.Second, far, 1) // 3s apart, while the queue drains
		if d.Outcome == Delayed {
			want = append(want, Release{Arrived: d.At, At: d.At + d.Delay, Cost: 1})
		}
	}
	last := 42 * time.Second
	sq := &s.(*keyed[leakyBucketState]).chunks[0].slots[far.id].s.queue
	var waiting []Release
	for _, r := range want {
		if r.At > last {
			waiting = append(waiting, r)
		}
	}
	if got := s.Snapshot(last, "far").(LeakyBucketSnapshot).Waiting; !slices.Equal(got, waiting) {
		t.Fatalf("waiting %v, want %v", got, waiting)
	}
	if len(waiting) < 3 || sq.runCount() != len(waiting) {
		t.Errorf("%d runs for %d waiting 3s apart, want one each", sq.runCount(), len(waiting))
	}
}

// TestLeakyBucketCopyOfTheRunsItShares: copying a key's queue into a
// limiter whose state of the key already shares the source's runs (a
// racy read of a key it read before) gives the source's state, holds no
// more memory than the first copy did, and leaves the two independent:
// each then decides as a limiter fed the same requests alone; so does a
// copy after the source only extended its newest run, and after it opened
// others. The queues: a burst (one run), a stream of requests of two costs
// in turn (a run each, past a chunk of runs), and a queue that empties.
func TestLeakyBucketCopyOfTheRunsItShares(t *testing.T) {
	type req struct {
		at   time.Duration
		cost int64
	}
	burst := func(n int, at time.Duration) (rs []req) {
		for range n {
			rs = append(rs, req{at, 1})
		}
		return rs
	}
	alternating := func(n int, from, every time.Duration) (rs []req) {
		for i := range n {
			rs = append(rs, req{from + time.Duration(i)*every, 1 + int64(i%2)})
		}
		return rs
	}
	cases := []struct {
		name string
		p    Policy
		// before fills the queue; then the source decides more (extend in
		// its newest run, or open others) before it is copied again, and
		// after is what both decide on their own at last.
		before, more, after []req
	}{
		{"a burst, extended", Policy{Algorithm: LeakyBucket, Queue: 50, Rate: Rate{N: 2, Per: time.Second}},
			burst(30, 0), burst(5, 0), burst(10, time.Second)},
		{"two costs in turn, past a chunk of runs", Policy{Algorithm: LeakyBucket, Queue: 2000, Rate: Rate{N: 3, Per: time.Millisecond}},
			alternating(600, 0, 100*time.Microsecond), alternating(300, 60*time.Millisecond, 3*time.Microsecond), alternating(40, 70*time.Millisecond, time.Millisecond)},
		{"a queue that empties", Policy{Algorithm: LeakyBucket, Queue: 5, Rate: Rate{N: 10, Per: time.Second}},
			burst(5, 0), burst(1, 2*time.Second), alternating(8, 3*time.Second, 50*time.Millisecond)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ks := NewKeys()
			k := ks.Key("k")
			src, _ := NewWithKeys(c.p, ks)
			dst, _ := NewWithKeys(c.p, ks)
			ref, _ := NewWithKeys(c.p, ks) // the source's requests alone
			feed := func(rs []req, ls ...Limiter) {
				for _, q := range rs {
					for _, l := range ls {
						l.DecideKey(q.at, k, q.cost)
					}
				}
			}
			runs := func(l Limiter) *releaseRuns { return &l.(*keyed[leakyBucketState]).state("k").queue }
			same := func(when string, now time.Duration) {
				t.Helper()
				if a, b := dst.Snapshot(now, "k"), src.Snapshot(now, "k"); !reflect.DeepEqual(a, b) {
					t.Fatalf("%s: the copy shows %+v, the source %+v", when, a, b)
				}
				// What the two share, neither owns: the source changes in
				// place only what is its own.
				if q := runs(dst); q.log != nil {
					e, f := src.(*keyed[leakyBucketState]).m.epoch, &q.log.runs
					if f.tail != nil && f.tail.epoch == e || f.tab != nil && f.tab.epoch == e {
						t.Fatalf("%s: the copy shares runs the source still owns", when)
					}
				}
			}
			feed(c.before, src, ref)
			now := c.before[len(c.before)-1].at
			dst.(KeyCopier).CopyKey(src, k)
			same("first copy", now)
			first := dst.Memory().State
			if q := runs(src); q.n > 0 && runs(dst).log.runs != q.log.runs {
				t.Fatal("the copy does not share the source's runs")
			}
			// A Clone, of any limiter, since the runs were shared: what dst
			// gave back now would count as dropped (clones are watched
			// by a process-wide epoch), which copying the runs it shares
			// already must not do.
			ref.Clone()
			dropped := dst.Memory().Dropped
			dst.(KeyCopier).CopyKey(src, k) // the runs it shares already
			same("copied again", now)
			if m := dst.Memory().Dropped; m != dropped {
				t.Errorf("copied again: %d bytes dropped, %d before", m, dropped)
			}
			if m := dst.Memory().State; m != first {
				t.Errorf("copied again: %d bytes of state, %d after the first copy", m, first)
			}
			feed(c.more, src, ref)
			now = c.more[len(c.more)-1].at
			dst.(KeyCopier).CopyKey(src, k)
			same("copied after the source decided more", now)
			fresh, _ := NewWithKeys(c.p, ks)
			fresh.(KeyCopier).CopyKey(src, k)
			if m, want := dst.Memory().State, fresh.Memory().State; m != want {
				t.Errorf("copied after the source decided more: %d bytes of state, a first copy %d", m, want)
			}
			// The source decides first, changing what it alone holds, then
			// the copy: each as a limiter fed its requests alone.
			alone := ref.Clone()
			for _, x := range []struct {
				name     string
				l, alone Limiter
			}{{"the source", src, alone}, {"the copy", dst, ref}} {
				for i, q := range c.after {
					a, b := x.l.DecideKey(q.at, k, q.cost), x.alone.DecideKey(q.at, k, q.cost)
					if a.Outcome != b.Outcome || a.Delay != b.Delay || a.RetryAfter != b.RetryAfter {
						t.Fatalf("%s's request %d after the copy: %v %v, alone %v %v", x.name, i, a.Outcome, a.Delay, b.Outcome, b.Delay)
					}
				}
				end := c.after[len(c.after)-1].at
				if a, b := x.l.Snapshot(end, "k"), x.alone.Snapshot(end, "k"); !reflect.DeepEqual(a, b) {
					t.Errorf("%s shows %+v, alone %+v", x.name, a, b)
				}
			}
			for _, l := range []Limiter{src, dst} {
				if err := checkRuns(runs(l), int64(c.p.Rate.Per), c.p.Rate.N); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
