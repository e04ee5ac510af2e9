// Package ui is ratelab's terminal explorer: a Bubble Tea program that
// shows a scenario's limiters side by side on the lab's virtual clock and
// lets the learner step, play, rewind and fire requests.
//
// The ui renders what package model computes and decides nothing about rate
// limiting. Only the play ticker and the pacer of long work (compute.go),
// which sizes slices of deciding by time, read the wall clock.
//
// The root model (App) keeps the routing and the layout. Of its modes
// (mode.go) — a long job deciding requests, a question to confirm, the
// prompt, the picker, a page, the quiz's question, the lab itself — one is
// in charge at a time. Their precedence is written once, in openModes: the
// mode in charge takes every key but ForceQuit and Suspend, and the body,
// the status line and the footer are each drawn by the first open mode
// that draws it. Each mode holds its own state. Its keys are its group of
// keyMap in keys.go, the only file that names a key to bind or match it;
// the keyboard reader (input.go) takes its quit and passive keys from
// there too. A prompt
// carries the function that acts on its answer, written beside the
// feature that asks (fire.go, save.go, picker.go, labmode.go, quiz.go).
// Where n and N stop is a query of the model (Lab.NextStop, PrevStop); the
// explorer seeks there and says what is there.
//
// The modes and the lab's components — playback, the timeline, the status
// line — share one programContext (context.go): the lab, the options, the
// keys, the styles, the layout, the focused lane, the shown key and the
// cost. The layout is a pure function of the terminal's size and the
// scenario's shape (layout.go).
package ui

import (
	"io"
	"os"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ratelab/model"
	"ratelab/progress"
	"ratelab/scenarios"
)

// Options configure the explorer.
type Options struct {
	// NoColor draws without any colour (bold, faint and reverse remain).
	// Run sets it when the NO_COLOR environment variable is not empty.
	NoColor bool
	// About opens the explorer on the scenario's about text.
	About bool
	// SaveDir is where the save prompt proposes to write; "." if empty.
	SaveDir string
	// Input and Output replace the terminal (for tests); nil means the
	// program's standard input and output.
	Input  io.Reader
	Output io.Writer
	// Progress is where Run shows a long timeline's building before the
	// first frame, if it is a terminal; nil: nowhere.
	Progress io.Writer
	// Store keeps the lanes' state (ratelab --store); nil: memory. The
	// why panel then shows where the focused key's state is kept, and the
	// header StoreName ("redis 127.0.0.1:6379/0").
	Store     model.Store
	StoreName string
}

// Run opens the explorer on the scenario that load returns, and returns
// when the learner quits. A timeline that takes longer than
// buildingInterval to build (millions of requests) shows its progress on
// opts.Progress until the first frame. The keyboard is read from before the load, so
// that keys typed meanwhile are kept. The terminal is restored on every
// exit, a panic included (Bubble Tea recovers it, restores the terminal
// and reports it as an error), and on every signal that ends or stops the
// process (signals.go).
func Run(load func() (*scenarios.Scenario, error), opts Options) error {
	kb, err := openKeyboard(opts.Input, newKeyMap().early())
	if err != nil {
		return err
	}
	defer kb.close()
	w := watchSignals(kb) // before raw mode: a signal then restores it
	defer w.stop()
	if err := kb.raw(); err != nil {
		return err
	}
	s, err := load()
	if err != nil {
		return err
	}
	lab, err := buildLab(s, opts.Store, opts.Progress, progress.IsTerminal(opts.Progress))
	if err != nil {
		return err
	}
	opts = withEnvironment(opts)
	// The renderer wakes at its frame rate even when nothing changes; play
	// needs no more than its own 30 frames a second, so a paused explorer
	// idles at half the default wake-ups.
	popts := []tea.ProgramOption{tea.WithFPS(int(time.Second / frameInterval)), tea.WithoutSignalHandler(), tea.WithInput(kb)}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	app := New(lab, opts)
	p := tea.NewProgram(app, popts...)
	app.suspend, app.unsaved, app.keyboard = w.suspend, &w.unsaved, kb
	kb.handled(false, app.quitsOnQ())
	w.attach(p)
	kb.takeSignalKeys()
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	select {
	case err = <-done:
	case <-kb.quit:
		// A quit key waited behind earlier keys' work: end now, and leave
		// that work (its goroutine ends with the process).
		kill(p)
		return ErrQuitWhileBusy
	}
	if app.ended != nil {
		return app.ended
	}
	return err
}

// buildingInterval is the least time between two redraws of the line that
// shows a timeline's building: half the longest the screen should stay
// unchanged (a tenth of a second), so that it never does.
const buildingInterval = 50 * time.Millisecond

// buildLab is s's lab on store, its building shown on w every
// buildingInterval when isTerminal says w is a terminal (nothing is
// written to it otherwise), the line cleared for the first frame.
func buildLab(s *scenarios.Scenario, store model.Store, w io.Writer, isTerminal bool) (*model.Lab, error) {
	building := progress.NewTask(w, "building the timeline", s.RequestCount(), "requests", isTerminal, progress.WithInterval(buildingInterval))
	defer building.Done()
	return model.NewReporting(s, 0, store, func(built, _ int64) { building.Update(built) })
}

// withEnvironment applies the environment to opts: NO_COLOR with any
// non-empty value turns colour off (https://no-color.org).
func withEnvironment(opts Options) Options {
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	return opts
}

// App is the explorer's root model. It routes the messages: the keys to
// the mode in charge (after ForceQuit and Suspend, which work in every
// mode), the rest to their handlers; and it lays the screen out (view.go).
type App struct {
	*programContext
	help help.Model

	dark          bool
	width, height int

	// The lab's components, which every mode may use.
	play   playback
	tl     timeline
	status statusLine

	// The modes, in their precedence (openModes): job and confirm are
	// open when not nil; jobGen tells a job's slices from a given-up
	// job's.
	job     *job
	jobGen  int
	confirm *confirmation
	prompt  prompt
	picker  picker
	pages   pages
	quiz    quiz
	labMode labMode
	follow  noteFollow
	// laid is what of the clock the layout was made for (laidFor).
	laid laidState

	// verdictQueued is set while a verdictMsg is on its way (verdict.go),
	// chartQueued while a chartMsg is (chart.go).
	verdictQueued, chartQueued bool

	// dirty is set when the learner's requests changed since they were
	// last saved (or loaded): discarding them then asks first. edits
	// counts those changes, so that a save landing knows whether it wrote
	// them all; saving is the save being written, if any.
	dirty  bool
	edits  int
	saving *saveInFlight
	// watch follows the scenario's file, when it came from one, to reload
	// it when it changes on disk.
	watch fileWatch

	// ended is set when a signal ended the explorer (signals.go); suspend,
	// when Run watches the signals, readies a suspension by ctrl+z.
	ended   *Ended
	suspend func() tea.Msg
	// unsaved, when set, is told the learner's unsaved requests after
	// every message, for a signal that cannot wait for the explorer;
	// keyboard, each key handled, for a quit key that cannot wait.
	unsaved  *atomic.Int64
	keyboard *keyboard
}

// New makes the explorer for lab, sized 80×24 until the terminal says
// otherwise.
func New(lab *model.Lab, opts Options) *App {
	ctx := &programContext{opts: opts, keys: newKeyMap(), pace: pacer{now: time.Now}}
	a := &App{programContext: ctx, help: help.New(), prompt: newPrompt(), dark: true, width: 80, height: 24}
	a.status.ctx = ctx
	a.play = newPlayback(ctx)
	a.quiz.ctx = ctx
	a.play.quizAt = a.quiz.at
	a.play.askQuiz = func(to time.Duration) { a.quiz.stopBetween(a.lab.Pos(), a.lab.Search(to)) }
	a.help.ShortSeparator = " · "
	a.setStyles()
	a.setLab(lab)
	a.watch = watchFor(lab.Scenario())
	if opts.About {
		a.openPage(aboutPage)
	}
	return a
}

// setLab shows lab from a fresh start: focus, key, cost, zoom, undo.
func (a *App) setLab(lab *model.Lab) {
	a.quiz.end(a)
	a.job = nil
	a.lab = lab
	a.toStart()
	a.focus, a.keyIdx, a.cost = 0, -1, 1
	a.follow = noteFollow{cur: -2}
	a.labMode = newLabMode()
	a.play.pause()
	a.tl = newTimeline(a.programContext)
	a.dirty = false
	a.relayout()
}

func (a *App) setStyles() {
	a.st = newStyles(a.dark, !a.opts.NoColor)
	a.help.Styles = a.st.help
	a.prompt.setStyles(a.st)
}

// relayout lays the screen out for the terminal's size.
func (a *App) relayout() {
	sh := shapeOf(a.lab)
	a.laid = a.laidFor()
	sh.reached = a.laid.reached
	sh.noChart = a.chart == chartHidden
	a.lay = layoutFor(a.width, a.height, sh)
	a.tl.fit()
	a.help.SetWidth(a.width)
	a.prompt.SetWidth(a.width)
	a.sizeBody()
}

// sizeBody fits the picker and the page to the body; the page's text is
// wrapped anew.
func (a *App) sizeBody() {
	w, h := a.lay.width, a.bodyHeight()
	a.picker.SetSize(w, h)
	a.pages.fill(a, w, h)
}

// laidState is what of the clock the layout depends on: how many notes
// the clock has reached (the note panel takes their rows).
type laidState struct {
	reached int
}

func (a *App) laidFor() laidState {
	return laidState{reached: currentNote(a.lab.Scenario().Notes, a.lab.Now()) + 1}
}

// shapeOf is what of lab's scenario the layout depends on.
func shapeOf(lab *model.Lab) shape {
	sh := shape{lanes: len(lab.Lanes())}
	for _, l := range lab.Lanes() {
		sh.longest = max(sh.longest, len([]rune(l.Name)))
		if canDelay(l.Policy) {
			sh.releases++
		}
	}
	for _, n := range lab.Scenario().Notes {
		sh.notes = append(sh.notes, noteLine(n))
	}
	return sh
}

// Init asks the terminal for its background, to pick the palette, and
// starts following the scenario's file.
func (a *App) Init() tea.Cmd { return tea.Batch(tea.RequestBackgroundColor, a.watch.next()) }

// Update handles a message and returns what to do next.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := a.update(msg)
	a.followNote()
	if a.laidFor() != a.laid {
		a.relayout() // the notes reached
	}
	if c := a.workOnVerdict(msg); c != nil {
		cmd = tea.Batch(cmd, c)
	}
	if c := a.workOnChart(msg); c != nil {
		cmd = tea.Batch(cmd, c)
	}
	if a.unsaved != nil {
		a.unsaved.Store(int64(a.unsavedCount()))
	}
	if a.keyboard != nil {
		_, key := msg.(tea.KeyPressMsg)
		a.keyboard.handled(key, a.quitsOnQ())
	}
	return a, cmd
}

func (a *App) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		a.relayout()
		return nil
	case tea.BackgroundColorMsg:
		a.dark = msg.IsDark()
		a.setStyles()
		a.sizeBody()
		return nil
	case tickMsg:
		return a.play.onTick(msg, &a.status)
	case tea.KeyPressMsg:
		return a.onKey(msg)
	case savedMsg:
		return a.onSaved(msg)
	case fittedMsg:
		return a.onFitted(msg)
	case fileStatMsg:
		return a.onFileStat(msg)
	case loadedMsg:
		return a.onLoaded(msg)
	case computeMsg:
		return a.onCompute(msg)
	case verdictMsg:
		return nil // workOnVerdict does its work
	case chartMsg:
		return nil // workOnChart does its work
	case endMsg:
		return a.end(msg)
	case suspendMsg:
		return a.suspend
	}
	if a.prompt.active() {
		return a.prompt.updateInput(msg)
	}
	return nil
}

// onKey routes a key press: ForceQuit always quits and Suspend always
// suspends; every other key goes to the mode in charge.
func (a *App) onKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, a.keys.ForceQuit):
		return tea.Quit
	case key.Matches(msg, a.keys.Suspend):
		if a.suspend == nil {
			return nil // no shell job to suspend (a test, a server)
		}
		return a.suspend
	}
	return a.activeMode().update(a, msg)
}

// unsavedCount is how many fired requests a quit would lose.
func (a *App) unsavedCount() int {
	if a.dirty {
		return a.lab.FiredCount()
	}
	return 0
}

// quitsOnQ is whether q would quit now without asking: no prompt takes it
// as text, and no unsaved request would have it ask first.
func (a *App) quitsOnQ() bool {
	return !a.prompt.active() && a.unsavedCount() == 0 // a question asks only about those
}
