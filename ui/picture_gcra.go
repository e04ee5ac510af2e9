package ui

import "ratelab/algorithms"

func init() { register(algorithms.GCRA, gcraPicture{}) }

// gcraPicture shows GCRA's one timestamp, the TAT, against now, and the
// token balance it is equivalent to.
type gcraPicture struct{}

func (gcraPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.GCRASnapshot)
	bal := gaugeLine(st, ratio(s.Available, s.Burst), qty(s.Available)+" of "+itoa(s.Burst)+" as tokens", w)
	tat := "TAT = now (idle)"
	if s.TAT > s.Now {
		tat = "TAT " + v.secs(s.TAT) + " = now+" + v.secs(s.TAT-s.Now)
	}
	tol := "τ = " + itoa(s.Burst) + "×T = " + v.quantitySecs(s.Tolerance)
	if n == 2 {
		return []string{bal, first([]string{tat + " · τ " + v.quantitySecs(s.Tolerance), tat}, w)}
	}
	return []string{
		bal,
		first([]string{tat + " (theoretical arrival)", tat}, w),
		"T " + v.quantitySecs(s.Interval) + " · " + tol,
		st.muted.Render("admit if now ≥ TAT + cost×T − τ"),
		st.muted.Render("then TAT = max(TAT, now) + cost×T"),
	}
}

func (gcraPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.GCRASnapshot)
	return ratio(s.Available, s.Burst), qty(s.Available) + "/" + itoa(s.Burst) + " as tokens"
}

func (gcraPicture) titles(p algorithms.Policy) []string { return sizedTitles(p, "burst", p.Burst) }

func (gcraPicture) glossary(algorithms.Policy) []string {
	return []string{
		"GCRA's TAT (theoretical arrival time): when the key's next request would be exactly on schedule if requests came at the rate; it is the only thing GCRA stores per key.",
		"GCRA's T (emission interval): one request's share of time, the rate's period ÷ its count. τ (tolerance) = burst × T: how far ahead of schedule a request may come. A request of cost c is admitted iff now ≥ TAT + c×T − τ; \"as tokens\" is (now − (TAT − τ)) ÷ T, the token bucket's balance it equals.",
	}
}
