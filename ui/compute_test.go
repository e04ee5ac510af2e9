package ui

import (
	"strings"
	"testing"
	"time"
)

// runJob hands the job's slices to the app until it ends, at most n
// slices.
func runJob(t *testing.T, a *App, n int) {
	t.Helper()
	for i := 0; a.job != nil; i++ {
		if i == n {
			t.Fatalf("the job is still running after %d slices", n)
		}
		a.Update(computeMsg{gen: a.jobGen})
	}
}

// workClock makes a's wall clock, as the pacer reads it, advance
// perRequest for each request the lab has decided: a slice then decides
// sliceBudget / perRequest requests, whatever the machine.
func workClock(a *App, perRequest time.Duration) {
	base := time.Unix(0, 0)
	a.pace.now = func() time.Time { return base.Add(time.Duration(a.lab.Computed()) * perRequest) }
}

// perSlice is how many requests a slice decides under workClock(a, µs):
// sliceBudget's worth, in the pacer's chunks of a quarter of it.
const perSlice = int(sliceBudget / time.Microsecond)

// TestFarKeysDecideInSlices: G on a 300,000-request timeline does not
// decide everything inside the key press: it decides for about a slice's
// time, then shows progress and decides slice by slice between frames, then
// jumps; esc gives up and q quits while it runs.
func TestFarKeysDecideInSlices(t *testing.T) {
	s := bigScenario(t, 300_000, time.Millisecond)
	a := openApp(t, s, 100, 30)
	workClock(a, time.Microsecond)
	cmd := press(a, "G")
	if a.job == nil || cmd == nil || a.lab.Computed() > perSlice+2*minChunk || a.lab.Now() == a.lab.End() {
		t.Fatalf("G decided %d requests in the key press (job %v)", a.lab.Computed(), a.job != nil)
	}
	requireScreen(t, a, "deciding requests for G", "esc gives up")
	press(a, "l") // another key waits
	if a.job == nil || a.lab.Now() != 0 {
		t.Fatal("a key during the job did its own work")
	}
	before := a.lab.Computed()
	a.Update(computeMsg{gen: a.jobGen})
	if got := a.lab.Computed() - before; got != perSlice || !strings.Contains(a.status.text, commas(a.lab.Computed())+" of 300,000") {
		t.Errorf("one slice decided %d requests; status %q", got, a.status.text)
	}
	runJob(t, a, 20)
	if a.lab.Now() != a.lab.End() {
		t.Fatalf("after the job the clock is at %v, want the end %v", a.lab.Now(), a.lab.End())
	}

	b := openApp(t, s, 100, 30)
	workClock(b, time.Microsecond)
	press(b, "G", "esc")
	if b.job != nil || b.lab.Now() != 0 {
		t.Error("esc did not give up the job")
	}
	b.Update(computeMsg{gen: b.jobGen}) // a slice already on its way does nothing
	if b.lab.Now() != 0 {
		t.Error("a slice of the given-up job moved the clock")
	}
	press(b, "G")
	if !isQuit(press(b, "q")) {
		t.Error("q did not quit during a job")
	}
}

// CheckpointSlack is how far past a slice a seek may decide: up to the next
// checkpoint boundary.
const CheckpointSlack = 2048

// TestSlicesAreSizedByTime: a slice decides sliceBudget's worth of
// requests, however much a request costs: fewer where each costs more.
func TestSlicesAreSizedByTime(t *testing.T) {
	s := bigScenario(t, 300_000, time.Millisecond)
	for _, cost := range []time.Duration{time.Microsecond, 10 * time.Microsecond} {
		a := openApp(t, s, 100, 30)
		workClock(a, cost)
		press(a, "G")
		before := a.lab.Computed()
		a.Update(computeMsg{gen: a.jobGen})
		want := int(sliceBudget / cost)
		if got := a.lab.Computed() - before; got < want*3/4 || got > want*5/4 {
			t.Errorf("at %v a request, a slice decided %d requests, want about %d", cost, got, want)
		}
	}
}

// TestPlayDecidesAtMostASlicePerFrame: at ×1000 over a dense timeline a
// frame decides at most one slice more, so frames keep coming.
func TestPlayDecidesAtMostASlicePerFrame(t *testing.T) {
	a := openApp(t, bigScenario(t, 400_000, 10*time.Microsecond), 100, 30)
	workClock(a, time.Microsecond)
	a.play.speed = len(speeds) - 1
	a.play.stopAtNotes = false
	press(a, "p")
	wall := time.Unix(0, 0)
	for i := 0; i < 3; i++ {
		before := a.lab.Computed()
		wall = wall.Add(frameInterval)
		a.Update(tickMsg{gen: a.play.gen, at: wall})
		if got := a.lab.Computed() - before; got > perSlice+minChunk+CheckpointSlack {
			t.Fatalf("frame %d decided %d requests", i, got)
		}
	}
	if !a.play.playing || a.lab.Now() == 0 {
		t.Errorf("playing %v at %v", a.play.playing, a.lab.Now())
	}
}

// TestUndoFarBackIsParked: undoing a fire action made near the start while
// the clock stands far into a long timeline recomputes in slices, and the
// clock comes back where it was, with the undo's own words.
func TestUndoFarBackIsParked(t *testing.T) {
	a := openApp(t, bigScenario(t, 300_000, time.Millisecond), 100, 30)
	workClock(a, time.Microsecond)
	press(a, "space") // at 0s
	press(a, "G")
	runJob(t, a, 20)
	end := a.lab.Now()
	press(a, "u")
	if a.job == nil || a.lab.Computed() > perSlice+minChunk+CheckpointSlack {
		t.Fatalf("u recomputed %d requests in the key press", a.lab.Computed())
	}
	runJob(t, a, 30)
	if a.lab.Now() != end || a.lab.FiredCount() != 0 || !strings.Contains(a.status.text, "undid 1 request at 0s") {
		t.Errorf("after the undo: clock %v (want %v), %d fired, status %q", a.lab.Now(), end, a.lab.FiredCount(), a.status.text)
	}
}
