package ui

import (
	"strings"
	"testing"
	"time"
)

// TestNotesShowTheirKey: a note that names a key shows that key in the
// lanes while it is the current note, the header saying so, and leaving
// it gives back what was shown before; a note that names a lane focuses
// it. deadlines-and-cancel's notes: 1.25s names nothing, 2.25s the
// patient key and the leaky lane, 3s the hasty key, 3.75s the patient key
// and the reserve lane.
func TestNotesShowTheirKey(t *testing.T) {
	a := newTestApp(t, "deadlines-and-cancel", 100, 30)
	a.openPage(aboutPage) // as a learner opens it: ] from there
	press(a, "]")         // 0s: the first note, its instant decided
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
		{"]", "patient", true, "reserve"}, // 3.75s
		{"[", "hasty", true, "reserve"},   // 3s names no lane
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

// TestNoteShowsWhatItSpeaksOf: at a note, the screen shows the state the
// note speaks of (its key's, its lane focused), at the size a learner
// meets first: the n-th note reached by ] from the opening screen.
func TestNoteShowsWhatItSpeaksOf(t *testing.T) {
	for _, c := range []struct {
		lesson string
		note   int
		wants  []string
	}{
		// ReserveN's patient caller told 3.75s: its debt, and the leaky
		// bucket's full queue rejecting it.
		{"deadlines-and-cancel", 5, []string{"key patient (the note's)", "7.5 tokens owed", "4 of 4 queued", "why reserve · request at 3.75s, cost 1, key patient"}},
		// The end: the patient key's 16 served in the reserve lane.
		{"deadlines-and-cancel", 6, []string{"served 16 · abandoned 0", "served 12 · abandoned 4", "retry was due at 4s"}},
		// Gateway 2 of the fast lane stamping 0.5s: the why panel
		// explains that lane's decision, the stamp in its refill.
		{"clock-skew", 2, []string{"why fast · request at 0.2s", "min(1, 0 + 0.5s × 2/s) = 1"}},
	} {
		a := newTestApp(t, c.lesson, 80, 24)
		a.openPage(aboutPage)
		for range c.note {
			press(a, "]")
		}
		requireScreen(t, a, c.wants...)
	}
}

// TestNoteKeyGivesWayToTheLearner: a key chosen with k while a note shows
// its own stays when the note is left; tab moves the focus away from the
// note's lane until the next note.
func TestNoteKeyGivesWayToTheLearner(t *testing.T) {
	a := newTestApp(t, "deadlines-and-cancel", 100, 30)
	a.openPage(aboutPage)
	press(a, "]", "]", "]") // 0s, 1.25s, 2.25s: patient, leaky
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

// TestNoteFocusesTheLaneItSpeaksOf: a note about one lane's decision
// focuses that lane when the clock reaches it, so the why panel explains
// what the note speaks of.
func TestNoteFocusesTheLaneItSpeaksOf(t *testing.T) {
	for _, c := range []struct {
		lesson string
		at     time.Duration
		lane   string
	}{
		{"float-drift", 300 * time.Millisecond, "float"}, // "Its why text says so."
		{"racy-store", 7 * time.Millisecond, "racy"},
		{"clock-skew", 200 * time.Millisecond, "fast"},
		{"dashboard", 50500 * time.Millisecond, "fixed"},
		{"expiry-reset", 2 * time.Second, "resetting"},
		{"attempts-counted", 6 * time.Second, "attempts"},
		{"whole-token-refill", 8600 * time.Millisecond, "whole"},
		{"deadlines-and-cancel", 3750 * time.Millisecond, "reserve"},
	} {
		a := newTestApp(t, c.lesson, 80, 24)
		seekTo(a, c.at)
		a.followNote()
		if got := a.lab.Lanes()[a.focus].Name; got != c.lane {
			t.Errorf("%s at %v: focus on %s, want %s", c.lesson, c.at, got, c.lane)
		}
	}
}

// TestNextNoteDecidesItsInstant: before a burst at 0s, ] shows the 0s
// note's instant decided (empty-start's note speaks of the burst's
// outcome), from the about page a lesson opens with as from the lab, and
// the next ] goes on to the next note.
func TestNextNoteDecidesItsInstant(t *testing.T) {
	for _, about := range []bool{true, false} {
		a := newTestApp(t, "empty-start", 80, 24)
		if about {
			a.openPage(aboutPage)
		}
		if a.lab.Pos() != 0 {
			t.Fatalf("the opening screen has %d requests decided, want 0", a.lab.Pos())
		}
		press(a, "]")
		if k, m := a.lab.Instant(); a.lab.Now() != 0 || k != m || m != 10 {
			t.Errorf("about %v, after ]: request %d of %d decided at %v, want all 10 of the 0s instant", about, k, m, a.lab.Now())
		}
		if out := screen(a); !strings.Contains(out, "✓10 ✗0") || !strings.Contains(out, "The burst of 10") {
			t.Errorf("about %v, after ]: the note and the burst admitted are not both shown:\n%s", about, out)
		}
		press(a, "]")
		if now := a.lab.Now(); now != 250*time.Millisecond {
			t.Errorf("about %v, after ] ]: clock at %v, want 0.25s", about, now)
		}
	}
}

// TestNoteKeyGivenBackPastAQuestion: a note's pin is given back when the
// note is left while a quiz question shows its own key: global-cap's 5s
// note pins greedy, the sale's questions at 30s show acct-2, and once they
// are answered the 30s note, which names no key, shows the latest
// request's key, as it does with the quiz off.
func TestNoteKeyGivenBackPastAQuestion(t *testing.T) {
	a := newTestApp(t, "global-cap", 100, 30)
	a.openPage(aboutPage)
	press(a, "t")
	for i := 0; i < 20 && !(a.lab.Now() == 30*time.Second && !a.quiz.asking() && a.lab.Pos() == a.lab.Search(a.lab.Now())); i++ {
		press(a, "]")
		answerAll(a)
	}
	if a.lab.Now() != 30*time.Second {
		t.Fatalf("] and the answers stopped at %v, want the sale's 30s decided whole", a.lab.Now())
	}
	if a.pinned() {
		t.Errorf("at 30s the lanes keep key %q pinned (the 5s note's), want the latest request's", a.key())
	}
}
