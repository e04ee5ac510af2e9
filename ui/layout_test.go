package ui

import (
	"strings"
	"testing"

	"ratelab/scenarios"
)

func TestLayoutBreakpoints(t *testing.T) {
	for _, c := range []struct {
		w, h, n    int
		mode       laneMode
		cols, rows int
	}{
		{80, 24, 4, laneCompact, 2, 2},
		{80, 24, 2, laneBoxed, 2, 1},
		{80, 24, 8, laneRow, 1, 8},
		{120, 40, 4, laneBoxed, 2, 2},
		{160, 48, 4, laneBoxed, 4, 1},
		{160, 48, 6, laneBoxed, 3, 2},
		{60, 30, 4, laneRow, 1, 4},
		{60, 40, 4, laneCompact, 1, 4},
		{50, 15, 4, laneRow, 1, 4},
	} {
		l := layoutFor(c.w, c.h, shape{lanes: c.n})
		if l.tooSmall || l.mode != c.mode || l.cols != c.cols || l.rows != c.rows {
			t.Errorf("%d×%d, %d lanes: %v %d×%d (too small %v), want %v %d×%d",
				c.w, c.h, c.n, l.mode, l.cols, l.rows, l.tooSmall, c.mode, c.cols, c.rows)
		}
	}
}

// TestLayoutAddsUp checks that the panels fill the height exactly at every
// size that is drawn.
func TestLayoutAddsUp(t *testing.T) {
	for n := 1; n <= 8; n++ {
		for w := 0; w <= 300; w += 7 {
			for h := 0; h <= 120; h++ {
				l := layoutFor(w, h, shape{lanes: n, noChart: h%2 == 0})
				if l.tooSmall {
					continue
				}
				if l.chart > 0 && (h%2 == 0 || (l.chart-1)%n != 0 || (l.chart-1)/n < chartLaneMin) {
					t.Fatalf("%d×%d, %d lanes: chart of %d rows (hidden %v)", w, h, n, l.chart, h%2 == 0)
				}
				sum := l.header + l.lanes + l.timeline + l.overview + l.chart + l.note + l.why + l.status + l.footer + l.spare
				if l.gaps {
					sum += l.gapRows()
				}
				if sum != h {
					t.Fatalf("%d×%d, %d lanes: panels add up to %d", w, h, n, sum)
				}
				if l.cols*l.rows < n || l.why < 2 || l.note < 1 {
					t.Fatalf("%d×%d, %d lanes: %+v", w, h, n, l)
				}
			}
		}
	}
}

// TestTallerNeverCutsTheWhy: once the lanes have their gauges and state
// lines (compact or boxed), a taller terminal never gives the focused lane's
// explanation fewer rows: boxes are not bought with the explanation. (Below
// that, one-line lanes may give way to compact ones at the cost of a row.)
func TestTallerNeverCutsTheWhy(t *testing.T) {
	full := 1 + whyExplain + 1
	for n := 1; n <= 8; n++ {
		for w := minWidth; w <= 300; w += 5 {
			prev := 0
			for h := 0; h <= 120; h++ {
				l := layoutFor(w, h, shape{lanes: n})
				if l.tooSmall || l.mode == laneRow {
					continue
				}
				why := min(l.why, full)
				if why < prev {
					t.Fatalf("%d lanes, %d wide: %d rows of why at height %d (%v), %d at %d", n, w, why, h, l.mode, prev, h-1)
				}
				prev = why
			}
		}
	}
}

// TestMinimumIsEnough checks that the size the too-small screen asks for is
// drawn, for every lane count.
func TestMinimumIsEnough(t *testing.T) {
	for n := 1; n <= scenarios.MaxLanes; n++ {
		l := layoutFor(80, 100, shape{lanes: n})
		m := layoutFor(l.needWidth, l.needHeight, shape{lanes: n})
		if m.tooSmall {
			t.Errorf("%d lanes: %d×%d is asked for but too small", n, l.needWidth, l.needHeight)
		}
		if layoutFor(l.needWidth-1, l.needHeight, shape{lanes: n}).tooSmall == false || layoutFor(l.needWidth, l.needHeight-1, shape{lanes: n}).tooSmall == false {
			t.Errorf("%d lanes: a size below %d×%d is drawn", n, l.needWidth, l.needHeight)
		}
	}
}

// TestLargeScreenLeavesNoRowBlank: on a large screen the notes get the
// rows that show every note whole (as the last note does) and the chart of
// states over time the rest, a row more a lane, rather than the note panel
// every row left, blank below a short lesson's notes.
func TestLargeScreenLeavesNoRowBlank(t *testing.T) {
	notes := []string{"◆ 0s  A short note.", "◆ 1s  Another note, as short."}
	for _, c := range []struct{ w, h, n int }{
		{200, 60, 1}, {200, 60, 2}, {200, 60, 3}, {200, 60, 5}, {120, 40, 2}, {160, 48, 4}, {300, 100, 2},
	} {
		sh := shape{lanes: c.n, notes: notes, reached: len(notes), longest: 8}
		l := layoutFor(c.w, c.h, sh)
		if l.chart == 0 {
			t.Errorf("%d×%d, %d lanes: no chart", c.w, c.h, c.n)
			continue
		}
		if most := sh.allNoteRows(c.w) + c.n - 1; l.note > most {
			t.Errorf("%d×%d, %d lanes: %d note rows for %d rows of notes, want at most %d (chart %d)", c.w, c.h, c.n, l.note, sh.allNoteRows(c.w), most, l.chart)
		}
	}
}

// TestLongNotesKeepTheirRows: a lesson of long notes has every note whole
// before the chart's bars grow past chartLaneMax.
func TestLongNotesKeepTheirRows(t *testing.T) {
	long := strings.Repeat("word ", 80)
	sh := shape{lanes: 2, notes: []string{long, long, long}, reached: 3}
	l := layoutFor(200, 60, sh)
	if per := (l.chart - 1) / 2; per > chartLaneMax && l.note < sh.allNoteRows(200) {
		t.Errorf("bars of %d rows a lane while the notes have %d of %d rows", per, l.note, sh.allNoteRows(200))
	}
}

// TestNoteRowsFollowTheClock: the note panel takes the rows of the notes
// the clock has reached, not those of notes to come; the mode still leaves
// room for the longest note, so the lanes do not change as notes come.
func TestNoteRowsFollowTheClock(t *testing.T) {
	long := "◆ 2s  " + strings.Repeat("word ", 30)
	notes := []string{"◆ 0s  A short note.", long, long, long}
	for _, c := range []struct{ w, h, n int }{
		{80, 24, 2}, {80, 24, 4}, {120, 40, 2}, {200, 60, 2}, {200, 60, 5}, {60, 30, 3},
	} {
		var prev layout
		for reached := 0; reached <= len(notes); reached++ {
			sh := shape{lanes: c.n, notes: notes, reached: reached, longest: 8}
			l := layoutFor(c.w, c.h, sh)
			need := sh.allNoteRows(c.w)
			if l.note < min(need, sh.noteRows(c.w)) && l.mode != laneRow {
				t.Errorf("%d×%d, %d lanes, %d notes reached: %d note rows, the notes need %d", c.w, c.h, c.n, reached, l.note, need)
			}
			if reached <= 1 && l.note > 1+c.n-1 {
				t.Errorf("%d×%d, %d lanes, %d notes reached: %d note rows for one row of notes", c.w, c.h, c.n, reached, l.note)
			}
			if reached > 0 && (l.mode != prev.mode || l.cols != prev.cols || l.lanes != prev.lanes) {
				t.Errorf("%d×%d, %d lanes: the lanes change as note %d is reached: %v %d×%d → %v %d×%d", c.w, c.h, c.n, reached, prev.mode, prev.cols, prev.rows, l.mode, l.cols, l.rows)
			}
			prev = l
		}
	}
}

// TestNotePanelGrowsWithTheLesson: in the explorer the note panel's rows
// follow the clock, whether it moves by a seek, a step or ]: few at the
// first note of deadlines-and-cancel at 200×60, the chart taller; every
// note's at the last.
func TestNotePanelGrowsWithTheLesson(t *testing.T) {
	a := newTestApp(t, "deadlines-and-cancel", 200, 60)
	first, firstChart := a.lay.note, a.lay.chart
	press(a, "]", "]", "]", "]", "]", "]")
	if a.lay.note <= first || a.lay.chart >= firstChart {
		t.Errorf("at the last note: %d note rows and a chart of %d, at the first %d and %d", a.lay.note, a.lay.chart, first, firstChart)
	}
	seekTo(a, 0)
	if a.lay.note != first || a.lay.chart != firstChart {
		t.Errorf("back at 0s: %d note rows and a chart of %d, want %d and %d", a.lay.note, a.lay.chart, first, firstChart)
	}
}
