package ui

import (
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/model"
)

// timeline is the time-axis component: its zoom (virtual time per column)
// and the rows it draws: the notes, one row per lane (and, under a lane
// that delays, a row of the releases), the axis; and on a tall screen the
// overview of the whole run.
type timeline struct {
	ctx   *programContext
	zooms []time.Duration
	zoom  int // index into zooms
	// zoomed says the learner chose the zoom (z, Z): until then, the zoom
	// follows the screen's width (fit).
	zoomed bool
	// refused[lane][c] is whether the lane rows laneRows drew last, over
	// refusedSpan of refusedRows, refused a request in column c: the chart
	// drawn under them in the same frame marks its ✗ from them.
	refused     [][]refusal
	refusedSpan span
	refusedRows rows
}

// newTimeline starts at one column per step of the scenario (see fit).
func newTimeline(ctx *programContext) timeline {
	zooms := zoomLadder(ctx.step())
	return timeline{ctx: ctx, zooms: zooms, zoom: max(0, slices.Index(zooms, ctx.step()))}
}

// fit chooses the zoom for the screen's width, unless the learner chose
// one: a column a step, so that stepping moves the cursor a column; but
// where that would leave more than half the columns empty, a short
// scenario on a wide screen, the finest zoom that still shows the whole
// scenario and divides the step, so that the screen's width shows its
// detail and requests a step apart stay evenly spaced.
func (t *timeline) fit() {
	if t.zoomed {
		return
	}
	step := max(0, slices.Index(t.zooms, t.ctx.step()))
	cols, end := time.Duration(t.columns()), t.ctx.lab.End()
	t.zoom = step
	if t.zooms[step]*cols/2 <= end {
		return
	}
	for i, dt := range t.zooms[:step] {
		if dt*cols > end && t.zooms[step]%dt == 0 {
			t.zoom = i
			return
		}
	}
}

type timelineKeys struct{ ZoomIn, ZoomOut key.Binding }

func (t *timeline) keys() timelineKeys {
	return timelineKeys{t.ctx.keys.Lab.ZoomIn, t.ctx.keys.Lab.ZoomOut}
}

// update handles the zoom keys; handled is false for any other key.
func (t *timeline) update(msg tea.KeyPressMsg) (handled bool) {
	k := t.keys()
	was := t.zoom
	switch {
	case key.Matches(msg, k.ZoomIn):
		t.zoom = max(t.zoom-1, 0)
	case key.Matches(msg, k.ZoomOut):
		t.zoom = min(t.zoom+1, t.widest())
	default:
		return false
	}
	t.zoomed = t.zoomed || t.zoom != was
	return true
}

// widest is the zoom beyond which zooming out shows nothing more: the first
// that fits the whole axis on screen.
func (t *timeline) widest() int {
	cols := time.Duration(t.columns())
	for i, dt := range t.zooms {
		if dt*cols > t.ctx.lab.End() {
			return max(i, min(t.zoom, len(t.zooms)-1))
		}
	}
	return len(t.zooms) - 1
}

// columns is how many columns of time the screen has room for.
func (t *timeline) columns() int { return max(t.ctx.lay.width-t.ctx.lay.label, 1) }

// dt is the time per column.
func (t *timeline) dt() time.Duration { return t.zooms[t.zoom] }

// span is what the timeline shows at the clock.
func (t *timeline) span() span {
	cols := t.columns()
	lab := t.ctx.lab
	return span{timelineStart(lab.Now(), lab.End(), t.dt(), cols), t.dt(), cols}
}

// The timeline is one row per lane on a shared time axis: each column is a
// span of virtual time, dt long, marked with the outcomes of the requests
// in it. Drawing a column costs two binary searches (Lab.Search) and one
// Lab.Tally per lane, so a frame costs what is on screen, whatever the
// timeline's length. With a key pinned, the Key… methods answer instead,
// from the key's requests and retries, listed once and extended as the
// clock moves: a binary search a column more, and at most the key's own
// requests and retries in it.

// roundSpans are 1, 2, 5 × 10ⁿ from 1µs to 1 day, in order: the rungs of
// the zoom ladder and the axis's ticks.
var roundSpans = func() []time.Duration {
	var spans []time.Duration
	for unit := time.Microsecond; unit <= 24*time.Hour; unit *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			spans = append(spans, m*unit)
		}
	}
	return spans
}()

// zoomLadder is the timeline's choice of column spans: roundSpans plus the
// scenario's step, which is the default: one column per step, so stepping
// moves the cursor one column.
func zoomLadder(step time.Duration) []time.Duration {
	ladder := slices.Clone(roundSpans)
	if step > 0 && !slices.Contains(ladder, step) {
		ladder = append(ladder, step)
		slices.Sort(ladder)
	}
	return ladder
}

// timelineStart is the time at the timeline's left edge: 0 when everything
// fits, else the clock two thirds across, kept inside [0, end], and aligned
// to a multiple of dt so that the columns do not shimmer while playing.
func timelineStart(now, end, dt time.Duration, cols int) time.Duration {
	span := dt * time.Duration(cols)
	if span > end {
		return 0
	}
	start := now - span*2/3
	start = min(start, end+dt-span)
	start = max(start, 0)
	return start / dt * dt
}

// mark is what one timeline cell shows.
type mark uint8

const (
	markEmpty mark = iota
	markAllowed
	markDelayed
	markRejected
	markMixed
	markUpcoming
	markNote
	markNoteAhead
	markReleased
	markReleaseAhead
	// A lane of gateways' marks: every refusal in the column was a
	// fallback's while the store was down (503, not 429); or the column
	// admitted something beyond the policy (a double spend, a copy
	// counting apart, a lost or expired state, failing open).
	markStoreDown
	markBeyond
	// A lab with clients marks the columns where a lane decided retries:
	// markRetry + 10×how they went (retryAdmitted, retryRefused,
	// retryMixed) + (highest attempt − 1), a digit 2 to 9, or ↻ for the
	// tenth attempt or later.
	// The count is the shape, so that it reads without colour; the colour
	// is the retries' outcome.
	markRetry
)

// How a column's retries went, for the colour of its retry mark.
const (
	retryAdmitted = iota
	retryRefused
	retryMixed
)

var markGlyphs = [...]string{" ", "✓", "◷", "✗", "±", "·", "◆", "◇", "↦", "·", "⊘", "+"}

// retryGlyphs are the retry marks' glyphs by the highest attempt − 1: ↻ is
// the tenth attempt or later.
var retryGlyphs = [...]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "↻"}

// glyph is what a cell of mark m shows.
func (m mark) glyph() string {
	if m >= markRetry {
		return retryGlyphs[(m-markRetry)%10]
	}
	return markGlyphs[m]
}

// retryMark is the mark of a column in which a lane decided retries, of
// which admitted were admitted (retries > 0).
func retryMark(span model.RetrySpan) mark {
	how := retryMixed
	switch span.Admitted {
	case span.Retries:
		how = retryAdmitted
	case 0:
		how = retryRefused
	}
	return markRetry + mark(10*how+min(span.Highest, 10)-1)
}

// refusal is what a column of the chart marks of a lane's refusals in it:
// none, some (✗), or all of them a fallback's 503 while the store was
// down (⊘), as the timeline's row marks them.
type refusal uint8

const (
	noRefusal refusal = iota
	refused
	refusedStoreDown
)

// refusalOf is the refusal of a column whose tally is t, down of its
// refusals a fallback's (gatewayMark's rule).
func refusalOf(t model.Tally, down int) refusal {
	switch {
	case t.Rejected == 0:
		return noRefusal
	case down > 0 && down == t.Rejected && t.Rejected == t.Total():
		return refusedStoreDown
	}
	return refused
}

// gatewayMark refines m, a column's mark from its tally t, with what a lane
// of gateways marked in it: down refusals by a fallback, beyond admissions
// beyond the policy.
func gatewayMark(m mark, t model.Tally, down, beyond int) mark {
	switch {
	case down > 0 && down == t.Rejected && t.Rejected == t.Total():
		return markStoreDown
	case beyond > 0 && t.Rejected == 0:
		return markBeyond
	}
	return m
}

func markOf(t model.Tally) mark {
	switch {
	case t.Total() == 0:
		return markEmpty
	case t.Rejected == t.Total():
		return markRejected
	case t.Rejected > 0:
		return markMixed
	case t.Delayed > 0:
		return markDelayed
	}
	return markAllowed
}

func (st *styles) markStyle(m mark) ink {
	if m >= markRetry {
		return [...]ink{retryAdmitted: st.allowed, retryRefused: st.rejected, retryMixed: st.mixed}[(m-markRetry)/10]
	}
	switch m {
	case markAllowed:
		return st.allowed
	case markDelayed:
		return st.delayed
	case markRejected:
		return st.rejected
	case markMixed:
		return st.mixed
	case markUpcoming, markNoteAhead, markReleaseAhead:
		return st.upcoming
	case markReleased:
		return st.delayed
	case markStoreDown, markBeyond:
		return st.http
	case markNote:
		return st.note
	}
	return st.text
}

// drawMarks renders a row of marks, one Render per run of equal marks, the
// cursor column in reverse video.
func drawMarks(st *styles, marks []mark, cursor int) string {
	var b strings.Builder
	for i := 0; i < len(marks); {
		if i == cursor {
			b.WriteString(st.cursor.Render(marks[i].glyph()))
			i++
			continue
		}
		j := i + 1
		for j < len(marks) && marks[j] == marks[i] && j != cursor {
			j++
		}
		run := strings.Repeat(marks[i].glyph(), j-i)
		if marks[i] == markEmpty {
			b.WriteString(run)
		} else {
			b.WriteString(st.markStyle(marks[i]).Render(run))
		}
		i = j
	}
	return b.String()
}

// span is the stretch of virtual time a timeline shows: cols columns of dt
// from start.
type span struct {
	start, dt time.Duration
	cols      int
}

// length is how much time the span shows.
func (sp span) length() time.Duration { return time.Duration(sp.cols) * sp.dt }

func (sp span) end() time.Duration { return sp.start + sp.length() }

// column is the column holding t, or -1.
func (sp span) column(t time.Duration) int {
	if t < sp.start || t >= sp.end() {
		return -1
	}
	return int((t - sp.start) / sp.dt)
}

func timelineLabel(s string, style ink, w int) string {
	return style.Render(fit(s, w-1)) + " "
}

// laneRows draws one row per lane over sp, and with releases a row of the
// releases under each lane that delays. A column shows the outcomes of the
// requests in it the clock has decided, and · for those it has not. With a
// key pinned (k), the rows are that key's alone: its requests' outcomes,
// its gateway marks, its retries, its releases (rs, rowsOf).
func (t *timeline) laneRows(sp span, rs rows, releases bool) []string {
	st, lab, label := t.ctx.st, t.ctx.lab, t.ctx.lay.label
	now := lab.Now()
	cursor := sp.column(now)
	// bounds[c] is the index of the first request at or after column c's
	// start; requests before decided have been decided (the clock may
	// stand inside an instant, part of its requests decided). keyBounds[c]
	// counts the pinned key's requests before bounds[c].
	bounds := make([]int, sp.cols+1)
	var keyBounds []int
	if rs.pinned {
		keyBounds = make([]int, sp.cols+1)
	}
	for c := range bounds {
		bounds[c] = lab.Search(sp.start + time.Duration(c)*sp.dt - 1)
		if rs.pinned {
			keyBounds[c] = lab.KeyRequestsBefore(rs.key, bounds[c])
		}
	}
	decided := lab.Pos()
	marks := make([]mark, sp.cols)
	clients := len(lab.Clients()) > 0
	var out []string
	// The chart panel drawn under these rows in this frame marks their
	// refusals: kept only when there is one.
	keep := t.ctx.lay.chart > 0 && sp == t.span()
	if keep {
		t.refused, t.refusedSpan, t.refusedRows = make([][]refusal, len(lab.Lanes())), sp, rs
	}
	refused := make([]refusal, sp.cols)
	for lane, def := range lab.Lanes() {
		if keep {
			refused = make([]refusal, sp.cols)
			t.refused[lane] = refused
		}
		for c := range marks {
			lo, hi := bounds[c], bounds[c+1]
			past := min(hi, decided)
			t := rs.tally(lane, lo, past) // zero when lo ≥ past
			refused[c] = refusalOf(t, 0)
			switch {
			case t.Total() > 0:
				marks[c] = markOf(t)
				if !def.Fleet.Plain() {
					down, beyond := rs.marked(lane, lo, past)
					marks[c] = gatewayMark(marks[c], t, down, beyond)
					refused[c] = refusalOf(t, down)
				}
			case !rs.pinned && lo < hi, rs.pinned && keyBounds[c] < keyBounds[c+1]:
				// Requests in the column, none decided (a decided one
				// counts in the tally).
				marks[c] = markUpcoming
			default:
				marks[c] = markEmpty
			}
			if clients {
				// The retries this lane decided in the column, up to the
				// clock: they come from its own refusals, so each lane
				// marks its own. The mark takes the column from the
				// originals' (whose refusals made the retries, and which
				// the totals still count), so that a storm shows.
				from := sp.start + time.Duration(c)*sp.dt
				if to := min(from+sp.dt, now+1); from < to {
					if span := rs.retries(lane, from, to); span.Retries > 0 {
						marks[c] = retryMark(span)
					}
				}
			}
		}
		name := timelineLabel(def.Name, st.text, label)
		if lane == t.ctx.focus {
			name = timelineLabel("▶"+def.Name, st.accent, label)
		}
		out = append(out, name+drawMarks(st, marks, cursor))
		if releases && canDelay(def.Policy) {
			out = append(out, t.releaseRow(rs, lane, sp, marks))
		}
	}
	return out
}

// laneRowCount is how many rows laneRows draws: one a lane, and with
// releases one more under each lane that delays.
func (t *timeline) laneRowCount(releases bool) int {
	n := 0
	for _, def := range t.ctx.lab.Lanes() {
		n++
		if releases && canDelay(def.Policy) {
			n++
		}
	}
	return n
}

// rows is where the lane rows' marks come from: the lab's, over every key,
// or with pinned the key's alone (model's Key… methods).
type rows struct {
	lab    *model.Lab
	pinned bool
	key    string
}

// rowsOf is the rows the timeline shows: the pinned key's when the learner
// pinned one.
func (t *timeline) rowsOf() rows {
	// A key that sent every request has the lanes' rows: drawn as such.
	if key := t.ctx.key(); t.ctx.pinned() && !t.ctx.lab.OnlyKey(key) {
		return rows{t.ctx.lab, true, key}
	}
	return rows{lab: t.ctx.lab}
}

func (r rows) tally(lane, lo, hi int) model.Tally {
	if r.pinned {
		return r.lab.KeyTally(lane, r.key, lo, hi)
	}
	return r.lab.Tally(lane, lo, hi)
}

func (r rows) marked(lane, lo, hi int) (down, beyond int) {
	if r.pinned {
		return r.lab.KeyMarked(lane, r.key, lo, hi)
	}
	return r.lab.Marked(lane, lo, hi)
}

func (r rows) retries(lane int, from, to time.Duration) model.RetrySpan {
	if r.pinned {
		return r.lab.KeyRetries(lane, r.key, from, to)
	}
	return r.lab.Retries(lane, from, to)
}

// releasedIn is, for the release row over sp, whether lane released
// something in [from, to) (within sp): the key's releases are read once
// for the row and binned, not counted column by column.
func (r rows) releasedIn(lane int, sp span) func(from, to time.Duration) bool {
	if !r.pinned {
		return func(from, to time.Duration) bool { return r.lab.Released(lane, from, to) > 0 }
	}
	times := r.lab.KeyReleases(lane, r.key, sp.start, sp.end())
	return func(from, to time.Duration) bool {
		i, _ := slices.BinarySearch(times, from)
		return i < len(times) && times[i] < to
	}
}

// releaseRow marks when the requests that lane delayed leave its queue for
// the service: ↦ where one left by the clock, · where one is due later. It
// is what the service behind a shaper sees (of the pinned key's requests,
// with one pinned).
func (t *timeline) releaseRow(rs rows, lane int, sp span, marks []mark) string {
	st, lab := t.ctx.st, t.ctx.lab
	now := lab.Now()
	released := rs.releasedIn(lane, sp)
	for c := range marks {
		from := sp.start + time.Duration(c)*sp.dt
		to := from + sp.dt
		switch {
		case from <= now && released(from, min(to, now+1)):
			marks[c] = markReleased
		case to > now && released(max(from, now+1), to):
			marks[c] = markReleaseAhead
		default:
			marks[c] = markEmpty
		}
	}
	return timelineLabel("  ↦ out", st.muted, t.ctx.lay.label) + drawMarks(st, marks, sp.column(now))
}

// notesRow marks the notes on sp: ◆ passed, ◇ ahead, or waiting at the
// clock's instant while it stands inside it, as the note panel says
// (notesWaiting).
func (t *timeline) notesRow(sp span) string {
	st, now := t.ctx.st, t.ctx.lab.Now()
	k, m := t.ctx.lab.Instant()
	marks := make([]mark, sp.cols)
	for _, n := range t.ctx.lab.Scenario().Notes {
		c := sp.column(n.At)
		switch {
		case c < 0:
		case n.At < now || n.At == now && k >= m:
			marks[c] = markNote
		case marks[c] != markNote:
			marks[c] = markNoteAhead
		}
	}
	return timelineLabel("notes", st.muted, t.ctx.lay.label) + drawMarks(st, marks, sp.column(now))
}

// view draws the timeline over sp in l.timeline rows: the legend (when the
// layout has room), the notes, the lanes with their releases, the axis.
// With a key pinned the legend (or, without one, the axis's label) names
// the key whose the lane rows are.
func (t *timeline) view(sp span) []string {
	st, l := t.ctx.st, t.ctx.lay
	rs := t.rowsOf()
	// The refusals laneRows keeps are this frame's or none: a chart in
	// the lane rows' place must not read an earlier frame's.
	t.refused = nil
	var out []string
	if l.legend {
		marks := st.allowed.Render("✓") + " allowed " + st.delayed.Render("◷") + " delayed " +
			st.rejected.Render("✗") + " rejected " + st.mixed.Render("±") + " mixed " +
			st.upcoming.Render("·") + " ahead " + st.cursor.Render(" ") + " now"
		zoom := st.muted.Render("z/Z zoom")
		variants := []string{
			st.title.Render("timeline") + " " + st.muted.Render(secs(sp.dt)+"/column") + "  " + marks + "  " + zoom,
			// Without its title at 80 columns, so that the zoom key stays.
			st.muted.Render(secs(sp.dt)+"/column") + " " + marks + " " + zoom,
		}
		if hasGateways(t.ctx.lab) {
			// Lanes of gateways add two marks, which come first.
			down := ""
			if hasOutages(t.ctx.lab) {
				down = st.http.Render("⊘") + " 503 store down "
			}
			gw := st.http.Render("+") + " beyond the policy " + down
			short := st.allowed.Render("✓") + st.delayed.Render("◷") + st.rejected.Render("✗") + st.mixed.Render("±") + " " +
				st.http.Render("+") + " beyond " + down + st.upcoming.Render("·") + " ahead"
			variants = []string{
				st.title.Render("timeline") + " " + st.muted.Render(secs(sp.dt)+"/column") + "  " + marks + " " + gw + zoom,
				st.muted.Render(secs(sp.dt)+"/column") + " " + marks + " " + gw + zoom,
				st.muted.Render(secs(sp.dt)+"/column") + " " + short + " " + zoom,
			}
		}
		if anyRetries(t.ctx.lab.Clients()) {
			// A lab whose clients retry marks retries too: each variant
			// gains the retry mark, and shorter ones follow, the outcomes'
			// names first to go. Clients that only give up (a deadline,
			// no retry) make no such mark, so the legend names none.
			// ↻ is named where a client makes ten attempts or more,
			// kept in the short form: a row may draw nothing else.
			retry := st.rejected.Render("4") + " a retry, 4th attempt "
			shortRetry := retry
			if mostAttempts(t.ctx.lab.Clients()) >= 10 {
				retry = st.rejected.Render("4") + " a retry, 4th attempt (↻ 10th or later) "
				shortRetry = st.rejected.Render("4") + " a retry, 4th attempt, ↻ 10th+ "
			}
			dt := st.muted.Render(secs(sp.dt) + "/column")
			outcomes := st.allowed.Render("✓") + st.delayed.Render("◷") + st.rejected.Render("✗") + st.mixed.Render("±")
			ahead := st.upcoming.Render("·") + " ahead "
			with := make([]string, 0, len(variants)+2)
			for _, v := range variants {
				with = append(with, strings.TrimSuffix(v, zoom)+retry+zoom)
			}
			variants = append(with,
				dt+" "+outcomes+" outcomes "+retry+ahead+st.cursor.Render(" ")+" now "+zoom,
				dt+" "+outcomes+" "+retry+ahead+zoom,
				dt+" "+outcomes+" "+shortRetry+ahead+zoom)
		}
		if rs.pinned {
			// The rows are one key's: the legend says whose first (after
			// the title), so that every variant keeps it.
			tag := st.accent.Render("key " + keyText(rs.key))
			title := st.title.Render("timeline")
			for i, v := range variants {
				if rest, ok := strings.CutPrefix(v, title); ok {
					variants[i] = title + " " + tag + rest
				} else {
					variants[i] = tag + " " + v
				}
			}
			// Narrower ones for a long key or a narrow screen: the
			// outcomes' glyphs alone, then without what is ahead.
			outcomes := st.allowed.Render("✓") + st.delayed.Render("◷") + st.rejected.Render("✗") + st.mixed.Render("±")
			dt := st.muted.Render(secs(sp.dt) + "/column")
			variants = append(variants,
				tag+" "+dt+" "+outcomes+" outcomes "+st.upcoming.Render("·")+" ahead "+zoom,
				tag+" "+dt+" "+outcomes+" "+zoom)
		}
		out = append(out, fit(first(variants, l.width), l.width))
	}
	out = append(out, t.notesRow(sp))
	if t.inlineChart() {
		out = append(out, t.chartInline(sp, rs, t.laneRowCount(l.releases))...)
	} else {
		out = append(out, t.laneRows(sp, rs, l.releases)...)
	}
	axisLabel := timelineLabel("t", st.muted, l.label)
	if rs.pinned && !l.legend {
		// No legend to say whose the rows are: the axis's label does, with
		// the key's name alone where "key " would leave no room for it
		// (memory-fleet at 80×24: "seller-1", was "key…").
		whose := "key " + rs.key
		if ansi.StringWidth(whose) > l.label-1 {
			whose = rs.key
		}
		axisLabel = timelineLabel(whose, st.accent, l.label)
	}
	return append(out, axisLabel+st.muted.Render(axis(sp, sp.column(t.ctx.lab.Now()), t.ctx.lab.End())))
}

// overview draws the whole run in layout.overview rows, as many columns
// wide as tl, the stretch the timeline shows, which it marks ━ above the
// lanes: a tall screen shows where the clock is in the scenario.
func (t *timeline) overview(tl span) []string {
	st, lab := t.ctx.st, t.ctx.lab
	cols := tl.cols
	end := lab.End() + 1
	dt := max((end+time.Duration(cols)-1)/time.Duration(cols), 1)
	sp := span{0, dt, cols}
	var b strings.Builder
	for c := range cols {
		from, to := sp.start+time.Duration(c)*dt, sp.start+time.Duration(c+1)*dt
		if to > tl.start && from < tl.end() {
			b.WriteString("━")
		} else {
			b.WriteByte(' ')
		}
	}
	out := []string{timelineLabel("overview", st.title, t.ctx.lay.label) + st.accent.Render(b.String())}
	out = append(out, t.laneRows(sp, t.rowsOf(), false)...)
	return append(out, timelineLabel("t", st.muted, t.ctx.lay.label)+st.muted.Render(axis(sp, sp.column(lab.Now()), lab.End())))
}

// axis writes time labels under the columns: a "|" and the time at round
// multiples of a tick at least ten columns apart, and ▲ under the clock. A
// label the ▲ would cut is left out.
func axis(sp span, cursor int, end time.Duration) string {
	start, dt, cols := sp.start, sp.dt, sp.cols
	row := []rune(strings.Repeat(" ", cols))
	tick := dt * 10
	if i := slices.IndexFunc(roundSpans, func(t time.Duration) bool { return t >= dt*10 }); i >= 0 {
		tick = roundSpans[i]
	}
	// The axis ends at the scenario's end: "┤2s end" there, when it
	// falls on screen, and no tick past it.
	endCol, endText := sp.column(end), []rune("┤"+algorithms.FormatSeconds(end)+" end")
	if endCol >= 0 && endCol+len(endText) > cols {
		endText = []rune("┤")
	}
	first := (start + tick - 1) / tick * tick
	for t := first; t < start+time.Duration(cols)*dt && t <= end; t += tick {
		c := int((t - start) / dt)
		// t is a multiple of the tick: exact, with no more decimals than
		// the tick has ("|60.00001s" on a 10µs tick, not "|≈60s").
		text := []rune("|" + algorithms.FormatSeconds(t))
		if c+len(text) > cols {
			break
		}
		if cursor > c && cursor < c+len(text) || endCol >= 0 && c+len(text) > endCol {
			continue
		}
		copy(row[c:], text)
	}
	if endCol >= 0 && !(cursor > endCol && cursor < endCol+len(endText)) {
		copy(row[endCol:], endText)
	}
	if cursor >= 0 && cursor < cols {
		row[cursor] = '▲'
	}
	return string(row)
}

// hasGateways reports whether some lane of lab stands for several gateways
// (and so may mark + and ⊘ on the timeline).
// hasOutages reports whether a lane's store has outages: only then can
// the timeline mark ⊘.
func hasOutages(lab *model.Lab) bool {
	for _, l := range lab.Lanes() {
		if len(l.Fleet.Outages) > 0 {
			return true
		}
	}
	return false
}

func hasGateways(lab *model.Lab) bool {
	for _, l := range lab.Lanes() {
		if !l.Fleet.Plain() {
			return true
		}
	}
	return false
}
