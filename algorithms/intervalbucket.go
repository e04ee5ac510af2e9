package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// IntervalBucket: a bucket of Capacity tokens refilled in lumps:
// TokensPerFill tokens at each instant first + k × FillInterval (k ≥ 1),
// where first is the key's first request, capped at Capacity; between fills
// nothing refills. It starts full, or with StartsEmpty with no tokens.
// Admitted iff the balance ≥ c, which is then spent. RetryAfter: until the
// fill after which the balance covers c: ⌈(c − balance) / TokensPerFill⌉
// fills after the last one. This is Envoy's timer bucket (before 1.31) and
// Bucket4j's interval refill; all integers.
const IntervalBucket Algorithm = "interval-bucket"

// TokensPerFillParam and FillIntervalParam are a lumpy bucket's refill:
// tokens_per_fill tokens every fill_interval.
var (
	TokensPerFillParam = Param{Name: "tokens_per_fill", Kind: Count, Amount: true, Want: "a positive whole number of tokens added at each fill",
		field: func(p *Policy) any { return &p.TokensPerFill }}
	FillIntervalParam = Param{Name: "fill_interval", Kind: Duration, Want: "a positive Go duration between fills, such as 1s",
		field: func(p *Policy) any { return &p.FillInterval }}
)

func init() {
	register(Description{
		Algorithm: IntervalBucket,
		explain:   explainIntervalBucket,
		Params: []Param{CapacityParam, TokensPerFillParam, FillIntervalParam,
			Optional(StartsEmptyParam, "true for a bucket that starts with no tokens; false or left out, it starts full")},
		Size: "capacity",
		Rule: "at first + k × fill_interval, tokens = min(capacity, tokens + tokens_per_fill); admitted iff tokens ≥ c, then c is spent; starts full (starts_empty: with 0 tokens)",
		Words: func(p Policy) string {
			return "interval bucket: capacity " + strconv.FormatInt(p.Capacity, 10) + ", " + strconv.FormatInt(p.TokensPerFill, 10) +
				" tokens added every " + FormatSeconds(p.FillInterval) + " at once" + emptyWords(p) + "; a request spends its cost"
		},
		Line: func(p Policy) string {
			return fmt.Sprintf("%s capacity %d, %d tokens every %s%s", p.Algorithm, p.Capacity, p.TokensPerFill, FormatDuration(p.FillInterval), emptyWords(p))
		},
		CostBound: func(p Policy) string { return fmt.Sprintf("it holds at most its capacity, %d tokens", p.Capacity) },
		Horizon: func(p Policy) time.Duration {
			return time.Duration(ceilDiv(p.Capacity, p.TokensPerFill)) * p.FillInterval
		},
		check: func(p Policy) error { return checkLumps("capacity", p.Capacity, p.TokensPerFill, p.FillInterval) },
		Examples: []Example{
			{Name: "lumps", Policy: Policy{Algorithm: IntervalBucket, Capacity: 10, TokensPerFill: 2, FillInterval: time.Second}},
		},
		Edges: []Policy{
			{Algorithm: IntervalBucket, Capacity: 5, TokensPerFill: 2, FillInterval: 700 * time.Millisecond},
			{Algorithm: IntervalBucket, Capacity: 5, TokensPerFill: 2, FillInterval: 700 * time.Millisecond, StartsEmpty: true},
			{Algorithm: IntervalBucket, Capacity: 1, TokensPerFill: 1, FillInterval: 7},
			{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 7, FillInterval: time.Second, StartsEmpty: true},
			{Algorithm: IntervalBucket, Capacity: 40, TokensPerFill: 3, FillInterval: time.Minute},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[intervalBucketState](newIntervalBucket(p), ks) },
		State: intervalBucketForm,
	})
}

// checkLumps checks a bucket of size tokens refilled tokens_per_fill every
// fill_interval: each positive, and size × fill_interval (the longest wait
// for fills) within 2^62 ns.
func checkLumps(size string, n, perFill int64, every time.Duration) error {
	if err := checkCount(size, n); err != nil {
		return err
	}
	if err := checkCount("tokens_per_fill", perFill); err != nil {
		return err
	}
	if every <= 0 {
		return fmt.Errorf("fill_interval %s must be positive", FormatDuration(every))
	}
	if !mulFits(n, int64(every)) {
		return fmt.Errorf("%s %d × fill_interval %s is too large for exact arithmetic (at most 2^62 ns)", size, n, FormatDuration(every))
	}
	return nil
}

// intervalBucket: a bucket of Capacity whole tokens. Fills come at first +
// k × FillInterval for k = 1, 2, …, first being the key's first request;
// each adds TokensPerFill, up to Capacity. A request is admitted iff the
// balance covers its cost, which is then spent; a rejection spends nothing.
// Balances are whole tokens: there is nothing to scale.
type intervalBucket struct {
	p       Policy
	initial int64
	// fromZero counts the fills from t = 0 for every key, one timer for
	// all (Envoy's fill timer), instead of from each key's first request.
	fromZero bool
}

type intervalBucketState struct {
	tokens int64         // balance after the fills counted
	first  time.Duration // the key's first request: fills are counted from it
	fills  int64         // fills counted so far (k of the last one)
	last   time.Duration // time of the last request
}

func newIntervalBucket(p Policy) *intervalBucket {
	b := &intervalBucket{p: p}
	if !p.StartsEmpty {
		b.initial = p.Capacity
	}
	return b
}

func (b *intervalBucket) policy() *Policy { return &b.p }

func (b *intervalBucket) start(now time.Duration) intervalBucketState {
	if b.fromZero {
		// The fills before now found the bucket as it starts: counted
		// done, they add nothing to it.
		return intervalBucketState{tokens: b.initial, fills: int64(now / b.p.FillInterval), last: now}
	}
	return intervalBucketState{tokens: b.initial, first: now, last: now}
}

// fill is the balance after the fills up to k, from tokens after fills done:
// min(capacity, tokens + (k − done) × per fill), without overflow.
func (b *intervalBucket) fill(tokens, done, k int64) int64 {
	room := b.p.Capacity - tokens
	if k <= done || room <= 0 {
		return tokens
	}
	if k-done >= ceilDiv(room, b.p.TokensPerFill) {
		return b.p.Capacity
	}
	return tokens + (k-done)*b.p.TokensPerFill // < room: no overflow
}

func (b *intervalBucket) decide(s *intervalBucketState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	s.last = eff
	k := int64(eff-s.first) / int64(b.p.FillInterval)
	avail := b.fill(s.tokens, s.fills, k)
	next := s.first + time.Duration(k+1)*b.p.FillInterval
	d = Decision{At: now, Cost: cost, policy: &b.p, explain: explainIntervalBucket, v: [4]int64{s.tokens, k - s.fills, int64(next), int64(eff)}}
	s.tokens, s.fills = avail, k
	switch {
	case cost > b.p.Capacity:
		d.Outcome, d.RetryAfter = Rejected, Never
	case avail >= cost:
		d.Outcome = Allowed
		s.tokens -= cost
	default:
		d.Outcome = Rejected
		// The m-th fill from now's covers it; k × interval ≤ eff − first
		// and m × interval ≤ capacity × interval ≤ 2^62: no overflow.
		m := ceilDiv(cost-avail, b.p.TokensPerFill)
		at := s.first + time.Duration(k)*b.p.FillInterval + time.Duration(m)*b.p.FillInterval
		d.RetryAfter = at - now
	}
	return d
}

func (b *intervalBucket) snapshot(s intervalBucketState, now time.Duration) Snapshot {
	now = max(now, s.last)
	k := int64(now-s.first) / int64(b.p.FillInterval)
	avail := b.fill(s.tokens, s.fills, k)
	at := s.first + time.Duration(k)*b.p.FillInterval
	full := now
	if avail < b.p.Capacity {
		full = at + time.Duration(ceilDiv(b.p.Capacity-avail, b.p.TokensPerFill))*b.p.FillInterval
	}
	return IntervalBucketSnapshot{
		Now:           now,
		Capacity:      b.p.Capacity,
		TokensPerFill: b.p.TokensPerFill,
		FillInterval:  b.p.FillInterval,
		Tokens:        avail,
		LastFill:      at,
		NextFill:      at + b.p.FillInterval,
		FullAt:        full,
	}
}

func (b *intervalBucket) clone(s *intervalBucketState, _ *mem) intervalBucketState { return *s }

func (b *intervalBucket) tables(*intervalBucketState) int64 { return 0 }

// intervalBucketForm: the whole tokens after the fills up to the last
// request, the key's first request (fills come at first + k ×
// fill_interval) and the last request's time. The fills counted are not
// kept: decide counts them up to the last request, ⌊(last − first) /
// fill_interval⌋.
var intervalBucketForm = StateForm{Fields: []string{"tokens", "first", "last"}}

// timerBucketForm: the interval bucket counting its fills from t = 0 (Envoy's
// timer), whose first is 0 for every key: the tokens and the last request's
// time.
var timerBucketForm = StateForm{Fields: []string{"tokens", "last"}}

func (b *intervalBucket) encode(s *intervalBucketState) State {
	if b.fromZero {
		return State{Fields: []int64{s.tokens, int64(s.last)}}
	}
	return State{Fields: []int64{s.tokens, int64(s.first), int64(s.last)}}
}

func (b *intervalBucket) decode(st State, _ *mem) (intervalBucketState, error) {
	var s intervalBucketState
	if b.fromZero {
		s.tokens, s.last = st.Fields[0], time.Duration(st.Fields[1])
	} else {
		s.tokens, s.first, s.last = st.Fields[0], time.Duration(st.Fields[1]), time.Duration(st.Fields[2])
	}
	if s.tokens < 0 || s.tokens > b.p.Capacity || s.first < 0 || s.last < s.first {
		return s, fmt.Errorf("interval bucket state %v out of range", st.Fields)
	}
	s.fills = int64(s.last-s.first) / int64(b.p.FillInterval)
	return s, nil
}

// IntervalBucketSnapshot shows a lumpy bucket's whole tokens and its fills.
type IntervalBucketSnapshot struct {
	Now           time.Duration
	Capacity      int64
	TokensPerFill int64
	FillInterval  time.Duration
	// Tokens is the balance at Now, the fills up to Now included.
	Tokens int64
	// LastFill is the latest fill instant at or before Now (the key's first
	// request when no fill has come yet); NextFill the next one.
	LastFill, NextFill time.Duration
	// FullAt is the fill that will make the bucket full if nothing is
	// spent; Now when it is full already.
	FullAt time.Duration
}

func (s IntervalBucketSnapshot) Moment() time.Duration { return s.Now }

// explainIntervalBucket: v = {tokens before, fills since, next fill, time
// decided at}.
func explainIntervalBucket(b []byte, d Decision) []byte {
	p := d.policy
	eff := time.Duration(d.v[3])
	avail := (&intervalBucket{p: *p}).fill(d.v[0], 0, d.v[1])
	if d.v[1] == 0 {
		b = appendf(b, d.times, "%stokens = %d (no new fill; the next at %s)", lateNote(&d, eff), avail, secs(time.Duration(d.v[2])))
	} else {
		b = appendf(b, d.times, "%stokens = min(%d, %d + %s × %d) = %d", lateNote(&d, eff), p.Capacity, d.v[0], plural(d.v[1], "fill"), p.TokensPerFill, avail)
	}
	if d.Outcome == Allowed {
		return appendf(b, d.times, " ≥ cost %d → allowed; %d left", d.Cost, avail-d.Cost)
	}
	m := ceilDiv(d.Cost-avail, p.TokensPerFill)
	return appendf(b, d.times, " < cost %d → rejected; %s of %d needed, the last at %s: retry after %s",
		d.Cost, plural(m, "more fill"), p.TokensPerFill, secs(d.At+d.RetryAfter), retryFrom(&d, eff))
}
