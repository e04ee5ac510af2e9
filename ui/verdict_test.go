package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/model"
	"ratelab/scenarios"
)

// TestPinnedVerdictInSlices: with 100,000 keys a pinned key's verdict
// needs a replay of a hundred thousand requests; the explorer works it out
// in slices after the key press, saying so meanwhile and showing no verdict,
// and then shows the one the lab gives.
func TestPinnedVerdictInSlices(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the 100,000-key file")
	}
	s, err := scenarios.Load(filepath.Join("..", "tools", "many-keys.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lab, err := model.New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := New(lab, Options{SaveDir: t.TempDir()})
	// A clock that moves 5 ms each time it is read: every slice is then
	// a few chunks whatever the machine, so the verdict's replay (about
	// 110,000 requests from a checkpoint) always takes several slices,
	// and one worked out in one piece fails below.
	var tick time.Time
	a.pace.now = func() time.Time { tick = tick.Add(5 * time.Millisecond); return tick }
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	a.pin(lab.Keys()[0])
	_, cmd := a.Update(keyPress("G"))
	for a.job != nil {
		_, cmd = a.Update(computeMsg{gen: a.jobGen})
	}
	key := a.key()
	if _, pending := lab.PendingLastDecisionFor(key); !pending {
		t.Fatal("the verdict of a replay of many slices' work was worked out in one piece")
	}
	if view := a.View().Content; !strings.Contains(view, "working out") {
		t.Fatalf("a verdict being worked out is not said:\n%s", view)
	}
	// At 80 columns the why panel says it in a wording that fits whole.
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if view := a.View().Content; !strings.Contains(view, "keys still work meanwhile") {
		t.Fatalf("at 80×24 the wait is not said whole:\n%s", view)
	}
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	if cmd == nil || !a.verdictQueued {
		t.Fatal("no slice of the verdict's work is asked for")
	}
	for i := 0; a.verdictQueued; i++ {
		if i > 10_000 {
			t.Fatal("the verdict is still being worked out")
		}
		a.Update(verdictMsg{})
	}
	if _, pending := lab.PendingLastDecisionFor(key); pending {
		t.Fatal("no more slices are asked for, yet the verdict is pending")
	}
	views := laneViews(a.programContext)
	for i, v := range views {
		want, ok := lab.LastDecisionFor(i, key)
		if v.verdictPending || v.hasLast != ok || v.last.Index != want.Index || v.last.Decision.Explain() != want.Decision.Explain() {
			t.Fatalf("lane %d shows %+v, the lab gives %+v", i, v.last, want)
		}
	}
	if view := a.View().Content; strings.Contains(view, "working out") {
		t.Fatalf("the verdict is still said to be worked out:\n%s", view)
	}
}
