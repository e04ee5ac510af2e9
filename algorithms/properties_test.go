package algorithms

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRandomTraces runs every algorithm on seeded random policies and
// traces and checks each decision against the reference model (outcome,
// Delay and RetryAfter exactly), the per-decision invariants, the
// algorithm's bound, and that every RetryAfter is exact: asking again then
// admits, 1ns earlier rejects.
func TestRandomTraces(t *testing.T) {
	const policies, length = 120, 120
	for ai, alg := range textbook() {
		t.Run(string(alg), func(t *testing.T) {
			r := rand.New(rand.NewPCG(42, uint64(ai)))
			var counts [3]int
			for range shortened(policies) {
				p := randPolicy(r, alg)
				reqs := randTrace(r, p, length, r.IntN(4) == 0)
				if err := checkTrace(p, reqs, &counts); err != nil {
					t.Fatalf("%v: %v\ntrace: %v", p, err, reqs)
				}
			}
			// The traces must exercise every outcome the algorithm has.
			if counts[Allowed] == 0 || counts[Rejected] == 0 || Describe(alg).Delays() != (counts[Delayed] > 0) {
				t.Errorf("outcomes allowed/delayed/rejected = %v: traces too tame", counts)
			}
			t.Logf("outcomes allowed/delayed/rejected = %v", counts)
		})
	}
}

// checkTrace runs reqs through a fresh limiter for p and checks everything
// TestRandomTraces promises; counts tallies the outcomes.
func checkTrace(p Policy, reqs []req, counts *[3]int) error {
	l, err := New(p)
	if err != nil {
		return err
	}
	ref := newRef(p)
	eff := effTimes(reqs)
	ds := make([]Decision, len(reqs))
	for i, rq := range reqs {
		d := l.Decide(rq.at, "k", rq.cost)
		ds[i] = d
		if counts != nil {
			counts[d.Outcome]++
		}
		if err := checkDecision(p, rq, d); err != nil {
			return fmt.Errorf("request %d: %v", i, err)
		}
		snap := l.Snapshot(rq.at, "k")
		if err := checkSnapshot(p, snap, eff[i]); err != nil {
			return fmt.Errorf("after request %d: %v", i, err)
		}
		if err := checkSnapshotContents(p, snap, reqs[:i+1], ds[:i+1]); err != nil {
			return fmt.Errorf("after request %d: %v", i, err)
		}
		o, delay, retry := ref.decide(eff[i], rq.cost)
		// Waits count from arrival, not from the clamped time.
		switch shift := eff[i] - rq.at; {
		case o == Rejected && retry != Never:
			retry += shift
		case o.Admitted() && p.Algorithm == LeakyBucket:
			if delay += shift; delay > 0 {
				o = Delayed
			}
		}
		if d.Outcome != o || d.Delay != delay || d.RetryAfter != retry {
			return fmt.Errorf("request %d at %v (decided at %v) cost %d: got %v delay %v retry %v, reference %v delay %v retry %v\n%s",
				i, rq.at, eff[i], rq.cost, d.Outcome, d.Delay, d.RetryAfter, o, delay, retry, d.Explain())
		}
	}
	if err := boundCheck(p)(p, reqs, ds); err != nil {
		return err
	}
	return checkRetryExact(p, reqs)
}

// checkSnapshot verifies a snapshot's type, moment and bounds.
func checkSnapshot(p Policy, s Snapshot, now time.Duration) error {
	if s.Moment() != now {
		return fmt.Errorf("snapshot moment %v, want %v", s.Moment(), now)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("snapshot %+v: "+format, append([]any{s}, args...)...)
	}
	switch s := s.(type) {
	case FixedWindowSnapshot:
		if s.Count > p.Limit || s.Previous > p.Limit || s.Start > now || now >= s.End || s.End-s.Start != p.Window {
			return bad("out of bounds")
		}
	case SlidingLogSnapshot:
		var sum int64
		for i, e := range s.Entries {
			if e.At <= now-p.Window || e.At > now || (i > 0 && e.At < s.Entries[i-1].At) {
				return bad("entry %d not recent or out of order", i)
			}
			sum += e.Cost
		}
		if sum != s.Count || sum > p.Limit || (len(s.Entries) > 0 && s.OldestExpiresAt != s.Entries[0].At+p.Window) {
			return bad("count or expiry wrong")
		}
	case SlidingCounterSnapshot:
		n := max(p.SubWindows, 1)
		w := int64(p.Window) / n
		e := int64(now - s.Start)
		if s.SubWindows != n || s.SubWindow != time.Duration(w) || (n > 1) != (s.Counts != nil) {
			return bad("sub-windows wrong")
		}
		if n > 1 {
			var middle int64
			for _, c := range s.Counts[1:n] {
				middle += c
			}
			if int64(len(s.Counts)) != n+1 || s.Counts[0] != s.Previous || s.Counts[n] != s.Current || middle != s.Middle {
				return bad("counts disagree")
			}
		} else if s.Middle != 0 {
			return bad("middle count with one sub-window")
		}
		if e < 0 || e >= w || s.Weight != (Quantity{w - e, w}) || s.Estimate.Den != w ||
			!mul128(s.Current+s.Middle, w).add(mul128(s.Previous, w-e)).le(mul128(s.Estimate.Num, 1)) ||
			!mul128(s.Estimate.Num, 1).le(mul128(s.Current+s.Middle, w).add(mul128(s.Previous, w-e))) ||
			s.Estimate.Num > p.Limit*w {
			return bad("estimate wrong or above the limit")
		}
	case TokenBucketSnapshot:
		per := int64(p.Rate.Per)
		if s.Available.Den != per || s.Available.Num < 0 || s.Available.Num > p.Capacity*per || s.FullAt < now {
			return bad("balance out of bounds")
		}
	case IntervalBucketSnapshot:
		if s.Tokens < 0 || s.Tokens > p.Capacity || s.LastFill > now || s.NextFill <= now || s.NextFill-s.LastFill != p.FillInterval ||
			s.FullAt < now || (s.FullAt == now) != (s.Tokens == p.Capacity) {
			return bad("balance or fills out of bounds")
		}
	case GCRASnapshot:
		per := int64(p.Rate.Per)
		if s.Available.Den != per || s.Available.Num < 0 || s.Available.Num > p.Burst*per || s.TAT < now {
			return bad("balance out of bounds")
		}
	case LeakyBucketSnapshot:
		var sum int64
		for i, w := range s.Waiting {
			if w.At <= now || w.Arrived > now || (i > 0 && w.At < s.Waiting[i-1].At) {
				return bad("entry %d released, not arrived or out of order", i)
			}
			sum += w.Cost
		}
		if sum > p.Queue || s.NextFree < now {
			return bad("queue above %d", p.Queue)
		}
	default:
		return fmt.Errorf("snapshot of type %T", s)
	}
	return nil
}

// checkSnapshotContents verifies that the sliding log's entries and the
// leaky bucket's queue are exactly those the decisions so far imply, and
// that the leaky bucket's explanation counts that queue.
func checkSnapshotContents(p Policy, snap Snapshot, reqs []req, ds []Decision) error {
	now := snap.Moment()
	eff := effTimes(reqs)
	switch s := snap.(type) {
	case SlidingLogSnapshot:
		var want []LogEntry
		for i, d := range ds {
			if d.Outcome == Allowed && eff[i] > now-p.Window {
				want = append(want, LogEntry{At: eff[i], Cost: d.Cost})
			}
		}
		if !slices.Equal(s.Entries, want) {
			return fmt.Errorf("log entries %v, want %v", s.Entries, want)
		}
	case LeakyBucketSnapshot:
		var want []Release
		for _, d := range ds {
			if d.Outcome.Admitted() && d.At+d.Delay > now {
				want = append(want, Release{Arrived: d.At, At: d.At + d.Delay, Cost: d.Cost})
			}
		}
		if !slices.Equal(s.Waiting, want) {
			return fmt.Errorf("waiting %v, want %v", s.Waiting, want)
		}
		last := ds[len(ds)-1]
		ex := last.Explain()
		counted := strings.Contains(ex, fmt.Sprintf(" %d waiting", len(want))) || strings.Contains(ex, fmt.Sprintf("(%d waiting", len(want)))
		if !counted && last.RetryAfter != Never {
			return fmt.Errorf("explanation %q does not count %d waiting", ex, len(want))
		}
	}
	return nil
}

// TestGCRAEqualsTokenBucket: with burst = capacity and the same rate, GCRA
// takes the same decisions with the same RetryAfter as the token bucket, and
// shows the same balance, on random traces.
func TestGCRAEqualsTokenBucket(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 300 {
		g := randPolicy(r, GCRA)
		if err := checkGCRAEqualsTokenBucket(g, randTrace(r, g, 150, r.IntN(4) == 0)); err != nil {
			t.Fatal(err)
		}
	}
}

// checkGCRAEqualsTokenBucket runs reqs through GCRA policy g and through a
// token bucket of capacity g.Burst at g.Rate, and reports the first request
// they decide differently or after which they show different balances.
func checkGCRAEqualsTokenBucket(g Policy, reqs []req) error {
	gl, err := New(g)
	if err != nil {
		return err
	}
	tl, err := New(Policy{Algorithm: TokenBucket, Capacity: g.Burst, Rate: g.Rate})
	if err != nil {
		return err
	}
	for i, rq := range reqs {
		gd, td := gl.Decide(rq.at, "k", rq.cost), tl.Decide(rq.at, "k", rq.cost)
		if gd.Outcome != td.Outcome || gd.RetryAfter != td.RetryAfter {
			return fmt.Errorf("%v, request %d at %v cost %d:\n gcra:         %v retry %v: %s\n token bucket: %v retry %v: %s",
				g, i, rq.at, rq.cost, gd.Outcome, gd.RetryAfter, gd.Explain(), td.Outcome, td.RetryAfter, td.Explain())
		}
		gs := gl.Snapshot(rq.at, "k").(GCRASnapshot)
		ts := tl.Snapshot(rq.at, "k").(TokenBucketSnapshot)
		if gs.Available != ts.Available {
			return fmt.Errorf("%v, after request %d: gcra available %v, token bucket %v", g, i, gs.Available, ts.Available)
		}
	}
	return nil
}

// TestFloatDrift: capacity 1 at 10/s, a request at 0 then one every 10ms
// up to 300ms (the float-drift lesson). The exact lanes admit at exactly
// 100ms, 200ms and 300ms, rejecting each request between with the exact
// wait to the next tenth; the lesson's float64 admit() first misses at
// 300ms (TestFloatBucketFirstMisfiresAt300ms).
func TestFloatDrift(t *testing.T) {
	for _, alg := range []Algorithm{TokenBucket, GCRA} {
		p := Policy{Algorithm: alg, Rate: Rate{10, time.Second}}
		setSize(&p, 1)
		l := mustNew(t, p)
		for _, rq := range floatDriftTrace() {
			d := l.Decide(rq.at, "k", 1)
			next := rq.at - rq.at%(100*time.Millisecond) + 100*time.Millisecond
			switch {
			case rq.at%(100*time.Millisecond) == 0 && d.Outcome != Allowed:
				t.Fatalf("%s at %v: %s, want allowed", alg, rq.at, d.Explain())
			case rq.at%(100*time.Millisecond) != 0 && (d.Outcome != Rejected || d.RetryAfter != next-rq.at):
				t.Fatalf("%s at %v: %v retry %v, want rejected retry %v", alg, rq.at, d.Outcome, d.RetryAfter, next-rq.at)
			}
		}
	}
}

// TestSteadyStateAllocs: once a key's state has reached its working size, a
// decision allocates nothing, for every algorithm (the sliding log and the
// leaky bucket reuse their slices), and the log and the queue stay within
// twice what they must hold.
func TestSteadyStateAllocs(t *testing.T) {
	for _, p := range benchPolicies {
		t.Run(string(p.Algorithm), func(t *testing.T) {
			l := mustNew(t, p)
			step := unit(p) / 2
			var now time.Duration
			decide := func() {
				now += step
				l.Decide(now, "k", 1)
			}
			for range 20000 {
				decide()
			}
			if allocs := testing.AllocsPerRun(2000, decide); allocs != 0 {
				t.Errorf("%v allocations per decision in steady state", allocs)
			}
			held := 0
			switch k := l.(type) {
			case *keyed[slidingLogState]:
				held = k.chunks[0].slots[0].s.log.held()
			case *keyed[leakyBucketState]:
				held = k.chunks[0].slots[0].s.queue.held()
			}
			if _, size := p.sizeParam(); held > 2*int(size)+2 {
				t.Errorf("state holds %d entries after 22000 decisions; at most %d are live", held, size)
			}
		})
	}
}

// TestBoundCheckersCatchViolations: each bound checker used above rejects
// a limiter that admits everything, so that the property tests could fail.
func TestBoundCheckersCatchViolations(t *testing.T) {
	for _, p := range eachPolicy {
		_, size := p.sizeParam()
		var reqs []req
		var ds []Decision
		for i := range size + 2 {
			r := req{at: time.Duration(i), cost: 1}
			reqs = append(reqs, r)
			ds = append(ds, Decision{Outcome: Allowed, At: r.at, Cost: r.cost})
		}
		if err := boundCheck(p)(p, reqs, ds); err == nil {
			t.Errorf("%s: the bound check accepts %d admissions within %dns", p.Algorithm, len(reqs), len(reqs))
		}
	}
}

// TestDecideIntoIsDecideKey: the in-place form decides exactly as the one
// that returns, decision for decision and explanation for explanation.
func TestDecideIntoIsDecideKey(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 3))
	for _, alg := range Algorithms {
		for range shortened(20) {
			p := randPolicy(r, alg)
			ks1, ks2 := NewKeys(), NewKeys()
			a, err := NewWithKeys(p, ks1)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := NewWithKeys(p, ks2)
			now := time.Duration(0)
			var got Decision
			for i := 0; i < 200; i++ {
				now += time.Duration(r.Int64N(int64(2 * time.Second / 10)))
				key := []string{"a", "b", "c"}[r.IntN(3)]
				cost := 1 + r.Int64N(3)
				want := a.DecideKey(now, ks1.Key(key), cost)
				b.DecideInto(&got, now, ks2.Key(key), cost)
				if got.Outcome != want.Outcome || got.Delay != want.Delay || got.RetryAfter != want.RetryAfter || got.Explain() != want.Explain() {
					t.Fatalf("%v request %d: DecideInto %+v, DecideKey %+v", p, i, got, want)
				}
			}
		}
	}
}
