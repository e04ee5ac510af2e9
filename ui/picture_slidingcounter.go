package ui

import (
	"math"
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
)

func init() { register(algorithms.SlidingCounter, slidingCounterPicture{}) }

// slidingCounterPicture shows the estimate and its formula beside the
// exact count of the trailing window, which the counter only estimates.
type slidingCounterPicture struct{}

func (slidingCounterPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.SlidingCounterSnapshot)
	est := gaugeLine(st, ratio(s.Estimate, s.Limit), "est "+qty(s.Estimate)+" of "+itoa(s.Limit), w)
	formula := "= " + itoa(s.Current) + " + " + itoa(s.Previous) + " × " + qty(s.Weight)
	if n == 2 {
		return []string{est, formula + " · exact " + itoa(v.exact)}
	}
	return []string{
		est,
		formula,
		"exact last " + secs(s.Window) + ": " + itoa(v.exact) + " " + st.muted.Render("(est "+offBy(s.Estimate, v.exact)+")"),
		st.muted.Render("current + previous × share of W left"),
		st.muted.Render("admit if est + cost ≤ " + itoa(s.Limit)),
	}
}

func (slidingCounterPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.SlidingCounterSnapshot)
	return ratio(s.Estimate, s.Limit), "est " + qty(s.Estimate) + "/" + itoa(s.Limit)
}

// trailing is the window whose exact count the picture shows.
func (slidingCounterPicture) trailing(p algorithms.Policy) time.Duration { return p.Window }

func (slidingCounterPicture) titles(p algorithms.Policy) []string { return windowTitles(p) }

func (slidingCounterPicture) glossary() []string {
	return []string{"sliding counter: estimates the trailing window from two counters, current + previous × the share of the previous window still inside it; \"exact\" beside it is the true count, which it cannot see."}
}

// offBy is how far the estimate lies from the exact count: "+0.2", "−1.5",
// "exact". It is for the learner's eye; no decision depends on it.
func offBy(est algorithms.Quantity, exact int64) string {
	d := est.Float64() - float64(exact)
	if math.Abs(d) < 0.0005 {
		return "= exact"
	}
	s := strconv.FormatFloat(math.Abs(d), 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if d < 0 {
		return "−" + s
	}
	return "+" + s
}
