package ui

import (
	"errors"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// labMode is the lab itself, the main screen: the lanes, the timeline and
// the lower panel, and the keys of labKeys. It is always open, below every
// other mode, and draws every part of the screen another mode leaves —
// the status line only when it has something to say.
type labMode struct {
	// The burst prompt's proposal: the last burst's size and spread.
	burstSize   int
	burstSpread time.Duration
}

func newLabMode() labMode { return labMode{burstSize: 10} }

// update handles a key of the lab. The status line reports the key's
// action or is cleared, so that it never describes an earlier moment.
func (m *labMode) update(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys.Lab
	lab := a.lab
	a.status.clear()
	if cmd, ok := m.asJob(a, msg); ok {
		return cmd
	}
	// In quiz mode a key that moves the clock forward stops at the first
	// moment among the requests it decided, to ask about it.
	from := lab.Pos()
	defer func() {
		if a.lab == lab && lab.Pos() > from {
			a.quiz.stopBetween(from, lab.Pos())
		}
	}()
	if cmd, ok := a.play.update(msg, &a.status); ok {
		return cmd
	}
	if a.tl.update(msg) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return a.quit()
	case key.Matches(msg, k.Help):
		a.openPage(helpPage)
	case key.Matches(msg, k.About):
		a.openPage(aboutPage)
	case key.Matches(msg, k.Expand):
		a.openPage(panelPage)
	case key.Matches(msg, k.Open):
		return a.discard("open another scenario", func() tea.Cmd { a.openPicker(); return nil })
	case key.Matches(msg, k.Save):
		return a.askSave(a.defaultSavePath(), nil)
	case key.Matches(msg, k.Burst):
		return m.askBurst(a)
	case key.Matches(msg, k.Cost):
		return m.askCost(a)
	case key.Matches(msg, k.NewKey):
		return m.askKey(a)
	case key.Matches(msg, k.PeakWindow):
		return m.askPeakWindow(a)
	case key.Matches(msg, k.Quiz):
		a.quiz.toggle(a)
	case key.Matches(msg, k.Mistakes):
		return m.toggleMistakes(a)
	case key.Matches(msg, k.Fit):
		return a.toggleFit()
	case key.Matches(msg, k.Chart):
		m.toggleChart(a)

	case key.Matches(msg, k.Fire):
		return m.fire(a, 1, 0)
	case key.Matches(msg, k.NextKey):
		m.nextKey(a)
	case key.Matches(msg, k.Undo):
		return m.undoLast(a)
	case key.Matches(msg, k.Reset):
		m.reset(a)

	case key.Matches(msg, k.StepFwd):
		lab.Step(a.step())
	case key.Matches(msg, k.StepBack):
		lab.Step(-a.step())
	case key.Matches(msg, k.LeapFwd):
		lab.Step(10 * a.step())
	case key.Matches(msg, k.LeapBack):
		lab.Step(-10 * a.step())
	case key.Matches(msg, k.Start):
		a.toStart()
	case key.Matches(msg, k.End):
		lab.Seek(lab.End())
	case key.Matches(msg, k.NextReq):
		m.nextRequest(a)
	case key.Matches(msg, k.PrevReq):
		m.prevRequest(a)
	case key.Matches(msg, k.NextSplit):
		m.jumpSplit(a, lab.NextDisagreement, "after")
	case key.Matches(msg, k.PrevSplit):
		m.jumpSplit(a, lab.PrevDisagreement, "before")
	case key.Matches(msg, k.NextNote):
		m.jump(a, a.nextNote, "no note after "+a.secs(lab.Now()))
	case key.Matches(msg, k.PrevNote):
		m.jump(a, a.prevNote, "no note before "+a.secs(lab.Now()))

	case key.Matches(msg, k.FocusNext):
		a.focus = (a.focus + 1) % max(len(lab.Lanes()), 1)
	case key.Matches(msg, k.FocusPrev):
		a.focus = (a.focus + len(lab.Lanes()) - 1) % max(len(lab.Lanes()), 1)
	}
	return nil
}

// status is the status line, when it has something to say.
func (m *labMode) status(a *App, w int) (string, bool) {
	if a.status.text == "" {
		return "", false
	}
	return a.status.view(w), true
}

// footer is the lab's short help, "? help · q quit" on the right; ]
// only when the scenario has notes to go to.
func (m *labMode) footer(a *App, w int) (string, bool) {
	km := a.keys.Lab
	if len(a.lab.Scenario().Notes) == 0 {
		km.short = slices.DeleteFunc(slices.Clone(km.short), func(b key.Binding) bool {
			return slices.Equal(b.Keys(), km.NextNote.Keys())
		})
	}
	return a.keysFooter(km, km.right, w), true
}

// body is the lab's screen, the why panel in its lower panel.
func (m *labMode) body(a *App, lines []string, w, _ int) ([]string, bool) {
	return m.screen(a, lines, w, nil), true
}

// screen appends to lines the lanes, the timeline (and on a tall screen
// the chart of states over time and the overview), and the lower panel,
// in the layout's rows: the body's height. question, when set, draws a
// question in place of the why panel (the quiz's).
func (m *labMode) screen(a *App, lines []string, w int, question func(w, h int) []string) []string {
	l := a.lay
	views := laneViews(a.programContext)
	blank := fit("", w)
	gap := func() {
		if l.gaps {
			lines = append(lines, blank)
		}
	}
	lines = append(lines, lanesBlock(a.st, views, l)...)
	gap()
	tl := a.tl.span()
	lines = append(lines, a.tl.view(tl)...)
	gap()
	chart, overview := l.chart, l.overview
	if chart > 0 && overview > 0 && tl.length() > a.lab.End() {
		// The timeline shows the whole run, so the overview has nothing to
		// add: its rows (and the gap after it) go to the chart's bars, and
		// the panels below stay where they are as the zoom changes.
		chart += overview
		if l.gaps {
			chart++
		}
		overview = 0
	}
	if chart > 0 {
		lines = append(lines, a.tl.chartPanel(tl, chart)...)
		gap()
	}
	switch {
	case overview == 0:
	case tl.length() > a.lab.End():
		// The timeline shows the whole run already: keep the rows blank
		// rather than move the panels below as the zoom changes.
		for range l.overview {
			lines = append(lines, blank)
		}
		gap()
	default:
		lines = append(lines, a.tl.overview(tl)...)
		gap()
	}
	note, why := m.lowerBlocks(a, views, w, question)
	lines = append(lines, note...)
	gap()
	lines = append(lines, why...)
	for range l.spare {
		lines = append(lines, blank)
	}
	return lines
}

// askPeakWindow asks for the window of the lanes' peak statistic: empty,
// the current window named beside it (typing "1s" gives 1s, where after a
// value left in place it would give "60s1s"); empty again is the default.
func (m *labMode) askPeakWindow(a *App) tea.Cmd {
	return a.openPrompt(&ask{
		prompt: "peak window, now " + algorithms.FormatDuration(a.lab.PeakWindow()) + " (e.g. 1s; empty for the default)? ",
		submit: func(answer string) (tea.Cmd, error) {
			d := time.Duration(0)
			if answer != "" {
				var err error
				if d, err = scenarios.ParseDuration(answer, true); err != nil {
					return nil, errors.New("peak window: " + err.Error())
				}
			}
			cmd, err := a.parked("the new peak window", func() error { return a.lab.SetPeakWindow(d) })
			if err != nil {
				return nil, err
			}
			if a.job == nil {
				a.status.set("peak now measured over any " + a.secs(a.lab.PeakWindow()) + " (the lanes' totals say per " + a.secs(a.lab.PeakWindow()) + ")")
			}
			return cmd, nil
		},
	})
}

// toggleChart shows the chart of states over time, or hides it: as a
// panel where the layout has room for one, else in place of the
// timeline's lane rows, for the focused lane.
func (m *labMode) toggleChart(a *App) {
	if a.lay.chart > 0 || a.tl.inlineChart() {
		a.chart = chartHidden
		a.relayout()
		a.status.set("state over time hidden; v shows it again")
		return
	}
	a.chart = chartShown
	a.relayout()
	if a.lay.chart > 0 {
		a.status.set("state over time shown under the timeline; v hides it")
		return
	}
	a.status.set(a.lab.Lanes()[a.focus].Name + "'s state over time in the timeline's rows (tab: next lane; v: the rows)")
}

// toggleMistakes switches the mistake lanes of the focused lane on or off
// (model.ToggleMistakes): a token bucket gains its float and whole-token
// twins beside it, and M on one of them takes it away. The status says
// what was switched, and how to switch it back.
func (m *labMode) toggleMistakes(a *App) tea.Cmd {
	name := a.lab.Lanes()[a.focus].Name
	s, done, err := model.ToggleMistakes(a.lab.Scenario(), name)
	if err != nil {
		a.status.setError(err.Error())
		return nil
	}
	words, cmd, err := a.rebase(s, "the new lanes")
	if err != nil {
		a.status.setError(err.Error())
		return nil
	}
	back := " · M again switches " + agree(len(done.Lanes), "it", "them") + " off"
	if !done.On {
		back = " · M on " + done.Of + " switches " + agree(len(done.Lanes), "it", "them") + " on again"
	}
	a.status.set(done.String() + words + back)
	return cmd
}

// nextKey cycles: the key of the latest request, then each key pinned in
// turn.
func (m *labMode) nextKey(a *App) {
	keys := a.lab.Keys()
	if len(keys) < 2 {
		a.status.set("this scenario has one key: " + a.key() + " · K fires as a new key")
		return
	}
	a.keyIdx++
	if a.keyIdx >= len(keys) {
		a.keyIdx = -1
		a.status.set("the lanes follow the key of the latest request; space fires for it")
		return
	}
	a.status.set("the lanes show key " + a.key() + " and space fires for it · k again for the next key")
}

// reset puts the scenario back as loaded; u brings the learner's requests
// back.
func (m *labMode) reset(a *App) {
	a.play.pause()
	n := a.lab.FiredCount()
	shown, pinned := a.key(), a.pinned()
	a.lab.Reset()
	a.toStart()
	a.keyIdx = -1
	if pinned && !a.pin(shown) {
		a.status.set("reset: key " + keyText(shown) + " was only in your requests; the lanes follow the latest request")
	}
	if n == 0 {
		a.status.set("reset: t = 0")
		return
	}
	a.changed()
	a.status.set("reset: t = 0, your " + requestCount(n) + " removed · u brings " + agree(n, "it", "them") + " back")
}
