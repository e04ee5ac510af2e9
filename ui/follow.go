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

// noteKeyShown reports whether the key the current note pinned is still
// pinned (the learner has not chosen another with k since). It reads the
// pin, not the key the lanes show: a quiz question shows its own
// request's key over the pin, and a note left while one waits must still
// give its pin back (global-cap's 5s note kept greedy pinned past the
// sale's questions at 30s).
func (a *App) noteKeyShown() bool {
	return a.follow.key != "" && a.pinned() && a.lab.Keys()[a.keyIdx] == a.follow.key
}
