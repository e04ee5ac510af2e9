package algorithms

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// FloatTokenBucket: the token bucket of the lesson's admit() function, with
// its float64 arithmetic kept as the lesson writes it. This is a Mistake
// lane whose point is floating point, so, unlike every exact lane, float64
// decides here. Time is float64 seconds, now = float64(ns) / 1e9; the rate is
// float64 tokens per second, N / (Per / 1e9). A key starts full (tokens =
// capacity, updated = its first now). For a request of cost c:
//
//	timestamp = max(now, updated)
//	available = min(capacity, tokens + (timestamp − updated) × rate)
//	admitted iff available ≥ c; tokens = available − c if admitted, else available
//	updated   = timestamp
//
// every operation rounded to float64. On capacity 1 at 10/s with a request
// every 10ms, the balance that should be exactly 1 at 300ms is
// 0.9999999999999998, and the request is rejected. RetryAfter is the
// shortest wait, in whole nanoseconds, after which this same float64
// arithmetic admits the request if nothing else came (found by search, since
// the float result is what decides).
const FloatTokenBucket Algorithm = "float-token-bucket"

func init() {
	register(sizedDescription(CapacityParam, Description{
		Algorithm: FloatTokenBucket,
		explain:   explainFloatBucket,
		Family:    Mistake,
		Twin:      TokenBucket,
		Source:    "the token-bucket lesson's float64 admit(), its seconds and tokens kept as floats",
		Rule:      "in float64: available = min(capacity, tokens + (now − updated) × rate), seconds = ns/1e9; admitted iff available ≥ c, then c is spent; starts full",
		Words: func(p Policy) string {
			return "float64 token bucket: capacity " + strconv.FormatInt(p.Capacity, 10) + ", refilling " + p.Rate.String() + ", seconds and tokens rounded to float64"
		},
		CostBound: func(p Policy) string { return fmt.Sprintf("it holds at most its capacity, %d tokens", p.Capacity) },
		Examples: []Example{
			{Name: "float", Policy: Policy{Algorithm: FloatTokenBucket, Capacity: 10, Rate: Rate{N: 2, Per: time.Second}}},
		},
		Edges: []Policy{
			{Algorithm: FloatTokenBucket, Capacity: 1, Rate: Rate{N: 10, Per: time.Second}},
			{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{N: 7, Per: time.Second}},
			{Algorithm: FloatTokenBucket, Capacity: 5, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
			{Algorithm: FloatTokenBucket, Capacity: 1000, Rate: Rate{N: 333, Per: time.Minute}},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[floatBucketState](newFloatBucket(p), ks) },
		State: floatBucketForm,
	}))
}

// floatBucket is the lesson's admit() in float64. Beside the float state it
// keeps the exact balance a token bucket would hold after the same history
// (the same admissions), only to say in the why text and the picture when
// rounding, not time, made the decision.
type floatBucket struct {
	p        Policy
	capacity float64 // float64(Capacity)
	rate     float64 // tokens per second: N / (Per / 1e9)
	exact    *tokenBucket
}

type floatBucketState struct {
	tokens  float64 // the float balance at updated
	updated float64 // float seconds of the last request
	last    time.Duration
	// scaled is the exact balance (× Per) after the same admissions, at
	// last; it may dip below 0 when float64 admitted what exact arithmetic
	// would not (bounded below by −capacity × Per / 2).
	scaled int64
}

func newFloatBucket(p Policy) *floatBucket {
	return &floatBucket{
		p:        p,
		capacity: float64(p.Capacity),
		rate:     floatRate(p.Rate),
		exact:    newTokenBucket(p),
	}
}

// floatSeconds is the lesson's now: nanoseconds as float64 seconds.
func floatSeconds(t time.Duration) float64 { return float64(t) / 1e9 }

func (b *floatBucket) policy() *Policy { return &b.p }

func (b *floatBucket) start(now time.Duration) floatBucketState {
	return floatBucketState{tokens: b.capacity, updated: floatSeconds(now), last: now, scaled: b.exact.capScaled}
}

// available is the lesson's refill at t ≥ s.last, in float64.
func (b *floatBucket) available(s *floatBucketState, t time.Duration) float64 {
	ts := max(floatSeconds(t), s.updated)
	return min(b.capacity, s.tokens+(ts-s.updated)*b.rate)
}

// exactAt is the exact balance after the same history at t ≥ s.last, × Per.
func (b *floatBucket) exactAt(s *floatBucketState, t time.Duration) int64 {
	return b.exact.refill(s.scaled, t-s.last) // a deficit ≥ −capacity/2 × Per refills like a balance
}

func (b *floatBucket) decide(s *floatBucketState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	before, updated := s.tokens, s.updated
	avail := b.available(s, eff)
	exact := b.exactAt(s, eff)
	s.tokens, s.updated, s.last, s.scaled = avail, max(floatSeconds(eff), s.updated), eff, exact
	c := float64(cost)
	per := int64(b.p.Rate.Per)
	d = Decision{At: now, Cost: cost, policy: &b.p, explain: explainFloatBucket,
		v: [4]int64{int64(math.Float64bits(before)), int64(math.Float64bits(updated)), int64(math.Float64bits(avail)), int64(eff)}}
	exactOK := exact >= cost*per
	switch {
	case cost > b.p.Capacity:
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	case avail >= c:
		d.Outcome = Allowed
		s.tokens = avail - c
		s.scaled = max(exact-cost*per, -b.exact.capScaled/2)
	default:
		d.Outcome = Rejected
		d.RetryAfter = b.retry(s, eff, c) + eff - now
	}
	if exactOK != (d.Outcome == Allowed) {
		d.v[3] = ^d.v[3] // the exact balance decides otherwise: say so
	}
	return d
}

// retry is the shortest wait w ≥ 1ns after eff at which the float refill
// from s covers c. The float result is monotone in the time, so a guess from
// (c − tokens) / rate is corrected by doubling past it and bisecting.
func (b *floatBucket) retry(s *floatBucketState, eff time.Duration, c float64) time.Duration {
	const far = time.Duration(1) << 62
	fits := func(w time.Duration) bool { return b.available(s, eff+w) >= c }
	guess := (c - s.tokens) / b.rate * 1e9
	hi := far
	if guess < float64(far) {
		hi = max(1, time.Duration(math.Ceil(guess)))
	}
	lo := time.Duration(0) // rejected at eff itself
	for !fits(hi) && hi < far {
		lo, hi = hi, min(far, 2*hi)
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func (b *floatBucket) snapshot(s floatBucketState, now time.Duration) Snapshot {
	now = max(now, s.last)
	exact := max(b.exactAt(&s, now), 0)
	return FloatTokenBucketSnapshot{
		Now:      now,
		Capacity: b.p.Capacity,
		Rate:     b.p.Rate,
		Tokens:   b.available(&s, now),
		Exact:    Quantity{exact, int64(b.p.Rate.Per)},
	}
}

func (b *floatBucket) clone(s *floatBucketState, _ *mem) floatBucketState { return *s }

func (b *floatBucket) tables(*floatBucketState) int64 { return 0 }

// floatBucketForm: the float64 balance as tokens_mant × 2^tokens_exp (see
// FloatParts: the double exactly, as two whole numbers), the time of the
// last request in ns, and the exact balance after the same admissions, in
// tokens × the rate's period in ns (what the why text compares the float
// one with; below 0 when float64 admitted more). The float time of the last
// request is float64(last) / 1e9 and is not kept.
var floatBucketForm = StateForm{Fields: []string{"tokens_mant", "tokens_exp", "last", "exact"}}

func (b *floatBucket) encode(s *floatBucketState) State {
	m, e := FloatParts(s.tokens)
	return State{Fields: []int64{m, e, int64(s.last), s.scaled}}
}

// decode: updated is always floatSeconds(last) (the float time is
// monotone in the time, and both move together), so it is derived.
func (b *floatBucket) decode(st State, _ *mem) (floatBucketState, error) {
	tokens, err := FromFloatParts(st.Fields[0], st.Fields[1])
	if err != nil {
		return floatBucketState{}, fmt.Errorf("float token bucket tokens: %w", err)
	}
	last := time.Duration(st.Fields[2])
	s := floatBucketState{tokens: tokens, updated: floatSeconds(last), last: last, scaled: st.Fields[3]}
	if !(tokens >= 0 && tokens <= b.capacity) || s.last < 0 || s.scaled < -b.exact.capScaled/2 || s.scaled > b.exact.capScaled {
		return s, fmt.Errorf("float token bucket state %v out of range", st.Fields)
	}
	return s, nil
}

// FloatTokenBucketSnapshot shows the float balance of the lesson's admit()
// and, beside it, the exact balance after the same admissions.
type FloatTokenBucketSnapshot struct {
	Now      time.Duration
	Capacity int64
	Rate     Rate
	// Tokens is the float64 balance at Now, refill included, as admit()
	// would compute it.
	Tokens float64
	// Exact is the balance exact arithmetic holds at Now after the same
	// admissions (0 if float64 admitted what it would not).
	Exact Quantity
}

func (s FloatTokenBucketSnapshot) Moment() time.Duration { return s.Now }

// explainFloatBucket: v = {float tokens before, float updated before, float
// available, time decided at — complemented when the exact balance after the
// same history decides otherwise}.
func explainFloatBucket(b []byte, d Decision) []byte {
	p := d.policy
	before, updated, avail := math.Float64frombits(uint64(d.v[0])), math.Float64frombits(uint64(d.v[1])), math.Float64frombits(uint64(d.v[2]))
	eff, differs := time.Duration(d.v[3]), false
	if d.v[3] < 0 {
		eff, differs = time.Duration(^d.v[3]), true
	}
	rate := floatRate(p.Rate)
	ts := max(floatSeconds(eff), updated)
	b = appendf(b, d.times, "%sin float64: available = min(%d, %s + (%s − %s) × %s) = %s", lateNote(&d, eff),
		p.Capacity, flt(before), flt(ts), flt(updated), flt(rate), flt(avail))
	if d.Outcome == Allowed {
		b = appendf(b, d.times, " ≥ cost %d → allowed; %s left", d.Cost, flt(avail-float64(d.Cost)))
		if differs {
			b = append(b, "; exact arithmetic on the same history holds less than the cost: float64 rounding admitted it"...)
		}
		return b
	}
	b = appendf(b, d.times, " < cost %d → rejected", d.Cost)
	if differs {
		b = appendf(b, d.times, "; exact arithmetic on the same history holds the whole %d: float64 rounding, not time, rejected it", d.Cost)
	}
	return appendf(b, d.times, "; retry after %s (when this float64 arithmetic first admits it)", retryFrom(&d, eff))
}

// floatRate is r in tokens per second as the lesson's code holds it, a
// float64: N / (Per in seconds).
func floatRate(r Rate) float64 { return float64(r.N) / (float64(r.Per) / 1e9) }
