package algorithms

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The tests of the interval bucket, a token bucket that starts empty, and
// the envoy-local, redis-cell and redis-rate lanes.

func init() {
	benchPolicies = append(benchPolicies,
		Policy{Algorithm: IntervalBucket, Capacity: 100, TokensPerFill: 10, FillInterval: 100 * ms},
		Policy{Algorithm: EnvoyLocal, MaxTokens: 100, TokensPerFill: 10, FillInterval: 100 * ms},
		Policy{Algorithm: RedisCell, MaxBurst: 99, CountPerPeriod: 100, Period: sec},
		Policy{Algorithm: RedisRate, Burst: 100, Rate: Rate{100, sec}},
	)
	// Envoy refuses a fill_interval below 50ms.
	policyFixups[EnvoyLocal] = func(r *rand.Rand, p *Policy) {
		p.FillInterval = max(p.FillInterval, envoyMinFill+time.Duration(r.Int64N(int64(2*sec))))
	}
	// CL.THROTTLE takes a period in whole seconds.
	policyFixups[RedisCell] = func(r *rand.Rand, p *Policy) {
		p.Period = time.Duration(1+r.Int64N(3)) * sec
		if r.IntN(4) == 0 {
			p.CountPerPeriod = 1 + r.Int64N(2000) // emission intervals that do not divide a second
		}
	}
}

// cstep is one request of a worked example and what it must get.
type cstep struct {
	at    time.Duration
	cost  int64
	o     Outcome
	retry time.Duration
}

func runSteps(t *testing.T, p Policy, steps []cstep) Limiter {
	t.Helper()
	l := mustNew(t, p)
	for i, s := range steps {
		d := l.Decide(s.at, "k", s.cost)
		if d.Outcome != s.o || d.RetryAfter != s.retry {
			t.Fatalf("%v, step %d at %v cost %d: %v retry %v, want %v retry %v: %s", p, i, s.at, s.cost, d.Outcome, d.RetryAfter, s.o, s.retry, d.Explain())
		}
		if err := checkDecision(p, req{s.at, s.cost}, d); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	return l
}

// TestIntervalBucketExamples: a bucket refilled in lumps, as Bucket4j's
// refillIntervally (docs: "Refill intervally": the whole period must pass
// before its tokens are added at once) and Envoy's timer bucket before 1.31
// (source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc,
// onFillTimer: tokens = min(max_tokens, tokens + tokens_per_fill) each
// fill_interval, the first fill one interval after the start).
func TestIntervalBucketExamples(t *testing.T) {
	// Capacity 10, 5 tokens every 1s, starting full at the key's first
	// request, 0.
	p := Policy{Algorithm: IntervalBucket, Capacity: 10, TokensPerFill: 5, FillInterval: sec}
	var burst []cstep
	for range 10 {
		burst = append(burst, cstep{0, 1, Allowed, 0})
	}
	steps := append(burst,
		cstep{0, 1, Rejected, sec},                   // empty: the fill at 1s brings 5
		cstep{999 * ms, 1, Rejected, ms},             // nothing refills between fills
		cstep{999 * ms, 6, Rejected, 2*sec - 999*ms}, // 6 needs two fills: at 2s
		cstep{sec, 5, Allowed, 0},                    // the fill at 1s: 5
		cstep{sec, 1, Rejected, sec},
		cstep{3500 * ms, 10, Allowed, 0}, // fills at 2s and 3s: min(10, 0 + 10)
		cstep{3500 * ms, 11, Rejected, Never},
	)
	l := runSteps(t, p, steps)
	s := l.Snapshot(3700*ms, "k").(IntervalBucketSnapshot)
	want := IntervalBucketSnapshot{Now: 3700 * ms, Capacity: 10, TokensPerFill: 5, FillInterval: sec, Tokens: 0, LastFill: 3 * sec, NextFill: 4 * sec, FullAt: 5 * sec}
	if s != want {
		t.Errorf("snapshot %+v, want %+v", s, want)
	}
	if got := l.Decide(4*sec, "k", 1).Explain(); got != "tokens = min(10, 0 + 1 fill × 5) = 5 ≥ cost 1 → allowed; 4 left" {
		t.Errorf("explanation %q", got)
	}
	if got := l.Decide(4200*ms, "k", 5).Explain(); got != "tokens = 4 (no new fill; the next at 5s) < cost 5 → rejected; 1 more fill of 5 needed, the last at 5s: retry after 0.8s" {
		t.Errorf("explanation %q", got)
	}

	// Fills are counted from the key's first request, here 0.3s: at 1.2s
	// none has come, at 1.3s one.
	runSteps(t, Policy{Algorithm: IntervalBucket, Capacity: 2, TokensPerFill: 1, FillInterval: sec}, []cstep{
		{300 * ms, 2, Allowed, 0}, {1200 * ms, 1, Rejected, 100 * ms}, {1300 * ms, 1, Allowed, 0}, {1300 * ms, 1, Rejected, sec},
	})

	// Starting empty: the first request waits for the first fill.
	runSteps(t, Policy{Algorithm: IntervalBucket, Capacity: 10, TokensPerFill: 5, FillInterval: sec, StartsEmpty: true}, []cstep{
		{0, 1, Rejected, sec}, {500 * ms, 7, Rejected, 1500 * ms}, {sec, 5, Allowed, 0}, {sec, 1, Rejected, sec}, {5 * sec, 10, Allowed, 0},
	})
}

// TestTokenBucketStartsEmpty: the lessons' empty bucket, Guava's
// SmoothBursty (RateLimiter.create(permitsPerSecond) stores no permits at
// first: guava/src/com/google/common/util/concurrent/SmoothRateLimiter.java,
// storedPermits = 0 until the limiter has been idle).
func TestTokenBucketStartsEmpty(t *testing.T) {
	p := Policy{Algorithm: TokenBucket, Capacity: 10, Rate: Rate{2, sec}, StartsEmpty: true}
	runSteps(t, p, []cstep{
		{0, 1, Rejected, 500 * ms}, // 0 tokens: one refills in 0.5s
		{250 * ms, 1, Rejected, 250 * ms},
		{500 * ms, 1, Allowed, 0},
		{5 * sec, 9, Allowed, 0}, // 9 refilled since 0.5s
		{10 * sec, 11, Rejected, Never},
		{10 * sec, 10, Allowed, 0}, // full after 5s idle
	})
	if s := mustNew(t, p).Snapshot(2*sec, "new").(TokenBucketSnapshot); s.Available != (Quantity{0, 1e9}) || s.FullAt != 7*sec {
		t.Errorf("a new key's snapshot %+v, want 0 tokens, full at 7s", s)
	}
	if w := p.String(); w != "token-bucket capacity 10, rate 2/s, starting empty" {
		t.Errorf("String() = %q", w)
	}
}

// TestStartsEmptyIsADrainedBucket: a bucket that starts empty decides
// every request exactly as the same bucket starting full whose capacity
// was all spent at the key's first instant, for the token bucket and the
// interval bucket, on random traces.
func TestStartsEmptyIsADrainedBucket(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, alg := range []Algorithm{TokenBucket, IntervalBucket} {
		for range 200 {
			p := randPolicy(r, alg)
			p.StartsEmpty = false
			full := p
			p.StartsEmpty = true
			reqs := randTrace(r, p, 120, r.IntN(4) == 0)
			if len(reqs) == 0 {
				continue
			}
			e, f := mustNew(t, p), mustNew(t, full)
			if d := f.Decide(reqs[0].at, "k", full.MaxCost()); d.Outcome != Allowed {
				t.Fatalf("%v: a full bucket rejects its capacity: %s", full, d.Explain())
			}
			for i, rq := range reqs {
				de, df := e.Decide(rq.at, "k", rq.cost), f.Decide(rq.at, "k", rq.cost)
				if de.Outcome != df.Outcome || de.RetryAfter != df.RetryAfter {
					t.Fatalf("%v, request %d at %v cost %d:\n empty:   %s\n drained: %s", p, i, rq.at, rq.cost, de.Explain(), df.Explain())
				}
			}
		}
	}
}

// TestEnvoyLocalExamples restates Envoy's own test of the atomic bucket
// (test/extensions/filters/common/local_ratelimit/local_ratelimit_test.cc,
// LocalRateLimiterImplTest.AtomicTokenBucket: fill_interval 200ms,
// max_tokens 1, tokens_per_fill 1), then what continuous refill means
// between fills, and the 50ms floor (TooFastFillRate).
func TestEnvoyLocalExamples(t *testing.T) {
	p := Policy{Algorithm: EnvoyLocal, MaxTokens: 1, TokensPerFill: 1, FillInterval: 200 * ms}
	runSteps(t, p, []cstep{
		{0, 1, Allowed, 0}, {0, 1, Rejected, 200 * ms}, {0, 1, Rejected, 200 * ms}, // 1 -> 0 tokens
		{200 * ms, 1, Allowed, 0}, {200 * ms, 1, Rejected, 200 * ms}, // 0 -> 1 -> 0
		{600 * ms, 1, Allowed, 0}, {600 * ms, 1, Rejected, 200 * ms}, // 0 -> 1 -> 1 (full) -> 0
	})
	// Continuous: max_tokens 4, 2 per 1s; half a second after a burst of 4,
	// one token is back, where the timer bucket (interval-bucket) would
	// still hold none until 1s.
	q := Policy{Algorithm: EnvoyLocal, MaxTokens: 4, TokensPerFill: 2, FillInterval: sec}
	l := runSteps(t, q, []cstep{{0, 4, Allowed, 0}, {250 * ms, 1, Rejected, 250 * ms}, {500 * ms, 1, Allowed, 0}, {600 * ms, 2, Rejected, 900 * ms}})
	if s := l.Snapshot(750*ms, "k").(TokenBucketSnapshot); s.Available != (Quantity{5e8, 1e9}) || s.Capacity != 4 {
		t.Errorf("snapshot %+v, want 0.5 of 4", s)
	}
	timer := Policy{Algorithm: IntervalBucket, Capacity: 4, TokensPerFill: 2, FillInterval: sec}
	runSteps(t, timer, []cstep{{0, 4, Allowed, 0}, {500 * ms, 1, Rejected, 500 * ms}, {sec, 2, Allowed, 0}})

	d := mustNew(t, q).Decide(0, "k", 5)
	if got := d.Explain(); got != "cost 5 > max_tokens 4 → rejected; this request can never fit" {
		t.Errorf("explanation %q", got)
	}
	l = mustNew(t, q)
	l.Decide(0, "k", 4)
	if got := l.Decide(250*ms, "k", 1).Explain(); got != "tokens = min(max_tokens 4, 0 + 0.25s × 2/1s) = 0.5 < cost 1 → rejected, 429 with no Retry-After; it would fit after (1 − 0.5) / 2/1s = 0.25s (Envoy 1.31 on refills continuously; its old timer added 2 at once every 1s; token_bucket_impl.cc)" {
		t.Errorf("explanation %q", got)
	}
	if err := (Policy{Algorithm: EnvoyLocal, MaxTokens: 100, TokensPerFill: 1, FillInterval: 49 * ms}).Validate(); err == nil || !strings.Contains(err.Error(), "50ms") {
		t.Errorf("fill_interval 49ms: %v, want Envoy's refusal", err)
	}
}

// TestRedisCellExamples restates redis-cell's own table
// (redis-cell-impl/src/lib.rs, tests::it_rate_limits: max_burst 4, 1 per
// second, so limit 5) through the lane and the reply it would give
// (replyOf), exact before CL.THROTTLE rounds it (redis-cell/src/lib.rs).
func TestRedisCellExamples(t *testing.T) {
	p := Policy{Algorithm: RedisCell, MaxBurst: 4, CountPerPeriod: 1, Period: sec}
	l := mustNew(t, p)
	never := -sec
	for i, c := range []struct {
		at          time.Duration
		quantity    int64
		remaining   int64
		reset       time.Duration
		retry       time.Duration
		limited     bool
		retryHeader int64
	}{
		{0, 6, 5, 0, never, true, -1}, // a request larger than the limit never fits
		{0, 1, 4, sec, never, false, -1},
		{0, 1, 3, 2 * sec, never, false, -1},
		{0, 1, 2, 3 * sec, never, false, -1},
		{0, 1, 1, 4 * sec, never, false, -1},
		{0, 1, 0, 5 * sec, never, false, -1},
		{0, 1, 0, 5 * sec, sec, true, 1},
		{3000 * ms, 1, 2, 3000 * ms, never, false, -1},
		{3100 * ms, 1, 1, 3900 * ms, never, false, -1},
		{4000 * ms, 1, 1, 4000 * ms, never, false, -1},
		{8000 * ms, 1, 4, 1000 * ms, never, false, -1},
		{9500 * ms, 1, 4, 1000 * ms, never, false, -1},
		{9500 * ms, 2, 2, 3 * sec, never, false, -1},
		{9500 * ms, 5, 2, 3 * sec, 3 * sec, true, 3},
	} {
		d := l.Decide(c.at, "k", c.quantity)
		r := replyOf(&d)
		if r.limited != c.limited || r.limit != 5 || r.remaining != c.remaining || r.reset != c.reset || r.retry != c.retry || cellSeconds(r.retry) != c.retryHeader {
			t.Errorf("case %d at %v quantity %d: reply %+v, want limited %v remaining %d reset %v retry %v: %s", i, c.at, c.quantity, r, c.limited, c.remaining, c.reset, c.retry, d.Explain())
		}
		if c.limited && c.retry > 0 && d.RetryAfter != c.retry {
			t.Errorf("case %d: RetryAfter %v, want %v", i, d.RetryAfter, c.retry)
		}
	}
	// Its peek (quantity 0) at 9.5s, after case 11, says remaining 4: the
	// snapshot's Remaining is that peek.
	l2 := mustNew(t, p)
	l2.Decide(9500*ms, "k", 1)
	if s := l2.Snapshot(9500*ms, "k").(RedisCellSnapshot); s.Remaining != 4 || s.Limit != 5 || s.TAT != 10500*ms || s.Available != (Quantity{4e9, 1e9}) {
		t.Errorf("peek %+v, want remaining 4 of 5", s)
	}
	d := mustNew(t, p).Decide(0, "k", 1)
	if got := d.Explain(); got != "T = 1s; DVT = T × (max_burst 4 + 1) = 5s; allow_at = max(tat 0s, now 0s) + 1×T − DVT = -4s ≤ now → allowed; CL.THROTTLE replies [0, limit 5, remaining 4, retry_after -1, reset_after 1] (redis-cell lib.rs)" {
		t.Errorf("explanation %q", got)
	}
}

// TestBurstTenAdmitsEleven: at one instant redis-cell's max_burst 10 admits
// 11 (its limit is max_burst + 1: RateLimiter::new sets the DVT to T ×
// (max_burst + 1)), redis_rate's burst 10 admits 10 (lua.go: burst_offset =
// emission_interval × burst), and GCRA's burst 10 admits 10.
func TestBurstTenAdmitsEleven(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want int
	}{
		{Policy{Algorithm: RedisCell, MaxBurst: 10, CountPerPeriod: 10, Period: sec}, 11},
		{Policy{Algorithm: RedisCell, CountPerPeriod: 10, Period: sec}, 1}, // max_burst left out: 0, one at a time
		{Policy{Algorithm: RedisRate, Burst: 10, Rate: Rate{10, sec}}, 10},
		{Policy{Algorithm: GCRA, Burst: 10, Rate: Rate{10, sec}}, 10},
	} {
		l := mustNew(t, c.p)
		got := 0
		for range 20 {
			if l.Decide(sec, "k", 1).Outcome == Allowed {
				got++
			}
		}
		if got != c.want {
			t.Errorf("%v: %d admitted at one instant, want %d", c.p, got, c.want)
		}
		if d := l.Decide(sec, "k", 1); d.RetryAfter != 100*ms {
			t.Errorf("%v: the next waits %v, want one emission interval 0.1s: %s", c.p, d.RetryAfter, d.Explain())
		}
	}
}

// TestRedisCellRetryRounding: CL.THROTTLE rounds retry_after and
// reset_after up to a whole second only when their fraction holds a whole
// millisecond (redis-cell/src/lib.rs: whole_seconds, + 1 if
// subsec_milliseconds > 0). A wait of 1.0004s is reported as 1: a client
// that waits 1s is rejected again, and told to retry after 0.
func TestRedisCellRetryRounding(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{
		{0, 0}, {-sec, -1}, {sec, 1}, {sec + 400*time.Microsecond, 1}, {sec + ms, 2}, {sec + 999*time.Microsecond, 1},
		{400 * time.Microsecond, 0}, {ms, 1}, {2500 * ms, 3}, {-500 * ms, 0},
	} {
		if got := cellSeconds(c.d); got != c.want {
			t.Errorf("cellSeconds(%v) = %d, want %d", c.d, got, c.want)
		}
	}
	// max_burst 0, 1 per 2s: the request at 0 sets tat = 2s.
	p := Policy{Algorithm: RedisCell, CountPerPeriod: 1, Period: 2 * sec}
	l := mustNew(t, p)
	l.Decide(0, "k", 1)
	early := 999600 * time.Microsecond
	d := l.Decide(early, "k", 1)
	if r := replyOf(&d); d.RetryAfter != sec+400*time.Microsecond || cellSeconds(r.retry) != 1 || d.RetryAfterSeconds() != 2 {
		t.Fatalf("at %v: retry %v, reply %d: %s", early, d.RetryAfter, cellSeconds(r.retry), d.Explain())
	}
	d = l.Decide(early+sec, "k", 1) // the client believed retry_after 1
	if r := replyOf(&d); d.Outcome != Rejected || d.RetryAfter != 400*time.Microsecond || cellSeconds(r.retry) != 0 {
		t.Fatalf("a second later: %v retry %v, reply %d: %s", d.Outcome, d.RetryAfter, cellSeconds(r.retry), d.Explain())
	}
	if !strings.Contains(d.Explain(), "retry_after 0,") {
		t.Errorf("explanation %q does not show the reply's retry_after 0", d.Explain())
	}
	if d := l.Decide(2*sec, "k", 1); d.Outcome != Allowed {
		t.Errorf("at 2s: %s", d.Explain())
	}
}

// TestRedisCellTruncatesTheInterval: 3 per second makes T = 333333333ns
// (Rate::per_period truncates), a hair faster than 3/s: the second request
// of max_burst 0 fits at 333333333ns, where the exact GCRA (T = ⅓s) still
// waits ⅓ns.
func TestRedisCellTruncatesTheInterval(t *testing.T) {
	third := 333333333 * time.Nanosecond
	runSteps(t, Policy{Algorithm: RedisCell, CountPerPeriod: 3, Period: sec}, []cstep{{0, 1, Allowed, 0}, {third, 1, Allowed, 0}, {third, 1, Rejected, third}})
	runSteps(t, Policy{Algorithm: GCRA, Burst: 1, Rate: Rate{3, sec}}, []cstep{{0, 1, Allowed, 0}, {third, 1, Rejected, 1}})
}

// TestRedisRateExamples restates redis_rate's TestAllow (rate_test.go:
// PerSecond(10), burst 10) at one instant, where its ResetAfter is exact
// (its test allows 10ms for the time the calls take).
func TestRedisRateExamples(t *testing.T) {
	l := mustNew(t, Policy{Algorithm: RedisRate, Burst: 10, Rate: Rate{10, sec}})
	for i, c := range []struct {
		cost, allowed, remaining int64
		reset                    time.Duration
	}{{1, 1, 9, 100 * ms}, {2, 2, 7, 300 * ms}, {7, 7, 0, sec}} {
		d := l.Decide(0, "k", c.cost)
		r := rateReplyOf(&d)
		if d.Outcome != Allowed || r.allowed != c.allowed || r.remaining != c.remaining || r.reset != at(c.reset) {
			t.Errorf("call %d: %+v, want allowed %d remaining %d reset %v: %s", i, r, c.allowed, c.remaining, c.reset, d.Explain())
		}
	}
	// AllowN(1000) on burst 10: redis_rate answers RetryAfter ≈ 99s (990 ×
	// 0.1s − the 0.999s TAT ahead in its test), though 1000 never fits;
	// the lane says Never.
	if d := l.Decide(0, "k", 1000); d.RetryAfter != Never {
		t.Errorf("cost 1000: retry %v, want Never", d.RetryAfter)
	}
	d := l.Decide(50*ms, "k", 1)
	if r := rateReplyOf(&d); d.RetryAfter != 50*ms || r.retry != at(50*ms) || r.reset != at(950*ms) {
		t.Errorf("at 50ms: retry %v, reply %+v: %s", d.RetryAfter, r, d.Explain())
	}
	if got := d.Explain(); got != "emission_interval T = 1s/10 = 0.1s; allow_at = max(tat 1s, now 0.05s) + 1×T − burst 10×T = 0.1s > now → rejected; retry after 0.05s; Result{Allowed 0, Remaining 0, RetryAfter 0.05s, ResetAfter 0.95s} (redis_rate lua.go)" {
		t.Errorf("explanation %q", got)
	}
}

// TestLibraryLanesMatchTheirTextbookTwins: on random traces envoy-local
// decides as the token bucket of capacity max_tokens refilled
// tokens_per_fill per fill_interval (with timer, as the interval bucket of
// the same lumps, for keys first seen at 0); redis-rate as GCRA of the same burst
// and rate; redis-cell as GCRA of burst max_burst + 1 at one request per
// its truncated emission interval. Each also keeps every decision's
// invariants, and its retry-afters are exact.
func TestLibraryLanesMatchTheirTextbookTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 14))
	for _, alg := range []Algorithm{EnvoyLocal, RedisRate, RedisCell} {
		t.Run(string(alg), func(t *testing.T) {
			var counts [3]int
			for range shortened(150) {
				p := randPolicy(r, alg)
				reqs := randTrace(r, p, 150, r.IntN(4) == 0)
				if p.Timer {
					// Envoy's timer counts fills from 0, the interval
					// bucket from the key's first request: start both at 0.
					reqs = append([]req{{0, 1}}, reqs...)
				}
				for _, d := range run(mustNew(t, p), reqs) {
					counts[d.Outcome]++
				}
				if err := checkTwin(p, reqs); err != nil {
					t.Fatalf("%v: %v", p, err)
				}
			}
			if counts[Allowed] == 0 || counts[Rejected] == 0 {
				t.Errorf("outcomes %v: traces too tame", counts)
			}
		})
	}
}

// TestLibraryWordsNameTheirRule: each lane's why text names its library's
// own terms.
func TestLibraryWordsNameTheirRule(t *testing.T) {
	for _, c := range []struct {
		p     Policy
		words []string
	}{
		{Policy{Algorithm: RedisCell, MaxBurst: 10, CountPerPeriod: 10, Period: sec}, []string{"DVT", "max_burst 10", "CL.THROTTLE replies", "limit 11", "lib.rs"}},
		{Policy{Algorithm: RedisRate, Burst: 10, Rate: Rate{10, sec}}, []string{"emission_interval", "burst 10", "Result{", "lua.go"}},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 10, TokensPerFill: 1, FillInterval: 100 * ms}, []string{"max_tokens 10", "continuously", "token_bucket_impl.cc"}},
	} {
		l := mustNew(t, c.p)
		ex := l.Decide(0, "k", 1).Explain()
		for range 12 {
			if d := l.Decide(0, "k", 1); d.Outcome == Rejected {
				ex += " | " + d.Explain()
			}
		}
		ex += " | " + Describe(c.p.Algorithm).Words(c.p)
		for _, w := range c.words {
			if !strings.Contains(ex, w) {
				t.Errorf("%v: %q lacks %q", c.p, ex, w)
			}
		}
		if Describe(c.p.Algorithm).Family != Library || !strings.Contains(Describe(c.p.Algorithm).Source, ".") {
			t.Errorf("%s: family %v, source %q", c.p.Algorithm, Describe(c.p.Algorithm).Family, Describe(c.p.Algorithm).Source)
		}
	}
}

// twinOf is the textbook policy a library lane decides exactly as.
func twinOf(p Policy) Policy {
	switch p.Algorithm {
	case EnvoyLocal:
		if p.Timer {
			return envoyAsInterval(p) // equal when the key's first request is at 0
		}
		return Policy{Algorithm: TokenBucket, Capacity: p.MaxTokens, Rate: Rate{p.TokensPerFill, p.FillInterval}}
	case RedisRate:
		return Policy{Algorithm: GCRA, Burst: p.Burst, Rate: p.Rate}
	}
	return Policy{Algorithm: GCRA, Burst: p.MaxBurst + 1, Rate: Rate{1, cellInterval(p)}}
}

// checkTwin runs reqs through p and its twin and reports the first request
// they decide differently, or a decision that breaks the invariants.
func checkTwin(p Policy, reqs []req) error {
	l, err := New(p)
	if err != nil {
		return err
	}
	tw, err := New(twinOf(p))
	if err != nil {
		return fmt.Errorf("twin %v: %v", twinOf(p), err)
	}
	for i, rq := range reqs {
		d, w := l.Decide(rq.at, "k", rq.cost), tw.Decide(rq.at, "k", rq.cost)
		if err := checkDecision(p, rq, d); err != nil {
			return fmt.Errorf("request %d: %v", i, err)
		}
		if d.Outcome != w.Outcome || d.RetryAfter != w.RetryAfter {
			return fmt.Errorf("request %d at %v cost %d:\n lane: %s\n twin: %s", i, rq.at, rq.cost, d.Explain(), w.Explain())
		}
		_ = l.Snapshot(rq.at, "k")
	}
	return checkRetryExact(p, reqs)
}

// fuzzLibrary builds a valid policy of a library lane from three numbers,
// up to the extremes its check allows, and checks it against its twin.
func fuzzLibrary(f *testing.F, alg Algorithm) {
	busy := []byte{0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 1, 0, 3, 1, 0, 0, 0, 1, 6, 3, 0, 1, 7, 0, 4, 0, 8, 3, 2, 0, 0, 0, 0, 0, 0, 0}
	f.Add(uint64(3<<6|2), uint64(1000<<6|10), uint64(2<<6|2), busy)
	f.Add(uint64(10<<6|4), uint64(1<<6|1), uint64(3<<6|2), busy)
	f.Add(uint64(63), uint64(63), uint64(63), busy)
	f.Add(uint64(0), uint64(0), uint64(0), busy)
	f.Fuzz(func(t *testing.T, a, b, c uint64, data []byte) {
		size := pick(a, 40)
		var p Policy
		switch alg {
		case EnvoyLocal:
			every := max(envoyMinFill, time.Duration(min(pick(b, 62), maxScaled/size)))
			p = Policy{Algorithm: alg, MaxTokens: min(size, maxScaled/int64(every)), TokensPerFill: pick(c, 40), FillInterval: every}
		case RedisRate:
			p = Policy{Algorithm: alg, Burst: size, Rate: Rate{N: pick(c, 31), Per: time.Duration(min(pick(b, 62), maxScaled/size))}}
		case RedisCell:
			period := time.Duration(min(pick(b, 32), maxScaled/int64(sec)/(size+1))) * sec
			p = Policy{Algorithm: alg, MaxBurst: size - 1, CountPerPeriod: min(pick(c, 40), int64(period)), Period: period}
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("made an invalid policy %+v: %v", p, err)
		}
		if err := checkTwin(p, fuzzTrace(p, data)); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
	})
}

func FuzzEnvoyLocal(f *testing.F) { fuzzLibrary(f, EnvoyLocal) }
func FuzzRedisRate(f *testing.F)  { fuzzLibrary(f, RedisRate) }
func FuzzRedisCell(f *testing.F)  { fuzzLibrary(f, RedisCell) }

// TestCellSnapshotUnseenKey: a key never seen is shown as a fresh one at
// now (full, or empty when it starts so), without making state.
func TestCellSnapshotUnseenKey(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want Snapshot
	}{
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: sec},
			IntervalBucketSnapshot{Now: 2500 * ms, Capacity: 3, TokensPerFill: 1, FillInterval: sec, Tokens: 3, LastFill: 2500 * ms, NextFill: 3500 * ms, FullAt: 2500 * ms}},
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 2, FillInterval: sec, StartsEmpty: true},
			IntervalBucketSnapshot{Now: 2500 * ms, Capacity: 3, TokensPerFill: 2, FillInterval: sec, Tokens: 0, LastFill: 2500 * ms, NextFill: 3500 * ms, FullAt: 4500 * ms}},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 3, FillInterval: sec},
			TokenBucketSnapshot{Now: 2500 * ms, Capacity: 3, Rate: Rate{3, sec}, Available: Quantity{3e9, 1e9}, FullAt: 2500 * ms}},
		{Policy{Algorithm: RedisRate, Burst: 3, Rate: Rate{3, sec}},
			GCRASnapshot{Now: 2500 * ms, Burst: 3, Rate: Rate{3, sec}, Interval: Quantity{1e9, 3}, Tolerance: Quantity{3e9, 3}, TAT: 2500 * ms, Available: Quantity{3e9, 1e9}}},
		{Policy{Algorithm: RedisCell, MaxBurst: 2, CountPerPeriod: 3, Period: sec},
			RedisCellSnapshot{Now: 2500 * ms, MaxBurst: 2, CountPerPeriod: 3, Period: sec, Limit: 3, Interval: 333333333, Tolerance: 999999999, TAT: 2500 * ms, Available: Quantity{999999999, 333333333}, Remaining: 3}},
	} {
		l := mustNew(t, c.p)
		l.Decide(0, "seen", 1)
		if got := l.Snapshot(2500*ms, "unseen"); got != c.want {
			t.Errorf("%v unseen key:\n got  %+v\n want %+v", c.p, got, c.want)
		}
		if k := l.(interface{ keys() int }).keys(); k != 1 {
			t.Errorf("%v: Snapshot of an unseen key made state: %d keys", c.p, k)
		}
	}
}
