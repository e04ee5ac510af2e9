package ui

import (
	"strings"
	"testing"
)

// TestNotesShowTheirKey: a note that names a key shows that key in the
// lanes while it is the current note, the header saying so, and leaving
// it gives back what was shown before; a note that names a lane focuses
// it. deadlines-and-cancel's notes: 1.25s names nothing, 2.25s the
// patient key and the leaky lane, 3s the hasty key, 3.75s nothing.
func TestNotesShowTheirKey(t *testing.T) {
	a := newTestApp(t, "deadlines-and-cancel", 100, 30)
	a.focus = 1
	for i, step := range []struct {
		press   string
		key     string
		byNote  bool
		focused string
	}{
		{"]", "polite", false, "reserve"}, // 1.25s: the latest request's key
		{"]", "patient", true, "leaky"},   // 2.25s
		{"]", "hasty", true, "leaky"},     // 3s
		{"]", "polite", false, "leaky"},   // 3.75s
		{"[", "hasty", true, "leaky"},     // 3s
		{"[", "patient", true, "leaky"},   // 2.25s
		{"[", "polite", false, "leaky"},   // 1.25s
	} {
		press(a, step.press)
		header := strings.SplitN(screen(a), "\n", 3)[1]
		if a.key() != step.key || a.noteKeyShown() != step.byNote || strings.Contains(header, "(the note's)") != step.byNote {
			t.Errorf("step %d (%s) at %v: key %q (the note's: %v), header %q; want %q, %v", i, step.press, a.lab.Now(), a.key(), a.noteKeyShown(), header, step.key, step.byNote)
		}
		if got := a.lab.Lanes()[a.focus].Name; got != step.focused {
			t.Errorf("step %d at %v: focus on %s, want %s", i, a.lab.Now(), got, step.focused)
		}
	}
}

// TestNoteKeyGivesWayToTheLearner: a key chosen with k while a note shows
// its own stays when the note is left; tab moves the focus away from the
// note's lane until the next note.
func TestNoteKeyGivesWayToTheLearner(t *testing.T) {
	a := newTestApp(t, "deadlines-and-cancel", 100, 30)
	press(a, "]", "]") // 2.25s: patient, leaky
	if a.key() != "patient" {
		t.Fatalf("at %v the lanes show %q, want the note's patient", a.lab.Now(), a.key())
	}
	press(a, "k", "tab")
	chosen, focus := a.key(), a.focus
	if chosen == "patient" || a.noteKeyShown() {
		t.Fatalf("k after the note's key: %q (the note's: %v)", chosen, a.noteKeyShown())
	}
	press(a, "right")
	if a.key() != chosen || a.focus != focus {
		t.Errorf("a step within the note: key %q focus %d, want %q %d", a.key(), a.focus, chosen, focus)
	}
	press(a, "[")
	if a.key() != chosen || !a.pinned() {
		t.Errorf("leaving the note gave up the learner's key: %q, want %q", a.key(), chosen)
	}
}
