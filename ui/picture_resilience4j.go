package ui

import "ratelab/algorithms"

func init() { register(algorithms.Resilience4j, resilience4jPicture{}) }

// resilience4jPicture shows AtomicRateLimiter's cycle, counted from the
// limiter's creation, and its permissions: negative while callers wait
// for a later cycle's.
type resilience4jPicture struct{}

func (resilience4jPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.Resilience4jSnapshot)
	perms := gaugeLine(st, fraction(max(s.Permissions, 0), s.LimitForPeriod), itoa(s.Permissions)+" of "+itoa(s.LimitForPeriod)+" permissions", w)
	cycle := first([]string{
		"cycle " + itoa(s.Cycle) + " ends at " + v.secs(s.CycleEnd) + " · made at " + v.secs(s.Start),
		"cycle " + itoa(s.Cycle) + " ends at " + v.secs(s.CycleEnd),
	}, w)
	owed := "none reserved ahead"
	if s.Permissions < 0 {
		owed = itoa(-s.Permissions) + " reserved from later cycles"
	}
	if n == 2 {
		return []string{perms, cycle}
	}
	return []string{
		perms,
		cycle,
		owed,
		st.muted.Render("each cycle refills to " + itoa(s.LimitForPeriod)),
		st.muted.Render("wait for a later cycle ≤ " + v.secs(s.Timeout)),
	}
}

func (resilience4jPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.Resilience4jSnapshot)
	return fraction(max(s.Permissions, 0), s.LimitForPeriod), itoa(s.Permissions) + "/" + itoa(s.LimitForPeriod) + " permissions"
}

func (resilience4jPicture) titles(p algorithms.Policy) []string {
	name, l, per, to := string(p.Algorithm), itoa(p.LimitForPeriod), secs(p.LimitRefreshPeriod), secs(p.TimeoutDuration)
	return []string{
		name + " " + l + " per " + per + ", timeout " + to,
		name + " " + l + "/" + per + " wait " + to,
		name + " " + l + "/" + per,
	}
}

func (resilience4jPicture) glossary(p algorithms.Policy) []string {
	words := []string{"resilience4j: AtomicRateLimiter. Time since the limiter was made is cut into cycles of limit_refresh_period; each cycle starts with limit_for_period permissions, so up to twice that can pass around a cycle's start."}
	if p.TimeoutDuration == 0 {
		return append(words, "With timeout_duration 0 a caller finding no permission is refused at once and reserves nothing.")
	}
	return append(words, "A caller finding no permission reserves one of a later cycle (permissions go negative) and waits for that cycle's start, if that is within timeout_duration; else it is refused and reserves nothing.")
}
