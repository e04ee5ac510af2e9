package ui

import (
	"math"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/model"
)

// The chart draws each lane's state over the timeline's span: the gauge
// its box draws (the token balance, a window's count, the log's entries,
// the estimate, the queue, GCRA's TAT as tokens), from empty at the bottom
// to full at the top, one bar a column. A column's bar is the state at the
// column's last instant, read from the same decisions as everything else
// (model.StatesAt); the clock's column is the state at the clock, as the
// boxes show it; the columns after the clock are blank. A column where
// the lane refused a request of the rows' key marks ✗ just above its bar.
//
// On a screen with rows to spare the chart is a panel of its own under
// the timeline (layout.chart); on a smaller one, v draws the focused
// lane's chart in place of the timeline's lane rows. v switches either
// off and on.

// syncChart is the replay short enough to do after any message, so that
// a small lesson's chart is whole in the frame that first shows it; a
// longer one is done in slices of its own messages (chartMsg), as a pinned
// key's verdict is (verdict.go).
const syncChart = model.CheckpointEvery / 2

// chartMsg asks for the next slice of reading the chart's states.
type chartMsg struct{}

// chartShow is the learner's choice of chart: none yet (a panel where the
// layout has room for one), shown or hidden.
type chartShow uint8

const (
	chartAuto chartShow = iota
	chartShown
	chartHidden
)

// chartState is what a chart draws of one lane: its gauge's fill (0 to 1,
// below 0 for tokens owed) at each column up to the clock's, and where the
// lane refused; owes says the lane can owe (canOwe), so its chart keeps
// rows under its zero, deep the debt those rows span, in fills (the
// deepest drawn, at least a full gauge: owedDepth, up to whole tokens),
// and full the tokens of a full gauge, to name it.
type chartState struct {
	fills   []float64 // NaN after the clock, and where not read yet
	refused []refusal
	owes    bool
	deep    float64
	full    float64
}

// owedDepth is the debt the rows under a chart's zero span, in fills: the
// deepest of fills, at least a full gauge, so that a debt is drawn as an
// area down to the lowest row at its deepest, whatever its size, rather
// than past the rows at the bars' scale.
func owedDepth(fills []float64) float64 {
	deep := 1.0
	for _, f := range fills {
		if f < 0 && -f > deep {
			deep = -f
		}
	}
	return deep
}

// chartInstants are the instants whose states the chart draws over sp:
// each column's last, for the columns wholly before the clock.
func chartInstants(sp span, now time.Duration) []time.Duration {
	var at []time.Duration
	for c := range sp.cols {
		last := sp.start + time.Duration(c+1)*sp.dt - 1
		if last >= now {
			break
		}
		at = append(at, last)
	}
	return at
}

// chartShown reports whether the screen draws the chart: as a panel, or
// in the timeline's rows.
func (t *timeline) chartShown() bool { return t.ctx.lay.chart > 0 || t.inlineChart() }

// workOnChart reads the states the chart draws after msg was handled
// (model.TraceStates): up to syncChart requests' replay after any
// message; on a chartMsg, for about sliceBudget (timed apart from other
// work: pacer); and while some are left, a chartMsg is asked for, unless
// one is already on its way. A job's slices come first.
func (a *App) workOnChart(msg tea.Msg) tea.Cmd {
	_, own := msg.(chartMsg)
	if own {
		a.chartQueued = false
	}
	if a.job != nil || a.lab == nil || !a.tl.chartShown() {
		return nil
	}
	key, at := a.key(), chartInstants(a.tl.span(), a.lab.Now())
	if !own {
		if _, more := a.lab.TraceStates(key, at, syncChart); !more {
			return nil
		}
	} else if a.pace.slice(&a.pace.charting, sliceBudget, func(n int) (int, bool) {
		return a.lab.TraceStates(key, at, n)
	}) {
		return nil
	}
	if a.chartQueued {
		return nil
	}
	a.chartQueued = true
	return func() tea.Msg { return chartMsg{} }
}

// chartStates reads the state of the shown key over sp of the lanes
// wanted (every lane's when nil; the others' are left empty), as far as
// workOnChart has read them, and where they refused a request of the rows
// rs; reading says some columns before the clock are not read yet; why
// (a sentence) says why there is nothing to draw.
func (t *timeline) chartStates(sp span, rs rows, wanted []int) (lanes []chartState, reading bool, why string) {
	lab := t.ctx.lab
	now, key := lab.Now(), t.ctx.key()
	if _, onStore := lab.StoreView(0, key); onStore {
		return nil, false, "the states live in the store: only the boxes show them, at the clock"
	}
	at := chartInstants(sp, now)
	states := lab.StatesAt(key, at)
	reading = len(states) < len(at)
	cursor := sp.column(now)
	defs := lab.Lanes()
	lanes = make([]chartState, len(defs))
	decided := lab.Pos()
	// The refusals marked are the key drawn's: the timeline rows' when
	// they are that key's, else that key's own (keyed, within
	// chartKeyTallies requests).
	marked, keyed := chartMarks(lab, rs, key)
	// The lane rows drawn above in this frame have tallied each column
	// already.
	drawn := t.refusedSpan == sp && t.refusedRows == keyed && len(t.refused) == len(defs)
	var bounds []int
	if marked && !drawn {
		bounds = make([]int, sp.cols+1)
		for c := range bounds {
			bounds[c] = lab.Search(sp.start + time.Duration(c)*sp.dt - 1)
		}
	}
	if wanted == nil {
		for lane := range defs {
			wanted = append(wanted, lane)
		}
	}
	for _, lane := range wanted {
		def := defs[lane]
		pic := pictureOf(def.Policy)
		cs := chartState{fills: make([]float64, sp.cols), refused: make([]refusal, sp.cols), owes: canOwe(def.Policy)}
		if cs.owes {
			cs.full = owedFull(def.Policy)
		}
		if marked && drawn {
			copy(cs.refused, t.refused[lane])
		}
		for c := range sp.cols {
			switch {
			case c < len(states):
				cs.fills[c], _ = pic.row(laneView{policy: def.Policy, snap: states[c][lane]})
			case c == cursor:
				cs.fills[c], _ = pic.row(laneView{policy: def.Policy, snap: lab.Snapshot(lane, key)})
			default:
				// After the clock, or not read yet (workOnChart).
				cs.fills[c] = math.NaN()
				continue
			}
			if marked && !drawn {
				lo, hi := bounds[c], min(bounds[c+1], decided)
				tally, down := keyed.tally(lane, lo, hi), 0 // zero when lo ≥ hi
				if !def.Fleet.Plain() && tally.Rejected > 0 {
					down, _ = keyed.marked(lane, lo, hi)
				}
				cs.refused[c] = refusalOf(tally, down)
			}
		}
		if cs.owes {
			// Whole tokens, so that the depth named reads plainly ("−8").
			cs.deep = math.Ceil(owedDepth(cs.fills)*cs.full) / cs.full
		}
		lanes[lane] = cs
	}
	return lanes, reading, ""
}

// chartKeyTallies is the longest timeline on which the chart marks the
// refusals of a key nobody pinned (the latest request's): a key's
// refusals are read from an index of its requests, built the first time
// the key is asked for, which costs a pass over the timeline a key.
const chartKeyTallies = 200_000

// chartMarks says whether the chart of key marks its refusals, and from
// which rows: rs when they are key's, else key's own.
func chartMarks(lab *model.Lab, rs rows, key string) (marked bool, from rows) {
	switch {
	case rs.pinned && rs.key == key, !rs.pinned && len(lab.Keys()) <= 1:
		return true, rs
	case lab.Len() <= chartKeyTallies:
		return true, rows{lab: lab, pinned: true, key: key}
	}
	return false, rs
}

// owedRows is how many of a lane's h chart rows are under its zero, for
// the tokens it owes: half of them (at least one) for a lane that can owe,
// when it has two rows or more; none otherwise.
func owedRows(cs chartState, h int) int {
	if !cs.owes || h < 2 {
		return 0
	}
	return max(h/2, 1)
}

// owedCell draws a token owed, under a chart's zero: a shade, not a bar's
// block, so that it reads as a debt without colour too.
const owedCell = "▒"

// owedDepthText names the depth of the rows under a lane's zero, beside
// the lowest of them: "−8", whole tokens owed.
func owedDepthText(cs chartState) string { return "−" + floatCell(cs.deep*cs.full) }

// chartBars draws one lane's fills in h rows, top row first, each bar in
// eighths of a cell rounded down (a bar reaches the top only when full),
// with ✗ above the bar in a column that refused (on its top cell when
// full), the cursor column in reverse video. The limit is drawn: the top
// row's cells a bar leaves empty are a dotted line, ┈, in every column
// that has a state. A lane that can owe keeps its last owedRows rows under
// the zero: the tokens owed hang from it as an area of ▒, the lowest row
// at cs.deep (the deepest debt drawn), any debt at least a cell.
func chartBars(st *styles, cs chartState, h, cursor int) []string {
	rows := make([][]string, h)
	for r := range rows {
		rows[r] = make([]string, len(cs.fills))
	}
	below := owedRows(cs, h)
	above := h - below
	for c, f := range cs.fills {
		if math.IsNaN(f) {
			for r := range rows {
				rows[r][c] = " "
			}
			continue
		}
		for r := above; r < h; r++ {
			rows[r][c] = " "
		}
		if f < 0 && below > 0 {
			owed := -f / max(cs.deep, 1) * float64(below) // in rows of the debt's scale
			for r := range min(int(math.Ceil(owed)), below) {
				rows[above+r][c] = owedCell
			}
		}
		// The bars and their marks stand over the zero, in the rows above.
		eighthsUp := int(min(max(f, 0), 1) * float64(above*8))
		full, part := eighthsUp/8, eighthsUp%8
		for r := range above {
			fromBottom := above - 1 - r
			switch {
			case fromBottom < full:
				rows[r][c] = "█"
			case fromBottom == full && part > 0:
				rows[r][c] = levels[part]
			default:
				rows[r][c] = " "
			}
		}
		switch {
		case cs.refused[c] != noRefusal:
			// Just above the bar: the first row over its top, or the top
			// row when the bar fills the column.
			r := max(above-1-full, 0)
			if part > 0 {
				r = max(r-1, 0)
			}
			rows[r][c] = "✗"
			if cs.refused[c] == refusedStoreDown {
				rows[r][c] = "⊘"
			}
		case f > 1:
			// Past full (an attempt log holding 11 of 5): the bar cannot
			// grow, its top says so.
			rows[0][c] = "▲"
		}
		if rows[0][c] == " " {
			rows[0][c] = limitCell
		}
	}
	out := make([]string, h)
	for r, cells := range rows {
		var b, run strings.Builder
		style := -1 // of run: 0 none, 1 bar, 2 refusal or past full, 3 cursor, 4 store down, 5 the limit, 6 owed
		flush := func() {
			switch style {
			case 0:
				b.WriteString(run.String())
			case 1:
				b.WriteString(st.gauge.Render(run.String()))
			case 2:
				b.WriteString(st.rejected.Render(run.String()))
			case 3:
				b.WriteString(st.cursor.Render(run.String()))
			case 4:
				b.WriteString(st.http.Render(run.String()))
			case 5:
				b.WriteString(st.muted.Render(run.String()))
			case 6:
				b.WriteString(st.delayed.Render(run.String()))
			}
			run.Reset()
		}
		for c, cell := range cells {
			// One Render a run of cells of one style, as drawMarks does.
			s := 0
			switch {
			case c == cursor:
				s = 3
			case cell == "✗" || cell == "▲":
				s = 2
			case cell == "⊘":
				s = 4
			case cell == limitCell:
				s = 5
			case cell == owedCell:
				s = 6
			case cell != " ":
				s = 1
			}
			if s != style || s == 3 {
				flush()
				style = s
			}
			run.WriteString(cell)
		}
		flush()
		out[r] = b.String()
	}
	return out
}

// limitCell marks the limit, a gauge's full, on the top row of a lane's
// chart.
const limitCell = "┈"

// chartTitle says what the chart draws, for the panel's first row, at
// most w cells wide: the longest of its variants that fits; reading says
// that some of the states are still being read, over that a bar is past
// full, down that a column's refusals were a store's outage's, owed that
// a lane owes tokens in some column (drawn under its zero).
func (t *timeline) chartTitle(rs rows, reading, over, down, owed bool, w int) string {
	st, lab := t.ctx.st, t.ctx.lab
	whose := ""
	if len(lab.Keys()) > 1 {
		whose = " · " + st.accent.Render("key "+keyText(t.ctx.key()))
		if !rs.pinned {
			whose += st.muted.Render(" (the latest request's; k pins one)")
		}
	}
	refusals := " · " + st.rejected.Render("✗") + st.muted.Render(" refused")
	if marked, _ := chartMarks(lab, rs, t.ctx.key()); !marked {
		refusals = st.muted.Render(" · ✗ with a key pinned")
	}
	if down {
		refusals += " " + st.http.Render("⊘") + st.muted.Render(" 503 store down")
	}
	if over {
		refusals += " " + st.rejected.Render("▲") + st.muted.Render(" past full")
	}
	if owed {
		refusals += " " + st.delayed.Render(owedCell) + st.muted.Render(" tokens owed, from 0 down to the −n named")
	}
	title := st.title.Render("state over time")
	if reading {
		title += st.muted.Render(" (reading…)")
	}
	return first([]string{
		title + whose + st.muted.Render(" · each lane's gauge, empty at the bottom, full at the ┈ limit · a column: its last instant") + refusals + st.muted.Render(" · v hides"),
		title + whose + st.muted.Render(" · each lane's gauge, empty to full at ┈") + refusals + st.muted.Render(" · v hides"),
		title + whose + st.muted.Render(" · gauge, empty to full") + refusals,
		title + whose,
		title,
	}, w)
}

// chartPanel draws the chart panel over sp in n rows: the title, then
// each lane's bars in the rows it gets, its name beside them.
func (t *timeline) chartPanel(sp span, n int) []string {
	st, l, lab := t.ctx.st, t.ctx.lay, t.ctx.lab
	rs := t.rowsOf()
	lanes, reading, why := t.chartStates(sp, rs, nil)
	// The marks drawn that the title names: a bar past full (a refusal's
	// mark takes the place of its ▲), a store down.
	var over, down, owed bool
	for _, cs := range lanes {
		for c, f := range cs.fills {
			over = over || f > 1 && cs.refused[c] == noRefusal
			down = down || cs.refused[c] == refusedStoreDown
			owed = owed || f < 0 && cs.owes
		}
	}
	out := []string{fit(t.chartTitle(rs, reading, over, down, owed, l.width), l.width)}
	if why != "" {
		out = append(out, fit(timelineLabel("", st.muted, l.label)+st.muted.Render(why), l.width))
		for len(out) < n {
			out = append(out, fit("", l.width))
		}
		return out
	}
	defs := lab.Lanes()
	per := (n - 1) / max(len(defs), 1)
	cursor := sp.column(lab.Now())
	for lane, def := range defs {
		below := owedRows(lanes[lane], per)
		zero := per - below // the first row under the zero
		for r, bars := range chartBars(st, lanes[lane], per, cursor) {
			label := timelineLabel("", st.text, l.label)
			switch {
			case r == 0:
				label = t.laneLabel(lane, def.Name)
			case r == zero && below == 1:
				// One row under the zero: it is named with its depth.
				label = timelineLabel("  owed "+owedDepthText(lanes[lane]), st.delayed, l.label)
			case r == zero:
				label = timelineLabel("  owed", st.delayed, l.label)
			case below > 1 && r == per-1:
				label = timelineLabel("  "+owedDepthText(lanes[lane]), st.delayed, l.label)
			}
			out = append(out, label+bars)
		}
	}
	for len(out) < n {
		out = append(out, fit("", l.width))
	}
	return out
}

// chartInline draws the focused lane's chart in h rows, for the timeline's
// lane rows on a screen with no room for the panel: its name on the first
// row, "state" on the second.
func (t *timeline) chartInline(sp span, rs rows, h int) []string {
	st, l, lab := t.ctx.st, t.ctx.lay, t.ctx.lab
	lanes, _, why := t.chartStates(sp, rs, []int{t.ctx.focus})
	out := make([]string, 0, h)
	if why != "" {
		out = append(out, fit(timelineLabel("", st.muted, l.label)+st.muted.Render(why), l.width))
	} else {
		lane := t.ctx.focus
		below := owedRows(lanes[lane], h)
		zero := h - below // the first row under the zero
		for r, bars := range chartBars(st, lanes[lane], h, sp.column(lab.Now())) {
			label := timelineLabel("", st.text, l.label)
			switch {
			case r == 0:
				label = t.laneLabel(lane, lab.Lanes()[lane].Name)
			case r == zero && below == 1:
				// One row under the zero: it is named with its depth.
				label = timelineLabel("  owed "+owedDepthText(lanes[lane]), st.delayed, l.label)
			case r == zero:
				label = timelineLabel("  owed", st.delayed, l.label)
			case below > 1 && r == h-1:
				label = timelineLabel("  "+owedDepthText(lanes[lane]), st.delayed, l.label)
			case r == 1:
				label = timelineLabel("  state", st.muted, l.label)
			}
			out = append(out, label+bars)
		}
	}
	for len(out) < h {
		out = append(out, fit("", l.width))
	}
	return out
}

// laneLabel is lane's name in the column of names, ▶ when focused.
func (t *timeline) laneLabel(lane int, name string) string {
	if lane == t.ctx.focus {
		return timelineLabel("▶"+name, t.ctx.st.accent, t.ctx.lay.label)
	}
	return timelineLabel(name, t.ctx.st.text, t.ctx.lay.label)
}

// inlineChart reports whether the timeline's lane rows are the focused
// lane's chart: the learner asked for the chart and the layout has no
// panel for it.
func (t *timeline) inlineChart() bool {
	return t.ctx.chart == chartShown && t.ctx.lay.chart == 0
}
