package ui

import "ratelab/algorithms"

func init() { register(algorithms.RedisCell, redisCellPicture{}) }

// redisCellPicture shows redis-cell's GCRA with its names: max_burst and
// the limit it makes (one more), the TAT, T and the DVT, and what
// CL.THROTTLE would reply.
type redisCellPicture struct{}

func (redisCellPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.RedisCellSnapshot)
	bal := gaugeLine(st, ratio(s.Available, s.Limit), qty(s.Available)+" of limit "+itoa(s.Limit), w)
	tat := "tat = now (idle)"
	if s.TAT > s.Now {
		tat = "tat " + v.secs(s.TAT) + " = now+" + v.secs(s.TAT-s.Now)
	}
	return []string{
		bal,
		first([]string{tat + " · remaining " + itoa(s.Remaining), tat}, w),
		first([]string{"T " + v.secs(s.Interval) + " · DVT " + v.secs(s.Tolerance) + " = T×(max_burst+1)", "T " + v.secs(s.Interval) + " · DVT " + v.secs(s.Tolerance)}, w),
		st.muted.Render("max_burst " + itoa(s.MaxBurst) + " admits " + itoa(s.Limit) + " at once"),
		st.muted.Render("retry_after: whole s, up if ≥ 1ms over"),
	}
}

func (redisCellPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.RedisCellSnapshot)
	return ratio(s.Available, s.Limit), qty(s.Available) + "/" + itoa(s.Limit) + " as tokens"
}

func (redisCellPicture) titles(p algorithms.Policy) []string {
	name, b, rate := string(p.Algorithm), itoa(p.MaxBurst), " "+itoa(p.CountPerPeriod)+"/"+secs(p.Period)
	return []string{name + " max_burst " + b + rate, name + " burst " + b + rate, name + " " + b + rate}
}

func (redisCellPicture) glossary(algorithms.Policy) []string {
	return []string{
		"redis-cell: CL.THROTTLE's GCRA. T = period ÷ count_per_period (whole ns); DVT (delay variation tolerance) = T × (max_burst + 1), so max_burst N admits N + 1 at once; its limit is that N + 1.",
		"redis-cell's retry_after and reset_after are whole seconds, rounded up only when the fraction holds a whole millisecond: 1.0004s is reported as 1.",
	}
}
