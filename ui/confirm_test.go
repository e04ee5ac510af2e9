package ui

import (
	"strings"
	"testing"
)

// TestDiscardAsksFirst: q with unsaved requests asks; a key other than y
// keeps them; y quits. r removes them, and u brings them back.
func TestDiscardAsksFirst(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "space")
	if cmd := press(a, "q"); isQuit(cmd) || a.confirm == nil {
		t.Fatal("q quit without asking")
	}
	requireScreen(t, a, "lose your 1 request?")
	press(a, "x")
	if a.confirm != nil || a.lab.FiredCount() != 1 {
		t.Fatal("another key did not keep the requests")
	}
	press(a, "r")
	if a.lab.FiredCount() != 0 {
		t.Fatal("r kept the requests")
	}
	press(a, "u")
	if a.lab.FiredCount() != 1 || !strings.Contains(a.status.text, "undid the reset") {
		t.Fatalf("u after r: %d fired, %q", a.lab.FiredCount(), a.status.text)
	}
	press(a, "o")
	if a.confirm == nil {
		t.Fatal("o did not ask")
	}
	press(a, "y")
	if overlayOf(a) != overlayPicker {
		t.Fatal("y did not open the picker")
	}
	press(a, "esc")
	press(a, "q")
	if cmd := press(a, "y"); !isQuit(cmd) {
		t.Error("y did not quit")
	}
}

// TestQuitFromAPageAsksFirst: q on the help, about or panel page asks
// before it loses fired requests, as it does in the lab; with nothing to
// lose it quits at once.
func TestQuitFromAPageAsksFirst(t *testing.T) {
	for _, page := range []string{"?", "a", "e"} {
		a := newTestApp(t, "boundary", 100, 30)
		press(a, page)
		if cmd := press(a, "q"); !isQuit(cmd) {
			t.Errorf("%s then q with nothing fired did not quit", page)
		}
		a = newTestApp(t, "boundary", 100, 30)
		press(a, "space")
		press(a, page)
		if cmd := press(a, "q"); isQuit(cmd) || a.confirm == nil {
			t.Fatalf("%s then q quit without asking", page)
		}
		requireScreen(t, a, "lose your 1 request?")
		if cmd := press(a, "y"); !isQuit(cmd) {
			t.Errorf("%s, q, y did not quit", page)
		}
	}
}
