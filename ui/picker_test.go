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
