// Package ui is ratelab's terminal explorer: a Bubble Tea program that
// shows a scenario's limiters side by side on the lab's virtual clock and
// lets the learner step, play, rewind and fire requests.
//
// The ui renders what package model computes and decides nothing about rate
// limiting. Only the play ticker reads the wall clock.
package ui

import (
	"io"
	"os"
	"slices"
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
}

// Run opens the explorer on s and returns when the learner quits. The
// terminal is restored on every exit, a panic included (Bubble Tea
// recovers it, restores the terminal and reports it as an error).
func Run(s *scenarios.Scenario, opts Options) error {
	lab, err := model.New(s, 0)
	if err != nil {
		return err
	}
	opts = withEnvironment(opts)
	// The renderer wakes at its frame rate even when nothing changes; play
	// needs no more than its own 30 frames a second, so a paused explorer
	// idles at half the default wake-ups.
	popts := []tea.ProgramOption{tea.WithFPS(int(time.Second / frameInterval))}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	_, err = tea.NewProgram(New(lab, opts), popts...).Run()
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
)

// App is the explorer's root model. It handles the global keys itself and
// routes the rest to whatever has the focus: the prompt, the picker, a
// page (help, about), or the main screen.
type App struct {
	lab  *model.Lab
	opts Options
	keys keyMap
	help help.Model

	st     *styles
	dark   bool
	width  int
	height int
	lay    layout

	focus     int   // the lane whose decision the why panel explains
	keyIdx    int   // index into lab.Keys() of the key shown and fired; -1 follows the last request
	cost      int64 // cost of a fired request
	burstSize int   // size of the last burst, the burst prompt's default
	zooms     []time.Duration
	zoom      int // index into zooms: the timeline's time per column
	playing   bool
	speed     int // index into speeds
	tickGen   int
	// lastTick is the wall time of the previous frame while playing; carry
	// is virtual time owed to the clock, less than a millisecond.
	lastTick time.Time
	carry    time.Duration

	status    string
	statusErr bool

	overlay overlay
	page    viewport.Model
	picker  picker
	prompt  prompt
}

// New makes the explorer for lab, sized 80×24 until the terminal says
// otherwise.
func New(lab *model.Lab, opts Options) *App {
	a := &App{opts: opts, keys: newKeyMap(), help: help.New(), prompt: newPrompt(), dark: true, width: 80, height: 24, speed: defaultSpeed}
	a.help.ShortSeparator = " · "
	a.setStyles()
	a.setLab(lab)
	if opts.About {
		a.openPage(overlayAbout)
	}
	return a
}

// setLab shows lab from a fresh start: focus, key, cost, zoom, undo.
func (a *App) setLab(lab *model.Lab) {
	a.lab = lab
	a.focus, a.keyIdx, a.cost, a.burstSize = 0, -1, 1, 10
	a.playing = false
	a.tickGen++
	a.zooms = zoomLadder(a.step())
	a.zoom = max(0, slices.Index(a.zooms, a.step()))
	a.relayout()
}

func (a *App) setStyles() {
	a.st = newStyles(a.dark, !a.opts.NoColor)
	a.help.Styles = a.st.help
	a.prompt.setStyles(a.st)
}

func (a *App) relayout() {
	a.lay = layoutFor(a.width, a.height, len(a.lab.Lanes()))
	a.help.SetWidth(a.width)
	a.prompt.SetWidth(a.width)
	a.sizePage()
}

// step is how far one keypress moves the clock.
func (a *App) step() time.Duration {
	if s := a.lab.Scenario().Step; s > 0 {
		return s
	}
	return scenarios.DefaultStep
}

// key is the key whose state the lanes show and for which space fires: the
// one the learner pinned with k, else the key of the latest request, so
// that the lanes' state and their last verdict are about the same client.
func (a *App) key() string {
	keys := a.lab.Keys()
	if a.keyIdx >= 0 && a.keyIdx < len(keys) {
		return keys[a.keyIdx]
	}
	if rec, ok := a.lab.LastDecision(0); ok {
		return rec.Request.Key
	}
	if len(keys) > 0 {
		return keys[0]
	}
	return scenarios.DefaultKey
}

func (a *App) setStatus(s string) { a.status, a.statusErr = s, false }
func (a *App) setError(s string)  { a.status, a.statusErr = s, true }

// Init asks the terminal for its background, to pick the palette.
func (a *App) Init() tea.Cmd { return tea.RequestBackgroundColor }

// Update handles a message and returns what to do next.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
		a.relayout()
		return a, nil
	case tea.BackgroundColorMsg:
		a.dark = msg.IsDark()
		a.setStyles()
		a.sizePage()
		return a, nil
	case tickMsg:
		return a, a.onTick(msg)
	case tea.KeyPressMsg:
		return a, a.onKey(msg)
	}
	if a.prompt.active() {
		return a, a.prompt.update(msg)
	}
	return a, nil
}

// onKey routes a key press: ctrl+c always quits; then the prompt, the
// picker or a page when open; else the main screen's bindings.
func (a *App) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	switch {
	case a.prompt.active():
		return a.promptKey(msg)
	case a.overlay == overlayPicker:
		return a.pickerKey(msg)
	case a.overlay != overlayNone:
		return a.pageKey(msg)
	}
	return a.mainKey(msg)
}

// mainKey handles a key of the main screen. The status line reports the
// key's action or is cleared, so that it never describes an earlier moment.
func (a *App) mainKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	lab := a.lab
	a.setStatus("")
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		a.openPage(overlayHelp)
	case key.Matches(msg, k.About):
		a.openPage(overlayAbout)
	case key.Matches(msg, k.Open):
		a.openPicker()
	case key.Matches(msg, k.Save):
		return a.openPrompt(promptSave)
	case key.Matches(msg, k.Burst):
		return a.openPrompt(promptBurst)
	case key.Matches(msg, k.Cost):
		return a.openPrompt(promptCost)

	case key.Matches(msg, k.Fire):
		a.fire(1)
		return nil
	case key.Matches(msg, k.NextKey):
		a.nextKey()
	case key.Matches(msg, k.Undo):
		a.undoLast()
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
		lab.Seek(0)
	case key.Matches(msg, k.End):
		lab.Seek(lab.End())
	case key.Matches(msg, k.NextReq):
		a.jump(lab.NextRequest, "no request after "+secs(lab.Now()))
	case key.Matches(msg, k.PrevReq):
		a.jump(lab.PrevRequest, "no request before "+secs(lab.Now()))
	case key.Matches(msg, k.NextSplit):
		a.jumpSplit(lab.NextDisagreement, "after")
	case key.Matches(msg, k.PrevSplit):
		a.jumpSplit(lab.PrevDisagreement, "before")
	case key.Matches(msg, k.NextNote):
		a.jump(a.nextNote, "no note after "+secs(lab.Now()))
	case key.Matches(msg, k.PrevNote):
		a.jump(a.prevNote, "no note before "+secs(lab.Now()))

	case key.Matches(msg, k.Play):
		if a.playing {
			a.pause()
			return nil
		}
		return a.play()
	case key.Matches(msg, k.Faster):
		a.speed = min(a.speed+1, len(speeds)-1)
	case key.Matches(msg, k.Slower):
		a.speed = max(a.speed-1, 0)

	case key.Matches(msg, k.FocusNext):
		a.focus = (a.focus + 1) % max(len(lab.Lanes()), 1)
	case key.Matches(msg, k.FocusPrev):
		a.focus = (a.focus + len(lab.Lanes()) - 1) % max(len(lab.Lanes()), 1)
	case key.Matches(msg, k.ZoomIn):
		a.zoom = max(a.zoom-1, 0)
	case key.Matches(msg, k.ZoomOut):
		a.zoom = min(a.zoom+1, len(a.zooms)-1)
	}
	return nil
}

// jump moves the clock to where find says, or reports none; it reports
// whether it moved.
func (a *App) jump(find func(time.Duration) (time.Duration, bool), none string) bool {
	t, ok := find(a.lab.Now())
	if !ok {
		a.setStatus(none)
		return false
	}
	a.lab.Seek(t)
	return true
}

// jumpSplit moves to the next or previous request the lanes disagree on
// and says how they disagree.
func (a *App) jumpSplit(find func(time.Duration) (time.Duration, bool), dir string) {
	if a.jump(find, "the lanes agree on every request "+dir+" "+secs(a.lab.Now())) {
		a.setStatus(a.splitText(a.lab.Now()))
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
		a.setStatus("this scenario has one key: " + a.key())
		return
	}
	a.keyIdx++
	if a.keyIdx >= len(keys) {
		a.keyIdx = -1
		a.setStatus("the lanes follow the key of the latest request; space fires for it")
		return
	}
	a.setStatus("the lanes show key " + a.key() + " and space fires for it · k again for the next key")
}

func (a *App) reset() {
	a.pause()
	a.lab.Reset()
	a.setStatus("reset: t = 0, your requests removed")
}
