package ui

import (
	"ratelab/algorithms"
)

func init() {
	register(algorithms.Guava, guavaPicture{})
	register(algorithms.GuavaTry, guavaPicture{})
}

// guavaPicture shows a Guava RateLimiter: the permits it has stored (at
// most one second's) and when its next request is free, which is what the
// next caller waits for whatever it asks.
type guavaPicture struct{}

func (guavaPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.GuavaSnapshot)
	stored := floatCell(s.Stored) + " of " + floatCell(s.MaxPermits) + " stored"
	free := "next free now"
	if s.NextFree > s.Now {
		free = "next free " + v.secs(s.NextFree) + ", " + v.secs(s.NextFree-s.Now) + " away"
	}
	rule := []string{"acquire: wait for next free, pay later", "acquire: pay later"}
	last := "the next caller pays for this one"
	if s.Try {
		rule = []string{"tryAcquire: refuse if next free − timeout > now", "refuse if next free − timeout > now", "refuse if free − timeout > now"}
		last = "timeout " + v.secs(s.Timeout)
	}
	lines := []string{
		gaugeLine(st, s.Stored/max(s.MaxPermits, 1e-300), stored, w),
		first([]string{free + " · " + s.Rate.String(), free}, w),
		st.muted.Render(first(rule, w)),
		st.muted.Render(last),
	}
	if n == 2 {
		return lines[:2]
	}
	return lines
}

func (guavaPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.GuavaSnapshot)
	numbers = floatCell(s.Stored) + "/" + floatCell(s.MaxPermits) + " stored"
	if s.NextFree > s.Now {
		numbers = "free in " + v.secs(s.NextFree-s.Now)
	}
	return s.Stored / max(s.MaxPermits, 1e-300), numbers
}

func (guavaPicture) titles(p algorithms.Policy) []string {
	name, rate := string(p.Algorithm), " @"+p.Rate.String()
	if p.Timeout > 0 {
		return []string{name + rate + " timeout " + algorithms.FormatDuration(p.Timeout), name + rate}
	}
	return []string{name + rate}
}

func (guavaPicture) glossary(p algorithms.Policy) []string {
	words := []string{
		"Guava RateLimiter (SmoothBursty), in Guava's own doubles and microseconds: it starts with no stored permits and stores at most one second's. A request waits only until \"next free\", whatever it asks for; its permits, less those stored, push next free on by one interval each: it pays later, and the next caller waits.",
		"Guava tryAcquire: refuses, changing nothing, when next free is more than the timeout away; else acquires as acquire does, waiting at most the timeout.",
	}
	if p.Algorithm != algorithms.GuavaTry {
		return words[:1]
	}
	return words
}
