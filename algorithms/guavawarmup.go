package algorithms

import (
	"fmt"
	"math"
	"time"
)

// GuavaWarmup: Guava's RateLimiter.create(permitsPerSecond, warmupPeriod,
// unit), a SmoothWarmingUp with coldFactor 3, acquire(c), in Guava's own
// arithmetic (double permits, long microseconds; floating point decides
// here, as in the library). One RateLimiter per key, made at the key's
// first request, whose stopwatch reads whole microseconds since then
// (truncated). permitsPerSecond = N / Per in seconds; stableInterval = 1e6
// / permitsPerSecond µs, coldInterval = 3 × stableInterval; warmupPeriod
// is Warmup in whole µs (truncated, at least 1); thresholdPermits = 0.5 ×
// warmupPeriod / stableInterval, maxPermits = thresholdPermits + 2.0 ×
// warmupPeriod / (stableInterval + coldInterval), slope = (coldInterval −
// stableInterval) / (maxPermits − thresholdPermits). A new key is cold: it
// has maxPermits stored. On each request: resync (if now > nextFree,
// stored = min(max, stored + (now − nextFree) / (warmupPeriod /
// maxPermits)): a limiter idle for the warm-up period is cold again, and
// nextFree = now); the request waits max(nextFree − now, 0), whatever it
// costs; then it spends s = min(c, stored) stored permits and pushes
// nextFree by the time they cost (the area under the line from
// stableInterval at thresholdPermits to coldInterval at maxPermits for the
// part above the threshold, (long)(above × (t(stored − threshold) +
// t(stored − threshold − above)) / 2.0) with t(x) = stableInterval + x ×
// slope, plus (long)(stableInterval × the part below it)) plus
// (long)((c − s) × stableInterval) for the fresh rest: a cold limiter
// spaces its first requests up to 3 intervals apart, a warm one 1. Always
// admitted: Allowed, or Delayed by that wait (µs × 1000). A cost above 2^31
// − 1 (Guava's permits are a Java int) is Rejected, RetryAfter Never.
const GuavaWarmup Algorithm = "guava-warmup"

// guavaColdFactor is the coldFactor RateLimiter.create(permitsPerSecond,
// warmupPeriod, unit) passes: 3.0.
const guavaColdFactor = 3.0

// guavaMaxPermits is the largest number of permits a Guava call takes: a
// Java int's largest, 2^31 − 1.
const guavaMaxPermits = math.MaxInt32

// guavaWarmupSource is the file the warm-up lane follows.
const guavaWarmupSource = "Guava guava/src/com/google/common/util/concurrent/SmoothRateLimiter.java (SmoothWarmingUp: doSetRate, storedPermitsToWaitTime, coolDownIntervalMicros) and RateLimiter.java (create(permitsPerSecond, warmupPeriod, unit), coldFactor 3.0)"

// WarmupParam is Guava's warm-up period.
var WarmupParam = Param{Name: "warmup", Kind: Duration,
	Want:  "a Go duration such as 4s: Guava's warm-up period, the time a cold RateLimiter takes to reach its rate (whole microseconds, at least 1µs)",
	field: func(p *Policy) any { return &p.Warmup }}

func init() {
	register(Description{
		Algorithm: GuavaWarmup,
		explain:   explainGuavaWarmup,
		Family:    Library,
		Source:    guavaWarmupSource,
		Params:    []Param{RateParam, WarmupParam},
		CostCap:   guavaMaxPermits,
		Rule:      "SmoothWarmingUp: starts cold with maxPermits stored; a request waits max(nextFree − now, 0) µs whatever it costs, then pushes nextFree by what its permits cost: stored ones above thresholdPermits from 1 up to 3 intervals each (the trapezoid's area), the others 1 interval; idle, it cools back to maxPermits in the warm-up period",
		Words: func(p Policy) string {
			return "Guava RateLimiter at " + p.Rate.String() + " warming up over " + FormatSeconds(p.Warmup) + ": cold, it spaces requests up to 3 intervals apart; the next caller pays"
		},
		Line: func(p Policy) string {
			return fmt.Sprintf("%s rate %s, warmup %s", p.Algorithm, p.Rate, FormatDuration(p.Warmup))
		},
		MaxDelay: func(Policy) time.Duration { return Never }, // a large acquire makes the next one wait as long as it takes
		CostBound: func(Policy) string {
			return fmt.Sprintf("Guava's permits are a Java int: at most %d (it grants any number up to that at once, and the next caller pays)", guavaMaxPermits)
		},
		// Idle for the warm-up period past next free, it is cold again,
		// as a new key; a request of cost 1 pushes next free at most one
		// cold interval (3 × Per / N).
		Horizon: func(p Policy) time.Duration {
			cold := 3 * float64(p.Rate.Per) / float64(p.Rate.N)
			return time.Duration(min(float64(p.Warmup)+math.Ceil(cold), 1<<62))
		},
		check: checkGuavaWarmup,
		Examples: []Example{
			{Name: "warmup", Policy: Policy{Algorithm: GuavaWarmup, Rate: Rate{N: 2, Per: time.Second}, Warmup: 4 * time.Second}},
		},
		Edges: []Policy{
			{Algorithm: GuavaWarmup, Rate: Rate{N: 1, Per: time.Second}, Warmup: time.Microsecond}, // the shortest warm-up
			{Algorithm: GuavaWarmup, Rate: Rate{N: 3, Per: 7 * time.Second}, Warmup: 1999},         // 1999ns is 1µs
			{Algorithm: GuavaWarmup, Rate: Rate{N: 3, Per: 700 * time.Millisecond}, Warmup: 1500*time.Millisecond + 999},
			{Algorithm: GuavaWarmup, Rate: Rate{N: 1000, Per: time.Second}, Warmup: time.Minute},
			{Algorithm: GuavaWarmup, Rate: Rate{N: 1, Per: time.Hour}, Warmup: 24 * time.Hour},         // about the slowest rate
			{Algorithm: GuavaWarmup, Rate: Rate{N: 1000, Per: 7 * time.Nanosecond}, Warmup: time.Hour}, // permits far past 2^40
		},
		new: func(p Policy, ks *Keys) Limiter {
			return newKeyed[guavaState](newGuava(p, false), ks)
		},
		State: guavaForm,
	})
}

// guavaMaxWait bounds the µs one request pushes next free by, so that the
// Java long sum of its two parts (stored and fresh) never wraps: below
// 2^63, with room to spare.
const guavaMaxWait = 9e18

// checkGuavaWarmup: a valid rate; a warm-up of at least 1µs (Guava
// truncates it to whole µs; at 0 its maxPermits is 0 and its stored
// permits NaN from the first idle moment, after which it never waits) and
// at most 2^62 ns; and a rate fast enough that the largest acquire's wait,
// (2^31 − 1) × stableInterval plus at most 1.5 × warmupPeriod for stored
// permits, stays below 9 × 10^18 µs: past 2^63 Guava's long sum wraps,
// which ratelab does not follow (rates slower than one per 69.8 minutes).
func checkGuavaWarmup(p Policy) error {
	if err := p.Rate.Validate(); err != nil {
		return err
	}
	if p.Warmup < time.Microsecond {
		return fmt.Errorf("warmup %s must be at least 1µs: Guava counts it in whole microseconds, and with 0 its stored permits become NaN and it never waits again", FormatDuration(p.Warmup))
	}
	if p.Warmup > 1<<62 {
		return fmt.Errorf("warmup %s is too large (at most 2^62 ns)", FormatDuration(p.Warmup))
	}
	g := newGuava(p, false)
	if w := guavaMaxPermits*g.interval + 1.5*float64(g.warmup); !(w < guavaMaxWait) {
		return fmt.Errorf("rate %s is too slow for Guava's warm-up: acquire(2^31 − 1) would wait %.3g µs, past a Java long's 2^63, where Guava's arithmetic wraps (at least one per 69 minutes)", p.Rate, w)
	}
	return nil
}

// setWarmingUp sets g's numbers as SmoothWarmingUp's doSetRate does, in
// its order of double operations (an explicit float64 conversion keeps Go
// from fusing a multiply and an add, which Java never does).
func (g *guava) setWarmingUp() {
	g.warm = true
	g.maxCost = guavaMaxPermits
	g.warmup = int64(g.p.Warmup / time.Microsecond)
	w := float64(g.warmup)
	cold := g.interval * guavaColdFactor
	g.threshold = 0.5 * w / g.interval
	g.maxPermits = g.threshold + float64(2.0*w)/(g.interval+cold)
	g.slope = (cold - g.interval) / (g.maxPermits - g.threshold)
	g.coolDown = w / g.maxPermits
	g.initial = g.maxPermits // the initial state is cold
	g.explain = explainGuavaWarmup
}

// permitsToTime is SmoothWarmingUp.permitsToTime: the interval (µs) a
// permit costs with x permits stored above the threshold.
func (g *guava) permitsToTime(x float64) float64 { return g.interval + float64(x*g.slope) }

// warmingUpWait is SmoothWarmingUp.storedPermitsToWaitTime: the area under
// the line over [stored − take, stored], as Java computes it: the part above
// the threshold a trapezoid cast to a long, plus the part below it at the
// stable interval, cast to a long.
func (g *guava) warmingUpWait(stored, take float64) int64 {
	above, _, _ := g.warmingUpParts(stored, take)
	var micros int64
	if above > 0 {
		t := math.Min(above, take)
		length := g.permitsToTime(above) + g.permitsToTime(above-t)
		micros = javaLong(float64(t*length) / 2.0)
		take -= t
	}
	return micros + javaLong(float64(g.interval*take))
}

// warmingUpParts splits spending take of stored permits: the permits
// stored above the threshold, how many of take come from above it, and
// how many from below.
func (g *guava) warmingUpParts(stored, take float64) (above, fromAbove, below float64) {
	above = stored - g.threshold
	if above > 0 {
		fromAbove = math.Min(above, take)
		return above, fromAbove, take - fromAbove
	}
	return above, 0, take
}

// explainGuavaWarmup: v as explainGuava's.
func explainGuavaWarmup(b []byte, d Decision) []byte {
	p := d.policy
	g := newGuava(*p, false)
	s := guavaState{nextFree: d.v[0], stored: math.Float64frombits(uint64(d.v[1])), start: time.Duration(d.v[3])}
	eff := time.Duration(d.v[2])
	us := s.micros(eff)
	b = appendf(b, d.times, "%snow %dµs on the key's stopwatch (started at %s, cold, with %s stored), next free %dµs", lateNote(&d, eff), us, secs(s.start), flt(g.maxPermits), s.nextFree)
	before := s
	g.resync(&s, us)
	if s.stored != before.stored {
		b = appendf(b, d.times, "; idle since it: stored = min(%s, %s + %d / %s) = %s (doubles; %sµs a permit: the warm-up %dµs / %s)",
			flt(g.maxPermits), flt(before.stored), us-before.nextFree, flt(g.coolDown), flt(s.stored), flt(g.coolDown), g.warmup, flt(g.maxPermits))
	} else {
		b = appendf(b, d.times, "; stored %s (a double)", flt(s.stored))
	}
	free, stored := s.nextFree, s.stored
	wait, spent := g.reserve(&s, us, d.Cost)
	b = appendGuavaWait(b, &d, free, us, wait)
	b = appendf(b, d.times, "acquire(%d): %s stored", d.Cost, flt(spent))
	above, fromAbove, below := g.warmingUpParts(stored, spent)
	if fromAbove > 0 {
		length := g.permitsToTime(above) + g.permitsToTime(above-fromAbove)
		b = appendf(b, d.times, " (%s above the threshold %s: %s × (%s + %s) / 2 = %dµs, the intervals from %sµs up to %sµs",
			flt(fromAbove), flt(g.threshold), flt(fromAbove), flt(g.permitsToTime(above)), flt(g.permitsToTime(above-fromAbove)),
			javaLong(float64(fromAbove*length)/2.0), flt(g.interval), flt(g.interval*guavaColdFactor))
		if below > 0 {
			b = appendf(b, d.times, "; %s below it × %sµs", flt(below), flt(g.interval))
		}
		b = append(b, ')')
	} else if spent > 0 {
		b = appendf(b, d.times, " (below the threshold %s: × %sµs)", flt(g.threshold), flt(g.interval))
	}
	b = appendf(b, d.times, " + %s fresh × %sµs, each cast to a long; next free %dµs (%s)",
		flt(float64(d.Cost)-spent), flt(g.interval), s.nextFree, secs(s.nanos(s.nextFree)))
	if d.Outcome == Allowed {
		b = append(b, ": the next caller pays"...)
	}
	return b
}
