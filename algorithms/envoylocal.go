package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// EnvoyLocal: Envoy's local rate limit filter as current Envoy (1.31 on)
// decides: a token bucket of MaxTokens, starting full, refilled
// continuously at TokensPerFill per FillInterval (its fill rate,
// tokens_per_fill ÷ fill_interval); a request of cost c (hits_addend) is
// admitted iff the balance ≥ c, which is then spent. RetryAfter: (c −
// balance) ÷ fill rate, rounded up to a nanosecond. Envoy keeps the bucket
// as a double timestamp and computes in seconds as doubles; this lane
// decides exactly (in tokens × fill_interval), which can differ from Envoy
// only at a boundary, by a double's rounding. Envoy before 1.31 (and up to
// its removal, with the runtime guard
// envoy.reloadable_features.no_timer_based_rate_limit_token_bucket false)
// refilled on a timer, tokens_per_fill at once every fill_interval, one
// timer for every bucket from the filter's start: with Timer (`timer:
// true`) the lane does that, the interval bucket's lumps counted from t = 0.
// Envoy refuses a fill_interval below 50ms.
const EnvoyLocal Algorithm = "envoy-local"

// MaxTokensParam is Envoy's bucket size.
var MaxTokensParam = Param{Name: "max_tokens", Kind: Count, Amount: true, Want: "a positive whole number of tokens (the bucket's size and its start)",
	field: func(p *Policy) any { return &p.MaxTokens }}

// TimerParam makes the lane Envoy's timer bucket, before 1.31.
var TimerParam = Param{Name: "timer", Kind: Flag, Want: "true or false",
	field: func(p *Policy) any { return &p.Timer }}

// envoyMinFill is the shortest fill_interval Envoy accepts.
const envoyMinFill = 50 * time.Millisecond

func init() {
	register(Description{
		Algorithm:    EnvoyLocal,
		explain:      explainEnvoy,
		Family:       Library,
		NoRetryAfter: true, // it answers 429 with x-envoy-ratelimited, not Retry-After
		Source:       "Envoy source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc with source/common/common/token_bucket_impl.cc (AtomicTokenBucketImpl)",
		Params: []Param{MaxTokensParam, TokensPerFillParam, FillIntervalParam,
			Optional(TimerParam, "true for Envoy before 1.31, which added tokens_per_fill at once every fill_interval on one timer from t = 0; false or left out, the continuous refill of Envoy 1.31 on")},
		Size: "max_tokens",
		Rule: "fill rate = tokens_per_fill / fill_interval; admitted iff min(max_tokens, tokens + elapsed × fill rate) ≥ c, then c is spent; starts full (timer: tokens_per_fill at once at each k × fill_interval instead)",
		Words: func(p Policy) string {
			how := " refilled continuously (Envoy 1.31 on)"
			if p.Timer {
				how = " added at once by its fill timer (Envoy before 1.31)"
			}
			return "Envoy local rate limit: max_tokens " + strconv.FormatInt(p.MaxTokens, 10) + ", " + strconv.FormatInt(p.TokensPerFill, 10) +
				" per " + FormatSeconds(p.FillInterval) + how + "; a request spends its cost"
		},
		Line: func(p Policy) string {
			timer := ""
			if p.Timer {
				timer = ", timer"
			}
			return fmt.Sprintf("%s max_tokens %d, %d per %s%s", p.Algorithm, p.MaxTokens, p.TokensPerFill, FormatDuration(p.FillInterval), timer)
		},
		CostBound: func(p Policy) string { return fmt.Sprintf("it holds at most max_tokens, %d tokens", p.MaxTokens) },
		Horizon: func(p Policy) time.Duration {
			return time.Duration(ceilDiv(p.MaxTokens*int64(p.FillInterval), p.TokensPerFill))
		},
		check: func(p Policy) error {
			if err := checkLumps("max_tokens", p.MaxTokens, p.TokensPerFill, p.FillInterval); err != nil {
				return err
			}
			if p.FillInterval < envoyMinFill {
				return fmt.Errorf("fill_interval %s: Envoy refuses one below 50ms", FormatDuration(p.FillInterval))
			}
			return nil
		},
		StateFor: envoyForm,
		Examples: []Example{
			{Name: "envoy", Policy: Policy{Algorithm: EnvoyLocal, MaxTokens: 10, TokensPerFill: 2, FillInterval: time.Second}},
			{Name: "envoy", Policy: Policy{Algorithm: EnvoyLocal, MaxTokens: 10, TokensPerFill: 2, FillInterval: time.Second, Timer: true}},
		},
		Edges: []Policy{
			{Algorithm: EnvoyLocal, MaxTokens: 5, TokensPerFill: 3, FillInterval: 700 * time.Millisecond},
			{Algorithm: EnvoyLocal, MaxTokens: 5, TokensPerFill: 3, FillInterval: 700 * time.Millisecond, Timer: true},
			{Algorithm: EnvoyLocal, MaxTokens: 1, TokensPerFill: 1, FillInterval: 50 * time.Millisecond},
			{Algorithm: EnvoyLocal, MaxTokens: 1, TokensPerFill: 1, FillInterval: 50 * time.Millisecond, Timer: true},
			{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 7, FillInterval: time.Second},
			{Algorithm: EnvoyLocal, MaxTokens: 40, TokensPerFill: 7, FillInterval: time.Minute, Timer: true},
		},
		new: func(p Policy, ks *Keys) Limiter {
			if p.Timer {
				return newKeyed[intervalBucketState](envoyTimer(p), ks)
			}
			return newKeyed[tokenBucketState](envoyLocal(p), ks)
		},
	})
}

// envoyForm is the form of the bucket p runs: the token bucket's (its
// balance in tokens × fill_interval in ns, and the last request's time), or
// with Timer the timer bucket's (whole tokens and the last request's time;
// the fills are counted from t = 0).
func envoyForm(p Policy) StateForm {
	if p.Timer {
		return timerBucketForm
	}
	return tokenBucketForm
}

// envoyLocal is the token bucket of capacity MaxTokens at TokensPerFill per
// FillInterval, with Envoy's names and why text.
func envoyLocal(p Policy) *renamed[tokenBucketState] {
	tb := newTokenBucket(Policy{Algorithm: TokenBucket, Capacity: p.MaxTokens, Rate: Rate{N: p.TokensPerFill, Per: p.FillInterval}})
	return &renamed[tokenBucketState]{p: p, alg: tb, explain: explainEnvoyLocal}
}

// explainEnvoy words a decision of either of Envoy's buckets: its timer
// (explainEnvoyTimer) or its continuous refill. It is the description's
// explain, which words a stack's layers.
func explainEnvoy(b []byte, d Decision) []byte {
	if d.policy.Timer {
		return explainEnvoyTimer(b, d)
	}
	return explainEnvoyLocal(b, d)
}

// explainEnvoyLocal: v as the token bucket's, balances × fill_interval.
func explainEnvoyLocal(b []byte, d Decision) []byte {
	p := d.policy
	per := int64(p.FillInterval)
	eff := time.Duration(d.v[3])
	b = appendf(b, d.times, "%stokens = min(max_tokens %d, %s + %s × %d/%s) = %s", lateNote(&d, eff),
		p.MaxTokens, exact(d.v[0], per), secs(time.Duration(d.v[1])), p.TokensPerFill, secs(p.FillInterval), exact(d.v[2], per))
	if d.Outcome == Allowed {
		return appendf(b, d.times, " ≥ cost %d → allowed; %s left (Envoy token_bucket_impl.cc)", d.Cost, exact(d.v[2]-d.Cost*per, per))
	}
	return appendf(b, d.times, " < cost %d → rejected, 429 with no Retry-After; it would fit after (%d − %s) / %d/%s = %s (Envoy 1.31 on refills continuously; its old timer added %d at once every %s; token_bucket_impl.cc)",
		d.Cost, d.Cost, exact(d.v[2], per), p.TokensPerFill, secs(p.FillInterval), retryFrom(&d, eff), p.TokensPerFill, secs(p.FillInterval))
}

// envoyTimer is Envoy's local rate limit before 1.31: the interval bucket
// of MaxTokens, starting full, whose fills of TokensPerFill come from one
// timer every FillInterval since the filter started (t = 0), for every key
// alike.
func envoyTimer(p Policy) *renamed[intervalBucketState] {
	ib := newIntervalBucket(envoyAsInterval(p))
	ib.fromZero = true
	return &renamed[intervalBucketState]{p: p, alg: ib, explain: explainEnvoyTimer}
}

// envoyAsInterval is the interval bucket an Envoy timer policy runs.
func envoyAsInterval(p Policy) Policy {
	return Policy{Algorithm: IntervalBucket, Capacity: p.MaxTokens, TokensPerFill: p.TokensPerFill, FillInterval: p.FillInterval}
}

// explainEnvoyTimer is the interval bucket's words on Envoy's numbers.
func explainEnvoyTimer(b []byte, d Decision) []byte {
	q := envoyAsInterval(*d.policy)
	in := d
	in.policy = &q
	b = explainIntervalBucket(b, in)
	if d.Outcome == Rejected {
		b = append(b, " (429, no Retry-After)"...)
	}
	return append(b, " (Envoy before 1.31: one fill timer from the filter's start; local_ratelimit_impl.cc)"...)
}
