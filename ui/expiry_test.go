package ui

import (
	tea "charm.land/bubbletea/v2"
	"strings"
	"testing"
)

// TestExpiredKeyShowsNew: at idle-expiry's 4s question, before the
// burst's first request, the unsafe lane's store has already dropped the
// key (idle since 0s, expiring after 3s): its box shows the full bucket
// the request will find and says when the key expired, while the lanes
// that kept it show the 4 tokens refilled.
func TestExpiredKeyShowsNew(t *testing.T) {
	a := newTestApp(t, "idle-expiry", 80, 24)
	a.openPage(aboutPage)
	press(a, "esc", "t", "]", "]")
	if k, _ := a.lab.Instant(); a.lab.Now().Seconds() != 4 || k != 0 {
		t.Fatalf("the quiz stands at request %d at %v, want the first at 4s", k+1, a.lab.Now())
	}
	s := screen(a)
	lines := strings.Split(s, "\n")
	box := func(title string) string { // the title row and the three under it
		for i, line := range lines {
			if strings.Contains(line, title) {
				return strings.Join(lines[i:min(i+4, len(lines))], "\n")
			}
		}
		t.Fatalf("no %q box on the screen:\n%s", title, s)
		return ""
	}
	if b := box("unsafe token-bucket"); !strings.Contains(b, "10 of 10 tokens") || !strings.Contains(b, "expired at 3s") {
		t.Errorf("the unsafe box does not show the expired key new, full:\n%s", b)
	}
	// Where the lanes are rows, the unsafe one says so too.
	a.Update(tea.WindowSizeMsg{Width: 100, Height: 14})
	if row := lineWith(t, screen(a), "unsafe"); !strings.Contains(row, "expired at 3s") {
		t.Errorf("at 100×14 the unsafe row does not say its key expired:\n%s", row)
	}
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	// atomic and safe side by side: each shows the 4 tokens refilled.
	if b := box("atomic"); strings.Count(b, "4 of 10 tokens") != 2 {
		t.Errorf("the lanes that kept the key do not both show its 4 tokens:\n%s", b)
	}
	// At 20s even the safe lane's store has dropped the key (idle since
	// 8s, expiring after 10s): its half-width box says so too.
	press(a, "a", "a", "]", "]")
	if s := screen(a); a.lab.Now().Seconds() != 20 || !strings.Contains(s, "expired at 18s") {
		t.Errorf("at %v the safe box does not say its key expired at 18s:\n%s", a.lab.Now(), s)
	}
}

// lineWith is the first line of s holding text.
func lineWith(t *testing.T, s, text string) string {
	t.Helper()
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, text) {
			return line
		}
	}
	t.Fatalf("no line holds %q:\n%s", text, s)
	return ""
}
