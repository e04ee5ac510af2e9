package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"ratelab/model"
)

// TestChartBars: a bar rises in eighths from the bottom and reaches the
// top only when full; a column after the clock is blank; a refusal sits
// just above its bar, on the top cell of a full one; a lane that can owe
// draws the tokens owed under its zero in half its rows, an area of ▒
// whose lowest row is the deepest debt drawn (at least a full gauge).
func TestChartBars(t *testing.T) {
	st := newStyles(true, true)
	for _, c := range []struct {
		name    string
		fills   []float64
		refused []refusal
		owes    bool
		want    []string
	}{
		{"owed", []float64{0.5, -0.25, -1.0 / 3, -1, math.NaN()}, nil, true, []string{ // 2 rows over 0, 2 under
			"┈┈┈┈ ",
			"█    ",
			" ▒▒▒ ",
			"   ▒ ",
		}},
		{"owed in two rows", []float64{1, 0.5, 0, -0.01, -2}, []refusal{noRefusal, noRefusal, noRefusal, refused, noRefusal}, true, []string{
			"█▄┈✗┈",
			"   ▒▒",
		}},
		{"a deep debt is an area down to its deepest", []float64{-1, -2, -4, -8, -6}, nil, true, []string{
			"┈┈┈┈┈",
			"     ",
			"     ",
			"     ",
			"▒▒▒▒▒",
			"  ▒▒▒",
			"   ▒▒",
			"   ▒ ",
		}},
		{"a lane that cannot owe", []float64{-0.5, 0.5}, nil, false, []string{"┈┈", " █"}},
		{"eighths", []float64{0, 1.0 / 16, 0.5, 0.99, 1}, nil, false, []string{
			"┈┈┈▇█",
			" ▁███",
		}},
		{"after the clock", []float64{1, math.NaN()}, nil, false, []string{"█ ", "█ "}},
		{"refusals", []float64{0, 0.25, 0.5, 1}, []refusal{refused, refused, refusedStoreDown, refused}, false, []string{
			"┈✗⊘✗",
			"✗▄██",
		}},
		{"past full", []float64{2.2, 2.2, 1}, []refusal{noRefusal, refused, noRefusal}, false, []string{
			"▲✗█",
			"███",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs := chartState{fills: c.fills, refused: c.refused, owes: c.owes}
			if c.owes {
				cs.deep = owedDepth(c.fills)
			}
			if cs.refused == nil {
				cs.refused = make([]refusal, len(c.fills))
			}
			got := chartBars(st, cs, len(c.want), -1)
			for i := range got {
				got[i] = ansi.Strip(got[i])
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("bars of %v:\n%s\nwant\n%s", c.fills, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestChartIsTheStateAtEachColumn: each column's bar is the gauge a clock
// seeked to the column's last instant shows (the clock's column: at the
// clock), for every lane; the columns after the clock are blank, and a
// column is marked refused exactly when the timeline's row marks a
// rejection there.
func TestChartIsTheStateAtEachColumn(t *testing.T) {
	for _, c := range []struct {
		lesson string
		at     time.Duration
	}{
		{"gcra-is-token-bucket", 8 * time.Second},
		{"shaping-vs-policing", 3 * time.Second},
		{"boundary", 60*time.Second + 100*time.Millisecond},
		{"lumpy-refill", 7 * time.Second},
		{"finer-sub-windows", 67500 * time.Millisecond},
		{"pay-later", 11500 * time.Millisecond}, // the reservation owes
	} {
		t.Run(c.lesson, func(t *testing.T) {
			a := newTestApp(t, c.lesson, 200, 60)
			seekTo(a, c.at)
			sp := a.tl.span()
			lanes, reading, why := a.tl.chartStates(sp, a.tl.rowsOf(), nil)
			if why != "" || reading {
				t.Fatalf("reading %v, %s", reading, why)
			}
			ref, err := model.New(a.lab.Scenario(), 0)
			if err != nil {
				t.Fatal(err)
			}
			now, cursor := a.lab.Now(), sp.column(a.lab.Now())
			for c := range sp.cols {
				last := sp.start + time.Duration(c+1)*sp.dt - 1
				switch {
				case c == cursor:
					last = now
				case c > cursor:
					for lane := range lanes {
						if !math.IsNaN(lanes[lane].fills[c]) {
							t.Fatalf("lane %d, column %d after the clock: %v, want blank", lane, c, lanes[lane].fills[c])
						}
					}
					continue
				}
				ref.Seek(last)
				for lane, def := range ref.Lanes() {
					want, _ := pictureOf(def.Policy).row(laneView{policy: def.Policy, snap: ref.Snapshot(lane, a.key())})
					if got := lanes[lane].fills[c]; got != want {
						t.Fatalf("%s, column %d (%v): fill %v, want %v", def.Name, c, last, got, want)
					}
				}
			}
			rows := laneRowTexts(t, a)
			for lane := range lanes {
				marks := []rune(ansi.Strip(rows[lane]))[a.lay.label:]
				for c, r := range lanes[lane].refused {
					if m := marks[c]; (r != noRefusal) != (m == '✗' || m == '±') {
						t.Errorf("lane %d, column %d: refusal %v, the timeline marks %q", lane, c, r, m)
					}
				}
			}
		})
	}
}

// TestChartToggle: a large screen draws the panel of states over time,
// and v hides it and shows it again; at 80×24 v draws the focused lane's
// chart in the timeline's lane rows, and v gives them back.
func TestChartToggle(t *testing.T) {
	a := newTestApp(t, "gcra-is-token-bucket", 200, 60)
	seekTo(a, 8*time.Second)
	requireScreen(t, a, "state over time")
	press(a, "v")
	if strings.Contains(screen(a), "full at the ┈ limit") || a.lay.chart != 0 {
		t.Fatalf("v left the chart:\n%s", screen(a))
	}
	press(a, "v")
	requireScreen(t, a, "state over time", "full at the ┈ limit")

	s := newTestApp(t, "gcra-is-token-bucket", 80, 24)
	seekTo(s, 8*time.Second)
	before := laneRowTexts(t, s)
	press(s, "v")
	out := screen(s)
	if !strings.Contains(out, "  state ") || strings.Contains(out, before[1]) {
		t.Fatalf("at 80×24, v did not draw the focused lane's state in the timeline's rows:\n%s", out)
	}
	if !strings.Contains(s.status.text, "bucket's state over time") {
		t.Errorf("status %q", s.status.text)
	}
	press(s, "v")
	if got := laneRowTexts(t, s); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Errorf("v again did not give the rows back:\n%s", screen(s))
	}
}

// TestChartGolden: the chart of each family of algorithm (windows, logs,
// counters, buckets, GCRA, the shaper, a library's rule, a mistake) at
// 200×60, as a panel, and at 80×24, in the timeline's rows after v.
func TestChartGolden(t *testing.T) {
	for _, c := range []struct {
		lesson string
		at     time.Duration
		tabs   int // lanes to move the focus on at 80×24
	}{
		{"boundary", 60*time.Second + 100*time.Millisecond, 0},
		{"counter-blind-spot", 90 * time.Second, 2},
		{"gcra-is-token-bucket", 8 * time.Second, 1},
		{"shaping-vs-policing", 3 * time.Second, 1},
		{"nginx-config", 30250 * time.Millisecond, 0},
		{"float-drift", 300 * time.Millisecond, 1},
		{"retry-storm", 4 * time.Second, 1},
		{"pay-later", 11500 * time.Millisecond, 1}, // tokens owed, under the zero
	} {
		for _, size := range [][2]int{{200, 60}, {80, 24}} {
			t.Run(fmt.Sprintf("%s_%dx%d", c.lesson, size[0], size[1]), func(t *testing.T) {
				a := newTestApp(t, c.lesson, size[0], size[1])
				seekTo(a, c.at)
				if size[0] == 80 {
					for range c.tabs {
						press(a, "tab")
					}
					press(a, "v")
				}
				golden.RequireEqual(t, screen(a))
			})
		}
	}
}

// TestInlineChartMarksNewRefusals: a refusal fired while the focused
// lane's chart stands in the timeline's rows is marked at once, not read
// from the rows drawn before (a bucket of 2: the third request at 50s is
// refused).
func TestInlineChartMarksNewRefusals(t *testing.T) {
	a := newYAMLApp(t, "title: t\nduration: 100s\nstep: 1s\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 2, rate: 1/s}\n  - {name: w, algorithm: fixed-window, limit: 5, window: 10s}\ntraffic:\n  - {at: 10s}\n", 80, 24)
	seekTo(a, 50*time.Second)
	sp := a.tl.span()
	screen(a) // the lane rows, drawn once, with nothing refused at 50s
	press(a, "v")
	screen(a)
	press(a, "space", "space", "space")
	if a.tl.span() != sp {
		t.Fatalf("firing moved the view from %+v to %+v: the test needs it to stay", sp, a.tl.span())
	}
	screen(a)
	lanes, _, _ := a.tl.chartStates(sp, a.tl.rowsOf(), []int{a.focus})
	if c := sp.column(a.lab.Now()); lanes[a.focus].refused[c] == noRefusal {
		t.Errorf("the clock's column, where the third request was refused, is not marked refused:\n%s", screen(a))
	}
}

// TestChartMarksTheLatestKeysRefusals: with several keys and none pinned,
// the chart draws the latest request's key and marks that key's own
// refusals (counter-blind-spot at 90s: late's burst, half refused by the
// counter), not every key's.
func TestChartMarksTheLatestKeysRefusals(t *testing.T) {
	a := newTestApp(t, "counter-blind-spot", 200, 60)
	seekTo(a, 90*time.Second)
	a.keyIdx = -1
	if a.pinned() || a.key() != "late" {
		t.Fatalf("pinned %v, key %q: want late, unpinned", a.pinned(), a.key())
	}
	sp := a.tl.span()
	lanes, _, _ := a.tl.chartStates(sp, a.tl.rowsOf(), nil)
	c := sp.column(a.lab.Now())
	if lanes[0].refused[c] == noRefusal {
		t.Errorf("the counter's column at 90s, where late was refused, is not marked")
	}
	if c60 := sp.column(60 * time.Second); lanes[0].refused[c60] != noRefusal || lanes[1].refused[c60] != noRefusal {
		t.Errorf("the column at 60s, where early alone was admitted, is marked refused")
	}
	if strings.Contains(screen(a), "with a key pinned") {
		t.Errorf("the title still asks for a key pinned:\n%s", screen(a))
	}
}

// TestChartMarksStoreDown: a column whose refusals were all a fallback's
// 503 while the store was down is ⊘ in the chart, as in the timeline's
// row; other refusals ✗.
func TestChartMarksStoreDown(t *testing.T) {
	a := newTestApp(t, "store-outage", 200, 60)
	seekTo(a, 6*time.Second)
	sp := a.tl.span()
	lanes, _, _ := a.tl.chartStates(sp, a.tl.rowsOf(), nil)
	rows := laneRowTexts(t, a)
	downs := 0
	for lane := range lanes {
		marks := []rune(ansi.Strip(rows[lane]))[a.lay.label:]
		for c, r := range lanes[lane].refused {
			if want := marks[c] == '⊘'; want != (r == refusedStoreDown) {
				t.Errorf("lane %d, column %d: refusal %v, the timeline marks %q", lane, c, r, marks[c])
			}
			if r == refusedStoreDown {
				downs++
			}
		}
	}
	if downs == 0 {
		t.Fatalf("no column marked store down:\n%s", screen(a))
	}
	if !strings.Contains(screen(a), "⊘") {
		t.Error("the chart draws no ⊘")
	}
}

// TestChartNamesTheDebtInWholeTokens: the rows under a lane's zero span
// the deepest debt drawn up to whole tokens, named plainly beside the
// lowest (on the one row, beside "owed"): deadlines-and-cancel's patient
// key, 7.5 tokens owed at 3.75s (a column's last instant a little less),
// reads "−8", not "−≈7.4"; pay-later's reserve lane at 120×40, one row
// under its zero, a full gauge of 4.
func TestChartNamesTheDebtInWholeTokens(t *testing.T) {
	for _, c := range []struct {
		lesson string
		w, h   int
		notes  int
		want   string
	}{
		{"deadlines-and-cancel", 200, 60, 6, "\n  −8 "},
		{"pay-later", 120, 40, 5, "\n  owed −4 "},
	} {
		a := newTestApp(t, c.lesson, c.w, c.h)
		a.openPage(aboutPage)
		for range c.notes {
			press(a, "]")
		}
		for range 50 {
			if a.workOnChart(chartMsg{}) == nil {
				break
			}
		}
		if out := screen(a); !strings.Contains(out, c.want) || strings.Contains(out, "−≈") {
			t.Errorf("%s at %d×%d: the debt is not named %q:\n%s", c.lesson, c.w, c.h, c.want, out)
		}
	}
}
