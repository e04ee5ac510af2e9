package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"ratelab/model"
)

// TestModes opens modes over one another and checks the one in charge,
// and which open mode draws the body, the status line and the footer: the
// first that draws each, in openModes' order.
func TestModes(t *testing.T) {
	for _, c := range []struct {
		name   string
		open   func(a *App)
		active string // the type of the mode in charge
		// What the body, the status line and the footer show.
		body, status, footer string
	}{
		{
			name: "the lab", open: func(*App) {},
			active: "*ui.labMode", body: "why bucket", status: "", footer: "space fire",
		},
		{
			name:   "the quiz's question",
			open:   func(a *App) { press(a, "t"); askQuiz(t, a) },
			active: "*ui.quiz", body: "What will", status: "", footer: "a admitted now",
		},
		{
			name:   "a page over the question",
			open:   func(a *App) { press(a, "t"); askQuiz(t, a); press(a, "?") },
			active: "*ui.pages", body: "keys", status: "", footer: "esc back to the lab",
		},
		{
			name:   "the prompt over the question",
			open:   func(a *App) { press(a, "t"); askQuiz(t, a); press(a, "r") },
			active: "*ui.prompt", body: "Rejected, you say", status: "it fits in (from now", footer: "enter ok",
		},
		{
			name:   "the picker",
			open:   func(a *App) { press(a, "o") },
			active: "*ui.picker", body: "open a canned scenario", status: "", footer: "enter open",
		},
		{
			name:   "a confirmation over the picker",
			open:   func(a *App) { press(a, "space", "o", "y", "q") },
			active: "*ui.confirmation", body: "open a canned scenario", status: "? quit and lose your 1 request?", footer: "s save first",
		},
		{
			name: "a job over the lab",
			open: func(a *App) {
				lab, err := model.New(bigScenario(t, 300_000, time.Millisecond), 0)
				if err != nil {
					t.Fatal(err)
				}
				a.setLab(lab)
				press(a, "G")
			},
			active: "*ui.job", body: "why fixed", status: "deciding requests for G", footer: "space fire",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newTestApp(t, "dashboard", 100, 30)
			c.open(a)
			if got := fmt.Sprintf("%T", a.activeMode()); got != c.active {
				t.Errorf("the mode in charge is %s, want %s", got, c.active)
			}
			lines := strings.Split(screen(a), "\n")
			body := strings.Join(lines[a.lay.header:len(lines)-2], "\n")
			status, footer := strings.TrimSpace(lines[len(lines)-2]), lines[len(lines)-1]
			if !strings.Contains(body, c.body) {
				t.Errorf("the body lacks %q:\n%s", c.body, body)
			}
			if c.status == "" && status != "" || !strings.HasPrefix(status, c.status) {
				t.Errorf("status %q, want %q", status, c.status)
			}
			if !strings.Contains(footer, c.footer) {
				t.Errorf("footer %q lacks %q", footer, c.footer)
			}
		})
	}
}

// askQuiz steps with n until the quiz asks.
func askQuiz(t *testing.T, a *App) {
	t.Helper()
	for i := 0; i < 20 && !a.quiz.asking(); i++ {
		press(a, "n")
	}
	if !a.quiz.asking() {
		t.Fatal("the quiz does not ask")
	}
}

// TestKeysGoToTheModeInCharge: a key goes to the mode in charge only; the
// modes below it see nothing of it.
func TestKeysGoToTheModeInCharge(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "space", "o", "y", "down", "q") // a confirmation over the picker
	cursor := a.picker.cursor
	press(a, "down") // any key but y and s keeps the requests
	if a.confirm != nil || a.picker.cursor != cursor || !a.picker.open || a.status.text != "kept your requests" {
		t.Fatalf("down under a confirmation: confirm %v, cursor %d (was %d), picker open %v, status %q",
			a.confirm != nil, a.picker.cursor, cursor, a.picker.open, a.status.text)
	}
	press(a, "down") // now the picker's
	if a.picker.cursor != cursor+1 {
		t.Errorf("down in the picker: cursor %d, want %d", a.picker.cursor, cursor+1)
	}
}

// TestPageAndPickerAreOneAtATime: opening the picker closes a page, and
// opening a page closes the picker.
func TestPageAndPickerAreOneAtATime(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.openPage(helpPage)
	a.openPicker()
	if a.pages.open() || !a.picker.open {
		t.Fatalf("after the picker: page %v, picker %v", a.pages.kind, a.picker.open)
	}
	a.openPage(aboutPage)
	if a.picker.open || a.pages.kind != aboutPage {
		t.Errorf("after the about page: page %v, picker %v", a.pages.kind, a.picker.open)
	}
}
