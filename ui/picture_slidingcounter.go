package ui

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

func init() { register(algorithms.SlidingCounter, slidingCounterPicture{}) }

// slidingCounterPicture shows the estimate and its formula beside the
// exact count of the trailing window, which the counter only estimates.
type slidingCounterPicture struct{}

func (slidingCounterPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.SlidingCounterSnapshot)
	if s.SubWindows > 1 {
		return subWindowLines(st, v, s, w, n)
	}
	est := gaugeLine(st, ratio(s.Estimate, s.Limit), "est "+qty(s.Estimate)+" of "+itoa(s.Limit), w)
	formula := "= " + itoa(s.Current) + " + " + itoa(s.Previous) + " × " + qty(s.Weight)
	if n == 2 {
		return []string{est, formula + " · exact " + itoa(v.exact)}
	}
	return []string{
		est,
		formula,
		"exact last " + v.secs(s.Window) + ": " + itoa(v.exact) + " " + st.muted.Render("(est "+offBy(s.Estimate, v.exact)+")"),
		st.muted.Render("current + previous × share of W left"),
		st.muted.Render("admit if est + cost ≤ " + itoa(s.Limit)),
	}
}

// subWindowLines are the state of a counter of N > 1 sub-windows: the
// estimate, its formula (current + the N − 1 before + the oldest × its
// share), the row of sub-window counts, and the exact count beside it.
func subWindowLines(st *styles, v laneView, s algorithms.SlidingCounterSnapshot, w, n int) []string {
	est := gaugeLine(st, ratio(s.Estimate, s.Limit), "est "+qty(s.Estimate)+" of "+itoa(s.Limit), w)
	formula := "= " + itoa(s.Current) + " + " + itoa(s.Middle) + " + " + itoa(s.Previous) + " × " + qty(s.Weight)
	exact := "exact last " + v.secs(s.Window) + ": " + itoa(v.exact) + " " + st.muted.Render("(est "+offBy(s.Estimate, v.exact)+")")
	switch n {
	case 1:
		return []string{est}
	case 2:
		// The counts show where the estimate's error lies (an old burst
		// in the oldest part); the exact count beside them.
		tail := " · exact " + itoa(v.exact)
		return []string{est, subCountsLine(st, s, w-ansi.StringWidth(tail)) + tail}
	case 3:
		return []string{est, formula, subCountsLine(st, s, w)}
	case 4:
		return []string{est, formula, subCountsLine(st, s, w), exact}
	}
	return []string{est, formula, subCountsLine(st, s, w), exact,
		st.muted.Render("current + " + itoa(s.SubWindows-1) + " before + oldest × share left")}
}

// subCountsLine is the sub-windows' counts in a row, oldest first: the
// oldest (only its share counts) and the current one set apart, "per 5s:
// 3 ¦ 1 0 2 4 ¦ 2"; where they do not fit, the oldest of the middle ones
// give way to "…".
func subCountsLine(st *styles, s algorithms.SlidingCounterSnapshot, w int) string {
	c := s.Counts
	head := "per " + secs(s.SubWindow) + ": "
	oldest, cur := itoa(c[0])+" ¦ ", " ¦ "+itoa(c[len(c)-1])
	middle := c[1 : len(c)-1]
	for skip := 0; skip <= len(middle); skip++ {
		parts := make([]string, 0, len(middle)-skip+1)
		if skip > 0 {
			parts = append(parts, "…")
		}
		for _, m := range middle[skip:] {
			parts = append(parts, itoa(m))
		}
		line := head + oldest + strings.Join(parts, " ") + cur
		if ansi.StringWidth(line) <= w || skip == len(middle) {
			return st.muted.Render(head) + line[len(head):]
		}
	}
	return "" // not reached
}

func (slidingCounterPicture) row(v laneView) (fill float64, numbers string) {
	s := v.snap.(algorithms.SlidingCounterSnapshot)
	return ratio(s.Estimate, s.Limit), "est " + qty(s.Estimate) + "/" + itoa(s.Limit)
}

// trailing is the window whose exact count the picture shows.
func (slidingCounterPicture) trailing(p algorithms.Policy) time.Duration { return p.Window }

func (slidingCounterPicture) titles(p algorithms.Policy) []string {
	if n := p.SubWindows; n > 1 {
		t := windowTitles(p)[0]
		return []string{t + " in " + itoa(n), t}
	}
	return windowTitles(p)
}

func (slidingCounterPicture) glossary(p algorithms.Policy) []string {
	words := []string{"sliding counter: estimates the trailing window from two counters, current + previous × the share of the previous window still inside it; \"exact\" beside it is the true count, which it cannot see.",
		"sub-windows (sub_windows N): the window counted in N parts; the estimate is the current part + the N − 1 before it + the oldest part × its share still inside the window, and \"per 5s: 3 ¦ 1 0 2 ¦ 2\" shows the parts' counts, oldest first."}
	if p.SubWindows <= 1 {
		return words[:1]
	}
	return words
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
