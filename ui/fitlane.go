package ui

import (
	tea "charm.land/bubbletea/v2"

	"ratelab/model"
	"ratelab/scenarios"
)

// fittedMsg is a fit's answer for a lane (model.ToggleFit), found away
// from the screen: a fit reads the whole traffic, a log's too.
type fittedMsg struct {
	from *scenarios.Scenario // the scenario it was fitted on
	s    *scenarios.Scenario
	done model.Fitted
	err  error
}

// toggleFit adds beside the focused lane the smallest policy of its
// algorithm at its rate that refuses none of the scenario's requests, or
// takes a fitted lane away. The fit runs as a command: the screen stays
// live, and says it is fitting.
func (a *App) toggleFit() tea.Cmd {
	from := a.lab.Scenario()
	name := a.lab.Lanes()[a.focus].Name
	a.status.set("fitting " + name + " to the scenario's traffic…")
	return func() tea.Msg {
		s, done, err := model.ToggleFit(from, name)
		return fittedMsg{from: from, s: s, done: done, err: err}
	}
}

// onFitted puts the fitted lane in (or takes it away), unless the
// scenario changed while the fit ran.
func (a *App) onFitted(m fittedMsg) tea.Cmd {
	switch {
	case m.from != a.lab.Scenario():
		a.status.set("the fit was for lanes no longer shown; F fits again")
		return nil
	case m.err != nil:
		a.status.setError(m.err.Error())
		return nil
	}
	words, cmd, err := a.rebase(m.s, "the fitted lane")
	if err != nil {
		a.status.setError(err.Error())
		return nil
	}
	again := " · F again takes it away"
	if !m.done.On {
		again = " · F on " + m.done.Of + " fits it again"
	}
	a.status.set(m.done.String() + words + again)
	return cmd
}
