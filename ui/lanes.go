package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/model"
)

// laneView is what one lane shows at the clock, as model computed it.
type laneView struct {
	name    string
	policy  algorithms.Policy
	snap    algorithms.Snapshot
	stats   model.Stats
	last    model.Record
	hasLast bool
	// exact is, for a sliding counter, the true admitted cost of the
	// trailing window, which the counter only estimates.
	exact   int64
	focused bool
}

// laneViews reads every lane's state for key from the lab, its verdict on
// key's latest request, and for a sliding counter the true count of its
// trailing window.
func laneViews(lab *model.Lab, key string, focus int) []laneView {
	lanes := lab.Lanes()
	views := make([]laneView, len(lanes))
	for i, l := range lanes {
		v := laneView{name: l.Name, policy: l.Policy, focused: i == focus}
		v.snap = lab.Snapshot(i, key)
		v.stats = lab.Stats(i)
		v.last, v.hasLast = lab.LastDecisionFor(i, key)
		if l.Policy.Algorithm == algorithms.SlidingCounter {
			v.exact = lab.TrailingAdmitted(i, key, l.Policy.Window)
		}
		views[i] = v
	}
	return views
}

// outcomeGlyph is the mark of an outcome: never colour alone.
func outcomeGlyph(st *styles, o algorithms.Outcome) string { return outcomeMark(st, o, "") }

// outcomeWord is the mark with the outcome's name: "✓ allowed".
func outcomeWord(st *styles, o algorithms.Outcome) string { return outcomeMark(st, o, " "+o.String()) }

func outcomeMark(st *styles, o algorithms.Outcome, suffix string) string {
	switch o {
	case algorithms.Allowed:
		return st.allowed.Render("✓" + suffix)
	case algorithms.Delayed:
		return st.delayed.Render("◷" + suffix)
	}
	return st.rejected.Render("✗" + suffix)
}

// verdictTexts are the lane's last verdict from longest to shortest, four
// of them: with time and retry, with retry, the word, the glyph.
func verdictTexts(st *styles, v laneView) []string {
	if !v.hasLast {
		none := st.muted.Render("· no request yet")
		return []string{none, none, st.muted.Render("· none yet"), st.muted.Render("·")}
	}
	d := v.last.Decision
	word := outcomeWord(st, d.Outcome)
	at := " at " + secs(v.last.Request.At)
	switch d.Outcome {
	case algorithms.Delayed:
		return []string{word + " " + secs(d.Delay) + at, word + " " + secs(d.Delay), word, outcomeGlyph(st, d.Outcome)}
	case algorithms.Rejected:
		retry := "never fits"
		if d.RetryAfter != algorithms.Never {
			retry = "retry in " + secs(d.RetryAfter)
		}
		return []string{word + at + " · " + retry, word + " · " + retry, word, outcomeGlyph(st, d.Outcome)}
	}
	return []string{word + at, word, word, outcomeGlyph(st, d.Outcome)}
}

// totalsTexts are the lane's totals from longest to shortest. The peak is
// the largest admitted cost in any trailing PeakWindow: for a fixed window
// it shows the boundary burst as a number.
func totalsTexts(st *styles, v laneView) []string {
	s := v.stats
	delays := v.policy.Algorithm == algorithms.LeakyBucket || s.Delayed > 0
	allowed := itoa(s.Admitted - s.Delayed)
	peak := "peak " + itoa(s.Peak) + " per " + secs(s.PeakWindow)
	long := st.allowed.Render("✓ "+allowed) + " allowed"
	mid := st.allowed.Render("✓" + allowed)
	if delays {
		long += " " + st.delayed.Render("◷ "+itoa(s.Delayed)) + " delayed"
		mid += " " + st.delayed.Render("◷"+itoa(s.Delayed))
	}
	long += " " + st.rejected.Render("✗ "+itoa(s.Rejected)) + " rejected"
	mid += " " + st.rejected.Render("✗"+itoa(s.Rejected))
	return []string{
		long + " · " + peak,
		mid + " · " + peak,
		mid + " · peak " + itoa(s.Peak),
		mid,
	}
}

// laneTitle is the lane's name and policy (one of policyTexts), marked ▶
// when focused; unmarked is a space of the mark's width, unless tight.
func laneTitle(st *styles, v laneView, policy string, tight bool) string {
	mark := "  "
	if tight {
		mark = " "
	}
	name := st.title.Render(v.name)
	if v.focused {
		mark = st.accent.Render("▶ ")
		name = st.accent.Render(v.name)
	}
	return mark + name + " " + st.muted.Render(policy) + " "
}

// laneCell draws one lane in mode, w cells wide, mode.cellHeight() lines.
func laneCell(st *styles, v laneView, mode laneMode, w int) []string {
	policies := policyTexts(v.policy)
	switch mode {
	case laneBoxed:
		inner := w - 4
		body := []string{first(verdictTexts(st, v), inner)}
		body = append(body, stateLines(st, v, inner, mode.stateLines())...)
		for len(body) < 1+mode.stateLines() {
			body = append(body, "")
		}
		body = append(body, first(totalsTexts(st, v), inner))
		var titles []string
		for _, p := range policies {
			titles = append(titles, laneTitle(st, v, p, true))
		}
		return box(st, first(titles, w-4), body, w, v.focused)
	case laneCompact:
		inner := w - 2
		// The title with the verdict's word, else its glyph, with the
		// longest policy text that fits; the verdict flush right.
		verdicts := verdictTexts(st, v)
		title, verdict := laneTitle(st, v, policies[len(policies)-1], false), verdicts[3]
	pick:
		for _, p := range policies {
			t := laneTitle(st, v, p, false)
			for _, vt := range verdicts[2:] {
				if ansi.StringWidth(t)+1+ansi.StringWidth(vt) <= w {
					title, verdict = t, vt
					break pick
				}
			}
		}
		head := joinFit(title, verdict, w)
		lines := []string{head}
		for _, l := range stateLines(st, v, inner, mode.stateLines()) {
			lines = append(lines, "  "+fit(l, inner))
		}
		for len(lines) < 1+mode.stateLines() {
			lines = append(lines, fit("", w))
		}
		return append(lines, "  "+fit(first(totalsTexts(st, v), inner), inner))
	}
	return []string{laneRowLine(st, v, w)}
}

// laneRowLine is a lane in one line: "▶ fixed   ✗ [███  ] 61/120 · ✓181 ✗0 · peak 181".
func laneRowLine(st *styles, v laneView, w int) string {
	mark := "  "
	name := fit(v.name, labelWidth-2)
	if v.focused {
		mark = st.accent.Render("▶ ")
		name = st.accent.Render(name)
	}
	head := mark + name + " " + verdictTexts(st, v)[3] + " "
	tail := " · " + first(totalsTexts(st, v)[2:], max(w/3, 12))
	stateW := w - ansi.StringWidth(head) - ansi.StringWidth(tail)
	return fit(head+fit(rowState(st, v, stateW), stateW)+tail, w)
}

// box draws lines in a rounded border with title in its top edge; a
// focused box has a heavy border, so focus shows without colour too.
func box(st *styles, title string, lines []string, w int, focused bool) []string {
	h, v, tl, tr, bl, br := "─", "│", "╭", "╮", "╰", "╯"
	bs := st.border
	if focused {
		h, v, tl, tr, bl, br = "━", "┃", "┏", "┓", "┗", "┛"
		bs = st.borderFocus
	}
	inner := w - 2
	if ansi.StringWidth(title) > inner-2 {
		title = ansi.Truncate(title, inner-2, "…")
	}
	rest := max(inner-1-ansi.StringWidth(title), 0)
	top := bs.Render(tl+h) + title + bs.Render(strings.Repeat(h, rest)+tr)
	out := make([]string, 0, len(lines)+2)
	out = append(out, top)
	side := bs.Render(v)
	for _, l := range lines {
		out = append(out, side+" "+fit(l, inner-2)+" "+side)
	}
	out = append(out, bs.Render(bl+strings.Repeat(h, max(inner, 0))+br))
	return out
}

// lanesBlock lays the lane cells out in the layout's grid, height l.lanes.
func lanesBlock(st *styles, views []laneView, l layout) []string {
	var out []string
	for r := 0; r < l.rows; r++ {
		lo := r * l.cols
		hi := min(lo+l.cols, len(views))
		if lo >= hi {
			break
		}
		if r > 0 && l.mode == laneCompact {
			out = append(out, strings.Repeat(" ", l.width))
		}
		var cells [][]string
		for i := lo; i < hi; i++ {
			w := l.cellWidth
			if i == hi-1 {
				used := (hi - 1 - lo) * l.cellWidth
				if l.mode == laneCompact {
					used += (hi - 1 - lo) * compactGap
				}
				w = l.width - used
			}
			cells = append(cells, laneCell(st, views[i], l.mode, w))
		}
		sep := ""
		if l.mode == laneCompact {
			sep = st.border.Render(" │ ")
		}
		for line := 0; line < l.mode.cellHeight(); line++ {
			var b strings.Builder
			for c, cell := range cells {
				if c > 0 {
					b.WriteString(sep)
				}
				b.WriteString(cell[line])
			}
			out = append(out, b.String())
		}
	}
	return out
}
