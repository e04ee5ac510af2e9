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
// refilled on a timer, tokens_per_fill at once every fill_interval: that is
// the interval-bucket lane. Envoy refuses a fill_interval below 50ms.
const EnvoyLocal Algorithm = "envoy-local"

// MaxTokensParam is Envoy's bucket size.
var MaxTokensParam = Param{Name: "max_tokens", Kind: Count, Want: "a positive whole number of tokens (the bucket's size and its start)",
	field: func(p *Policy) any { return &p.MaxTokens }}

// envoyMinFill is the shortest fill_interval Envoy accepts.
const envoyMinFill = 50 * time.Millisecond

func init() {
	register(Description{
		Algorithm:    EnvoyLocal,
		Family:       Library,
		NoRetryAfter: true, // it answers 429 with x-envoy-ratelimited, not Retry-After
		Source:       "Envoy source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc with source/common/common/token_bucket_impl.cc (AtomicTokenBucketImpl)",
		Params:       []Param{MaxTokensParam, TokensPerFillParam, FillIntervalParam},
		Size:         "max_tokens",
		Rule:         "fill rate = tokens_per_fill / fill_interval; admitted iff min(max_tokens, tokens + elapsed × fill rate) ≥ c, then c is spent; starts full",
		Words: func(p Policy) string {
			return "Envoy local rate limit: max_tokens " + strconv.FormatInt(p.MaxTokens, 10) + ", " + strconv.FormatInt(p.TokensPerFill, 10) +
				" per " + FormatSeconds(p.FillInterval) + " refilled continuously (Envoy 1.31 on); a request spends its cost"
		},
		Line: func(p Policy) string {
			return fmt.Sprintf("%s max_tokens %d, %d per %s", p.Algorithm, p.MaxTokens, p.TokensPerFill, FormatDuration(p.FillInterval))
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
		new: func(p Policy, ks *Keys) Limiter { return newKeyed[tokenBucketState](newEnvoyLocal(p), ks) },
	})
}

// envoyLocal is the token bucket of capacity MaxTokens at TokensPerFill per
// FillInterval, with Envoy's names and why text.
type envoyLocal struct {
	p  Policy
	tb *tokenBucket
}

func newEnvoyLocal(p Policy) *envoyLocal {
	return &envoyLocal{p: p, tb: newTokenBucket(Policy{Algorithm: TokenBucket, Capacity: p.MaxTokens,
		Rate: Rate{N: p.TokensPerFill, Per: p.FillInterval}})}
}

func (e *envoyLocal) policy() *Policy { return &e.p }

func (e *envoyLocal) start(now time.Duration) tokenBucketState { return e.tb.start(now) }

func (e *envoyLocal) decide(s *tokenBucketState, m *mem, now time.Duration, cost int64) Decision {
	d := e.tb.decide(s, m, now, cost)
	d.policy, d.explain = &e.p, explainEnvoyLocal
	return d
}

func (e *envoyLocal) snapshot(s tokenBucketState, now time.Duration) Snapshot {
	return e.tb.snapshot(s, now)
}

func (e *envoyLocal) clone(s *tokenBucketState, _ *mem) tokenBucketState { return *s }

func (e *envoyLocal) tables(*tokenBucketState) int64 { return 0 }

// explainEnvoyLocal: v as the token bucket's, balances × fill_interval.
func explainEnvoyLocal(d *Decision) string {
	p := d.policy
	per := int64(p.FillInterval)
	eff := time.Duration(d.v[3])
	rate := fmt.Sprintf("%d/%s", p.TokensPerFill, FormatSeconds(p.FillInterval))
	head := fmt.Sprintf("%stokens = min(max_tokens %d, %s + %s × %s) = %s", lateNote(d, eff),
		p.MaxTokens, exactish(d.v[0], per), FormatSeconds(time.Duration(d.v[1])), rate, exactish(d.v[2], per))
	if d.Outcome == Allowed {
		return fmt.Sprintf("%s ≥ cost %d → allowed; %s left (Envoy token_bucket_impl.cc)", head, d.Cost, exactish(d.v[2]-d.Cost*per, per))
	}
	return fmt.Sprintf("%s < cost %d → rejected, 429 with no Retry-After; it would fit after (%d − %s) / %s = %s (Envoy 1.31 on refills continuously; its old timer added %d at once every %s; token_bucket_impl.cc)",
		head, d.Cost, d.Cost, exactish(d.v[2], per), rate, retryFrom(d, eff), p.TokensPerFill, FormatSeconds(p.FillInterval))
}
