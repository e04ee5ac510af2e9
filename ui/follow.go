package ui

// noteFollow is the explorer following the lesson: a note that names a
// key shows that key in the lanes while it is the current note (as k
// would, space firing for it), and one that names a lane focuses that lane
// when the clock reaches it. The learner's own choices win: a key chosen
// with k while such a note is current stays when the note is left, and tab
// moves the focus freely until the next note.
type noteFollow struct {
	cur    int    // the current note when last looked at; -2 before the first look
	key    string // the key the current note pinned; "" when it pinned none
	before int    // keyIdx before it pinned key, given back when it is left
}

// followNote brings the lanes to the current note's key and lane when the
// current note changes (after every message: a seek, a step, play, ] or a
// reload may change it).
func (a *App) followNote() {
	notes := a.lab.Scenario().Notes
	cur := currentNote(notes, a.lab.Now())
	f := &a.follow
	if cur == f.cur {
		return
	}
	f.cur = cur
	if a.noteKeyShown() {
		a.keyIdx = f.before
	}
	f.key = ""
	if cur < 0 {
		return
	}
	n := notes[cur]
	if n.Key != "" {
		before := a.keyIdx
		if a.pin(n.Key) {
			f.key, f.before = n.Key, before
		}
	}
	if n.Lane != "" {
		for i, l := range a.lab.Lanes() {
			if l.Name == n.Lane {
				a.focus = i
			}
		}
	}
}

// noteKeyShown reports whether the lanes show the key the current note
// pinned (and the learner has not chosen another with k since).
func (a *App) noteKeyShown() bool {
	return a.follow.key != "" && a.pinned() && a.key() == a.follow.key
}
