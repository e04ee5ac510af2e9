package ui

import (
	tea "charm.land/bubbletea/v2"
	"strings"
	"testing"
	"time"
)

func TestZoomKeys(t *testing.T) {
	a := newTestApp(t, "boundary", 120, 50) // tall enough for the legend
	if a.tl.zooms[a.tl.zoom] != a.lab.Scenario().Step {
		t.Fatalf("default zoom %v, want the step", a.tl.zooms[a.tl.zoom])
	}
	press(a, "z")
	if a.tl.zooms[a.tl.zoom] >= a.lab.Scenario().Step || !strings.Contains(screen(a), "0.05s/column") {
		t.Fatalf("z: %v per column", a.tl.zooms[a.tl.zoom])
	}
	press(a, "Z", "Z")
	if a.tl.zooms[a.tl.zoom] != 200*time.Millisecond {
		t.Fatalf("Z Z: %v per column", a.tl.zooms[a.tl.zoom])
	}
}

// TestZoomOutStopsAtTheWholeRun: Z stops once the whole axis fits.
func TestZoomOutStopsAtTheWholeRun(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	for range 40 {
		press(a, "Z")
	}
	sp := a.tl.span()
	if sp.length() <= a.lab.End() || sp.dt/10*time.Duration(sp.cols) > a.lab.End() && a.tl.zoom > 0 && a.tl.zooms[a.tl.zoom-1]*time.Duration(sp.cols) > a.lab.End() {
		t.Errorf("zoomed out to %v a column, %v on screen for an axis of %v", sp.dt, sp.length(), a.lab.End())
	}
}

// TestReleasesAreDrawn: the shaper's row of releases marks when its
// delayed requests leave, one per second after the burst.
func TestReleasesAreDrawn(t *testing.T) {
	a := newTestApp(t, "shaping-vs-policing", 120, 40)
	a.lab.Seek(5 * time.Second)
	out := screen(a)
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "↦ out") {
			row = l
		}
	}
	// Four requests queued at 0s leave at 1s, 2s, 3s and 4s: four marks
	// (and the row's label).
	if row == "" || strings.Count(row, "↦") != 1+4 {
		t.Fatalf("the row of releases does not mark the four releases:\n%s", out)
	}
}

// TestEightLaneNamesWhole: eight lanes with long names keep them whole in
// the timeline's labels.
func TestEightLaneNamesWhole(t *testing.T) {
	y := "title: eight\ntraffic: [{at: 0s}]\nlimiters:\n"
	names := []string{"fixed-minute", "fixed-second", "log-minute", "log-second", "counter-min", "counter-sec", "bucket-burst", "shaper-queue"}
	for _, n := range names {
		y += "  - {name: " + n + ", algorithm: fixed-window, limit: 5, window: 1s}\n"
	}
	a := newYAMLApp(t, y, 80, 40)
	for _, n := range names {
		requireScreen(t, a, n+" ")
	}
}

// TestAxisEndsAtTheEnd: no tick past the scenario's end, which the axis
// marks where it falls (its time when it fits, a ┤ alone when not), and
// a tick that would run into the mark gives way to it.
func TestAxisEndsAtTheEnd(t *testing.T) {
	for _, c := range []struct {
		sp     span
		cursor int
		end    time.Duration
		want   string
	}{
		{span{0, 100 * time.Millisecond, 40}, 5, 2 * time.Second, "|0s  ▲    |1s       ┤2s end             "},
		{span{0, 100 * time.Millisecond, 40}, -1, 1900 * time.Millisecond, "|0s       |1s      ┤1.9s end            "},
		{span{0, 100 * time.Millisecond, 24}, -1, 2 * time.Second, "|0s       |1s       ┤   "},
		{span{0, 100 * time.Millisecond, 24}, -1, time.Hour, "|0s       |1s       |2s "},
	} {
		if got := axis(c.sp, c.cursor, c.end); got != c.want {
			t.Errorf("axis of %v to %v:\n%q\nwant\n%q", c.sp, c.end, got, c.want)
		}
	}
}

// TestAxisLabelsExact: a zoomed axis past 1s labels each tick exactly and
// differently.
func TestAxisLabelsExact(t *testing.T) {
	row := axis(span{start: 60 * time.Second, dt: 10 * time.Microsecond, cols: 80}, -1, time.Hour)
	seen := map[string]bool{}
	for _, label := range strings.Fields(row) {
		if strings.Contains(label, "≈") || seen[label] {
			t.Errorf("label %q repeated or rounded in %q", label, row)
		}
		seen[label] = true
	}
	if len(seen) < 2 {
		t.Errorf("too few labels: %q", row)
	}
}

// TestZoomFitsTheWidth: a short scenario on a wide screen starts at the
// finest zoom that shows all of it and divides its step; a narrow screen,
// or a long scenario, at a column a step; once the learner zooms, a new
// size keeps the learner's zoom.
func TestZoomFitsTheWidth(t *testing.T) {
	for _, c := range []struct {
		lesson string
		w, h   int
		want   time.Duration
	}{
		{"deadlines-and-cancel", 200, 60, 50 * time.Millisecond}, // 8s in 190 columns; the step 0.25s
		{"deadlines-and-cancel", 80, 24, 250 * time.Millisecond}, // 8s at 0.05s would not fit
		{"boundary", 200, 60, 100 * time.Millisecond},            // two minutes: the step
	} {
		a := newTestApp(t, c.lesson, c.w, c.h)
		if got := a.tl.dt(); got != c.want {
			t.Errorf("%s at %dx%d: %v a column, want %v", c.lesson, c.w, c.h, got, c.want)
		}
		if sp := a.tl.span(); c.want < a.lab.Scenario().Step && sp.length() <= a.lab.End() {
			t.Errorf("%s at %dx%d: %v on screen, less than the whole %v", c.lesson, c.w, c.h, sp.length(), a.lab.End())
		}
	}
	a := newTestApp(t, "deadlines-and-cancel", 200, 60)
	press(a, "Z") // the whole scenario is on screen already: nothing to zoom out to
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if a.tl.dt() != 250*time.Millisecond {
		t.Errorf("after a Z that changed nothing and a resize to 80x24: %v a column, want the fit 0.25s", a.tl.dt())
	}
	press(a, "z")
	chosen := a.tl.dt()
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	if a.tl.dt() != chosen || chosen != 200*time.Millisecond {
		t.Errorf("after z and a resize: %v a column, want the learner's %v (0.2s)", a.tl.dt(), chosen)
	}
}
