package ui

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ratelab/safewrite"
	"ratelab/scenarios"
)

// askSave asks where to save the scenario with the learner's requests,
// proposing path; then, when set, is what goes on once the file is
// written (a confirmation's "save first"). An existing file is overwritten
// only after a second enter on the same path, with no key between.
func (a *App) askSave(path string, then func() tea.Cmd) tea.Cmd {
	warned := "" // the path the learner was warned exists
	return a.openPrompt(&ask{
		prompt: "save as: ",
		value:  path,
		edited: func() { warned = "" },
		submit: func(answer string) (tea.Cmd, error) {
			if answer == "" {
				return nil, errors.New("type a path to save to, or esc")
			}
			return a.save(answer, &warned, then)
		},
	})
}

// save writes the scenario with the learner's requests to path, a file
// `ratelab FILE` opens again; model builds the text (leaving out the
// expectations that no longer hold), the command returned writes it and
// reports a savedMsg carrying then. An existing file is refused with a
// warning, unless *warned already names it (it then is overwritten).
func (a *App) save(path string, warned *string, then func() tea.Cmd) (tea.Cmd, error) {
	data, dropped, err := a.lab.Save(path)
	if err != nil {
		return nil, errors.New("not saved: " + err.Error())
	}
	if _, err := os.Stat(path); err == nil && *warned != path {
		*warned = path
		return nil, errors.New(path + " exists: enter again to overwrite it, or edit the path")
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("not saved: " + err.Error())
	}
	fired, edits := a.lab.FiredCount(), a.edits
	a.saving = &saveInFlight{edits: edits}
	return func() tea.Msg {
		// Written beside and renamed into place: a full disk leaves the
		// file that was there (often the open scenario) as it was.
		return savedMsg{path: path, fired: fired, edits: edits, dropped: dropped, then: then, err: safewrite.WriteFile(path, data, 0o644)}
	}, nil
}

// saveInFlight is a save being written: edits is App.edits when it began,
// then what a discard asked for meanwhile, done once it lands.
type saveInFlight struct {
	edits int
	then  func() tea.Cmd
}

// changed marks the learner's requests changed since the last save.
func (a *App) changed() {
	a.dirty = true
	a.edits++
}

// savedMsg reports a save's write, made when App.edits was edits; then is
// what goes on after it.
type savedMsg struct {
	path           string
	fired, dropped int
	edits          int
	then           func() tea.Cmd
	err            error
}

func (a *App) onSaved(m savedMsg) tea.Cmd {
	then := m.then
	if a.saving != nil && a.saving.edits == m.edits {
		if a.saving.then != nil {
			then = a.saving.then
		}
		a.saving = nil
	}
	if m.err != nil {
		// The prompt opens again on the path, for the learner to mend it
		// (and whatever waited for the save has not been done).
		cmd := a.askSave(m.path, m.then)
		a.status.setError("not saved: " + m.err.Error())
		return cmd
	}
	if a.edits == m.edits { // else a request came since, and is not in the file
		a.dirty = false
	}
	if then != nil {
		return then()
	}
	if sameFile(m.path, a.watch.path) {
		// The open file now holds the learner's requests as its traffic:
		// open it anew, or the next edit would add them twice.
		return func() tea.Msg {
			s, err := scenarios.Load(a.watch.path)
			return loadedMsg{path: a.watch.path, s: s, err: err, keepClock: true}
		}
	}
	// What matters first: where, and what was left out; the reminder of
	// how to reopen it may be cut.
	msg := "saved " + m.path + " with your " + requestCount(m.fired)
	if m.dropped > 0 {
		msg += ", " + counted(m.dropped, "expectation", "expectations") + " left out (no longer true)"
	}
	a.status.set(msg + " · ratelab " + m.path + " opens it")
	return nil
}

// defaultSavePath proposes mineName's NAME-mine.yaml beside where ratelab
// runs (or in Options.SaveDir).
func (c *programContext) defaultSavePath() string {
	name := mineName(c.lab.Scenario().Name)
	dir := c.opts.SaveDir
	if dir == "" {
		return "." + string(filepath.Separator) + name + ".yaml"
	}
	return filepath.Join(dir, name+".yaml")
}

// mineName is NAME-mine for a scenario called name: NAME is its name
// without directory or extension (a log's too: access.log.gz gives
// access-mine), "scenario" when that leaves nothing.
func mineName(name string) string {
	name = filepath.Base(name)
	name = strings.TrimSuffix(name, ".gz")
	name = strings.TrimSuffix(name, filepath.Ext(name))
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "scenario"
	}
	if !strings.HasSuffix(name, "-mine") {
		name += "-mine"
	}
	return name
}

// sameFile reports whether two paths name one file ("" names none).
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
