package ui

import (
	"strings"
	"testing"

	"ratelab/scenarios"
)

// TestEarlierNotesAreReadWhole: a note above the current one, cut to its
// rows, ends in "… (e: read all)", and e shows it whole above the current
// note (retry-storm at 2s, 80×24, cut its 1.75s note with "…" alone, and e
// showed the 2s note only). Every canned lesson, at each of its notes.
func TestEarlierNotesAreReadWhole(t *testing.T) {
	cut := 0
	for _, c := range scenarios.List() {
		a := newTestApp(t, c.Name, 80, 24)
		notes := a.lab.Scenario().Notes
		for i, n := range notes {
			seekTo(a, n.At)
			lines := strings.Split(screen(a), "\n")
			var shown []scenarios.Note // the earlier notes on screen
			for _, e := range notes[:i] {
				if e.At == n.At {
					continue
				}
				for j, line := range lines {
					if !strings.HasPrefix(line, "◆ "+secs(e.At)+"  ") {
						continue
					}
					shown = append(shown, e)
					// The note's lines: to the next note, the why panel or a blank.
					last := line
					for k, l := range lines[j:] {
						if k > 0 && (strings.TrimSpace(l) == "" || strings.HasPrefix(l, "◆ ") || strings.HasPrefix(l, "◇ ") || strings.HasPrefix(l, "why ")) {
							break
						}
						last = l
					}
					if strings.HasSuffix(strings.TrimSpace(last), "…") {
						t.Errorf("%s at %v: the earlier note at %v is cut with no word of e: %q", c.Name, n.At, e.At, last)
					}
					if strings.HasSuffix(last, "(e: read all)") {
						cut++
					}
				}
			}
			if len(shown) == 0 {
				continue
			}
			press(a, "e")
			page := strings.Join(strings.Fields(screen(a)), " ")
			for _, e := range shown {
				if !strings.Contains(page, strings.Join(strings.Fields(e.Text), " ")) {
					t.Errorf("%s at %v: e does not show the earlier note at %v whole:\n%s", c.Name, n.At, e.At, screen(a))
				}
			}
			press(a, "esc")
		}
	}
	if cut == 0 {
		t.Error("no earlier note was cut in any lesson: the test saw no case")
	}
}
