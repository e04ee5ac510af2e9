package algorithms

import (
	"math"
	"strings"
	"testing"
	"time"
)

func init() {
	benchPolicies = append(benchPolicies, Policy{Algorithm: GuavaWarmup, Rate: Rate{100, sec}, Warmup: sec})
}

// TestGuavaWarmupExamples are worked examples from Guava's source:
// RateLimiterTest.testWarmUp (RateLimiter.create(2.0, 4000, MILLISECONDS,
// 3.0, stopwatch): eight acquires, each when the one before is released,
// wait 0, 1.375, 1.125, 0.875, 0.625, 0.5, 0.5, 0.5 s; idle 4.5s, cold again,
// the same; idle 2.5s, still warm, 0.5 each), and SmoothRateLimiter.java's
// class notes (thresholdPermits = 0.5 × warmupPeriod / stableInterval = 4,
// maxPermits = threshold + 2 × warmupPeriod / (stable + cold) = 8; a new
// limiter is cold; the trapezoid from threshold to maxPermits is the
// warm-up period; acquire(3) costs what acquire(1) three times does).
func TestGuavaWarmupExamples(t *testing.T) {
	type step = shortStep
	p := Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 4 * sec}
	ramp := func(at time.Duration) []step {
		return []step{
			{at, 1, Allowed, 0, 0},
			{at, 1, Delayed, 1375 * ms, 0},
			{at + 1375*ms, 1, Delayed, 1125 * ms, 0},
			{at + 2500*ms, 1, Delayed, 875 * ms, 0},
			{at + 3375*ms, 1, Delayed, 625 * ms, 0},
			{at + 4*sec, 1, Delayed, 500 * ms, 0},
			{at + 4500*ms, 1, Delayed, 500 * ms, 0},
			{at + 5*sec, 1, Delayed, 500 * ms, 0}, // released at +5.5s, next free +6s
		}
	}
	testWarmUp := append(ramp(0), ramp(10*sec)...) // idle 0.5s + 4s: cold again
	for i := range 8 {                             // idle 0.5s + 2s: warm still
		at, wait := 18*sec+time.Duration(max(i-1, 0))*500*ms, 500*ms
		if i == 0 {
			wait = 0
		}
		o := Delayed
		if wait == 0 {
			o = Allowed
		}
		testWarmUp = append(testWarmUp, step{at, 1, o, wait, 0})
	}
	tests := []struct {
		name  string
		p     Policy
		steps []step
	}{
		{"Guava's testWarmUp: 2/s warming up over 4s, cold, warm, cold again after 4.5s idle, still warm after 2.5s", p, testWarmUp},
		{"acquire(3) from cold pushes next free by 1.375 + 1.125 + 0.875 s, as three acquire(1) do",
			p, []step{{0, 3, Allowed, 0, 0}, {0, 1, Delayed, 3375 * ms, 0}}},
		{"acquire(6) from cold: the 4 above the threshold cost the warm-up period, 4s, and 2 below it 0.5s each",
			p, []step{{0, 6, Allowed, 0, 0}, {0, 1, Delayed, 5 * sec, 0}, {0, 1, Delayed, 5500 * ms, 0}}},
		{"past the stored permits, fresh ones cost the stable interval: acquire(10) from cold pushes next free by 5s + 4 × 0.5s",
			p, []step{{0, 10, Allowed, 0, 0}, {sec, 1, Delayed, 6 * sec, 0}}},
		{"the key's RateLimiter is made, cold, at its first request, at 0.7s",
			p, []step{{700 * ms, 1, Allowed, 0, 0}, {sec, 1, Delayed, 1075 * ms, 0}}},
		{"the stopwatch reads whole µs: 1ns before next free it still waits a whole µs",
			p, []step{{0, 1, Allowed, 0, 0}, {1375*ms - 1, 1, Delayed, time.Microsecond, 0}}},
		{"a warm-up of 1999ns is 1µs: maxPermits 1e-6, so it is warm at once",
			Policy{Algorithm: GuavaWarmup, Rate: Rate{1, sec}, Warmup: 1999},
			[]step{{0, 1, Allowed, 0, 0}, {0, 1, Delayed, sec, 0}, {0, 1, Delayed, 2 * sec, 0}}},
		{"Guava's permits are a Java int: a cost above 2^31 − 1 never fits",
			p, []step{{0, math.MaxInt32 + 1, Rejected, 0, Never}, {0, math.MaxInt32, Allowed, 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { playShortSteps(t, tt.p, tt.steps) })
	}
}

// TestGuavaWarmupDoubles: the doubles doSetRate computes for Guava's
// example, and the snapshot of a new key (cold: maxPermits stored).
func TestGuavaWarmupDoubles(t *testing.T) {
	g := newGuava(Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 4 * sec}, false)
	if g.interval != 500000 || g.threshold != 4 || g.maxPermits != 8 || g.slope != 250000 || g.coolDown != 500000 || g.warmup != 4000000 {
		t.Errorf("interval %v threshold %v max %v slope %v cool-down %v warm-up %v", g.interval, g.threshold, g.maxPermits, g.slope, g.coolDown, g.warmup)
	}
	l := mustNew(t, g.p)
	s := l.Snapshot(sec, "new").(GuavaSnapshot)
	if s.Stored != 8 || s.MaxPermits != 8 || s.ThresholdPermits != 4 || s.ColdInterval != 1500000 || s.Warmup != 4*sec || s.NextFree != sec {
		t.Errorf("a new key: %+v", s)
	}
	// Idle after a request, it stores one permit per 0.5s (4s / 8).
	l.Decide(0, "k", 8) // all 8 stored spent: next free 4s + 2s
	if s := l.Snapshot(6*sec+750*ms, "k").(GuavaSnapshot); s.Stored != 1.5 {
		t.Errorf("0.75s idle past next free: stored %v, want 1.5", s.Stored)
	}
}

// TestGuavaWarmupExplain: the why text walks Guava's steps with its numbers.
func TestGuavaWarmupExplain(t *testing.T) {
	l := mustNew(t, Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 4 * sec})
	for _, c := range []struct {
		at   time.Duration
		cost int64
		want string
	}{
		{0, 6, "now 0µs on the key's stopwatch (started at 0s, cold, with 8 stored), next free 0µs; stored 8 (a double); it waits max(0 − 0, 0) = 0 → allowed at once, whatever it costs; acquire(6): 6 stored (4 above the threshold 4: 4 × (1500000 + 500000) / 2 = 4000000µs, the intervals from 500000µs up to 1500000µs; 2 below it × 500000µs) + 0 fresh × 500000µs, each cast to a long; next free 5000000µs (5s): the next caller pays"},
		{sec, 2, "now 1000000µs on the key's stopwatch (started at 0s, cold, with 8 stored), next free 5000000µs; stored 2 (a double); it waits max(5000000 − 1000000, 0) = 4000000µs → delayed 4s (paying for the caller before it); acquire(2): 2 stored (below the threshold 4: × 500000µs) + 0 fresh × 500000µs, each cast to a long; next free 6000000µs (6s)"},
		{7 * sec, 1, "now 7000000µs on the key's stopwatch (started at 0s, cold, with 8 stored), next free 6000000µs; idle since it: stored = min(8, 0 + 1000000 / 500000) = 2 (doubles; 500000µs a permit: the warm-up 4000000µs / 8); it waits max(7000000 − 7000000, 0) = 0 → allowed at once, whatever it costs; acquire(1): 1 stored (below the threshold 4: × 500000µs) + 0 fresh × 500000µs, each cast to a long; next free 7500000µs (7.5s): the next caller pays"},
		{7 * sec, 3, "now 7000000µs on the key's stopwatch (started at 0s, cold, with 8 stored), next free 7500000µs; stored 1 (a double); it waits max(7500000 − 7000000, 0) = 500000µs → delayed 0.5s (paying for the caller before it); acquire(3): 1 stored (below the threshold 4: × 500000µs) + 2 fresh × 500000µs, each cast to a long; next free 9000000µs (9s)"},
	} {
		if got := l.Decide(c.at, "k", c.cost).Explain(); got != c.want {
			t.Errorf("at %v, cost %d:\n got  %s\n want %s", c.at, c.cost, got, c.want)
		}
	}
	if got := l.Decide(9*sec, "k", math.MaxInt32+1).Explain(); !strings.Contains(got, "cost 2147483648 > 2147483647, the largest cost the library takes") {
		t.Errorf("a cost past a Java int: %s", got)
	}
}

// TestGuavaWarmupValidation: Guava's warm-up in whole µs, at least 1; a
// rate fast enough that no wait passes a Java long.
func TestGuavaWarmupValidation(t *testing.T) {
	for _, tt := range []struct {
		p    Policy
		want string // "" for valid
	}{
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 4 * sec}, ""},
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}}, "needs warmup"},
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 999}, "at least 1µs"},
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: -sec}, "at least 1µs"},
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 1<<62 + 1}, "at most 2^62"},
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{1, time.Hour}, Warmup: 1 << 62}, ""},
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{1, 69 * time.Minute}, Warmup: sec}, ""},
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{1, 70 * time.Minute}, Warmup: sec}, "too slow"},
		{Policy{Algorithm: Guava, Rate: Rate{2, sec}, Warmup: sec}, "takes no warmup"},
	} {
		err := tt.p.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v: %v", tt.p, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v: %v, want %q", tt.p, err, tt.want)
		}
	}
}
