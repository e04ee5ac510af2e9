package ui

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

// TestEveryNoteWholeAt80x24 walks every canned lesson as a learner does,
// ] from the opening screen (the about page, which the first ] closes,
// showing the note at 0s where there is one, not jumping past it), and
// checks at 80×24 that each note reached
// is on the screen whole: every word of it, in order, with no "read all"
// cut; that the why panel keeps a rejection's reply; and that every time
// on the screen is in its one format (fineTime).
func TestEveryNoteWholeAt80x24(t *testing.T) {
	notes, cut := 0, 0
	for _, c := range scenarios.List() {
		a := newTestApp(t, c.Name, 80, 24)
		a.openPage(aboutPage) // the opening screen, as ratelab opens a lesson
		ns := a.lab.Scenario().Notes
		seen := map[int]bool{}
		for range len(ns) + 1 {
			press(a, "]")
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
				if ft := fineTime(a.form()).FindString(s); ft != "" && a.step()%time.Millisecond == 0 {
					t.Errorf("%s at %v: %q is not the screen's time format (%d decimals):\n%s", c.Name, n.At, ft, a.form(), s)
				}
			}
		}
		if len(seen) != len(ns) {
			t.Errorf("%s: %d of %d notes reached by ]", c.Name, len(seen), len(ns))
		}
	}
	t.Logf("%d notes reached, %d cut", notes, cut)
}

// fineTime finds a time of a second or more written with more decimals
// than the screen's form f: the screen writes those to the millisecond,
// "≈60.099s", or with the fewest decimals more that tell its requests
// apart, "≈60.0992s" (timeForm), but for an explanation whose times would
// read alike, and for a scenario stepping under a millisecond (not
// checked).
func fineTime(f timeForm) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^0-9.])[1-9][0-9]*\.[0-9]{` + strconv.Itoa(int(f)+1) + `,}s`)
}

// noteWhole reports whether the screen holds text's words in order, as
// a wrapped paragraph would: the screen's lines joined with spaces.
func noteWhole(screen, text string) bool {
	flat := strings.Join(strings.Fields(screen), " ")
	return strings.Contains(flat, strings.Join(strings.Fields(text), " "))
}

// TestNoteWaitsForItsInstant: a lesson opened on its page-load instant
// (esc from the about page puts the clock before the first request at 0s)
// does not show the 0s note, which tells what the lanes did with the
// instant's requests, while they show none decided; it says the note comes
// once they are, and brings it once n has decided the last of them.
func TestNoteWaitsForItsInstant(t *testing.T) {
	a := newTestApp(t, "lumpy-refill", 80, 24)
	a.openPage(aboutPage)
	press(a, "esc")
	note := a.lab.Scenario().Notes[0]
	if k, m := a.lab.Instant(); note.At != 0 || k != 0 || m < 2 {
		t.Fatalf("lumpy-refill opens at request %d of %d at %v, its first note at %v; want before the first of several at 0s, a note there", k+1, m, a.lab.Now(), note.At)
	}
	_, m := a.lab.Instant()
	head := firstRunes(noteLine(note), 30)
	for k := 0; k < m; k++ {
		s := screen(a)
		if strings.Contains(s, head) || !strings.Contains(s, undecidedLine(0, k, m)) {
			t.Fatalf("with %d of the %d requests at 0s decided, the screen shows the 0s note (or not the line in its place):\n%s", k, m, s)
		}
		if left := "waits for the " + counted(m-k, "request", "requests") + " left at 0s"; k > 0 && !strings.Contains(s, left) {
			t.Fatalf("with %d of the %d requests at 0s decided, the line does not count those left (%q):\n%s", k, m, left, s)
		}
		press(a, "n")
	}
	if s := screen(a); !strings.Contains(s, head) {
		t.Errorf("with all %d requests at 0s decided, the note is not shown:\n%s", m, s)
	}
}

// TestNotesRowMarksAWaitingNote: the timeline's notes row marks a note
// that waits for its instant's requests (or for a question's answer) ◇, as
// the note panel says, and ◆ once it is shown.
func TestNotesRowMarksAWaitingNote(t *testing.T) {
	notesRow := func(a *App) string {
		for _, l := range strings.Split(screen(a), "\n") {
			if strings.HasPrefix(l, "notes ") {
				return strings.TrimSpace(strings.TrimPrefix(l, "notes"))
			}
		}
		t.Fatalf("no notes row:\n%s", screen(a))
		return ""
	}
	a := newTestApp(t, "idle-expiry", 80, 24)
	a.openPage(aboutPage)
	press(a, "esc")
	if row := notesRow(a); !strings.HasPrefix(row, "◇") {
		t.Errorf("before the 12 requests at 0s, the 0s note is marked %q, want ◇ first", row)
	}
	press(a, "t", "]")
	if row := notesRow(a); !strings.HasPrefix(row, "◆") {
		t.Errorf("with the 0s note shown, the row is %q, want ◆ first", row)
	}
	press(a, "]")
	if f := strings.Fields(notesRow(a)); len(f) < 2 || f[1] != "◇" {
		t.Errorf("while the 4s question waits, the row is %q, want the 4s note ◇", notesRow(a))
	}
}
