// Package ui is ratelab's terminal explorer: a Bubble Tea program that
// shows a scenario's limiters side by side on the lab's virtual clock and
// lets the learner step, play, rewind and fire requests.
//
// The ui renders what package model computes and decides nothing about rate
// limiting. Only the play ticker reads the wall clock.
//
// The root model (App) keeps the routing and the layout. Its components —
// playback, the timeline, the status line, the prompt, the picker, the quiz
// — hold their own state and keys and share one programContext (the lab,
// styles, layout, focus, key and cost).
package ui

import (
	"io"
	"os"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"ratelab/model"
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
	// Store keeps the lanes' state (ratelab --store); nil: memory. The
	// why panel then shows where the focused key's state is kept, and the
	// header StoreName ("redis 127.0.0.1:6379/0").
	Store     model.Store
	StoreName string
}

// Run opens the explorer on the scenario that load returns, and returns
// when the learner quits. The keyboard is read from before the load, so
// that keys typed meanwhile are kept. The terminal is restored on every
// exit, a panic included (Bubble Tea recovers it, restores the terminal
// and reports it as an error), and on every signal that ends or stops the
// process (signals.go).
func Run(load func() (*scenarios.Scenario, error), opts Options) error {
	kb, err := openKeyboard(opts.Input, newKeyMap().passive())
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
	lab, err := model.NewOn(s, 0, opts.Store)
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

// withEnvironment applies the environment to opts: NO_COLOR with any
// non-empty value turns colour off (https://no-color.org).
func withEnvironment(opts Options) Options {
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	return opts
}

// overlay is what covers the body, if anything.
type overlay int

const (
	overlayNone overlay = iota
	overlayHelp
	overlayAbout
	overlayPicker
	// overlayPanel is the lower panel (the notes and every lane's
	// explanation) expanded over the body, to read whole.
	overlayPanel
)

// App is the explorer's root model. It handles the global keys itself and
// routes the rest to whatever has the focus: a question to confirm, the
// prompt, the picker, a page, the quiz, or the main screen.
type App struct {
	*programContext
	help help.Model

	dark          bool
	width, height int

	play   playback
	tl     timeline
	status statusLine
	prompt prompt
	quiz   quiz

	// The burst prompt's defaults: the last burst's size and spread.
	burstSize   int
	burstSpread time.Duration

	overlay overlay
	page    viewport.Model
	picker  picker

	// dirty is set when the learner's requests changed since they were
	// last saved (or loaded): discarding them then asks first.
	dirty   bool
	confirm *confirmation
	// afterSave is what a confirmation's "save first" goes on to do once
	// the save succeeded.
	afterSave func() tea.Cmd
	// watch follows the scenario's file, when it came from one, to reload
	// it when it changes on disk.
	watch fileWatch
	// job is a key's work waiting for the lab to decide far ahead, slice
	// by slice (compute.go); jobGen tells its slices from a given-up job's.
	job    *job
	jobGen int

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
	ctx := &programContext{opts: opts, keys: newKeyMap()}
	a := &App{programContext: ctx, help: help.New(), prompt: newPrompt(), dark: true, width: 80, height: 24}
	a.status.ctx = ctx
	a.play = newPlayback(ctx)
	a.quiz.ctx = ctx
	a.play.quizAt = a.quizAt
	a.play.askQuiz = func(to time.Duration) { a.quiz.stopBetween(a.lab.Pos(), a.lab.Search(to)) }
	a.help.ShortSeparator = " · "
	a.setStyles()
	a.setLab(lab)
	a.watch = watchFor(lab.Scenario())
	if opts.About {
		a.openPage(overlayAbout)
	}
	return a
}

// setLab shows lab from a fresh start: focus, key, cost, zoom, undo.
func (a *App) setLab(lab *model.Lab) {
	a.endQuestion()
	a.job = nil
	a.lab = lab
	a.toStart()
	a.focus, a.keyIdx, a.cost, a.burstSize, a.burstSpread = 0, -1, 1, 10, 0
	a.play.pause()
	a.tl = newTimeline(a.programContext)
	a.quiz.reset()
	a.dirty = false
	a.relayout()
}

func (a *App) setStyles() {
	a.st = newStyles(a.dark, !a.opts.NoColor)
	a.help.Styles = a.st.help
	a.prompt.setStyles(a.st)
}

func (a *App) relayout() {
	a.lay = layoutFor(a.width, a.height, shapeOf(a.lab))
	a.help.SetWidth(a.width)
	a.prompt.SetWidth(a.width)
	a.sizePage()
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
		a.sizePage()
		return nil
	case tickMsg:
		return a.play.onTick(msg, &a.status)
	case tea.KeyPressMsg:
		return a.onKey(msg)
	case savedMsg:
		return a.onSaved(msg)
	case fileStatMsg:
		return a.onFileStat(msg)
	case loadedMsg:
		return a.onLoaded(msg)
	case computeMsg:
		return a.onCompute(msg)
	case endMsg:
		return a.end(msg)
	case suspendMsg:
		return a.suspend
	}
	if a.prompt.active() {
		return a.prompt.update(msg)
	}
	return nil
}

// onKey routes a key press: ctrl+c always quits and ctrl+z always
// suspends; then a question waiting
// for its answer, the prompt, the picker or a page when open, the quiz
// when it asks; else the main screen's bindings.
func (a *App) onKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case msg.String() == "ctrl+c":
		return tea.Quit
	case key.Matches(msg, a.keys.Suspend):
		if a.suspend == nil {
			return nil // no shell job to suspend (a test, a server)
		}
		return a.suspend
	}
	switch {
	case a.job != nil:
		return a.jobKey(msg)
	case a.confirm != nil:
		return a.confirmKey(msg)
	case a.prompt.active():
		return a.promptKey(msg)
	case a.overlay == overlayPicker:
		return a.pickerKey(msg)
	case a.overlay != overlayNone:
		return a.pageKey(msg)
	case a.quiz.asking():
		return a.quizKey(msg)
	}
	return a.mainKey(msg)
}

// mainKey handles a key of the main screen. The status line reports the
// key's action or is cleared, so that it never describes an earlier moment.
func (a *App) mainKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	lab := a.lab
	a.status.clear()
	if cmd, ok := a.asJob(msg); ok {
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
		return a.discard("quit", func() tea.Cmd { return tea.Quit })
	case key.Matches(msg, k.Help):
		a.openPage(overlayHelp)
	case key.Matches(msg, k.About):
		a.openPage(overlayAbout)
	case key.Matches(msg, k.Expand):
		a.openPage(overlayPanel)
	case key.Matches(msg, k.Open):
		return a.discard("open another scenario", func() tea.Cmd { a.openPicker(); return nil })
	case key.Matches(msg, k.Save):
		return a.openPrompt(promptSave)
	case key.Matches(msg, k.Burst):
		return a.openPrompt(promptBurst)
	case key.Matches(msg, k.Cost):
		return a.openPrompt(promptCost)
	case key.Matches(msg, k.NewKey):
		return a.openPrompt(promptKey)
	case key.Matches(msg, k.PeakWindow):
		return a.openPrompt(promptPeakWindow)
	case key.Matches(msg, k.Quiz):
		a.toggleQuiz()
	case key.Matches(msg, k.Mistakes):
		return a.toggleMistakes()

	case key.Matches(msg, k.Fire):
		a.fire(1, 0)
	case key.Matches(msg, k.NextKey):
		a.nextKey()
	case key.Matches(msg, k.Undo):
		return a.undoLast()
	case key.Matches(msg, k.Reset):
		a.reset()

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
		a.nextRequest()
	case key.Matches(msg, k.PrevReq):
		a.prevRequest()
	case key.Matches(msg, k.NextSplit):
		a.jumpSplit(lab.NextDisagreement, "after")
	case key.Matches(msg, k.PrevSplit):
		a.jumpSplit(lab.PrevDisagreement, "before")
	case key.Matches(msg, k.NextNote):
		a.jump(a.nextNote, "no note after "+secs(lab.Now()))
	case key.Matches(msg, k.PrevNote):
		a.jump(a.prevNote, "no note before "+secs(lab.Now()))

	case key.Matches(msg, k.FocusNext):
		a.focus = (a.focus + 1) % max(len(lab.Lanes()), 1)
	case key.Matches(msg, k.FocusPrev):
		a.focus = (a.focus + len(lab.Lanes()) - 1) % max(len(lab.Lanes()), 1)
	}
	return nil
}

// jump moves the clock to where find says, or reports none; it reports
// whether it moved.
func (a *App) jump(find func(time.Duration) (time.Duration, bool), none string) bool {
	t, ok := find(a.lab.Now())
	if !ok {
		a.status.set(none)
		return false
	}
	a.lab.Seek(t)
	return true
}

// nextRequest moves one request on: inside an instant that holds several
// requests, to the next of them ("request 3 of 10 at 0s"); else to the
// next request's instant, with only its first request decided. In quiz
// mode a marked request is asked about before it is decided.
func (a *App) nextRequest() {
	lab := a.lab
	p := lab.Pos()
	// A lane's retries may come before the next request: stop there.
	if t, ok := lab.NextRetry(lab.Now()); ok && (p >= lab.Len() || t < lab.Request(p).At) {
		lab.Seek(t)
		a.status.set("retries at " + secs(t) + " · n next · N previous")
		return
	}
	if p >= lab.Len() {
		a.status.set("no request after " + secs(lab.Now()))
		return
	}
	if a.quiz.askAt(p) {
		return
	}
	lab.SeekPos(p + 1)
	a.sayInstant()
}

// prevRequest moves one request back: to the previous request of the
// instant, or onto the latest request decided when the clock stands past
// it, or before the first request of the instant.
func (a *App) prevRequest() {
	lab := a.lab
	p := lab.Pos()
	// Where the move below would put the clock; a lane's retries between
	// there and the clock are a stop of their own.
	target := time.Duration(-1)
	switch {
	case p > 0 && lab.Request(p-1).At < lab.Now():
		target = lab.Request(p - 1).At
	case p > 1:
		target = lab.Request(p - 2).At
	case p == 1:
		target = lab.Request(0).At
	}
	if t, ok := lab.PrevRetry(lab.Now()); ok && t > target {
		lab.Seek(t)
		a.status.set("retries at " + secs(t) + " · n next · N previous")
		return
	}
	switch {
	case p > 0 && lab.Request(p-1).At < lab.Now():
		lab.SeekPos(p)
	case p > 0:
		lab.SeekPos(p - 1)
	default:
		a.status.set("no request before " + secs(lab.Now()))
		return
	}
	a.sayInstant()
}

// quizAt is the time of the quiz's next question among the requests not
// yet decided that arrive by to.
func (a *App) quizAt(to time.Duration) (time.Duration, bool) {
	i, ok := a.quiz.next(a.lab.Pos(), a.lab.Search(to))
	if !ok {
		return 0, false
	}
	return a.lab.Request(i).At, true
}

// sayInstant names the request the clock stands on when its instant holds
// several: "request 3 of 10 at 0s · n next · N previous".
func (a *App) sayInstant() {
	if text := instantText(a.lab); text != "" {
		a.status.set(text + " · n next · N previous")
	}
}

// instantText is "request 3 of 10 at 0s" (or "before request 1 of 10 at
// 0s") when the clock's instant holds several requests; "" otherwise.
func instantText(lab *model.Lab) string {
	k, m := lab.Instant()
	if m < 2 {
		return ""
	}
	if k == 0 {
		return "before request 1 of " + itoa(int64(m)) + " at " + secs(lab.Now())
	}
	return "request " + itoa(int64(k)) + " of " + itoa(int64(m)) + " at " + secs(lab.Now())
}

// jumpSplit moves to the next or previous request the lanes disagree on
// and says how they disagree.
func (a *App) jumpSplit(find func(time.Duration) (time.Duration, bool), dir string) {
	if a.jump(find, "the lanes agree on every request "+dir+" "+secs(a.lab.Now())) {
		a.status.set(a.splitText(a.lab.Now()))
	}
}

// nextNote and prevNote find the first note after t and the last before
// it, as Lab.NextRequest and Lab.PrevRequest find requests.
func (a *App) nextNote(t time.Duration) (time.Duration, bool) {
	notes := a.lab.Scenario().Notes
	return noteAt(notes, currentNote(notes, t)+1)
}

func (a *App) prevNote(t time.Duration) (time.Duration, bool) {
	notes := a.lab.Scenario().Notes
	return noteAt(notes, currentNote(notes, t-1))
}

// nextKey cycles: the key of the latest request, then each key pinned in
// turn.
func (a *App) nextKey() {
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
func (a *App) reset() {
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
	a.dirty = true
	a.status.set("reset: t = 0, your " + requestCount(n) + " removed · u brings them back")
}

// pin shows key in the lanes, if the timeline has it; it reports whether.
func (a *App) pin(key string) bool {
	for i, k := range a.lab.Keys() {
		if k == key {
			a.keyIdx = i
			return true
		}
	}
	return false
}

// endQuestion closes a quiz question's retry prompt, when the question goes
// away (another scenario, a reload).
func (a *App) endQuestion() {
	if a.prompt.kind == promptRetry {
		a.closePrompt()
	}
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

// confirmation is a question the learner answers with one key before
// something is lost: y does it, s saves first, any other key keeps things
// as they are.
type confirmation struct {
	question string
	yes      func() tea.Cmd
}

// discard does what, or first asks when it would lose fired requests that
// were not saved.
func (a *App) discard(what string, do func() tea.Cmd) tea.Cmd {
	if !a.dirty || a.lab.FiredCount() == 0 {
		return do()
	}
	a.play.pause()
	a.confirm = &confirmation{
		question: what + " and lose your " + requestCount(a.lab.FiredCount()) + "?",
		yes:      do,
	}
	return nil
}

// confirmKeys are the answers to a confirmation, for the footer.
type confirmKeys struct{}

func (confirmKeys) ShortHelp() []key.Binding {
	return []key.Binding{
		key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes")),
		key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save first")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("other", "stay")),
	}
}

func (c confirmKeys) FullHelp() [][]key.Binding { return [][]key.Binding{c.ShortHelp()} }

func (a *App) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	c := a.confirm
	a.confirm = nil
	switch msg.String() {
	case "y", "Y":
		return c.yes()
	case "s":
		// Saved, the action goes on; not saved, nothing is lost.
		a.afterSave = c.yes
		return a.openPrompt(promptSave)
	}
	a.status.set("kept your requests")
	return nil
}
