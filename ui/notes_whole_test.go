package ui

import (
	"strings"
	"testing"

	"ratelab/scenarios"
)

// TestEveryNoteWholeAt80x24 walks every canned lesson as a learner does,
// ] from the opening screen, and checks at 80×24 that each note reached
// is on the screen whole: every word of it, in order, with no "read all"
// cut; and that the why panel keeps a rejection's reply.
func TestEveryNoteWholeAt80x24(t *testing.T) {
	notes, cut := 0, 0
	for _, c := range scenarios.List() {
		a := newTestApp(t, c.Name, 80, 24)
		ns := a.lab.Scenario().Notes
		seen := map[int]bool{}
		for i := range len(ns) + 1 {
			if i > 0 { // the opening screen first
				press(a, "]")
			}
			for j, n := range ns {
				if n.At != a.lab.Now() || seen[j] {
					continue
				}
				seen[j] = true
				notes++
				s := screen(a)
				if !noteWhole(s, n.Text) {
					cut++
					t.Errorf("%s, the note at %v is cut at 80×24:\n%s", c.Name, n.At, s)
				}
				// The reply a rejection gets (the 429 and its Retry-After)
				// is never what the note takes.
				if strings.Contains(s, "\n✗ rejected:") && !strings.Contains(s, "\n← ") {
					t.Errorf("%s at %v: the why panel explains a rejection without its reply:\n%s", c.Name, n.At, s)
				}
			}
		}
		if len(seen) != len(ns) {
			t.Errorf("%s: %d of %d notes reached by ]", c.Name, len(seen), len(ns))
		}
	}
	t.Logf("%d notes reached, %d cut", notes, cut)
}

// noteWhole reports whether the screen holds text's words in order, as
// a wrapped paragraph would: the screen's lines joined with spaces.
func noteWhole(screen, text string) bool {
	flat := strings.Join(strings.Fields(screen), " ")
	return strings.Contains(flat, strings.Join(strings.Fields(text), " "))
}
