package ui

import "strings"

// whyFloor is the fewest rows the why panel keeps for a long note: its
// heading, the first line of the explanation and the reply.
const whyFloor = 3

// lowerBlocks are the lower panel: the note and, under it, the why panel —
// or question (w wide, h rows) when set: the quiz's, while it waits for an
// answer — in the layout's l.note + l.why rows, shared out by what each
// needs most:
//
//   - a question takes all the rows but one line of note: it is the
//     moment's point, and the request is not decided yet; a note at the
//     question's instant waits for the answer (shownNotes);
//   - after an answer, how it went and the lesson's word on the moment
//     come first;
//   - else the current note takes the rows it needs first (up to
//     noteMax): from the other lanes' explanations, then from the focused
//     lane's, down to its heading, one line of it and its reply (the 429
//     line is never given up), the rest of it a key away (e);
//   - the why panel may need fewer rows than it gets: the note takes the
//     rest.
func (m *labMode) lowerBlocks(a *App, views []laneView, w int, question func(w, h int) []string) (note, why []string) {
	l := a.lay
	notes, instead := a.shownNotes()
	whyRows := l.why
	switch {
	case question != nil:
		why = question(w, l.why+l.note-1)
	case a.quiz.revealStands():
		whyRows = l.why + l.note - 1
	default:
		if need := noteRows(notes, a.lab.Now(), w); need > l.note {
			whyRows = max(l.why-(need-l.note), min(whyFloor, l.why))
		}
	}
	if why == nil {
		why = whyBlock(a.st, views, a.focus, w, whyRows, l.label, a.revealWords()...)
	}
	if instead != "" {
		return pad([]string{fit(a.st.muted.Render(instead), w)}, w, l.note+l.why-len(why)), why
	}
	return noteBlock(a.st, notes, a.lab.Now(), w, l.note+l.why-len(why)), why
}

// revealWords are the quiz's reveal words (quiz.revealWords) for this
// screen: on the minimal screen, whose status line shares the footer's,
// how the answers went is left to that line and the why panel keeps the
// lesson's explanation alone.
func (a *App) revealWords() []string {
	words := a.quiz.revealWords()
	if a.lay.status > 0 || len(words) == 0 {
		return words
	}
	if a.quiz.revealedWhy == "" {
		return nil
	}
	return []string{a.quiz.revealedWhy}
}

// revealInPanel reports whether the why panel says how the quiz's answers
// went (the score line), as lowerBlocks and whyBlock draw it: then the
// status line need not say it again.
func (a *App) revealInPanel() bool {
	words := a.revealWords()
	if len(words) == 0 || !strings.HasPrefix(words[0], a.quiz.revealedText) {
		return false
	}
	l := a.lay
	w, h := l.width, l.why+l.note-1
	if h < 2 {
		return false // whyBlock writes no extra sentence in one row
	}
	if len(words) == 1 {
		return true // the only words are written, cut if they must be
	}
	// The focused lane's view alone: the status line asks at each frame.
	var views []laneView
	if v, ok := focusedView(a.programContext); ok {
		views = append(views, v)
	}
	rows := max(h-min(whyFloor, whyFocusRows(a.st, views, 0, w)), 1)
	return len(wrap(words[0], w, rows+1)) <= rows
}
