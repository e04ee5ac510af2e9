package algorithms

import (
	"fmt"
	"slices"
	"time"
)

// Algorithm names a limiter, as written in scenario files.
type Algorithm string

// Algorithms lists every algorithm in the order the documentation presents
// them: the six textbook algorithms, then the variants, the libraries' rules
// and the mistakes, each family by name. Each is declared in its own file,
// with its rule on its constant and its Description registered there
// (Describe), which adds it here. Each rule is stated for one
// key, a request of cost c at time now; a rejection changes no count or
// balance, and its RetryAfter is the shortest wait after which the same
// request would be admitted if nothing else were, rounded up to a whole
// nanosecond; a cost above the policy's MaxCost is always rejected with
// RetryAfter Never (under nginx's dry_run, which refuses nothing, it is
// let through with DryRun Rejected).
var Algorithms = slices.Clone(textbookOrder)

// textbookOrder is the order of the six textbook algorithms, first in
// Algorithms.
var textbookOrder = []Algorithm{FixedWindow, SlidingLog, SlidingCounter, TokenBucket, GCRA, LeakyBucket}

// Policy is one limiter's configuration. Which fields matter depends on the
// algorithm, as its Description's Params say; for the six textbook ones:
//
//	fixed-window, sliding-log, sliding-counter: Limit per Window (and for
//	                                            sliding-counter SubWindows,
//	                                            optional)
//	token-bucket:                               Capacity, refilled at Rate
//	gcra:                                       Burst, at Rate
//	leaky-bucket:                               Queue, drained at Rate
//
// The others' fields are named after their parameters (below). Every field
// an algorithm does not take must be zero.
type Policy struct {
	Algorithm Algorithm
	Limit     int64
	Window    time.Duration
	Capacity  int64
	Burst     int64
	Queue     int64
	Rate      Rate

	// The parameters of variants and libraries, each named as the
	// description that takes it says.
	SubWindows     int64         // sub_windows: a sliding counter's window in N parts
	StartsEmpty    bool          // starts_empty: a bucket that starts with no tokens
	TokensPerFill  int64         // tokens_per_fill: tokens added at each fill
	FillInterval   time.Duration // fill_interval: time between fills
	MaxTokens      int64         // max_tokens: Envoy's bucket size
	NoDelay        bool          // nodelay: nginx admits the burst at once
	Timer          bool          // timer: Envoy's fill timer (before 1.31)
	Delay          int64         // delay: nginx's requests admitted before it delays
	MaxWait        time.Duration // max_wait: the longest wait a reservation accepts
	Timeout        time.Duration // timeout: Guava's tryAcquire timeout
	Warmup         time.Duration // warmup: Guava's warm-up period (SmoothWarmingUp)
	MaxBurst       int64         // max_burst: redis-cell's burst beyond the first
	CountPerPeriod int64         // count_per_period: redis-cell's requests per period
	Period         time.Duration // period: redis-cell's period
	Status         int64         // status: the HTTP status of nginx's refusal (limit_req_status)
	Zone           int64         // zone: the size of nginx's limit_req_zone, in bytes (0: a zone that never fills)
	DryRun         bool          // dry_run: nginx's limit_req_dry_run, which decides but refuses and delays nothing

	LimitForPeriod     int64         // limit_for_period: resilience4j's permissions per cycle
	LimitRefreshPeriod time.Duration // limit_refresh_period: resilience4j's cycle
	TimeoutDuration    time.Duration // timeout_duration: resilience4j's longest wait for a permission
}

// Validate reports the first thing wrong with p, as its Description says: an unknown algorithm, a
// missing, non-positive or stray parameter, or values so large that the exact
// arithmetic could overflow: a limit, capacity, burst or queue above 2^40, a
// rate's N above 2^31, limit × window or size × rate period above 2^62 ns
// (for the leaky bucket, (queue + 1) × period, since queue + 1 units can be
// in flight; for the sliding counter also 2 × window, its memory, and
// sub_windows from 1 to 1000 dividing the window). Within
// these bounds every finite wait a limiter reports is at most 2^62 ns.
func (p Policy) Validate() error {
	d := Describe(p.Algorithm)
	if d == nil {
		return fmt.Errorf("unknown algorithm %q (want one of %v)", p.Algorithm, Algorithms)
	}
	for _, q := range Params() {
		own, use := d.param(q.Name)
		set := q.IsSet(p)
		switch {
		case use && !set && !own.Optional:
			return fmt.Errorf("%s needs %s", p.Algorithm, q.Name)
		case !use && set:
			return fmt.Errorf("%s takes no %s", p.Algorithm, q.Name)
		}
	}
	return d.check(p)
}

func checkCount(name string, v int64) error {
	if v <= 0 {
		return fmt.Errorf("%s %d must be positive", name, v)
	}
	if v > MaxCount {
		return fmt.Errorf("%s %d is too large (at most 2^40)", name, v)
	}
	return nil
}

// MaxCost is the largest cost p can ever admit: the limit, capacity or burst,
// and for the leaky bucket queue + 1 (one request in the pipe, Queue waiting):
// its description's Size plus InFlight. A request that costs more is always
// rejected, with RetryAfter Never. p must be valid.
func (p Policy) MaxCost() int64 {
	d := Describe(p.Algorithm)
	return d.size(p) + d.InFlight
}

// Horizon is how long p remembers, as its description says: for the
// textbook algorithms the window (for the sliding counter a window and one
// sub-window, the part of an old window that still weighs), or the time to
// refill or drain completely (size × Per / N, rounded up); the others say
// their own (an interval bucket's fills, Guava's second of permits). After
// it, an idle key's state is back to its start. A scenario's default
// duration reaches this far past its last request. p must be valid.
func (p Policy) Horizon() time.Duration { return Describe(p.Algorithm).Horizon(p) }

// MaxDelay bounds the delay p can give an admitted request: 0 for an
// algorithm that never delays. p must be valid.
func (p Policy) MaxDelay() time.Duration {
	d := Describe(p.Algorithm)
	if !d.Delays() {
		return 0
	}
	return d.MaxDelay(p)
}

// MaxKeys is how many keys' states p's limiter keeps at once, freeing
// one to make room for a new key as its description says (nginx's zone);
// 0 when it keeps every key's. p must be valid.
func (p Policy) MaxKeys() int64 {
	if d := Describe(p.Algorithm); d.MaxKeys != nil {
		return d.MaxKeys(p)
	}
	return 0
}

// String describes p in a line: "token-bucket capacity 10, rate 2/s", or
// for a windowed algorithm "fixed-window limit 120 per 60s".
func (p Policy) String() string {
	d := Describe(p.Algorithm)
	if d == nil {
		return fmt.Sprintf("%s limit %d, rate %s", p.Algorithm, p.Limit, p.Rate)
	}
	return d.Line(p)
}
