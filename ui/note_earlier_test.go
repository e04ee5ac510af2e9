package ui

import (
	"fmt"
	"strings"
	"testing"

	"ratelab/scenarios"
)

// TestEarlierNotesAreReadWhole: a note above the current one, cut to its
// rows, ends in "… (e: read all)", and e shows it whole above the current
// note (retry-storm at 2s, 80×24, cut its 1.75s note with "…" alone, and e
// showed the 2s note only). Every canned lesson, at each of its notes, at
// 80×24 and at 60×30, where the panel shows several earlier notes.
func TestEarlierNotesAreReadWhole(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 30}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			earlierNotesAreReadWhole(t, size[0], size[1])
		})
	}
}

func earlierNotesAreReadWhole(t *testing.T, w, h int) {
	cut, several := 0, 0
	for _, c := range scenarios.List() {
		a := newTestApp(t, c.Name, w, h)
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
						last = strings.TrimSpace(l)
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
			if len(shown) > 1 {
				several++
			}
			// Compared without spaces: the page wraps at other places, and
			// may break a word at its hyphen.
			press(a, "e")
			page := strings.Join(strings.Fields(screen(a)), "")
			for _, e := range shown {
				if !strings.Contains(page, strings.Join(strings.Fields(e.Text), "")) {
					t.Errorf("%s at %v: e does not show the earlier note at %v whole:\n%s", c.Name, n.At, e.At, screen(a))
				}
			}
			press(a, "esc")
		}
	}
	if cut == 0 {
		t.Error("no earlier note was cut in any lesson: the test saw no case")
	}
	if w == 60 && several == 0 {
		t.Error("no screen showed two earlier notes: the test saw no case")
	}
}
