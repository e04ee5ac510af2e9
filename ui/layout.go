package ui

// The screen, top to bottom:
//
//	header     title, clock, play state, speed, step; what space fires
//	lanes      one cell per limiter, in a grid
//	timeline   one row per lane on a shared time axis
//	note       the scenario's narration at the clock
//	why        the focused lane's last decision, with numbers
//	status     what the last action did (or a prompt)
//	footer     short key help
//
// Everything is sized by layoutFor, a pure function of the terminal size and
// the number of lanes, so that tests can check every size without a
// terminal.

// laneMode is how much of each lane's state the screen has room for.
type laneMode int

const (
	// laneBoxed is a bordered box: title, last verdict, three state lines,
	// totals.
	laneBoxed laneMode = iota
	// laneCompact drops the border and a state line: title with the verdict,
	// two state lines, totals.
	laneCompact
	// laneRow is one line per lane: name, verdict, main gauge, totals.
	laneRow
)

func (m laneMode) String() string {
	switch m {
	case laneBoxed:
		return "boxed"
	case laneCompact:
		return "compact"
	}
	return "row"
}

// Breakpoints.
const (
	// minWidth is the narrowest screen drawn at all: a lane row (name,
	// verdict, a short gauge, totals) and a timeline of 40 columns fit.
	minWidth = 50
	// boxedMinWidth and compactMinWidth are the narrowest lane cells of each
	// mode; a cell's longest line (a gauge and "119.8 of 120") fits in them.
	boxedMinWidth   = 32
	compactMinWidth = 30
	// compactGap is the separator between compact cells: " │ ".
	compactGap = 3
	// labelWidth is the narrowest column of lane names left of the
	// timeline; it widens to the longest name, up to maxLabelWidth.
	labelWidth    = 9
	maxLabelWidth = 18
	// tallExtra is how many state lines a boxed lane gains on a tall
	// terminal (3 become maxStateLines).
	tallExtra = maxStateLines - 3
	// whyExplain is the most rows the why panel gives the focused lane's
	// explanation, whyOther each other lane's; noteMax is the most rows of
	// narration.
	whyExplain = 3
	whyOther   = 2
	noteMax    = 6
	noteBoxed  = 3
	// chartLaneMin is the fewest rows a lane's bars get in the chart
	// panel, chartLaneMax the most before the notes have all their rows;
	// after that, what is left goes to the bars.
	chartLaneMin = 2
	chartLaneMax = 8
)

// stateLines is how many state lines a lane cell shows in each mode, tall
// boxes having tallExtra more.
func (m laneMode) stateLines(tall bool) int {
	switch {
	case m == laneBoxed && tall:
		return 3 + tallExtra
	case m == laneBoxed:
		return 3
	case m == laneCompact:
		return 2
	}
	return 1
}

// cellHeight is the height of one lane cell.
func (m laneMode) cellHeight(tall bool) int {
	switch m {
	case laneBoxed:
		return 2 + 1 + m.stateLines(tall) + 1 // borders, verdict, state, totals
	case laneCompact:
		return 1 + 2 + 1 // title with verdict, state, totals
	}
	return 1
}

// shape is what of the scenario the layout depends on: how many lanes, how
// many of them delay requests (each adds a timeline row for the releases),
// and the longest lane name.
type shape struct {
	lanes    int
	releases int
	longest  int
	// notes are the scenario's notes as the note panel writes them: the
	// richer lane modes leave room for the longest of them (up to
	// noteBoxed rows) rather than cut it to a line.
	notes []string
	// reached is how many of notes the clock has reached: the note panel
	// shows those (the lesson so far) and takes rows for them only, so
	// that early in a lesson the rows of notes to come go to the chart.
	reached int
	// noChart says the learner hid the chart of states over time: the
	// layout gives it no rows.
	noChart bool
}

// noteRows is how many rows the longest note needs at width w, at most
// noteBoxed; 1 when there are no notes.
func (sh shape) noteRows(w int) int {
	rows := 1
	for _, n := range sh.notes {
		rows = max(rows, min(len(wrap(n, w, noteBoxed)), noteBoxed))
	}
	return rows
}

// allNoteRows is how many rows the note panel needs at width w to show
// every note the clock has reached whole (the lesson so far); 1 when it
// has reached none (the panel says when the first comes).
func (sh shape) allNoteRows(w int) int {
	rows := 0
	for _, n := range sh.notes[:min(max(sh.reached, 0), len(sh.notes))] {
		rows += len(wrap(n, w, len(n)+1))
	}
	return max(rows, 1)
}

// label is the width of the column of lane names: the longest name and a
// mark, between labelWidth and maxLabelWidth.
func (sh shape) label() int { return min(max(sh.longest+3, labelWidth), maxLabelWidth) }

// layout is where everything goes on a screen of width × height.
type layout struct {
	width, height int
	// tooSmall is set when even the smallest arrangement does not fit;
	// needWidth × needHeight is the smallest size that does.
	tooSmall              bool
	needWidth, needHeight int

	mode       laneMode
	tall       bool // boxed lanes with tallExtra more state lines
	cols, rows int  // the lane grid
	cellWidth  int  // the width of a full row's cells (a box column's: columnWidth)
	label      int  // the column of lane names left of the timeline and the why panel

	header   int  // 1 or 2
	lanes    int  // height of the lane grid
	timeline int  // lanes + release rows + 2 (notes row, axis), + 1 when legend
	releases bool // a row of releases under each lane that delays
	legend   bool
	overview int // the whole run: lanes + 2 rows, or 0
	chart    int // the states over time: a title and chartLane rows a lane, or 0
	note     int
	why      int
	status   int // 0: the status shares the footer line
	footer   int
	gaps     bool // a blank row between the panels
	spare    int  // blank rows above the footer
}

// layoutFor arranges n lanes on a width × height screen: the richest lane
// mode that leaves room for the timeline, a note, a why panel of three rows
// (five for boxed lanes), the status line and the footer; else the minimal
// screen (one-line header, lane rows, why of two rows, status in the
// footer); else too small.
func layoutFor(width, height int, sh shape) layout {
	n := max(sh.lanes, 1)
	l := layout{width: width, height: height, needWidth: minWidth, footer: 1, label: sh.label()}
	timeline := n + 2
	// The minimal screen: header 1, lanes n, timeline, note 1, why 2, footer
	// 1. It draws no rows of releases; every richer screen does.
	l.needHeight = 1 + n + timeline + 1 + 2 + 1
	if width < l.needWidth || height < l.needHeight {
		l.tooSmall = true
		return l
	}
	for _, mode := range []laneMode{laneBoxed, laneCompact, laneRow} {
		cols, rows, cellWidth := grid(mode, width, n)
		if cols == 0 {
			continue
		}
		if mode == laneBoxed {
			cols, rows, cellWidth = roomyGrid(width, height, n, sh.releases, cols, rows, cellWidth)
		}
		lanes := rows * mode.cellHeight(false)
		if mode == laneCompact {
			lanes += rows - 1 // a blank row between rows of cells
		}
		// Boxes are worth less than the lesson: boxed lanes are drawn only
		// when the why panel keeps its whole explanation, else a taller
		// terminal would cut the explanation that a shorter one showed.
		// Nor at the cost of the notes: boxed and compact lanes leave
		// room for the longest note (up to noteBoxed rows) rather than cut
		// it to one line.
		why, note := 3, sh.noteRows(width)
		switch mode {
		case laneBoxed:
			why = 1 + whyExplain + 1
		case laneRow:
			note = 1
		}
		fixed := 2 + lanes + timeline + sh.releases + note + why + 1 + 1
		if fixed > height {
			continue
		}
		// The mode keeps room for the longest note, but the panel takes
		// only the rows of the notes reached so far: early in a lesson
		// the rest go to the why panel, the chart and the others.
		reached := sh.allNoteRows(width)
		shown := min(note, reached)
		l.mode, l.cols, l.rows, l.cellWidth = mode, cols, rows, cellWidth
		l.releases = sh.releases > 0
		l.header, l.lanes, l.timeline, l.note, l.why, l.status = 2, lanes, timeline+sh.releases, shown, why, 1
		l.grow(height-fixed, note-shown, n, sh.noChart, reached)
		return l
	}
	l.mode, l.cols, l.rows, l.cellWidth = laneRow, 1, n, width
	l.header, l.lanes, l.timeline, l.note, l.why, l.status = 1, n, timeline, 1, 2, 0
	l.grow(height-l.needHeight, 0, n, sh.noChart, sh.allNoteRows(width))
	return l
}

// grow hands spare rows out: first to the why panel until the focused
// lane's explanation has its rows (the heart of the lesson), then the
// timeline's legend, then the why panel's lines for the other lanes, then the
// chart of states over time (unless noChart), then an overview of the
// whole run, then the note panel (earlier notes: up to noteMax rows, no
// more than every note needs), then blank rows between the panels, then
// the note panel again up to notes rows (every note whole, as at the
// lesson's last note), then the chart's bars: a large screen leaves no
// row blank that the chart can use. freed are the rows the mode kept for
// notes to come: they join the spare ones once the lanes' size is settled,
// so that the lanes stay as they are while notes come.
func (l *layout) grow(spare, freed, n int, noChart bool, notes int) {
	give := func(to *int, upTo int) {
		add := min(spare, max(upTo-*to, 0))
		*to += add
		spare -= add
	}
	give(&l.why, 1+whyExplain+1)
	if spare > 0 && l.header == 2 {
		l.legend = true
		l.timeline++
		spare--
	}
	give(&l.why, 1+whyExplain+1+(n-1)*whyOther)
	if grow := l.rows * tallExtra; l.mode == laneBoxed && spare >= grow+n+2 {
		l.tall = true
		l.lanes += grow
		spare -= grow
	}
	spare += freed
	if !noChart && l.header == 2 {
		// The states over time, under the timeline whose columns they
		// share: bars of chartLaneMin to chartLaneMax rows a lane, as
		// tall as leaves the overview its rows, else as tall as fit.
		per := min((spare-1-(n+2))/n, chartLaneMax)
		if per < chartLaneMin {
			per = min((spare-1)/n, chartLaneMax)
		}
		if per >= chartLaneMin {
			l.chart = 1 + n*per
			spare -= l.chart
		}
	}
	if spare >= n+2 && l.header == 2 {
		l.overview = n + 2
		spare -= l.overview
	}
	give(&l.note, min(noteMax, notes))
	if spare >= l.gapRows() && l.header == 2 {
		l.gaps = true
		spare -= l.gapRows()
	}
	// Then the notes, every one whole, as the last note shows them.
	give(&l.note, notes)
	// Then the bars, a row more a lane while rows are left.
	if l.chart > 0 {
		more := spare / n
		l.chart += more * n
		spare -= more * n
	}
	// What is left (fewer rows than lanes, or no chart) goes to the
	// notes: the lesson so far, whole, rather than blank rows.
	l.note += spare
	l.spare = 0
}

// gapRows is how many blank rows separate the panels when l.gaps: one
// after the lanes, the timeline, the chart and the overview (each if
// any) and the note.
func (l *layout) gapRows() int {
	n := 3
	if l.overview > 0 {
		n++
	}
	if l.chart > 0 {
		n++
	}
	return n
}

// columnWidth is the width of the boxes of column c of the lane grid: the
// width shared evenly over the columns, the first columns a cell wider
// when it does not divide.
func (l layout) columnWidth(c int) int {
	cols := max(l.cols, 1)
	avail := l.width
	w := avail / cols
	if c < avail%cols {
		w++
	}
	return w
}

// comfortableWidth is the box width beyond which a lane gains nothing by
// being wider: its gauges and strips are at their longest.
const comfortableWidth = 60

// roomyGrid spreads n boxed lanes over more rows of wider boxes while the
// boxes are narrower than comfortableWidth and a tall screen still has
// room for everything else at its richest (tall boxes, every lane's
// explanation, the overview, a few notes, the gaps): on a big terminal the
// lanes grow instead of leaving rows blank.
func roomyGrid(width, height, n, releases, cols, rows, cellWidth int) (int, int, int) {
	rest := 2 + (n + 2 + releases + 1) + (1 + whyExplain + 1 + (n-1)*whyOther) + 1 + 1 + 4 + (n + 2) + 3
	for r := rows + 1; r <= n && cellWidth < comfortableWidth; r++ {
		c := (n + r - 1) / r
		r2 := (n + c - 1) / c
		if r2 != r {
			continue // the same grid as a rounder one
		}
		if r2*laneBoxed.cellHeight(true)+rest > height {
			break
		}
		cols, rows, cellWidth = c, r2, width/c
	}
	return cols, rows, cellWidth
}

// grid fits n cells of mode into width: columns, rows and the cell width,
// with the columns balanced over the rows (4 lanes on 3 columns make 2 × 2,
// not 3 + 1). cols is 0 when not even one cell fits.
func grid(mode laneMode, width, n int) (cols, rows, cellWidth int) {
	switch mode {
	case laneRow:
		return 1, n, width
	case laneBoxed:
		cols = width / boxedMinWidth
	case laneCompact:
		cols = (width + compactGap) / (compactMinWidth + compactGap)
	}
	cols = min(cols, n)
	if cols == 0 {
		return 0, 0, 0
	}
	rows = (n + cols - 1) / cols
	cols = (n + rows - 1) / rows
	if mode == laneCompact {
		return cols, rows, (width - (cols-1)*compactGap) / cols
	}
	return cols, rows, width / cols
}
