package ui

import (
	"strings"
	"testing"

	"ratelab/scenarios"
)

func TestPickerKey(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "o")
	if overlayOf(a) != overlayPicker {
		t.Fatal("o did not open the picker")
	}
	list := scenarios.List()
	if !strings.Contains(screen(a), list[1].Title) {
		t.Errorf("the picker does not list %q", list[1].Title)
	}
	press(a, "down", "enter")
	if overlayOf(a) != overlayNone || a.lab.Scenario().Name != list[1].Name {
		t.Fatalf("down enter opened %q, want %q", a.lab.Scenario().Name, list[1].Name)
	}
	if !strings.Contains(screen(a), list[1].Title) {
		t.Error("the header does not show the new scenario")
	}
	press(a, "o", "esc")
	if overlayOf(a) != overlayNone || a.lab.Scenario().Name != list[1].Name {
		t.Fatal("esc in the picker changed the scenario")
	}
}

// TestPickerFirstAndLast: home (g) and end (G) reach the first and the
// last rows, whichever row the cursor is on; the last is "open a file".
func TestPickerFirstAndLast(t *testing.T) {
	list := scenarios.List()
	for _, c := range []struct {
		keys []string
		want int // the row, len(list) for the file row
	}{
		{[]string{"home"}, 0},
		{[]string{"g"}, 0},
		{[]string{"end"}, len(list)},
		{[]string{"G"}, len(list)},
		{[]string{"end", "home"}, 0},
		{[]string{"home", "end", "up"}, len(list) - 1},
	} {
		a := newTestApp(t, list[len(list)/2].Name, 100, 30)
		press(a, "o")
		press(a, c.keys...)
		if a.picker.cursor != c.want {
			t.Errorf("%v: row %d, want %d", c.keys, a.picker.cursor, c.want)
		}
	}
}
