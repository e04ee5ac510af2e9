package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// GCRA: emission interval T = Per/N; the theoretical arrival time TAT
// starts at now. new TAT = max(TAT, now) + c × T; admitted iff now ≥
// new TAT − Burst × T, and then TAT = new TAT. RetryAfter: new TAT −
// Burst × T − now. It decides exactly as a TokenBucket with Capacity
// Burst.
const GCRA Algorithm = "gcra"

// BurstParam is GCRA's burst: how many requests may come at once.
var BurstParam = Param{Name: "burst", Kind: Count, Amount: true, Want: "a positive whole number of requests",
	field: func(p *Policy) any { return &p.Burst }}

func init() {
	register(sizedDescription(BurstParam, Description{
		Algorithm: GCRA,
		explain:   explainGCRA,
		Rule:      "T = period/N; new TAT = max(TAT, now) + c×T; admitted iff now ≥ new TAT − burst×T, then TAT = new TAT",
		Words: func(p Policy) string {
			return "GCRA: burst " + strconv.FormatInt(p.Burst, 10) + " at " + p.Rate.String() + ", one timestamp (TAT) per key"
		},
		CostBound: func(p Policy) string { return fmt.Sprintf("it admits at most its burst, %d at once", p.Burst) },
		Examples: []Example{
			{Name: "gcra", Policy: Policy{Algorithm: GCRA, Burst: 10, Rate: Rate{N: 2, Per: time.Second}}},
		},
		Edges: []Policy{
			{Algorithm: GCRA, Burst: 1, Rate: Rate{N: 7, Per: time.Second}},
			{Algorithm: GCRA, Burst: 5, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
			{Algorithm: GCRA, Burst: 40, Rate: Rate{N: 1000, Per: 3 * time.Second}},
			{Algorithm: GCRA, Burst: 2, Rate: Rate{N: 13, Per: 10}}, // T = 10/13 ns: below a nanosecond
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[gcraState](newGCRA(p), ks) },
		State: gcraForm,
	}))
}

// gcra: the generic cell rate algorithm, a token bucket kept as one
// timestamp. With emission interval T = Per/N and burst B, the state is the
// theoretical arrival time TAT, where an idle key starts (TAT = now). For a
// request of cost c at now:
//
//	new TAT  = max(TAT, now) + c × T
//	allow at = new TAT − B × T
//
// it is admitted iff now ≥ allow at, and then TAT = new TAT; a rejection
// changes nothing, and RetryAfter is allow at − now, rounded up. This
// decides exactly as a token bucket of capacity B refilled at N/Per: its
// balance is B − max(0, TAT − now)/T.
//
// T is rarely a whole number of nanoseconds, so instants live on the grid of
// 1/N ns (see instant), where T is exactly Per units and B × T is B × Per ≤
// 2^62 units.
type gcra struct {
	p Policy
}

type gcraState struct {
	tat  instant
	last time.Duration
}

func newGCRA(p Policy) *gcra { return &gcra{p: p} }

func (g *gcra) policy() *Policy { return &g.p }

func (g *gcra) start(now time.Duration) gcraState {
	return gcraState{tat: at(now), last: now}
}

func (g *gcra) decide(s *gcraState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	s.last = eff
	d = Decision{At: now, Cost: cost, policy: &g.p, explain: explainGCRA, v: [4]int64{s.tat.ns, s.tat.frac, int64(eff)}}
	if cost > g.p.Burst {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	per, n := int64(g.p.Rate.Per), g.p.Rate.N
	t := at(eff)
	base := max2(s.tat, t)
	// allow at = base + cost × T − B × T, taken as a subtraction: base is at
	// most now + B × T, so nothing overflows.
	allowAt := base.sub((g.p.Burst-cost)*per, n)
	if !t.before(allowAt) {
		d.Outcome = Allowed
		s.tat = base.add(cost*per, n) // = allow at + B × T ≤ now + B × T
		return d
	}
	d.Outcome = Rejected
	d.RetryAfter = time.Duration(allowAt.minus(t, n).ceil()) + eff - now
	return d
}

// GCRASnapshot shows GCRA's theoretical arrival time (TAT) against now.
type GCRASnapshot struct {
	Now   time.Duration
	Burst int64
	Rate  Rate
	// Interval is the emission interval T = Per/N, in nanoseconds.
	Interval Quantity
	// Tolerance is the burst tolerance B × T, in nanoseconds.
	Tolerance Quantity
	// TAT is the theoretical arrival time, rounded up; it is Now when the
	// key is idle (TAT in the past counts as Now).
	TAT time.Duration
	// Available is the equivalent token balance: (Now − (TAT − B×T)) / T,
	// capped at Burst.
	Available Quantity
}

func (s GCRASnapshot) Moment() time.Duration { return s.Now }

func (g *gcra) snapshot(s gcraState, now time.Duration) Snapshot {
	now = max(now, s.last)
	per, n := int64(g.p.Rate.Per), g.p.Rate.N
	t := at(now)
	tat, ahead := t, int64(0)
	if t.before(s.tat) {
		tat, ahead = s.tat, s.tat.minus(t, n).scaled(n) // ≤ B × Per
	}
	return GCRASnapshot{
		Now:       now,
		Burst:     g.p.Burst,
		Rate:      g.p.Rate,
		Interval:  Quantity{per, n},
		Tolerance: Quantity{g.p.Burst * per, n},
		TAT:       time.Duration(tat.ceil()),
		Available: Quantity{g.p.Burst*per - ahead, per},
	}
}

func (g *gcra) clone(s *gcraState, _ *mem) gcraState { return *s }

func (g *gcra) tables(*gcraState) int64 { return 0 }

// gcraForm: the TAT on the grid of 1/N ns, as whole nanoseconds tat_ns plus
// tat_frac/N ns (0 ≤ tat_frac < N), and last, the time of the latest
// request in ns. A TAT before last decides as one at last (an idle key), so
// it is written as last: the written TAT is never before last, and at most
// burst × T after it.
var gcraForm = StateForm{Fields: []string{"tat_ns", "tat_frac", "last"}}

func (g *gcra) encode(s *gcraState) State {
	tat := max2(s.tat, at(s.last))
	return State{Fields: []int64{tat.ns, tat.frac, int64(s.last)}}
}

func (g *gcra) decode(st State, _ *mem) (gcraState, error) {
	s := gcraState{tat: instant{st.Fields[0], st.Fields[1]}, last: time.Duration(st.Fields[2])}
	per, n := int64(g.p.Rate.Per), g.p.Rate.N
	switch {
	case s.last < 0 || s.tat.ns < 0:
		return s, fmt.Errorf("gcra state %v: a time before the scenario's start", st.Fields)
	case s.tat.frac < 0 || s.tat.frac >= n:
		return s, fmt.Errorf("gcra state %v: tat_frac %d is not in [0, %d)", st.Fields, s.tat.frac, n)
	case at(s.last).before(s.tat) && instant{}.add(g.p.Burst*per, n).before(s.tat.minus(at(s.last), n)):
		return s, fmt.Errorf("gcra state %v: the TAT is more than burst %d × T past last", st.Fields, g.p.Burst)
	}
	return s, nil
}

// explainGCRA: v = {TAT before (ns, frac), time decided at}.
func explainGCRA(b []byte, d Decision) []byte {
	// Appended piece by piece, as explainFixedWindow.
	p := d.policy
	per, n := int64(p.Rate.Per), p.Rate.N
	tat, eff := instant{d.v[0], d.v[1]}, time.Duration(d.v[2])
	t := at(eff)
	base := max2(tat, t)
	T := gridSecs(per, n)
	allowAt := base.sub((p.Burst-d.Cost)*per, n)
	b = lateNote(&d, eff).appendTo(b)
	if newTAT := base.add(d.Cost*per, n); newTAT.ns >= base.ns { // else it would overflow
		b = appendInstantSeconds(append(b, "new TAT = max(TAT "...), tat, n, d.times)
		b = d.times.seconds(append(b, ", now "...), eff)
		b = appendInt(append(b, ") + "...), d.Cost)
		b = T.appendTo(append(b, " × "...), d.times)
		b = appendInstantSeconds(append(b, " = "...), newTAT, n, d.times)
		b = appendInstantSeconds(append(b, "; allow at = "...), newTAT, n, d.times)
		b = appendInt(append(b, " − "...), p.Burst)
	} else {
		b = appendInstantSeconds(append(b, "allow at = max(TAT "...), tat, n, d.times)
		b = d.times.seconds(append(b, ", now "...), eff)
		b = appendInt(append(b, ") − ("...), p.Burst)
		b = append(appendInt(append(b, " − "...), d.Cost), ')')
	}
	b = T.appendTo(append(b, " × "...), d.times)
	b = appendInstantSeconds(append(b, " = "...), allowAt, n, d.times)
	if d.Outcome == Allowed {
		return append(d.times.seconds(append(b, " ≤ now "...), eff), " → allowed"...)
	}
	b = d.times.seconds(append(b, " > now "...), eff)
	b = appendInstantSeconds(append(b, " → rejected; retry after "...), allowAt, n, d.times)
	b = d.times.seconds(append(b, " − "...), d.At)
	return d.times.seconds(append(b, " = "...), d.RetryAfter)
}
