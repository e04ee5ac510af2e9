package ui

import (
	"sort"
	"time"

	"ratelab/scenarios"
)

// currentNote is the index of the last note at or before now, or -1.
// Notes are in time order (scenarios sorts them).
func currentNote(notes []scenarios.Note, now time.Duration) int {
	return sort.Search(len(notes), func(i int) bool { return notes[i].At > now }) - 1
}

// noteAt is the time of note i, if there is one.
func noteAt(notes []scenarios.Note, i int) (time.Duration, bool) {
	if i < 0 || i >= len(notes) {
		return 0, false
	}
	return notes[i].At, true
}

// noteBlock shows the scenario's narration in h lines of width w: the
// latest note the clock has passed, wrapped, and above it as many earlier
// notes as fit (notesInRows), so a tall screen reads like the lesson so
// far.
func noteBlock(st *styles, notes []scenarios.Note, now time.Duration, w, h int) []string {
	if h <= 0 {
		return nil
	}
	cur := currentNote(notes, now)
	if cur < 0 {
		text := "no note yet"
		if len(notes) > 0 {
			text = "◇ first note at " + secs(notes[0].At) + " (] jumps there)"
		}
		return pad([]string{fit(st.muted.Render(text), w)}, w, h)
	}
	_, earlier, body := notesInRows(notes, cur, w, h)
	for i := range earlier {
		earlier[i] = fit(st.muted.Render(earlier[i]), w)
	}
	for i := range body {
		body[i] = fit(st.note.Render(body[i]), w)
	}
	return pad(append(earlier, body...), w, h)
}

// notesInRows is note cur wrapped to w in at most h rows (body), and
// above it as many earlier notes as fit (earlier), latest first: whole
// while they fit, the one that does not cut where the rows end, with
// "… (e: read all)", since e shows every note the panel shows whole
// (earliestShown); first is the earliest of them, cur for none.
func notesInRows(notes []scenarios.Note, cur, w, h int) (first int, earlier, body []string) {
	body = wrapMore(noteLine(notes[cur]), w, h)
	for first = cur; first > 0 && len(earlier)+len(body) < h; {
		first--
		earlier = append(wrapMore(noteLine(notes[first]), w, h-len(earlier)-len(body)), earlier...)
	}
	return first, earlier, body
}

// earliestShown is the index of the first note noteBlock shows in h rows
// of width w: the current note's, or an earlier one's above it, the last
// of which may be cut; −1 for none.
func earliestShown(notes []scenarios.Note, now time.Duration, w, h int) int {
	cur := currentNote(notes, now)
	if cur < 0 || h <= 0 {
		return cur
	}
	first, _, _ := notesInRows(notes, cur, w, h)
	return first
}

// shownNotes is the scenario's notes as the lower panel and the whole
// panel (e) may show them, and the line to show in place of those left
// out ("" when none is). The timeline still marks them.
//
// While a quiz question waits, the notes at its request's instant are left
// out, since they tell what the lanes do with it. A question still to come
// at the clock's instant waits too: the clock stands inside the instant
// (n steps through it, ] stops before its first request) with the
// question's request not yet decided, and the note would tell its answer
// first (dashboard's 0s, whose question is on the tenth request of the
// page load).
//
// With no question, the notes at an instant the clock stands inside are
// left out all the same until its last request is decided: they speak of
// what its requests did (lumpy-refill's 0s note tells of twelve outcomes,
// which the lanes, before the first, do not show yet); an answer given
// on an early request of the instant leaves them waiting too, for ] to
// decide the rest.
func (a *App) shownNotes() (notes []scenarios.Note, instead string) {
	notes = a.lab.Scenario().Notes
	instead, waits := a.programContext.notesWaiting()
	if !waits {
		return notes, ""
	}
	at := a.lab.Now()
	i := sort.Search(len(notes), func(i int) bool { return notes[i].At >= at })
	j := currentNote(notes, at) + 1
	if i == j {
		return notes, ""
	}
	return append(notes[:i:i], notes[j:]...), instead
}

// notesWaiting is the line said in place of the notes that wait (see
// shownNotes): those at the clock's instant while it stands inside it (a
// question there waits on an undecided request of it too); waits is
// false when none do.
func (c *programContext) notesWaiting() (instead string, waits bool) {
	k, m := c.lab.Instant()
	if k >= m {
		return "", false
	}
	now := c.lab.Now()
	if q := c.quizzing; q != nil && (q.asking() || q.waitsHere()) { // nil while the quiz is off
		return withheldLine(now, m-k), true
	}
	return undecidedLine(now, k, m), true
}

// withheldLine is the line in place of the notes a question withholds,
// left undecided of the requests at its instant: the answer shows them
// when its request is the last.
func withheldLine(at time.Duration, left int) string {
	if left > 1 {
		return "◇ the note at " + secs(at) + " comes once the " + counted(left, "request", "requests") + " left at " + secs(at) + " are decided"
	}
	return "◇ the note at " + secs(at) + " comes with the answer"
}

// undecidedLine is the line in place of the notes at an instant of m
// requests that the clock stands inside, k of them decided: it counts
// those left once some are.
func undecidedLine(at time.Duration, k, m int) string {
	waits := counted(m, "request", "requests") + " at "
	if k > 0 {
		waits = counted(m-k, "request", "requests") + " left at "
	}
	return "◇ the note at " + secs(at) + " waits for the " + waits + secs(at) + ": n decides one, ] all"
}

// noteBetween is the time of the first note after from and at or before to.
func noteBetween(notes []scenarios.Note, from, to time.Duration) (time.Duration, bool) {
	i := currentNote(notes, from) + 1
	if i < len(notes) && notes[i].At <= to {
		return notes[i].At, true
	}
	return 0, false
}

// noteRows is how many rows the current note needs at width w, at most
// noteMax.
func noteRows(notes []scenarios.Note, now time.Duration, w int) int {
	cur := currentNote(notes, now)
	if cur < 0 {
		return 1
	}
	return len(wrap(noteLine(notes[cur]), w, noteMax))
}

// noteLine is a note as the note panel writes it: "◆ 60s  A new minute…".
func noteLine(n scenarios.Note) string { return "◆ " + secs(n.At) + "  " + n.Text }
