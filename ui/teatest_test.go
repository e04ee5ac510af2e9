package ui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"ratelab/model"
	"ratelab/scenarios"
)

// TestProgram runs the explorer as a program: it starts on the about page,
// the learner closes it, jumps to the first disagreement, fires, plays a
// moment, pauses and quits.
func TestProgram(t *testing.T) {
	s, err := scenarios.Canned("boundary")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := model.New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, New(lab, Options{About: true, SaveDir: t.TempDir()}),
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	// The first frame is the about page, drawn on the terminal.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("about this scenario")) },
		teatest.WithDuration(5*time.Second))
	for _, k := range []string{"esc", "d", "space", "tab"} {
		tm.Send(keyPress(k))
	}
	// The why panel explains the fired request's rejection by the log.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Retry-After: 60")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(keyPress("p"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("playing")) },
		teatest.WithDuration(5*time.Second))
	// q asks before losing the fired request; y says yes.
	for _, k := range []string{"p", "q", "y"} {
		tm.Send(keyPress(k))
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	a, ok := tm.FinalModel(t).(*App)
	if !ok {
		t.Fatalf("final model is %T", tm.FinalModel(t))
	}
	if overlayOf(a) != overlayNone {
		t.Error("the about page is still open")
	}
	if a.play.playing {
		t.Error("still playing after p")
	}
	if got := a.lab.FiredRequests(); len(got) != 1 || got[0].At != 60*time.Second {
		t.Errorf("fired %+v, want one request at 60s", got)
	}
	if a.focus != 1 {
		t.Errorf("focus %d, want 1 after tab", a.focus)
	}
	// How far play got depends on the machine's load; the frame arithmetic
	// itself is tested without a wall clock (TestFastForward).
	if now := a.lab.Now(); now < 60*time.Second || now > 90*time.Second {
		t.Errorf("after a moment of play at ×1 from 60s the clock is at %v", now)
	}
	if a.width != 100 || a.height != 30 {
		t.Errorf("size %d×%d, want 100×30", a.width, a.height)
	}
}
