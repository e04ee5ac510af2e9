package ui

import (
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/model"
	"ratelab/scenarios"
)

// watchInterval is how often the explorer looks at the open scenario's file
// for an edit: one stat a second, and only while a file is open.
const watchInterval = time.Second

// fileWatch follows the scenario's file, so that an edit made in another
// window shows at once. A canned scenario has no file to follow (path "").
type fileWatch struct {
	path string
	mod  time.Time
	size int64
}

// watchFor follows s's file, if s came from one.
func watchFor(s *scenarios.Scenario) fileWatch {
	if _, canned := scenarios.Source(s.Name); canned {
		return fileWatch{}
	}
	w := fileWatch{path: s.Name}
	if fi, err := os.Stat(s.Name); err == nil {
		w.mod, w.size = fi.ModTime(), fi.Size()
	}
	return w
}

// fileStatMsg is one look at the watched file.
type fileStatMsg struct {
	path string
	mod  time.Time
	size int64
	err  error
}

// next schedules the next look at the file; nil when there is none.
func (w fileWatch) next() tea.Cmd {
	if w.path == "" {
		return nil
	}
	path := w.path
	return tea.Tick(watchInterval, func(time.Time) tea.Msg {
		fi, err := os.Stat(path)
		if err != nil {
			return fileStatMsg{path: path, err: err}
		}
		return fileStatMsg{path: path, mod: fi.ModTime(), size: fi.Size()}
	})
}

// onFileStat reloads the scenario when its file changed, and looks again
// later. A file that went away is looked for again (an editor may write a
// new file in its place).
func (a *App) onFileStat(m fileStatMsg) tea.Cmd {
	if m.path != a.watch.path {
		return nil // a look at a file no longer open
	}
	if m.err != nil || (m.mod.Equal(a.watch.mod) && m.size == a.watch.size) {
		return a.watch.next()
	}
	a.watch.mod, a.watch.size = m.mod, m.size
	return tea.Batch(loadFile(m.path, true), a.watch.next())
}

// loadedMsg is a scenario file read and parsed, or the error that stopped
// it; reload tells an edit of the open file from a file opened anew.
type loadedMsg struct {
	path   string
	s      *scenarios.Scenario
	err    error
	reload bool
	// keepClock opens the file anew at the clock's time (after a save
	// over the open file: its requests are now its traffic).
	keepClock bool
}

// loadFile reads and parses a scenario file, off the update loop.
func loadFile(path string, reload bool) tea.Cmd {
	return func() tea.Msg {
		s, err := scenarios.Load(path)
		return loadedMsg{path: path, s: s, err: err, reload: reload}
	}
}

// onLoaded shows a scenario read from a file. An edit of the open file
// keeps the clock and the learner's requests where they still fit; a broken
// edit keeps the last good version running and says what is wrong in one
// line.
func (a *App) onLoaded(m loadedMsg) tea.Cmd {
	if m.err != nil {
		if m.reload {
			a.status.setError(m.err.Error() + " · still showing the last good version")
		} else {
			a.status.setError("not opened: " + m.err.Error())
		}
		return nil
	}
	if !m.reload {
		lab, err := model.NewOn(m.s, 0, a.opts.Store)
		if err != nil {
			a.status.setError("not opened: " + err.Error())
			return nil
		}
		now := a.lab.Now()
		a.setLab(lab)
		if m.keepClock {
			lab.Seek(now)
		}
		a.watch = watchFor(m.s)
		a.status.set("opened " + m.path + " · a shows what it is about · edits to the file show here at once")
		return a.watch.next()
	}
	if m.path != a.watch.path {
		return nil
	}
	words, cmd, err := a.rebase(m.s, "the reloaded file")
	if err != nil {
		a.status.setError(err.Error() + " · still showing the last good version")
		return nil
	}
	a.status.set("reloaded " + m.path + words)
	return cmd
}

// rebase replaces the lab by one of s that carries the learner's requests
// over (Lab.Rebase), keeping the shown key and the zoom, and returning to the
// clock's place, inside an instant too (in slices, for a long timeline). words say what became of
// the requests, the cost and the quiz, to follow a status message; on an
// error nothing changes.
func (a *App) rebase(s *scenarios.Scenario, what string) (words string, cmd tea.Cmd, err error) {
	// The new lab starts where the clock is parked, at 0, and the clock
	// goes back in slices: a rebase of a long timeline does not freeze.
	at := placeOf(a.lab)
	if a.job != nil {
		a.job = nil // its work was for the timeline being replaced
	}
	a.lab.Seek(0)
	lab, kept, dropped, err := a.lab.Relane(s)
	if err != nil {
		at.seek(a.lab)
		return "", nil, err
	}
	shown, pinned, zoom, zoomed, quizzing := a.key(), a.pinned(), a.tl.zoom, a.tl.zoomed, a.quiz.on
	a.lab = lab
	a.focus = min(a.focus, len(lab.Lanes())-1)
	a.keyIdx = -1
	if pinned {
		a.pin(shown)
	}
	a.tl = newTimeline(a.programContext)
	if zoomed {
		a.tl.zoom, a.tl.zoomed = min(zoom, len(a.tl.zooms)-1), true
	}
	a.quiz.end(a)
	a.relayout()
	if lab.CheckCost(a.cost) != nil {
		a.cost = 1
		words += " (the cost is back to 1: the new lanes cannot admit the old one)"
	}
	if quizzing {
		words += " · the quiz ended (t starts it again)"
	}
	if kept+dropped > 0 {
		words += ": your " + requestCount(kept) + " kept"
		if dropped > 0 {
			words += ", " + requestCount(dropped) + " dropped (they no longer fit)"
		}
	}
	return words, a.returnTo(what, at), nil
}
