package ui

// lowerBlocks are the lower panel: the note and, under it, the why panel —
// or the quiz's question while it waits for an answer — in the layout's
// l.note + l.why rows, shared out by what each needs most:
//
//   - a question takes all the rows but one line of note: it is the
//     moment's point, and the request is not decided yet;
//   - after an answer, the lesson's word on the moment comes first;
//   - else the current note comes before the other lanes' explanations,
//     down to what the focused lane's own explanation needs;
//   - the why panel may need fewer rows than it gets: the note takes the
//     rest.
func (a *App) lowerBlocks(views []laneView, w int) (note, why []string) {
	l := a.lay
	notes := a.lab.Scenario().Notes
	whyRows := l.why
	switch {
	case a.quiz.asking():
		why = a.quiz.block(w, l.why+l.note-1)
	case a.quizWhy() != "":
		whyRows = l.why + l.note - 1
	default:
		if need := noteRows(notes, a.lab.Now(), w); need > l.note {
			whyRows = max(l.why-(need-l.note), min(whyFocusRows(a.st, views, a.focus, w), l.why))
		}
	}
	if why == nil {
		why = whyBlock(a.st, views, a.focus, w, whyRows, l.label, a.quizWhy())
	}
	return noteBlock(a.st, notes, a.lab.Now(), w, l.note+l.why-len(why)), why
}
