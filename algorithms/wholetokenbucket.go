package algorithms

import (
	"fmt"
	"math/bits"
	"strconv"
	"time"
)

// WholeTokenBucket: a token bucket whose refill is rounded down to whole
// tokens while its clock moves on to every request, admitted or not: tokens
// = min(Capacity, tokens + ⌊(now − last) × Rate⌋), last = now. The fraction
// of a token earned since the last request is thrown away each time, so a
// client that calls more often than one token's refill time earns nothing
// at all. Admitted iff tokens ≥ c, which is then spent. RetryAfter: (c −
// tokens) / Rate rounded up to the ns, the wait that earns the missing tokens whole (a retry
// sooner than that earns nothing and restarts the wait).
const WholeTokenBucket Algorithm = "whole-token-bucket"

func init() {
	register(sizedDescription(CapacityParam, Description{
		Algorithm: WholeTokenBucket,
		explain:   explainWholeBucket,
		Family:    Mistake,
		Twin:      TokenBucket,
		Source:    "a token bucket whose refill is rounded down to whole tokens on every arrival, which the lesson warns throws away the credit of the time elapsed",
		Rule:      "tokens = min(capacity, tokens + ⌊elapsed × rate⌋), the clock moved to now even when a fraction is left; admitted iff tokens ≥ c, then c is spent; starts full",
		Words: func(p Policy) string {
			return "whole-token bucket: capacity " + strconv.FormatInt(p.Capacity, 10) + ", refilling " + p.Rate.String() + " in whole tokens, fractions dropped at each request"
		},
		CostBound: func(p Policy) string { return fmt.Sprintf("it holds at most its capacity, %d tokens", p.Capacity) },
		Examples: []Example{
			{Name: "whole", Policy: Policy{Algorithm: WholeTokenBucket, Capacity: 10, Rate: Rate{N: 3, Per: time.Second}}},
		},
		Edges: []Policy{
			{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{N: 7, Per: time.Second}},
			{Algorithm: WholeTokenBucket, Capacity: 5, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
			{Algorithm: WholeTokenBucket, Capacity: 1, Rate: Rate{N: 1, Per: time.Minute}},
			{Algorithm: WholeTokenBucket, Capacity: 40, Rate: Rate{N: 1000, Per: 7 * time.Millisecond}},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[wholeBucketState](newWholeBucket(p), ks) },
		State: wholeBucketForm,
	}))
}

// wholeBucket keeps a whole number of tokens and the time of the last
// request. Exact integers throughout: the rounding is the mistake itself.
type wholeBucket struct {
	p     Policy
	exact *tokenBucket // the exact refill, which this one floors
}

type wholeBucketState struct {
	tokens int64
	last   time.Duration
	// lost is the refill thrown away so far, in tokens × Per (saturating):
	// the fractions dropped when the bucket was not capped.
	lost int64
}

func newWholeBucket(p Policy) *wholeBucket {
	return &wholeBucket{p: p, exact: newTokenBucket(p)}
}

func (b *wholeBucket) policy() *Policy { return &b.p }

func (b *wholeBucket) start(now time.Duration) wholeBucketState {
	return wholeBucketState{tokens: b.p.Capacity, last: now}
}

// refill is the whole tokens elapsed earns from tokens, up to the
// capacity (the exact bucket's refill, floored), and the fraction of a
// token it drops, in tokens × Per (0 once the bucket is full).
func (b *wholeBucket) refill(tokens int64, elapsed time.Duration) (next, dropped int64) {
	per := int64(b.p.Rate.Per)
	scaled := b.exact.refill(tokens*per, elapsed)
	return scaled / per, scaled % per
}

func (b *wholeBucket) decide(s *wholeBucketState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	elapsed := eff - s.last
	next, dropped := b.refill(s.tokens, elapsed)
	d = Decision{At: now, Cost: cost, policy: &b.p, explain: explainWholeBucket, v: [4]int64{s.tokens, int64(elapsed), next, int64(eff)}}
	if sum, carry := bits.Add64(uint64(s.lost), uint64(dropped), 0); carry == 0 && sum <= maxScaled {
		s.lost = int64(sum)
	} else {
		s.lost = maxScaled
	}
	s.tokens, s.last = next, eff
	switch {
	case cost > b.p.Capacity:
		d.Outcome, d.RetryAfter = Rejected, Never
	case next >= cost:
		d.Outcome = Allowed
		s.tokens -= cost
	default:
		d.Outcome = Rejected
		d.RetryAfter = time.Duration(ceilDiv((cost-next)*int64(b.p.Rate.Per), b.p.Rate.N)) + eff - now
	}
	return d
}

func (b *wholeBucket) snapshot(s wholeBucketState, now time.Duration) Snapshot {
	now = max(now, s.last)
	next, dropped := b.refill(s.tokens, now-s.last)
	return WholeTokenBucketSnapshot{
		Now:      now,
		Capacity: b.p.Capacity,
		Rate:     b.p.Rate,
		Tokens:   s.tokens,
		Since:    now - s.last,
		Next:     next,
		Pending:  Quantity{dropped, int64(b.p.Rate.Per)},
		Lost:     Quantity{s.lost, int64(b.p.Rate.Per)},
	}
}

func (b *wholeBucket) clone(s *wholeBucketState, _ *mem) wholeBucketState { return *s }

func (b *wholeBucket) tables(*wholeBucketState) int64 { return 0 }

// wholeBucketForm: the whole tokens the last request left and its time.
// What was dropped so far (lost) decides nothing and is not kept: a state
// read back starts counting it again from 0.
var wholeBucketForm = StateForm{Fields: []string{"tokens", "last"}}

func (b *wholeBucket) encode(s *wholeBucketState) State {
	return State{Fields: []int64{s.tokens, int64(s.last)}}
}

func (b *wholeBucket) decode(st State, _ *mem) (wholeBucketState, error) {
	s := wholeBucketState{tokens: st.Fields[0], last: time.Duration(st.Fields[1])}
	if s.tokens < 0 || s.tokens > b.p.Capacity || s.last < 0 {
		return s, fmt.Errorf("whole-token bucket state %v out of range", st.Fields)
	}
	return s, nil
}

// WholeTokenBucketSnapshot shows a whole-token bucket: what it holds, what
// a request now would add, and the fraction it would drop.
type WholeTokenBucketSnapshot struct {
	Now      time.Duration
	Capacity int64
	Rate     Rate
	// Tokens is the whole balance as the last request left it.
	Tokens int64
	// Since is the time since the last request; Next is the balance a
	// request at Now would see: min(Capacity, Tokens + ⌊Since × Rate⌋).
	Since time.Duration
	Next  int64
	// Pending is the fraction of a token Since has earned beyond Next, which
	// a request at Now would drop; Lost is what was dropped so far.
	Pending, Lost Quantity
}

func (s WholeTokenBucketSnapshot) Moment() time.Duration { return s.Now }

// explainWholeBucket: v = {tokens before, elapsed, tokens after the whole
// refill, time decided at}.
func explainWholeBucket(b []byte, d Decision) []byte {
	p := d.policy
	before, elapsed, next, eff := d.v[0], time.Duration(d.v[1]), d.v[2], time.Duration(d.v[3])
	per := int64(p.Rate.Per)
	b = appendf(b, d.times, "%stokens = min(%d, %d + ⌊%s × %s⌋) = %d", lateNote(&d, eff),
		p.Capacity, before, secs(elapsed), p.Rate, next)
	if next < p.Capacity { // the exact refill and what is dropped, when not capped
		scaled := int64(elapsed) * p.Rate.N
		b = appendf(b, d.times, " (%s × %s = %s earned", secs(elapsed), p.Rate, exact(scaled, per))
		if frac := scaled % per; frac != 0 {
			b = appendf(b, d.times, "; %s of it dropped as the clock moves on", exact(frac, per))
		}
		b = append(b, ')')
	}
	if d.Outcome == Allowed {
		return appendf(b, d.times, " ≥ cost %d → allowed; %d left", d.Cost, next-d.Cost)
	}
	return appendf(b, d.times, " < cost %d → rejected; retry after (%d − %d) / %s = %s, rounded up to the ns — a request sooner earns only a fraction, which it drops",
		d.Cost, d.Cost, next, p.Rate, retryFrom(&d, eff))
}
