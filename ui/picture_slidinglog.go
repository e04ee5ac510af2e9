package ui

import (
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

func init() { register(algorithms.SlidingLog, slidingLogPicture{}) }

// slidingLogPicture shows the trailing window as a strip with every
// recent admission where it happened, and when the oldest leaves.
type slidingLogPicture struct{}

func (slidingLogPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.SlidingLogSnapshot)
	count := gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+" of "+itoa(s.Limit)+" in last "+v.secs(s.Window), w)
	oldest := "log empty"
	short := ""
	if s.Count > 0 {
		oldest = "oldest leaves at " + v.secs(s.OldestExpiresAt)
		short = " out " + v.secs(s.OldestExpiresAt)
	}
	if n == 2 {
		return []string{count, logStrip(st, s, w-2-ansi.StringWidth(short)) + short}
	}
	return []string{
		count,
		logStrip(st, s, w-2),
		oldest,
		st.muted.Render("admit if the last " + v.secs(s.Window) + " + cost ≤ " + itoa(s.Limit)),
		st.muted.Render("keeps every admission: " + entries(len(s.Entries))),
	}
}

func (slidingLogPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.SlidingLogSnapshot)
	return fraction(s.Count, s.Limit), itoa(s.Count) + "/" + itoa(s.Limit) + " in " + v.secs(s.Window)
}

func (slidingLogPicture) titles(p algorithms.Policy) []string { return windowTitles(p) }

func (slidingLogPicture) glossary(algorithms.Policy) []string {
	return []string{"sliding log: remembers the time of every admission in the trailing window (now − W, now]; exact, at the cost of one entry per admission."}
}

// entries is "1 entry" or "n entries".
func entries(n int) string { return counted(n, "entry", "entries") }
