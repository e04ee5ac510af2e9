package algorithms

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// req is one request of a trace, all for one key.
type req struct {
	at   time.Duration
	cost int64
}

// shortened is n, or under go test -short a quarter of it (at least 1):
// how many random policies, steps or checkpoints a long randomised test
// runs. The draws are the same, so a short run checks a prefix of a long
// one's.
func shortened(n int) int {
	if testing.Short() {
		return max(1, n/4)
	}
	return n
}

// describedPolicies are the policies a's description names: its edges,
// then its examples'.
func describedPolicies(a Algorithm) []Policy {
	d := Describe(a)
	ps := append([]Policy(nil), d.Edges...)
	for _, e := range d.Examples {
		ps = append(ps, e.Policy)
	}
	return ps
}

func mustNew(tb testing.TB, p Policy) Limiter {
	tb.Helper()
	l, err := New(p)
	if err != nil {
		tb.Fatalf("New(%v): %v", p, err)
	}
	return l
}

// keys is the number of keys with state.
func (k *keyed[S]) keys() int { return k.seen }

// run feeds reqs to l under key "k" and returns the decisions.
func run(l Limiter, reqs []req) []Decision {
	ds := make([]Decision, len(reqs))
	for i, r := range reqs {
		ds[i] = l.Decide(r.at, "k", r.cost)
	}
	return ds
}

// effTimes are the times the requests are decided at: each clamped to the
// latest before it.
func effTimes(reqs []req) []time.Duration {
	out := make([]time.Duration, len(reqs))
	var last time.Duration
	for i, r := range reqs {
		last = max(last, r.at)
		out[i] = last
	}
	return out
}

// u128 is an unsigned 128-bit integer for overflow-free checks.
type u128 struct{ hi, lo uint64 }

func mul128(a, b int64) u128 {
	if a < 0 || b < 0 {
		panic(fmt.Sprintf("mul128(%d, %d): negative", a, b))
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return u128{hi, lo}
}

func (x u128) add(y u128) u128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	return u128{x.hi + y.hi + c, lo}
}

func (x u128) le(y u128) bool { return x.hi < y.hi || (x.hi == y.hi && x.lo <= y.lo) }

// checkDecision verifies what holds for every decision of every limiter:
// the echoed fields, the outcome's consistency with Delay and RetryAfter,
// Never exactly for costs above MaxCost, and an explanation that names the
// outcome.
func checkDecision(p Policy, r req, d Decision) error {
	switch {
	case d.At != r.at || d.Cost != r.cost:
		return fmt.Errorf("decision echoes at %v cost %d, want %v, %d", d.At, d.Cost, r.at, r.cost)
	case d.Policy() != p:
		return fmt.Errorf("decision policy %v, want %v", d.Policy(), p)
	case d.Delay < 0 || d.RetryAfter < 0:
		return fmt.Errorf("negative wait: %+v", d)
	}
	never := r.cost > p.MaxCost()
	switch d.Outcome {
	case Allowed:
		if d.Delay != 0 || d.RetryAfter != 0 || never {
			return fmt.Errorf("allowed with delay %v retry %v cost %d: %s", d.Delay, d.RetryAfter, r.cost, d.Explain())
		}
	case Delayed:
		if p.Algorithm != LeakyBucket || d.Delay <= 0 || d.RetryAfter != 0 || never {
			return fmt.Errorf("delayed with delay %v retry %v by %s: %s", d.Delay, d.RetryAfter, p.Algorithm, d.Explain())
		}
	case Rejected:
		if d.Delay != 0 || d.RetryAfter < 1 || (d.RetryAfter == Never) != never {
			return fmt.Errorf("rejected with delay %v retry %v cost %d (max %d): %s", d.Delay, d.RetryAfter, r.cost, p.MaxCost(), d.Explain())
		}
	default:
		return fmt.Errorf("unknown outcome %d", d.Outcome)
	}
	if ex := d.Explain(); !strings.Contains(ex, "→ "+d.Outcome.String()) {
		return fmt.Errorf("explanation %q does not say %s", ex, d.Outcome)
	}
	return nil
}

// checkRetryExact replays reqs on a fresh limiter for p and verifies, for
// each finite rejection, that on a copy of the limiter as left by that
// decision the same request is admitted at At + RetryAfter and still
// rejected 1ns earlier. Retries at 2^62 or later, outside the times Decide
// takes, are not tried.
func checkRetryExact(p Policy, reqs []req) error {
	l, err := New(p)
	if err != nil {
		return err
	}
	for _, r := range reqs {
		d := l.Decide(r.at, "k", r.cost)
		if d.Outcome != Rejected || d.RetryAfter == Never || d.RetryAfter >= 1<<62-r.at {
			continue // nothing to retry, or beyond the time limiters take
		}
		if got := l.Clone().Decide(r.at+d.RetryAfter, "k", r.cost); !got.Outcome.Admitted() {
			return fmt.Errorf("rejected at %v with retry after %v (%s), but at %v: %s",
				r.at, d.RetryAfter, d.Explain(), r.at+d.RetryAfter, got.Explain())
		}
		if got := l.Clone().Decide(r.at+d.RetryAfter-1, "k", r.cost); got.Outcome.Admitted() {
			return fmt.Errorf("rejected at %v with retry after %v (%s), but 1ns earlier at %v: %s",
				r.at, d.RetryAfter, d.Explain(), r.at+d.RetryAfter-1, got.Explain())
		}
	}
	return nil
}

// admitted lists the admitted requests at the times they were decided.
func admitted(reqs []req, ds []Decision) []req {
	eff := effTimes(reqs)
	var out []req
	for i, d := range ds {
		if d.Outcome.Admitted() {
			out = append(out, req{eff[i], reqs[i].cost})
		}
	}
	return out
}

// checkRateBound: admitted cost in any interval [a, b] is at most size +
// (b − a) × N / Per, for the token bucket (size = capacity) and GCRA (burst).
func checkRateBound(p Policy, reqs []req, ds []Decision) error {
	_, size := p.sizeParam()
	per, n := int64(p.Rate.Per), p.Rate.N
	adm := admitted(reqs, ds)
	if p.StartsEmpty && len(reqs) > 0 {
		// Nothing before the first request: admitted cost up to t is at
		// most (t − first) × N / Per.
		first := effTimes(reqs)[0]
		var sum int64
		for _, a := range adm {
			sum += a.cost
			if !mul128(sum, per).le(mul128(n, int64(a.at-first))) {
				return fmt.Errorf("starting empty at %v, admitted %d by %v, more than %v × %s", first, sum, a.at, a.at-first, p.Rate)
			}
		}
	}
	for i := range adm {
		var sum int64
		for j := i; j < len(adm); j++ {
			sum += adm[j].cost
			// sum × Per ≤ size × Per + N × (t_j − t_i)
			if !mul128(sum, per).le(mul128(size, per).add(mul128(n, int64(adm[j].at-adm[i].at)))) {
				return fmt.Errorf("admitted %d in [%v, %v], more than %d + %v × %s", sum, adm[i].at, adm[j].at, size, adm[j].at-adm[i].at, p.Rate)
			}
		}
	}
	return nil
}

// checkFixedBound: at most Limit admitted per aligned window.
func checkFixedBound(p Policy, reqs []req, ds []Decision) error {
	per := map[int64]int64{}
	for _, a := range admitted(reqs, ds) {
		w := floorDiv(int64(a.at), int64(p.Window))
		if per[w] += a.cost; per[w] > p.Limit {
			return fmt.Errorf("window %d admitted %d > %d", w, per[w], p.Limit)
		}
	}
	return nil
}

// checkLogBound: at most Limit admitted in any (t − Window, t].
func checkLogBound(p Policy, reqs []req, ds []Decision) error {
	adm := admitted(reqs, ds)
	var sum int64
	lo := 0
	for j, a := range adm {
		sum += a.cost
		for adm[lo].at <= a.at-p.Window {
			sum -= adm[lo].cost
			lo++
		}
		// Later admissions at the same instant are in this window too;
		// checking after each one covers them.
		if sum > p.Limit {
			return fmt.Errorf("admitted %d in (%v, %v], more than %d (admissions %d..%d)", sum, a.at-p.Window, a.at, p.Limit, lo, j)
		}
	}
	return nil
}

// counterEstimate is the sliding counter's estimate at t times S, from the
// admitted cost per sub-window of S = Window / N: the N most recent
// sub-windows × S + the one before × (S − elapsed), as a 128-bit number.
// With N = 1 it is Current × W + Previous × (W − elapsed).
func counterEstimate(p Policy, perSub map[int64]int64, t time.Duration) u128 {
	n := max(p.SubWindows, 1)
	s := int64(p.Window) / n
	k := floorDiv(int64(t), s)
	e := int64(t) - k*s
	var inner int64
	for age := range n {
		inner += perSub[k-age]
	}
	return mul128(inner, s).add(mul128(perSub[k-n], s-e))
}

// subWindow is the index of the sliding counter's sub-window holding t.
func subWindow(p Policy, t time.Duration) int64 {
	return floorDiv(int64(t), int64(p.Window)/max(p.SubWindows, 1))
}

// checkCounterBound: after every admission the sliding-counter estimate,
// recomputed from the admissions, is at most Limit.
func checkCounterBound(p Policy, reqs []req, ds []Decision) error {
	perSub := map[int64]int64{}
	s := int64(p.Window) / max(p.SubWindows, 1)
	for _, a := range admitted(reqs, ds) {
		perSub[subWindow(p, a.at)] += a.cost
		if !counterEstimate(p, perSub, a.at).le(mul128(p.Limit, s)) {
			return fmt.Errorf("estimate above %d after the admission at %v", p.Limit, a.at)
		}
	}
	return nil
}

// checkLeakyBound: the admitted requests not yet released never cost more
// than Queue in total, each is released at At + Delay, and consecutive
// releases are at least cost × I apart, up to the rounding of each release
// up to a whole ns: (Δ + 1) × N > cost × Per.
func checkLeakyBound(p Policy, reqs []req, ds []Decision) error {
	per, n := int64(p.Rate.Per), p.Rate.N
	type rel struct {
		arrived, at time.Duration
		cost        int64
	}
	var rels []rel
	eff := effTimes(reqs)
	for i, d := range ds {
		if !d.Outcome.Admitted() {
			continue
		}
		r := rel{eff[i], d.At + d.Delay, d.Cost}
		if len(rels) > 0 {
			prev := rels[len(rels)-1]
			gap := int64(r.at - prev.at)
			if gap < 0 || mul128(gap+1, n).le(mul128(prev.cost, per)) {
				return fmt.Errorf("release at %v only %v after the previous one (cost %d, rate %s)", r.at, r.at-prev.at, prev.cost, p.Rate)
			}
		}
		rels = append(rels, r)
		var waiting int64
		for _, q := range rels {
			if q.at > r.arrived {
				waiting += q.cost
			}
		}
		if waiting > p.Queue {
			return fmt.Errorf("at %v, %d waiting > queue %d", r.arrived, waiting, p.Queue)
		}
	}
	return nil
}

// boundCheck returns the bound checker for p's algorithm.
func boundCheck(p Policy) func(Policy, []req, []Decision) error {
	switch p.Algorithm {
	case FixedWindow:
		return checkFixedBound
	case SlidingLog:
		return checkLogBound
	case SlidingCounter:
		return checkCounterBound
	case LeakyBucket:
		return checkLeakyBound
	case IntervalBucket:
		return checkIntervalBound
	}
	return checkRateBound
}

// randPolicy draws a small valid policy for alg whose timescale makes random
// traces hit both sides of the limit. Its parameters are drawn by kind, from
// the description alone; an algorithm whose parameters must agree with each
// other (nginx's rate in r/s or r/m) fixes its draw in policyFixups.
func randPolicy(r *rand.Rand, alg Algorithm) Policy {
	d := Describe(alg)
	for range 1000 {
		size := []int64{1, 2, 3, 5, 10, 1 + r.Int64N(40)}[r.IntN(6)]
		w := []time.Duration{7, time.Millisecond, 3 * time.Millisecond, time.Second, time.Minute, time.Duration(1 + r.Int64N(1e9))}[r.IntN(6)]
		p := Policy{Algorithm: alg}
		for _, q := range d.Params {
			if q.Optional && r.IntN(3) == 0 {
				continue
			}
			switch q.Kind {
			case Count:
				if q.Name == d.Size {
					*q.CountOf(&p) = size
				} else {
					*q.CountOf(&p) = []int64{1, 2, 3, 5, 1 + r.Int64N(10)}[r.IntN(5)]
				}
			case Duration:
				*q.DurationOf(&p) = w
			case RateKind:
				*q.RateOf(&p) = Rate{
					N:   []int64{1, 2, 3, 7, 10, 1000, 1 + r.Int64N(100)}[r.IntN(7)],
					Per: []time.Duration{1, 10, time.Millisecond, 100 * time.Millisecond, time.Second, 3 * time.Second, time.Duration(1 + r.Int64N(1e9))}[r.IntN(7)],
				}
			case Flag:
				*q.FlagOf(&p) = r.IntN(2) == 0
			}
		}
		if fix := policyFixups[alg]; fix != nil {
			fix(r, &p)
		}
		if p.Validate() == nil {
			return p
		}
	}
	panic("randPolicy: no valid policy of " + string(alg) + " drawn; add a fixup to policyFixups")
}

// policyFixups adjust randPolicy's draw for algorithms whose parameters
// constrain each other; each algorithm's test file adds its own, from init.
var policyFixups = map[Algorithm]func(r *rand.Rand, p *Policy){}

// textbook is the algorithms of the Textbook family: those the reference
// implementations and bound checkers of the property tests know.
func textbook() []Algorithm {
	var out []Algorithm
	for _, a := range Algorithms {
		if Describe(a).Family == Textbook {
			out = append(out, a)
		}
	}
	return out
}

// setSize sets the parameter of a policy that bounds a request's cost
// (its description's Size): capacity, burst, queue or limit.
func setSize(p *Policy, size int64) {
	d := Describe(p.Algorithm)
	q, _ := d.param(d.Size)
	*q.CountOf(p) = size
}

// unit is p's natural spacing: the interval between units at the policy's
// pace, at least 1ns.
func unit(p Policy) time.Duration {
	d := Describe(p.Algorithm)
	switch {
	case d.Takes("window") && d.Takes("limit"):
		return max(1, p.Window/time.Duration(p.Limit))
	case d.Takes("rate"):
		return max(1, p.Rate.Per/time.Duration(p.Rate.N))
	case d.Takes("fill_interval") && d.Takes("tokens_per_fill"):
		return max(1, p.FillInterval/time.Duration(p.TokensPerFill))
	case d.Takes("period") && d.Takes("count_per_period"):
		return max(1, p.Period/time.Duration(p.CountPerPeriod))
	case d.Takes("limit_refresh_period") && d.Takes("limit_for_period"):
		return max(1, p.LimitRefreshPeriod/time.Duration(p.LimitForPeriod))
	}
	panic("unit: no pace known for " + string(p.Algorithm))
}

// randTrace draws n requests: bursts at one instant, gaps around p's pace,
// exact multiples of it (to land on thresholds), long idle stretches, costs
// mostly 1, sometimes up to MaxCost + 1, and, if back, some requests earlier
// than the one before.
func randTrace(r *rand.Rand, p Policy, n int, back bool) []req {
	u := int64(unit(p))
	reqs := make([]req, n)
	var t int64
	for i := range reqs {
		switch k := r.IntN(20); {
		case k < 6: // same instant
		case k < 12:
			t += r.Int64N(2*u + 1)
		case k < 16:
			t += u * r.Int64N(3)
		case k < 17:
			t += int64(p.Horizon()) + r.Int64N(int64(p.Horizon())+1)
		case k < 18 && back:
			t -= r.Int64N(u + 1)
			t = max(t, 0)
		default:
			t += r.Int64N(u/8 + 2)
		}
		cost := int64(1)
		if r.IntN(4) == 0 {
			cost = 1 + r.Int64N(p.MaxCost()+1)
		}
		reqs[i] = req{time.Duration(t), cost}
	}
	return reqs
}

// held is how many items the fifo's chunks have room for.
func (q *fifo[T]) held() int {
	n := q.segs() * fifoChunk
	if q.tail != nil {
		n += cap(q.tail.items)
	}
	return n
}

// checkIntervalBound: admitted cost in any [a, b] is at most capacity +
// tokens_per_fill × the fills in (a, b], and from the key's first request
// to b at most its start (capacity, or 0 if it starts empty) + the fills in
// (first, b] × tokens_per_fill.
func checkIntervalBound(p Policy, reqs []req, ds []Decision) error {
	if len(reqs) == 0 {
		return nil
	}
	first := effTimes(reqs)[0]
	fills := func(a, b time.Duration) int64 {
		return int64(b-first)/int64(p.FillInterval) - int64(a-first)/int64(p.FillInterval)
	}
	start := p.Capacity
	if p.StartsEmpty {
		start = 0
	}
	adm := admitted(reqs, ds)
	var total int64
	for j := range adm {
		total += adm[j].cost
		if !mul128(total, 1).le(mul128(start, 1).add(mul128(fills(first, adm[j].at), p.TokensPerFill))) {
			return fmt.Errorf("admitted %d from the first request at %v to %v: more than %d + %d fills × %d", total, first, adm[j].at, start, fills(first, adm[j].at), p.TokensPerFill)
		}
	}
	for i := range adm {
		var sum int64
		for j := i; j < len(adm); j++ {
			sum += adm[j].cost
			if !mul128(sum, 1).le(mul128(p.Capacity, 1).add(mul128(fills(adm[i].at, adm[j].at), p.TokensPerFill))) {
				return fmt.Errorf("admitted %d in [%v, %v], more than %d + %d fills × %d", sum, adm[i].at, adm[j].at, p.Capacity, fills(adm[i].at, adm[j].at), p.TokensPerFill)
			}
		}
	}
	return nil
}

// sizeParam names the parameter that bounds p's cost, and its value.
func (p Policy) sizeParam() (string, int64) {
	d := Describe(p.Algorithm)
	return d.Size, d.size(p)
}
