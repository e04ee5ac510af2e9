package algorithms

import (
	"fmt"
	"math"
	"time"
)

// Guava: Guava's RateLimiter.create(permitsPerSecond), a SmoothBursty,
// acquire(c), in Guava's own arithmetic (double permits, long
// microseconds; floating point decides here, as in the library). One
// RateLimiter per key, made at the key's first request, whose stopwatch
// reads whole microseconds since then (truncated). permitsPerSecond = N /
// Per in seconds; stableInterval = 1e6 / permitsPerSecond µs; it stores at
// most maxPermits = 1.0 × permitsPerSecond permits (one second's) and starts
// with none. On each request: resync (if now > nextFree, stored = min(max,
// stored + (now − nextFree) / stableInterval) and nextFree = now); the
// request waits max(nextFree − now, 0), whatever it costs; then it spends
// min(c, stored) stored permits and pushes nextFree by (long)(fresh ×
// stableInterval) for the rest: it pays later, the next caller waits.
// Always admitted: Allowed, or Delayed by that wait (µs × 1000).
const Guava Algorithm = "guava"

// GuavaTry: the same RateLimiter's tryAcquire(c, timeout): refused, changing
// nothing, unless nextFree − timeout ≤ now (canAcquire, which looks at
// nextFree before any resync); else acquired as Guava's acquire, waiting at
// most timeout. timeout is Timeout in whole microseconds (truncated), 0
// when left out: tryAcquire(c). RetryAfter: until nextFree − timeout, on the
// microsecond clock.
const GuavaTry Algorithm = "guava-try"

// guavaSource is the file both lanes follow.
const guavaSource = "Guava guava/src/com/google/common/util/concurrent/SmoothRateLimiter.java (SmoothBursty) and RateLimiter.java"

// TimeoutParam is Guava's tryAcquire timeout.
var TimeoutParam = Param{Name: "timeout", Kind: Duration,
	Want:  "a Go duration such as 500ms: how long tryAcquire may wait (whole microseconds); left out or 0s, tryAcquire(permits), no wait",
	field: func(p *Policy) any { return &p.Timeout }, Optional: true}

func init() {
	for _, try := range []bool{false, true} {
		d := Description{
			Algorithm: Guava,
			explain:   explainGuava,
			Family:    Library,
			Source:    guavaSource,
			Params:    []Param{RateParam},
			Rule:      "SmoothBursty: stored ≤ 1s of permits, starting at 0; a request waits max(nextFree − now, 0) µs whatever it costs, then pushes nextFree by the permits stored ones do not cover × 1e6/rate µs",
			Words: func(p Policy) string {
				return "Guava RateLimiter at " + p.Rate.String() + ": grants at once, the next caller pays"
			},
			Line:     func(p Policy) string { return fmt.Sprintf("%s rate %s", p.Algorithm, p.Rate) },
			MaxDelay: func(Policy) time.Duration { return Never }, // a large acquire makes the next one wait as long as it takes
			CostBound: func(Policy) string {
				return fmt.Sprintf("ratelab takes costs up to %d (Guava grants any number of permits, a Java int, and the next caller pays)", int64(MaxCount))
			},
			Horizon: func(p Policy) time.Duration {
				return max(time.Second, time.Duration(ceilDiv(int64(p.Rate.Per), p.Rate.N)))
			},
			check: func(p Policy) error { return p.Rate.Validate() },
			Examples: []Example{
				{Name: "guava", Policy: Policy{Algorithm: Guava, Rate: Rate{N: 2, Per: time.Second}}},
			},
			Edges: []Policy{
				{Algorithm: Guava, Rate: Rate{N: 1, Per: time.Second}},
				{Algorithm: Guava, Rate: Rate{N: 7, Per: time.Second}},
				{Algorithm: Guava, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
				{Algorithm: Guava, Rate: Rate{N: 1, Per: time.Hour}},
			},
			new: func(p Policy, ks *Keys) Limiter {
				return newKeyed[guavaState](newGuava(p, false), ks)
			},
			State: guavaForm,
		}
		if try {
			d.Algorithm = GuavaTry
			d.Examples = []Example{
				{Name: "try", Policy: Policy{Algorithm: GuavaTry, Rate: Rate{N: 2, Per: time.Second}, Timeout: time.Second}},
			}
			d.Edges = []Policy{
				{Algorithm: GuavaTry, Rate: Rate{N: 7, Per: time.Second}},
				{Algorithm: GuavaTry, Rate: Rate{N: 3, Per: 700 * time.Millisecond}, Timeout: 1999},
				{Algorithm: GuavaTry, Rate: Rate{N: 100, Per: time.Second}, Timeout: 5 * time.Millisecond},
				{Algorithm: GuavaTry, Rate: Rate{N: 1, Per: time.Minute}, Timeout: 90 * time.Second},
			}
			d.Params = []Param{RateParam, TimeoutParam}
			d.Rule = "tryAcquire: refused, changing nothing, iff nextFree − timeout > now; else acquired as by acquire (stored ≤ 1s of permits, starting at 0), waiting max(nextFree − now, 0) ≤ timeout"
			d.Words = func(p Policy) string {
				return "Guava tryAcquire at " + p.Rate.String() + ", timeout " + FormatSeconds(p.Timeout) + ": refused until next free is that near"
			}
			d.Line = func(p Policy) string {
				s := fmt.Sprintf("%s rate %s", p.Algorithm, p.Rate)
				if p.Timeout > 0 {
					s += ", timeout " + FormatDuration(p.Timeout)
				}
				return s
			}
			// It waits at most the timeout; at least 1ns, as it says it can
			// delay (a late request waits from its arrival).
			d.MaxDelay = func(p Policy) time.Duration { return max(p.Timeout, 1) }
			d.check = func(p Policy) error {
				if p.Timeout < 0 {
					return fmt.Errorf("timeout %s must not be negative", FormatDuration(p.Timeout))
				}
				return p.Rate.Validate()
			}
			d.new = func(p Policy, ks *Keys) Limiter {
				return newKeyed[guavaState](newGuava(p, true), ks)
			}
		}
		register(d)
	}
}

// guava: a SmoothBursty (guava, guava-try) or SmoothWarmingUp
// (guava-warmup) RateLimiter per key. Its numbers are Guava's:
// permits are doubles, times longs of microseconds on a stopwatch started
// at the key's first request. A wait of w µs releases the request w µs
// after it called (the stopwatch's sleep), that is w × 1000 ns.
type guava struct {
	p Policy
	// permitsPerSecond, stableInterval (µs) and maxPermits as Guava's
	// setRate computes them.
	pps, interval, maxPermits float64
	// coolDown is the µs an idle limiter takes to store one permit
	// (coolDownIntervalMicros): stableInterval for SmoothBursty,
	// warmupPeriod / maxPermits for SmoothWarmingUp.
	coolDown float64
	// initial is a new key's storedPermits: 0 for SmoothBursty, maxPermits
	// (cold) for SmoothWarmingUp.
	initial float64
	// warm is a SmoothWarmingUp: warmup is its warmupPeriodMicros, and
	// threshold and slope its thresholdPermits and slope (see
	// guavawarmup.go); stored permits then cost time to spend.
	warm             bool
	warmup           int64
	threshold, slope float64
	maxCost          int64
	timeout          int64 // µs, truncated
	try              bool
	explain          func(b []byte, d Decision) []byte
}

type guavaState struct {
	start    time.Duration // when the key's RateLimiter was made: its stopwatch's 0
	last     time.Duration // the latest time decided at
	nextFree int64         // nextFreeTicketMicros
	stored   float64       // storedPermits
}

func newGuava(p Policy, try bool) *guava {
	pps := float64(p.Rate.N) / p.Rate.Per.Seconds()
	g := &guava{p: p, pps: pps, interval: 1e6 / pps, maxCost: MaxCount,
		timeout: int64(p.Timeout / time.Microsecond), try: try, explain: explainGuava}
	if p.Algorithm == GuavaWarmup {
		g.setWarmingUp()
		return g
	}
	g.maxPermits = 1.0 * pps // maxBurstSeconds × permitsPerSecond
	g.coolDown = g.interval
	return g
}

// GuavaDoubles are p's stableIntervalMicros and maxPermits, the doubles
// Guava's setRate computes (for a store that decides in its own float64
// arithmetic: package redisstore passes them to its script).
func GuavaDoubles(p Policy) (interval, maxPermits float64) {
	g := newGuava(p, false)
	return g.interval, g.maxPermits
}

// GuavaWarmupDoubles are the doubles of p's SmoothWarmingUp beside
// GuavaDoubles': thresholdPermits, slope and coolDownIntervalMicros (the
// µs an idle limiter takes to store a permit; for the other Guava lanes
// threshold and slope are 0 and coolDown is stableIntervalMicros), and its
// largest cost: 2^31 − 1 for the warm-up lane, else MaxCount.
func GuavaWarmupDoubles(p Policy) (threshold, slope, coolDown float64, maxCost int64) {
	g := newGuava(p, false)
	return g.threshold, g.slope, g.coolDown, g.maxCost
}

func (g *guava) policy() *Policy { return &g.p }

// start: storedPermits 0 (SmoothBursty's initial state) or maxPermits
// (SmoothWarmingUp's, cold), nextFree 0 on a stopwatch started now.
func (g *guava) start(now time.Duration) guavaState {
	return guavaState{start: now, last: now, stored: g.initial}
}

// micros is the stopwatch's reading at t: whole microseconds since start.
func (s *guavaState) micros(t time.Duration) int64 { return int64(t-s.start) / 1e3 }

// javaLong is Java's (long) cast of a double: truncation toward zero,
// saturating, NaN to 0.
func javaLong(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// saturatedAdd is Guava's LongMath.saturatedAdd.
func saturatedAdd(a, b int64) int64 {
	s := a + b
	if (a^b) >= 0 && (a^s) < 0 { // same signs in, another out: overflow
		if a < 0 {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return s
}

// resync is SmoothRateLimiter.resync: idle time since nextFree becomes
// stored permits, one per coolDown µs, up to maxPermits.
func (g *guava) resync(s *guavaState, now int64) {
	if now > s.nextFree {
		s.stored = math.Min(g.maxPermits, s.stored+float64(now-s.nextFree)/g.coolDown)
		s.nextFree = now
	}
}

// reserve is reserveAndGetWaitLength: it moves s and returns the µs the
// caller waits, and how many stored permits it spent.
func (g *guava) reserve(s *guavaState, now, permits int64) (wait int64, spent float64) {
	g.resync(s, now)
	free := s.nextFree
	spent = math.Min(float64(permits), s.stored)
	fresh := float64(permits) - spent
	// A Java long sum (it would wrap as Go's does; the warm-up lane's
	// bounds keep it below 2^63), then a saturated one.
	push := g.storedWait(s.stored, spent) + javaLong(fresh*g.interval)
	s.nextFree = saturatedAdd(s.nextFree, push)
	s.stored -= spent
	return max(free-now, 0), spent
}

// storedWait is storedPermitsToWaitTime: the µs that spending take of
// stored permits adds. SmoothBursty's are free.
func (g *guava) storedWait(stored, take float64) int64 {
	if !g.warm {
		return 0
	}
	return g.warmingUpWait(stored, take)
}

// nanos is a time on the key's stopwatch, µs after start, as a virtual
// time in ns, capped at 2^62 (a saturated nextFree lies beyond any time).
func (s *guavaState) nanos(us int64) time.Duration {
	if us >= (1<<62-int64(s.start))/1e3 {
		return 1 << 62
	}
	return s.start + time.Duration(us)*time.Microsecond
}

func (g *guava) decide(s *guavaState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	s.last = eff
	d = Decision{At: now, Cost: cost, policy: &g.p, explain: g.explain,
		v: [4]int64{s.nextFree, int64(math.Float64bits(s.stored)), int64(eff), int64(s.start)}}
	if cost > g.maxCost {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	us := s.micros(eff)
	if g.try && s.nextFree-g.timeout > us { // !canAcquire
		d.Outcome, d.RetryAfter = Rejected, s.nanos(s.nextFree-g.timeout)-now
		return d
	}
	wait, _ := g.reserve(s, us, cost)
	d.Delay = min(time.Duration(wait), (1<<62)/time.Microsecond)*time.Microsecond + eff - now
	if d.Delay > 0 {
		d.Outcome = Delayed
	}
	return d
}

// GuavaSnapshot shows a Guava RateLimiter's stored permits and the time
// its next request is free.
type GuavaSnapshot struct {
	Now  time.Duration
	Rate Rate
	// PermitsPerSecond, StableInterval (µs) and MaxPermits are Guava's
	// doubles: N / Per in seconds, 1e6 / PermitsPerSecond, and one second's
	// permits (the warm-up lane's: thresholdPermits + 2 × warmupPeriod /
	// (StableInterval + ColdInterval)).
	PermitsPerSecond, StableInterval, MaxPermits float64
	// Try is true for the tryAcquire lane, whose Timeout is its timeout.
	Try     bool
	Timeout time.Duration
	// Warmup is the warm-up lane's warm-up period (0 for the others), and
	// ThresholdPermits and ColdInterval (µs) its SmoothWarmingUp doubles:
	// stored permits above the threshold cost from StableInterval up to
	// ColdInterval (3 × StableInterval) each to spend; an idle limiter
	// stores one permit per Warmup / MaxPermits.
	Warmup                         time.Duration
	ThresholdPermits, ColdInterval float64
	// Start is when the key's RateLimiter was made (its stopwatch's 0).
	Start time.Duration
	// Stored is storedPermits as a resync at Now would leave it.
	Stored float64
	// NextFree is when the next request is free (nextFreeTicketMicros as
	// a virtual time, at least Now): until then a caller waits, whatever
	// it asks for.
	NextFree time.Duration
}

func (s GuavaSnapshot) Moment() time.Duration { return s.Now }

func (g *guava) snapshot(s guavaState, now time.Duration) Snapshot {
	now = max(now, s.last)
	us := s.micros(now)
	g.resync(&s, us) // on the copy
	snap := GuavaSnapshot{
		Now: now, Rate: g.p.Rate, PermitsPerSecond: g.pps, StableInterval: g.interval, MaxPermits: g.maxPermits,
		Try: g.try, Timeout: g.p.Timeout, Start: s.start, Stored: s.stored, NextFree: max(s.nanos(s.nextFree), now),
	}
	if g.warm {
		snap.Warmup, snap.ThresholdPermits, snap.ColdInterval = g.p.Warmup, g.threshold, g.interval*guavaColdFactor
	}
	return snap
}

func (g *guava) clone(s *guavaState, _ *mem) guavaState { return *s }

func (g *guava) tables(*guavaState) int64 { return 0 }

// guavaForm: when the key's RateLimiter was made (its stopwatch's 0) and
// the latest time decided at, in ns; nextFreeTicketMicros, a Java long of
// µs that a large acquire pushes far past 2^53 (up to saturating at
// 2^63 − 1), as next_free_s × 1e6 + next_free_us (whole seconds on the
// stopwatch, then the µs past them, below 1e6); storedPermits, a double,
// as stored_mant × 2^stored_exp (see FloatParts).
var guavaForm = StateForm{Fields: []string{"start", "last", "next_free_s", "next_free_us", "stored_mant", "stored_exp"}}

func (g *guava) encode(s *guavaState) State {
	m, e := FloatParts(s.stored)
	return State{Fields: []int64{int64(s.start), int64(s.last), s.nextFree / 1e6, s.nextFree % 1e6, m, e}}
}

func (g *guava) decode(st State, _ *mem) (guavaState, error) {
	f := st.Fields
	stored, err := FromFloatParts(f[4], f[5])
	if err != nil {
		return guavaState{}, fmt.Errorf("guava stored permits: %w", err)
	}
	s := guavaState{start: time.Duration(f[0]), last: time.Duration(f[1]), stored: stored}
	if f[2] < 0 || f[3] < 0 || f[3] >= 1e6 || f[2] > math.MaxInt64/1_000_000 || f[2] == math.MaxInt64/1_000_000 && f[3] > math.MaxInt64%1_000_000 {
		return s, fmt.Errorf("guava next free %d s + %d µs out of range", f[2], f[3])
	}
	s.nextFree = f[2]*1e6 + f[3]
	if s.start < 0 || s.last < s.start || !(stored >= 0 && stored <= g.maxPermits) {
		return s, fmt.Errorf("guava state %v out of range", f)
	}
	return s, nil
}

// explainGuava: v = {nextFree before (µs), stored before (float64 bits),
// time decided at, the stopwatch's start}.
func explainGuava(b []byte, d Decision) []byte {
	p := d.policy
	g := newGuava(*p, p.Algorithm == GuavaTry)
	s := guavaState{nextFree: d.v[0], stored: math.Float64frombits(uint64(d.v[1])), start: time.Duration(d.v[3])}
	eff := time.Duration(d.v[2])
	us := s.micros(eff)
	b = appendf(b, d.times, "%snow %dµs on the key's stopwatch (started at %s), next free %dµs", lateNote(&d, eff), us, secs(s.start), s.nextFree)
	if d.Outcome == Rejected {
		return appendf(b, d.times, ": %d − timeout %dµs > now %d → rejected by tryAcquire, nothing changes; retry after %s",
			s.nextFree, g.timeout, us, retryFrom(&d, eff))
	}
	if g.try {
		b = appendf(b, d.times, " − timeout %dµs ≤ now: tryAcquire may wait", g.timeout)
	}
	before := s
	g.resync(&s, us)
	if s.stored != before.stored {
		b = appendf(b, d.times, "; idle since it: stored = min(%s, %s + %d / %s) = %s (doubles)",
			flt(g.maxPermits), flt(before.stored), us-before.nextFree, flt(g.interval), flt(s.stored))
	} else {
		b = appendf(b, d.times, "; stored %s (a double)", flt(s.stored))
	}
	free := s.nextFree
	wait, spent := g.reserve(&s, us, d.Cost)
	b = appendGuavaWait(b, &d, free, us, wait)
	b = appendf(b, d.times, "acquire(%d): %s stored + %s fresh × %sµs, cast to a long; next free %dµs (%s)", d.Cost, flt(spent),
		flt(float64(d.Cost)-spent), flt(g.interval), s.nextFree, secs(s.nanos(s.nextFree)))
	if d.Outcome == Allowed {
		b = append(b, ": the next caller pays"...)
	}
	return b
}

// appendGuavaWait words what acquire waits, max(nextFree − now, 0) in
// microseconds, whatever the request costs: nothing, or a delay paid for
// the caller before it.
func appendGuavaWait(b []byte, d *Decision, free, us, wait int64) []byte {
	if d.Outcome == Allowed {
		return appendf(b, d.times, "; it waits max(%d − %d, 0) = 0 → allowed at once, whatever it costs; ", free, us)
	}
	return appendf(b, d.times, "; it waits max(%d − %d, 0) = %dµs → delayed %s (paying for the caller before it); ",
		free, us, wait, secs(d.Delay))
}
