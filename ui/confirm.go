package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// confirmation is the mode of a question the learner answers with one key
// before something is lost: Yes does it, SaveFirst saves and then does it
// (not saved, nothing is lost), any other key keeps things as they are. It
// draws the question in the status line and its answers in the footer,
// over whatever body is below it.
type confirmation struct {
	passThrough
	question string
	yes      func() tea.Cmd
}

// discard does what, or first asks when it would lose fired requests that
// were not saved. While a save of them all is being written it asks
// nothing: it does what once the save lands (s, enter, q quits when the
// file is written, and not before).
func (a *App) discard(what string, do func() tea.Cmd) tea.Cmd {
	if !a.dirty || a.lab.FiredCount() == 0 {
		return do()
	}
	if a.saving != nil && a.saving.edits == a.edits {
		a.saving.then = do
		a.status.set(what + " once the save is written")
		return nil
	}
	a.play.pause()
	a.confirm = &confirmation{
		question: what + " and lose your " + requestCount(a.lab.FiredCount()) + "?",
		yes:      do,
	}
	return nil
}

// quit quits, or first asks when unsaved requests would be lost.
func (a *App) quit() tea.Cmd { return a.discard("quit", func() tea.Cmd { return tea.Quit }) }

// update answers the question: any key closes it.
func (c *confirmation) update(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys.Confirm
	a.confirm = nil
	switch {
	case key.Matches(msg, k.Yes):
		return c.yes()
	case key.Matches(msg, k.SaveFirst):
		return a.askSave(a.defaultSavePath(), c.yes)
	}
	a.status.set("kept your requests")
	return nil
}

// status is the question, marked "?" in the error style.
func (c *confirmation) status(a *App, w int) (string, bool) {
	return fit(a.st.errText.Render("? "+c.question), w), true
}

// footer is the answers alone.
func (c *confirmation) footer(a *App, w int) (string, bool) {
	return a.keysOnly(a.keys.Confirm, w), true
}
