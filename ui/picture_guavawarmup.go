package ui

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	register(algorithms.GuavaWarmup, guavaWarmupPicture{})
}

// guavaWarmupPicture shows Guava's warming-up RateLimiter: the permits it
// has stored (full is cold), the interval its next stored permit costs
// (from the stable interval at the threshold up to 3 × it when cold), and
// when its next request is free. It reads the snapshot's doubles; the
// interval shown is the line the lane integrates, not a decision.
type guavaWarmupPicture struct{}

// permitCost is the interval (µs) a permit costs with stored permits
// stored: the stable interval up to the threshold, then rising linearly to
// the cold interval at maxPermits.
func permitCost(s algorithms.GuavaSnapshot) float64 {
	above := s.Stored - s.ThresholdPermits
	if above <= 0 || s.MaxPermits <= s.ThresholdPermits {
		return s.StableInterval
	}
	return s.StableInterval + above*(s.ColdInterval-s.StableInterval)/(s.MaxPermits-s.ThresholdPermits)
}

// microsCell is a double of µs as a lane writes a time.
func microsCell(us float64) string {
	return secs(time.Duration(min(us, 1<<62/1e3) * 1e3))
}

func (guavaWarmupPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.GuavaSnapshot)
	stored := floatCell(s.Stored) + " of " + floatCell(s.MaxPermits) + " stored, full = cold"
	free := "next free now"
	if s.NextFree > s.Now {
		free = "next free " + v.secs(s.NextFree) + ", " + v.secs(s.NextFree-s.Now) + " away"
	}
	cost := microsCell(permitCost(s))
	lines := []string{
		gaugeLine(st, s.Stored/max(s.MaxPermits, 1e-300), stored, w),
		first([]string{free + " · " + s.Rate.String(), free}, w),
		first([]string{
			"a stored permit costs " + cost + " (warm " + microsCell(s.StableInterval) + ", cold " + microsCell(s.ColdInterval) + ")",
			"a permit costs " + cost, cost + " a permit",
		}, w),
		st.muted.Render(first([]string{"acquire: warm up over " + v.secs(s.Warmup) + ", pay later", "warm up " + v.secs(s.Warmup)}, w)),
	}
	if n == 2 {
		return lines[:2]
	}
	return lines
}

func (guavaWarmupPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.GuavaSnapshot)
	numbers = floatCell(s.Stored) + "/" + floatCell(s.MaxPermits) + " stored"
	if s.NextFree > s.Now {
		numbers = "free in " + v.secs(s.NextFree-s.Now)
	}
	return s.Stored / max(s.MaxPermits, 1e-300), numbers
}

func (guavaWarmupPicture) titles(p algorithms.Policy) []string {
	name, rate := string(p.Algorithm), " @"+p.Rate.String()
	return []string{name + rate + " warmup " + algorithms.FormatDuration(p.Warmup), name + rate}
}

func (guavaWarmupPicture) glossary(algorithms.Policy) []string {
	return []string{
		"Guava RateLimiter warming up (SmoothWarmingUp), in Guava's own doubles and microseconds: it starts cold, with all its permits stored, and spending a stored permit costs time: from three intervals when full down to one at the threshold, half full. So a cold limiter spaces its first requests up to three intervals apart and reaches its rate after the warm-up period.",
		"A request waits only until \"next free\", whatever it asks for, and pushes next free on by what its permits cost: the next caller waits. Idle, it stores permits back, cold again after the warm-up period.",
	}
}
