package ui

import "ratelab/algorithms"

func init() { register(algorithms.FirstHitWindow, firstHitWindowPicture{}) }

// firstHitWindowPicture shows the key's own window: when its first request
// started it, when it ends, and the count, refused requests included.
type firstHitWindowPicture struct{}

func (firstHitWindowPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.FirstHitWindowSnapshot)
	count := gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+" of "+itoa(s.Limit)+" counted", w)
	window := "no window: the next request starts one"
	if s.ResetsAt > 0 {
		window = first([]string{
			"[" + v.secs(s.Start) + ", " + v.secs(s.ResetsAt) + ") from the first hit · resets in " + v.secs(s.ResetsAt-s.Now),
			"[" + v.secs(s.Start) + ", " + v.secs(s.ResetsAt) + ") · resets in " + v.secs(s.ResetsAt-s.Now),
			"resets at " + v.secs(s.ResetsAt),
		}, w)
	}
	if n == 2 {
		return []string{count, window}
	}
	return []string{
		count,
		window,
		"later requests never move the end",
		st.muted.Render("admit if count + cost ≤ " + itoa(s.Limit)),
		st.muted.Render("refused requests count too"),
	}
}

func (firstHitWindowPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.FirstHitWindowSnapshot)
	return fraction(s.Count, s.Limit), itoa(s.Count) + "/" + itoa(s.Limit) + " counted"
}

func (firstHitWindowPicture) titles(p algorithms.Policy) []string { return windowTitles(p) }

func (firstHitWindowPicture) glossary(algorithms.Policy) []string {
	return []string{
		"first-hit-window: express-rate-limit's MemoryStore (and Redis INCR then EXPIRE NX): each key's window starts at its first request and ends a window later, whatever comes in between; every request counts, refused ones too.",
		"Unlike fixed-window, the windows are not aligned to t = 0: each key has its own, starting at its first request after the last one ended.",
	}
}
