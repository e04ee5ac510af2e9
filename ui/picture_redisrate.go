package ui

import "ratelab/algorithms"

func init() { register(algorithms.RedisRate, redisRatePicture{}) }

// redisRatePicture shows redis_rate's GCRA state with its names: the TAT,
// the emission interval and the burst offset.
type redisRatePicture struct{}

func (redisRatePicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.GCRASnapshot)
	bal := gaugeLine(st, ratio(s.Available, s.Burst), qty(s.Available)+" of burst "+itoa(s.Burst), w)
	tat := "tat = now (idle)"
	if s.TAT > s.Now {
		tat = "tat " + v.secs(s.TAT) + " = now+" + v.secs(s.TAT-s.Now)
	}
	return []string{
		bal,
		tat,
		first([]string{"T " + v.quantitySecs(s.Interval) + " · burst_offset " + v.quantitySecs(s.Tolerance), "T " + v.quantitySecs(s.Interval)}, w),
		st.muted.Render("admit if now ≥ tat + cost×T − burst_offset"),
		st.muted.Render("burst N admits N at once"),
	}
}

func (redisRatePicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.GCRASnapshot)
	return ratio(s.Available, s.Burst), qty(s.Available) + "/" + itoa(s.Burst) + " as tokens"
}

func (redisRatePicture) titles(p algorithms.Policy) []string {
	return sizedTitles(p, "burst", p.Burst)
}

func (redisRatePicture) glossary(algorithms.Policy) []string {
	return []string{"redis-rate: go-redis/redis_rate's GCRA; emission_interval T = period ÷ rate, burst_offset = burst × T, so a burst of N admits N requests at once, as the textbook GCRA does."}
}
