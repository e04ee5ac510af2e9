package algorithms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func init() {
	// A drawn window must split into the drawn number of sub-windows.
	policyFixups[SlidingCounter] = func(_ *rand.Rand, p *Policy) {
		if n := p.SubWindows; n > 1 {
			p.Window = max(p.Window/time.Duration(n), 1) * time.Duration(n)
		}
	}
	benchPolicies = append(benchPolicies, Policy{Algorithm: SlidingCounter, Limit: 100, Window: sec, SubWindows: 10})
}

// TestSubWindowsExamples: worked examples of the rule on SlidingCounter's
// doc comment, every number derived by hand. Limit 10 per 60s in 3
// sub-windows of 20s.
func TestSubWindowsExamples(t *testing.T) {
	p := Policy{Algorithm: SlidingCounter, Limit: 10, Window: time.Minute, SubWindows: 3}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "the oldest sub-window slides out; the retry waits for it",
			steps: []step{
				{at: 5 * sec, cost: 4, want: Allowed},  // sub-window 0: 4
				{at: 25 * sec, cost: 3, want: Allowed}, // sub-window 1: 3
				// Sub-window 2: inner 4 + 3 + 0 = 7, nothing older.
				{at: 45 * sec, cost: 3, want: Allowed,
					explain: "3 sub-windows of 20s; estimate = current 0 + 7 in the 2 before + oldest 0 × (20s − 5s)/20s = 7; 7 + cost 3 = 10 ≤ limit 10 → allowed"},
				// inner 10: nothing fits in sub-window 2. In sub-window 3
				// (60s–80s) inner is 0 + 3 + 3 = 6 and the oldest, sub-window
				// 0, weighs 4 × (20s − e')/20s ≤ 10 − 6 − 1 = 3 from e' = 5s:
				// retry at 65s, 15s after 50s.
				{at: 50 * sec, cost: 1, want: Rejected, retry: 15 * sec,
					explain: "3 sub-windows of 20s; estimate = current 3 + 7 in the 2 before + oldest 0 × (20s − 10s)/20s = 10; 10 + cost 1 = 11 > limit 10 → rejected; retry after 15s, when enough of the oldest sub-windows have slid out for cost 1 to fit"},
				{at: 65*sec - 1, cost: 1, want: Rejected, retry: 1},
				{at: 65 * sec, cost: 1, want: Allowed},
			},
		},
		{
			name: "a retry inside the current sub-window",
			steps: []step{
				{at: 5 * sec, cost: 10, want: Allowed},
				// Sub-window 3 at e = 5s: 0 + 10 × 15s/20s = 7.5; + 3 > 10.
				// 10 × (20s − e') ≤ 7 × 20s from e' = 6s: 1s later.
				{at: 65 * sec, cost: 3, want: Rejected, retry: sec,
					explain: "3 sub-windows of 20s; estimate = current 0 + 0 in the 2 before + oldest 10 × (20s − 5s)/20s = 7.5; 7.5 + cost 3 = 10.5 > limit 10 → rejected; retry after 1s, when the oldest weighs 10 × (20s − 6s)/20s and estimate = 7, + cost 3 ≤ 10"},
				{at: 66 * sec, cost: 3, want: Allowed},
				// 3 + 10 × 14/20 = 10: full. A cost of 1 waits till the
				// oldest's weight is ≤ 0.6: e' ≥ 8s, 2s later.
				{at: 66 * sec, cost: 1, want: Rejected, retry: 2 * sec},
				// Above the limit: never.
				{at: 66 * sec, cost: 11, want: Rejected, retry: Never},
			},
		},
		{
			name: "after a long idle everything has left",
			steps: []step{
				{at: 0, cost: 10, want: Allowed},
				// Sub-window 0 counts whole till 60s, then weighs 10 × (20s −
				// e')/20s ≤ 9 from e' = 2s: 62s, 43s after 19s.
				{at: 19 * sec, cost: 1, want: Rejected, retry: 43 * sec},
				{at: 62 * sec, cost: 2, want: Rejected, retry: 2 * sec},
				{at: 80 * sec, cost: 10, want: Allowed},
				{at: 10 * time.Hour, cost: 10, want: Allowed},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { playSteps(t, p, tt.steps) })
	}
}

// TestSubWindowsSnapshot: the counts oldest first, the estimate's parts.
func TestSubWindowsSnapshot(t *testing.T) {
	p := Policy{Algorithm: SlidingCounter, Limit: 10, Window: time.Minute, SubWindows: 3}
	l := mustNew(t, p)
	run(l, []req{{5 * sec, 4}, {25 * sec, 3}, {45 * sec, 3}})
	got := l.Snapshot(65*sec, "k")
	want := SlidingCounterSnapshot{Now: 65 * sec, Limit: 10, Window: time.Minute, SubWindows: 3, SubWindow: 20 * sec,
		Start: 60 * sec, Current: 0, Middle: 6, Previous: 4, Counts: []int64{4, 3, 3, 0},
		Weight: Quantity{int64(15 * sec), int64(20 * sec)}, Estimate: Quantity{6*int64(20*sec) + 4*int64(15*sec), int64(20 * sec)}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("snapshot\n got  %+v\n want %+v", got, want)
	}
	got.(SlidingCounterSnapshot).Counts[0] = 99
	// The snapshot rolled a copy: the state still decides from its own.
	if again := l.Snapshot(65*sec, "k"); !reflect.DeepEqual(again, want) {
		t.Errorf("changing a snapshot changed the state: %+v", again)
	}
	if d := l.Decide(65*sec, "k", 1); d.Outcome != Allowed {
		t.Errorf("after the snapshots: %s", d.Explain())
	}
}

// TestSubWindowsOneIsTheSlidingCounter: the sub-window counter with one
// sub-window decides as the two-window sliding counter, decision for
// decision, wait for wait, snapshot for snapshot.
func TestSubWindowsOneIsTheSlidingCounter(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	for range 300 {
		p := randPolicy(r, SlidingCounter)
		p.SubWindows = 0
		reqs := randTrace(r, p, 150, r.IntN(4) == 0)
		classic := newKeyed[windowCounts](newSlidingCounter(p), NewKeys())
		sub := newKeyed[subWindowState](newSubWindowCounter(p), NewKeys())
		for i, q := range reqs {
			a, b := classic.Decide(q.at, "k", q.cost), sub.Decide(q.at, "k", q.cost)
			if a.Outcome != b.Outcome || a.RetryAfter != b.RetryAfter {
				t.Fatalf("%v request %d %+v: classic %v retry %v (%s), one sub-window %v retry %v (%s)",
					p, i, q, a.Outcome, a.RetryAfter, a.Explain(), b.Outcome, b.RetryAfter, b.Explain())
			}
			sa := classic.Snapshot(q.at, "k").(SlidingCounterSnapshot)
			sb := sub.Snapshot(q.at, "k").(SlidingCounterSnapshot)
			sb.Counts = nil
			if !reflect.DeepEqual(sa, sb) {
				t.Fatalf("%v after request %d: snapshots\n classic %+v\n sub     %+v", p, i, sa, sb)
			}
		}
	}
}

// TestSubWindowsValidate: sub_windows must divide the window, at most 1000;
// left out or 1 is the two-window counter.
func TestSubWindowsValidate(t *testing.T) {
	base := Policy{Algorithm: SlidingCounter, Limit: 10, Window: time.Minute}
	for _, c := range []struct {
		n    int64
		w    time.Duration
		want string // "" for valid
	}{
		{0, time.Minute, ""},
		{1, time.Minute, ""},
		{60, time.Minute, ""},
		{1000, time.Second, ""},
		{1001, time.Minute, "from 1 to 1000"},
		{-1, time.Minute, "from 1 to 1000"},
		{7, time.Second, "must divide"},
		{3, 10, "must divide"},
	} {
		p := base
		p.SubWindows, p.Window = c.n, c.w
		err := p.Validate()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("sub_windows %d of %v: %v, want %q", c.n, c.w, err, c.want)
		}
	}
	for n, want := range map[int64]string{0: "*algorithms.keyed[ratelab/algorithms.windowCounts]", 1: "*algorithms.keyed[ratelab/algorithms.windowCounts]", 2: "*algorithms.keyed[ratelab/algorithms.subWindowState]"} {
		p := base
		p.SubWindows = n
		if got := reflect.TypeOf(mustNew(t, p)).String(); got != want {
			t.Errorf("sub_windows %d makes a %s, want %s", n, got, want)
		}
	}
	p := base
	p.SubWindows = 4
	if got, want := p.String(), "sliding-counter limit 10 per 60s, 4 sub-windows"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := p.Horizon(), 75*sec; got != want {
		t.Errorf("Horizon() = %v, want %v", got, want)
	}
}

// TestSubWindowsCloneIndependent: a clone's counts are its own.
func TestSubWindowsCloneIndependent(t *testing.T) {
	p := Policy{Algorithm: SlidingCounter, Limit: 10, Window: time.Minute, SubWindows: 3}
	l := mustNew(t, p)
	l.Decide(5*sec, "k", 4)
	c := l.Clone()
	c.Decide(6*sec, "k", 6)
	if d := l.Decide(7*sec, "k", 6); d.Outcome != Allowed {
		t.Fatalf("the original saw its clone's admission: %s", d.Explain())
	}
	if d := c.Decide(7*sec, "k", 1); d.Outcome != Rejected {
		t.Fatalf("the clone saw the original's state: %s", d.Explain())
	}
}

// TestKeyBytes: a key's state size grows with what a sliding log or a leaky
// bucket must keep, and stays the same for the counters and the buckets
// whatever their limits and load.
func TestKeyBytes(t *testing.T) {
	// A key at twice the pace, for 3 windows: about half admitted.
	load := func(p Policy) (Limiter, time.Duration) {
		l := mustNew(t, p)
		step := unit(p) / 2
		now := time.Duration(0)
		for now < 3*time.Minute {
			l.Decide(now, "k", 1)
			now += step
		}
		return l, now - step
	}
	keyAt := func(l Limiter, now time.Duration) int64 {
		ks := NewKeys()
		return l.KeyBytes(now, ks.Key("k")) // the same numbering: one key
	}
	logBytes := func(limit int64) int64 {
		l, now := load(Policy{Algorithm: SlidingLog, Limit: limit, Window: time.Minute})
		return keyAt(l, now)
	}
	base := int64(unsafeSizeOf[slidingLogState]())
	for _, limit := range []int64{10, 100, 1000} {
		// Under this load the window holds exactly limit admissions.
		if got, want := logBytes(limit), base+limit*sizeOf[logItem](); got != want {
			t.Errorf("sliding log limit %d: %d B/key, want %d", limit, got, want)
		}
	}
	// Idle for a window: the log's entries have all expired.
	if l, now := load(Policy{Algorithm: SlidingLog, Limit: 100, Window: time.Minute}); keyAt(l, now+time.Minute) != base {
		t.Errorf("sliding log idle a window: %d B/key, want %d", keyAt(l, now+time.Minute), base)
	}
	for _, p := range []Policy{
		{Algorithm: FixedWindow, Window: time.Minute},
		{Algorithm: SlidingCounter, Window: time.Minute},
		{Algorithm: SlidingCounter, Window: time.Minute, SubWindows: 60},
		{Algorithm: TokenBucket, Rate: Rate{1, sec}},
		{Algorithm: GCRA, Rate: Rate{1, sec}},
	} {
		var sizes []int64
		for _, size := range []int64{10, 100, 1000} {
			q := p
			q.Rate.N *= size
			setSize(&q, size)
			l, now := load(q)
			sizes = append(sizes, keyAt(l, now))
		}
		if sizes[0] != sizes[1] || sizes[1] != sizes[2] || sizes[0] <= 0 || sizes[0] > 1024 {
			t.Errorf("%v: %v B/key for sizes 10, 100, 1000: want one small figure", p, sizes)
		}
	}
	// Sub-windows: N + 1 counts of 8 bytes once a key has admitted.
	p := Policy{Algorithm: SlidingCounter, Limit: 10, Window: time.Minute, SubWindows: 60}
	l := mustNew(t, p)
	ks := NewKeys()
	fresh := l.KeyBytes(0, ks.Key("k"))
	l.Decide(0, "k", 1)
	if got := l.KeyBytes(0, ks.Key("k")); got != fresh+61*8 {
		t.Errorf("sub-window counter: %d B/key after an admission, want %d + 61 × 8", got, fresh)
	}
	// A leaky bucket counts the requests still waiting.
	lb := mustNew(t, Policy{Algorithm: LeakyBucket, Queue: 5, Rate: Rate{1, sec}})
	lks := NewKeys()
	empty := lb.KeyBytes(0, lks.Key("k"))
	for range 4 {
		lb.Decide(0, "k", 1)
	}
	if got := lb.KeyBytes(0, lks.Key("k")); got != empty+3*sizeOf[Release]() {
		t.Errorf("leaky bucket with 3 waiting: %d B/key, want %d + 3 × %d", got, empty, sizeOf[Release]())
	}
	if got := lb.KeyBytes(10*sec, lks.Key("k")); got != empty {
		t.Errorf("leaky bucket drained: %d B/key, want %d", got, empty)
	}
	// A clone measures as the original.
	if got := lb.Clone().KeyBytes(0, lks.Key("k")); got != empty+3*sizeOf[Release]() {
		t.Errorf("leaky bucket's clone with 3 waiting: %d B/key", got)
	}
	// An unseen key is measured in its initial state.
	if k, ok := lks.Lookup("nobody"); ok || lb.KeyBytes(0, k) != empty {
		t.Errorf("unseen key: %v, %d B", ok, lb.KeyBytes(0, k))
	}
}

func unsafeSizeOf[T any]() int64 { return sizeOf[T]() }

// TestKeyBytesFixedParts: the fixed state per key the README lists.
func TestKeyBytesFixedParts(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want int64
	}{
		{Policy{Algorithm: FixedWindow, Limit: 1, Window: sec}, 32},
		{Policy{Algorithm: SlidingCounter, Limit: 1, Window: sec}, 32},
		{Policy{Algorithm: SlidingCounter, Limit: 1, Window: sec, SubWindows: 10}, 48},
		{Policy{Algorithm: SlidingLog, Limit: 1, Window: sec}, 56},
		{Policy{Algorithm: TokenBucket, Capacity: 1, Rate: Rate{1, sec}}, 16},
		{Policy{Algorithm: GCRA, Burst: 1, Rate: Rate{1, sec}}, 24},
		{Policy{Algorithm: LeakyBucket, Queue: 1, Rate: Rate{1, sec}}, 56},
	} {
		k, _ := NewKeys().Lookup("k")
		if got := mustNew(t, c.p).KeyBytes(0, k); got != c.want {
			t.Errorf("%v: a fresh key takes %d B, the README says %d", c.p, got, c.want)
		}
	}
}

// TestKeyBytesAllocates nothing, just after a decision and later.
func TestKeyBytesAllocatesNothing(t *testing.T) {
	for _, p := range benchPolicies {
		l := mustNew(t, p)
		ks := NewKeys()
		k := ks.Key("k")
		step := unit(p) / 2
		var now time.Duration
		for range 1000 {
			now += step
			l.Decide(now, "k", 1)
		}
		for _, at := range []time.Duration{now, now + p.Horizon()/2} {
			if allocs := testing.AllocsPerRun(100, func() { l.KeyBytes(at, k) }); allocs != 0 {
				t.Errorf("%v: KeyBytes at %v allocates %v times", p, at, allocs)
			}
		}
	}
}

// TestSubWindowsErrorWithinTheOldest: the exact admitted cost of the
// trailing window (now − W, now] lies between the N most recent
// sub-windows' cost and that plus the oldest's, and so does the estimate:
// a counter is never further from the truth than what it admitted in one
// sub-window, W/N long. Finer sub-windows, smaller uncertainty.
func TestSubWindowsErrorWithinTheOldest(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 2))
	for range 200 {
		p := randPolicy(r, SlidingCounter)
		reqs := randTrace(r, p, 150, r.IntN(4) == 0)
		l := mustNew(t, p)
		eff := effTimes(reqs)
		var adm []req
		for i, q := range reqs {
			if l.Decide(q.at, "k", q.cost).Outcome.Admitted() {
				adm = append(adm, req{eff[i], q.cost})
			}
			s := l.Snapshot(eff[i], "k").(SlidingCounterSnapshot)
			var exact int64
			for _, a := range adm {
				if a.at > eff[i]-p.Window {
					exact += a.cost
				}
			}
			inner := s.Current + s.Middle
			w := s.Estimate.Den
			if exact < inner || exact > inner+s.Previous ||
				!mul128(inner, w).le(mul128(s.Estimate.Num, 1)) || !mul128(s.Estimate.Num, 1).le(mul128(inner+s.Previous, w)) {
				t.Fatalf("%v after request %d at %v: exact %d, estimate %v, N most recent %d, oldest %d",
					p, i, eff[i], exact, s.Estimate, inner, s.Previous)
			}
		}
	}
}

// subWindowsRef is a reference sub-window counter for one key, written
// straight from the rule on subWindowCounter's doc comment: it keeps the
// admitted cost of every sub-window that still counts, sums those in the
// window afresh for every instant it looks at, and finds a retry by
// searching time for the first nanosecond that fits, the estimate never
// rising while nothing is admitted.
type subWindowsRef struct {
	n, s, limit int64
	last        int64
	counted     bool                 // something admitted (the state's counts exist)
	subs        []subWindowsRefCount // sub-windows with an admission, oldest first
}

type subWindowsRefCount struct{ sub, cost int64 }

func newSubWindowsRef(p Policy, now time.Duration) *subWindowsRef {
	n := max(p.SubWindows, 1)
	return &subWindowsRef{n: n, s: int64(p.Window) / n, limit: p.Limit, last: int64(now)}
}

func (r *subWindowsRef) clone() *subWindowsRef {
	c := *r
	c.subs = append([]subWindowsRefCount(nil), r.subs...)
	return &c
}

// counts are the admitted costs at t of the N + 1 sub-windows up to the one
// holding t, oldest first, and the elapsed time in the current one.
func (r *subWindowsRef) counts(t int64) ([]int64, int64) {
	w := floorDiv(t, r.s)
	out := make([]int64, r.n+1)
	for _, c := range r.subs {
		if i := c.sub - (w - r.n); i >= 0 && i <= r.n {
			out[i] += c.cost
		}
	}
	return out, t - w*r.s
}

// parts are the current sub-window's count, the N − 1 before it and the
// oldest's at t, and the elapsed time.
func (r *subWindowsRef) parts(t int64) (cur, middle, oldest, e int64) {
	w := floorDiv(t, r.s)
	for _, c := range r.subs {
		switch age := w - c.sub; {
		case age == 0:
			cur += c.cost
		case age > 0 && age < r.n:
			middle += c.cost
		case age == r.n:
			oldest += c.cost
		}
	}
	return cur, middle, oldest, t - w*r.s
}

// fits: (current + middle + cost) × S + oldest × (S − e) ≤ Limit × S, in
// 128 bits.
func (r *subWindowsRef) fits(t, cost int64) bool {
	cur, middle, oldest, e := r.parts(t)
	return mul128(cur+middle+cost, r.s).add(mul128(oldest, r.s-e)).le(mul128(r.limit, r.s))
}

// decide is the reference decision at now: the outcome, the retry, and the
// explanation's numbers (Decision.v).
func (r *subWindowsRef) decide(now time.Duration, cost int64) (Outcome, time.Duration, [4]int64) {
	eff := max(int64(now), r.last)
	r.last = eff
	cur, middle, oldest, _ := r.parts(eff)
	v := [4]int64{cur, middle, oldest, eff}
	// Drop the sub-windows that no longer count at eff, nor ever will.
	w := floorDiv(eff, r.s)
	for len(r.subs) > 0 && r.subs[0].sub < w-r.n {
		r.subs = r.subs[1:]
	}
	switch {
	case cost > r.limit:
		return Rejected, Never, v
	case r.fits(eff, cost):
		r.counted = true
		if k := len(r.subs) - 1; k >= 0 && r.subs[k].sub == w {
			r.subs[k].cost += cost
		} else {
			r.subs = append(r.subs, subWindowsRefCount{w, cost})
		}
		return Allowed, 0, v
	}
	// A window and a sub-window later every count has left: it fits.
	lo, hi := int64(1), (r.n+1)*r.s
	if !r.fits(eff+hi, cost) {
		panic("sub-window reference: a cost within the limit does not fit a horizon later")
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if r.fits(eff+mid, cost) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return Rejected, time.Duration(eff+lo) - now, v
}

// state is the exported state: last, and the counts once any admission.
func (r *subWindowsRef) state() State {
	st := State{Fields: []int64{r.last}}
	if r.counted {
		st.Log, _ = r.counts(r.last)
	}
	return st
}

func (r *subWindowsRef) snapshot(p Policy, now time.Duration) SlidingCounterSnapshot {
	t := max(int64(now), r.last)
	cs, e := r.counts(t)
	cur, middle, oldest, _ := r.parts(t)
	return SlidingCounterSnapshot{Now: time.Duration(t), Limit: r.limit, Window: p.Window, SubWindows: r.n, SubWindow: time.Duration(r.s),
		Start: time.Duration(t - e), Current: cur, Middle: middle, Previous: oldest, Counts: cs,
		Weight: Quantity{r.s - e, r.s}, Estimate: Quantity{(cur+middle)*r.s + oldest*(r.s-e), r.s}}
}

// randSubWindowsPolicy draws a sub-window counter: N from 1 to 1000, often
// at the ends, sub-windows of odd lengths among others (1ns included, where
// no time elapses within one), limits from 1 to large.
func randSubWindowsPolicy(r *rand.Rand) Policy {
	for {
		n := []int64{1, 2, 3, 7, 10, 60, 999, 1000, 1 + r.Int64N(1000)}[r.IntN(9)]
		s := []int64{1, 2, 3, 7, 1001, 1 + 2*r.Int64N(500), 1 + r.Int64N(1e6), int64(time.Millisecond) + 1, int64(time.Second) / n}[r.IntN(9)]
		limit := []int64{1, 2, 3, 5, 10, 1 + r.Int64N(100), 1000, 1 + r.Int64N(1e5)}[r.IntN(8)]
		p := Policy{Algorithm: SlidingCounter, Limit: limit, Window: time.Duration(n * s), SubWindows: n}
		if p.Validate() == nil {
			return p
		}
	}
}

// randSubWindowsTrace draws n requests for p over keys: many at one
// instant, gaps of sub-windows and of the pace, idle stretches longer than
// the window, some requests earlier than the one before (decided late),
// costs of 1, up to the limit, and above it.
func randSubWindowsTrace(r *rand.Rand, p Policy, n, keys int) []subWindowsReq {
	s := int64(p.Window) / max(p.SubWindows, 1)
	pace := max(int64(p.Window)/p.Limit, 1)
	out := make([]subWindowsReq, n)
	var t int64
	for i := range out {
		switch k := r.IntN(20); {
		case k < 5: // same instant
		case k < 9:
			t += r.Int64N(s + 1)
		case k < 12:
			t += s * r.Int64N(4)
		case k < 15:
			t += r.Int64N(2*pace + 1)
		case k < 16:
			t += int64(p.Window) + r.Int64N(2*int64(p.Window)+1)
		case k < 18:
			t = max(t-r.Int64N(3*s+1), 0)
		default:
			t += r.Int64N(int64(p.Window) + 1)
		}
		cost := int64(1)
		switch r.IntN(8) {
		case 0:
			cost = 1 + r.Int64N(p.Limit)
		case 1:
			cost = p.Limit
		case 2:
			cost = p.Limit + 1 + r.Int64N(p.Limit+1)
		}
		out[i] = subWindowsReq{fmt.Sprintf("k%d", r.IntN(keys)), time.Duration(t), cost}
	}
	return out
}

type subWindowsReq struct {
	key  string
	at   time.Duration
	cost int64
}

// TestSubWindowsAgainstReference decides random traces on random policies,
// over several keys, and checks every decision (outcome, retry,
// explanation), the exported state, the snapshot and the key's size
// against subWindowsRef after every request. Along the way a limiter is
// cloned (each side then decides on its own, the other left as it was), a
// key's state exported and imported back, and snapshots taken later than
// the key's last request, which must change nothing.
func TestSubWindowsAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 17))
	policies, perPolicy := 400, 300
	if testing.Short() {
		policies = 60
	}
	for range policies {
		p := randSubWindowsPolicy(r)
		ks := NewKeys()
		type side struct {
			l    *keyed[subWindowState]
			refs map[string]*subWindowsRef
		}
		sides := []side{{newKeyed[subWindowState](newSubWindowCounter(p), ks), map[string]*subWindowsRef{}}}
		check := func(sd side, key string, at time.Duration, ctx string) {
			t.Helper()
			k := ks.Key(key)
			ref := sd.refs[key]
			got, ok := sd.l.ExportKey(k)
			if want := ref.state(); !ok || !sameState(got, want) || (got.Log == nil) != (want.Log == nil) {
				t.Fatalf("%v %s: state of %s\n got  %v %v\n want %v", p, ctx, key, got, ok, want)
			}
			if got, want := sd.l.Snapshot(at, key).(SlidingCounterSnapshot), ref.snapshot(p, at); !sameSubWindowsSnapshot(got, want) {
				t.Fatalf("%v %s: snapshot of %s at %v\n got  %+v\n want %+v", p, ctx, key, at, got, want)
			}
			want := int64(unsafeSizeOf[subWindowState]())
			if ref.counted {
				want += (ref.n + 1) * 8
			}
			if got := sd.l.KeyBytes(at, k); got != want {
				t.Fatalf("%v %s: %s takes %d B, want %d", p, ctx, key, got, want)
			}
		}
		for i, q := range randSubWindowsTrace(r, p, perPolicy, 1+r.IntN(4)) {
			sd := sides[r.IntN(len(sides))]
			ref := sd.refs[q.key]
			if ref == nil {
				ref = newSubWindowsRef(p, q.at)
				sd.refs[q.key] = ref
			}
			ctx := fmt.Sprintf("request %d %+v", i, q)
			wantOut, wantRetry, wantV := ref.decide(q.at, q.cost)
			d := sd.l.Decide(q.at, q.key, q.cost)
			want := Decision{Outcome: wantOut, At: q.at, Cost: q.cost, RetryAfter: wantRetry, policy: &p, explain: explainSubWindows, v: wantV}
			if d.Outcome != wantOut || d.RetryAfter != wantRetry || d.Delay != 0 || d.At != q.at || d.Cost != q.cost || d.v != wantV || d.Explain() != want.Explain() {
				t.Fatalf("%v %s:\n got  %v retry %v %v: %s\n want %v retry %v %v: %s",
					p, ctx, d.Outcome, d.RetryAfter, d.v, d.Explain(), wantOut, wantRetry, wantV, want.Explain())
			}
			check(sd, q.key, q.at, ctx)
			switch r.IntN(40) {
			case 0: // a snapshot later on, which must leave the state as it was
				later := time.Duration(ref.last + r.Int64N(2*int64(p.Window)+1))
				check(sd, q.key, later, ctx+", snapshot later")
				check(sd, q.key, q.at, ctx+", after a later snapshot")
			case 1: // the key's state, exported and imported back
				if p.SubWindows > 1 {
					st, _ := sd.l.ExportKey(ks.Key(q.key))
					if err := sd.l.ImportKey(ks.Key(q.key), st); err != nil {
						t.Fatalf("%v %s: importing %v: %v", p, ctx, st, err)
					}
					check(sd, q.key, q.at, ctx+", imported")
				}
			case 2: // a clone, deciding from here on its own
				if len(sides) < 4 {
					c := side{sd.l.Clone().(*keyed[subWindowState]), map[string]*subWindowsRef{}}
					for k, ref := range sd.refs {
						c.refs[k] = ref.clone()
					}
					sides = append(sides, c)
				}
			}
		}
		// Whatever the others decided, each side's keys are its own.
		for _, sd := range sides {
			for key, ref := range sd.refs {
				check(sd, key, time.Duration(ref.last), "at the end")
			}
		}
	}
}

// sameSubWindowsSnapshot is reflect.DeepEqual, quicker on the counts.
func sameSubWindowsSnapshot(a, b SlidingCounterSnapshot) bool {
	counts := slices.Equal(a.Counts, b.Counts)
	a.Counts, b.Counts = nil, nil
	return counts && reflect.DeepEqual(a, b)
}
