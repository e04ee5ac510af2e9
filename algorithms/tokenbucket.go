package algorithms

import (
	"fmt"
	"math/bits"
	"strconv"
	"time"
)

// TokenBucket: Capacity tokens, starting full (or, with StartsEmpty, with
// none), refilled continuously at Rate. Admitted iff the balance ≥ c, which
// is then spent. RetryAfter: (c − balance) / Rate.
const TokenBucket Algorithm = "token-bucket"

// CapacityParam is the token bucket's size.
var CapacityParam = Param{Name: "capacity", Kind: Count, Amount: true, Want: "a positive whole number of tokens",
	field: func(p *Policy) any { return &p.Capacity }}

// StartsEmptyParam: a bucket whose key starts with no tokens instead of a
// full bucket (Guava's SmoothBursty; the lessons' empty bucket).
var StartsEmptyParam = Param{Name: "starts_empty", Kind: Flag, Want: "true or false",
	field: func(p *Policy) any { return &p.StartsEmpty }}

func init() {
	d := sizedDescription(CapacityParam, Description{
		Algorithm: TokenBucket,
		explain:   explainTokenBucket,
		Rule:      "admitted iff min(capacity, tokens + elapsed × rate) ≥ c, then c is spent; starts full (starts_empty: with 0 tokens)",
		Words: func(p Policy) string {
			return "token bucket: capacity " + strconv.FormatInt(p.Capacity, 10) + ", refilling " + p.Rate.String() + emptyWords(p) + "; a request spends its cost"
		},
		CostBound: func(p Policy) string { return fmt.Sprintf("it holds at most its capacity, %d tokens", p.Capacity) },
		Examples: []Example{
			{Name: "bucket", Policy: Policy{Algorithm: TokenBucket, Capacity: 10, Rate: Rate{N: 2, Per: time.Second}}},
		},
		Edges: []Policy{
			{Algorithm: TokenBucket, Capacity: 3, Rate: Rate{N: 7, Per: time.Second}, StartsEmpty: true},
			{Algorithm: TokenBucket, Capacity: 5, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[tokenBucketState](newTokenBucket(p), ks) },
		State: tokenBucketForm,
	})
	d.Params = append(d.Params, Optional(StartsEmptyParam, "true for a bucket that starts with no tokens; false or left out, it starts full"))
	line := d.Line
	d.Line = func(p Policy) string { return line(p) + emptyWords(p) }
	register(d)
}

// emptyWords is ", starting empty" for a bucket that does, else nothing.
func emptyWords(p Policy) string {
	if p.StartsEmpty {
		return ", starting empty"
	}
	return ""
}

// tokenBucket: a bucket of Capacity tokens, refilled continuously at Rate and
// starting full, or empty with StartsEmpty. A request is admitted iff the balance, refill included,
// covers its cost; then the cost is spent. A rejection spends nothing.
//
// Balances are kept in tokens × Rate.Per ("scaled"), so that refilling for
// elapsed ns adds exactly elapsed × N and never rounds.
type tokenBucket struct {
	p         Policy
	capScaled int64 // Capacity × Per
	initial   int64 // a new key's balance: capScaled, or 0 if it starts empty
}

type tokenBucketState struct {
	scaled int64         // balance at last, × Per
	last   time.Duration // time of the last request
}

func newTokenBucket(p Policy) *tokenBucket {
	b := &tokenBucket{p: p, capScaled: p.Capacity * int64(p.Rate.Per)}
	if !p.StartsEmpty {
		b.initial = b.capScaled
	}
	return b
}

func (b *tokenBucket) policy() *Policy { return &b.p }

func (b *tokenBucket) start(now time.Duration) tokenBucketState {
	return tokenBucketState{scaled: b.initial, last: now}
}

// refill is min(capacity, scaled + elapsed × N), for elapsed ≥ 0 and a
// balance scaled ≤ capacity, computed without overflow (the product is taken
// in 128 bits) and without a division.
func (b *tokenBucket) refill(scaled int64, elapsed time.Duration) int64 {
	hi, lo := bits.Mul64(uint64(elapsed), uint64(b.p.Rate.N))
	if hi != 0 || lo >= uint64(b.capScaled-scaled) {
		return b.capScaled
	}
	return scaled + int64(lo)
}

func (b *tokenBucket) decide(s *tokenBucketState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last) // clamp: time never runs backwards for a key
	elapsed := eff - s.last
	avail := b.refill(s.scaled, elapsed)
	d = Decision{At: now, Cost: cost, policy: &b.p, explain: explainTokenBucket, v: [4]int64{s.scaled, int64(elapsed), avail, int64(eff)}}
	s.scaled, s.last = avail, eff
	per := int64(b.p.Rate.Per)
	switch {
	case cost > b.p.Capacity:
		d.Outcome, d.RetryAfter = Rejected, Never
	case avail >= cost*per:
		d.Outcome = Allowed
		s.scaled -= cost * per
	default:
		d.Outcome = Rejected
		d.RetryAfter = time.Duration(ceilDiv(cost*per-avail, b.p.Rate.N)) + eff - now
	}
	return d
}

// TokenBucketSnapshot shows a token bucket's balance.
type TokenBucketSnapshot struct {
	Now      time.Duration
	Capacity int64
	Rate     Rate
	// Available is the balance at Now, refill included, in tokens.
	Available Quantity
	// FullAt is when the bucket will be full again if nothing is spent
	// (rounded up); Now when it is full already.
	FullAt time.Duration
}

func (s TokenBucketSnapshot) Moment() time.Duration { return s.Now }

func (b *tokenBucket) snapshot(s tokenBucketState, now time.Duration) Snapshot {
	now = max(now, s.last)
	avail := b.refill(s.scaled, now-s.last)
	return TokenBucketSnapshot{
		Now:       now,
		Capacity:  b.p.Capacity,
		Rate:      b.p.Rate,
		Available: Quantity{avail, int64(b.p.Rate.Per)},
		FullAt:    now + time.Duration(ceilDiv(b.capScaled-avail, b.p.Rate.N)),
	}
}

func (b *tokenBucket) clone(s *tokenBucketState, _ *mem) tokenBucketState { return *s }

// tokenBucketForm: the balance in tokens × the rate's period in ns (the
// scaled balance, exact), and the time of the last request.
var tokenBucketForm = StateForm{Fields: []string{"balance", "last"}}

func (b *tokenBucket) encode(s *tokenBucketState) State {
	return State{Fields: []int64{s.scaled, int64(s.last)}}
}

func (b *tokenBucket) decode(st State, _ *mem) (tokenBucketState, error) {
	s := tokenBucketState{scaled: st.Fields[0], last: time.Duration(st.Fields[1])}
	if s.scaled < 0 || s.scaled > b.capScaled || s.last < 0 {
		return s, fmt.Errorf("token bucket state %v out of range", st.Fields)
	}
	return s, nil
}

func (b *tokenBucket) tables(*tokenBucketState) int64 { return 0 }

// explainTokenBucket: v = {balance before, elapsed, available, time decided
// at}, balances × Per.
func explainTokenBucket(b []byte, d Decision) []byte {
	// Appended piece by piece, as explainFixedWindow.
	p := d.policy
	per := int64(p.Rate.Per)
	eff := time.Duration(d.v[3])
	b = lateNote(&d, eff).appendTo(b)
	b = appendInt(append(b, "available = min("...), p.Capacity)
	b = exact(d.v[0], per).appendTo(append(b, ", "...))
	b = d.times.seconds(append(b, " + "...), time.Duration(d.v[1]))
	b = p.Rate.appendTo(append(b, " × "...))
	b = exact(d.v[2], per).appendTo(append(b, ") = "...))
	if d.Outcome == Allowed {
		b = appendInt(append(b, " ≥ cost "...), d.Cost)
		b = exact(d.v[2]-d.Cost*per, per).appendTo(append(b, " → allowed; "...))
		return append(b, " left"...)
	}
	b = appendInt(append(b, " < cost "...), d.Cost)
	b = appendInt(append(b, " → rejected; retry after ("...), d.Cost)
	b = exact(d.v[2], per).appendTo(append(b, " − "...))
	b = p.Rate.appendTo(append(b, ") / "...))
	return retryFrom(&d, eff).appendTo(append(b, " = "...))
}
