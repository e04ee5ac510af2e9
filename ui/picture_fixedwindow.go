package ui

import "ratelab/algorithms"

func init() { register(algorithms.FixedWindow, fixedWindowPicture{}) }

// fixedWindowPicture shows the clock-aligned window, its count, and the
// previous window's, which a burst on the boundary adds to.
type fixedWindowPicture struct{}

func (fixedWindowPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.FixedWindowSnapshot)
	count := gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+" of "+itoa(s.Limit)+" this window", w)
	window := "[" + v.secs(s.Start) + ", " + v.secs(s.End) + ") · " + v.secs(s.Now-s.Start) + " in"
	if n == 2 {
		return []string{count, window + " · prev " + itoa(s.Previous)}
	}
	return []string{
		count,
		window,
		"previous window " + itoa(s.Previous),
		st.muted.Render("admit if count + cost ≤ " + itoa(s.Limit)),
		st.muted.Render("the count restarts at " + v.secs(s.End)),
	}
}

func (fixedWindowPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.FixedWindowSnapshot)
	return fraction(s.Count, s.Limit), itoa(s.Count) + "/" + itoa(s.Limit) + " window"
}

func (fixedWindowPicture) titles(p algorithms.Policy) []string { return windowTitles(p) }

func (fixedWindowPicture) glossary(algorithms.Policy) []string {
	return []string{"fixed window: one counter per clock-aligned window [k×W, (k+1)×W); it restarts at each boundary, so two windows' worth can pass around one boundary."}
}

// windowTitles are the title of a windowed policy: "fixed-window 120/60s".
func windowTitles(p algorithms.Policy) []string {
	return []string{string(p.Algorithm) + " " + itoa(p.Limit) + "/" + algorithms.FormatSeconds(p.Window)}
}
