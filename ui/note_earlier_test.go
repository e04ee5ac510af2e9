package ui

import (
	"strings"
	"testing"

	"ratelab/scenarios"
)

// TestEarlierNotesPromiseNothing: a note above the current one, cut to
// its rows, ends in "…" alone: e reads the current note whole, not the
// earlier ones (sliding-estimate at 61s, 80×24, said "(e: read all)" on
// its 0s note).
func TestEarlierNotesPromiseNothing(t *testing.T) {
	for _, c := range scenarios.List() {
		a := newTestApp(t, c.Name, 80, 24)
		notes := a.lab.Scenario().Notes
		for i, n := range notes {
			a.lab.Seek(n.At)
			s := screen(a)
			for _, e := range notes[:i] {
				if e.At == n.At {
					continue
				}
				lines := strings.Split(s, "\n")
				for j, line := range lines {
					if !strings.HasPrefix(line, "◆ "+secs(e.At)+"  ") {
						continue
					}
					// The note's lines: to the next note, the why panel or a blank.
					for k, l := range lines[j:] {
						if k > 0 && (strings.TrimSpace(l) == "" || strings.HasPrefix(l, "◆ ") || strings.HasPrefix(l, "◇ ") || strings.HasPrefix(l, "why ")) {
							break
						}
						if strings.Contains(l, "(e: read all)") {
							t.Errorf("%s at %v: the earlier note at %v promises e reads it: %q", c.Name, n.At, e.At, l)
						}
					}
				}
			}
		}
	}
}
