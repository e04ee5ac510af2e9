package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/model"
	"ratelab/scenarios"
)

// newTestApp opens the canned scenario name at w × h, without the about
// page, the way Run would after the first WindowSizeMsg.
func newTestApp(tb testing.TB, name string, w, h int) *App {
	tb.Helper()
	s, err := scenarios.Canned(name)
	if err != nil {
		tb.Fatal(err)
	}
	return openApp(tb, s, w, h)
}

// openApp opens s at w × h, without the about page.
func openApp(tb testing.TB, s *scenarios.Scenario, w, h int) *App {
	tb.Helper()
	lab, err := model.New(s, 0)
	if err != nil {
		tb.Fatal(err)
	}
	a := New(lab, Options{SaveDir: tb.TempDir()})
	// Slices of long work are sized by the wall clock; the tests see a
	// clock that counts the work done instead, 400 ns a request (a
	// cheap file's six lanes): a slice then decides 50,000 requests,
	// whatever the machine's load or the race detector.
	workClock(a, testRequestCost)
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a
}

// testRequestCost is what a request costs to decide, as the tests'
// clock counts (workClock).
const testRequestCost = 400 * time.Nanosecond

// newYAMLApp opens the scenario written in yaml at w × h.
func newYAMLApp(tb testing.TB, yaml string, w, h int) *App {
	tb.Helper()
	s, err := scenarios.Parse("test.yaml", []byte(yaml))
	if err != nil {
		tb.Fatal(err)
	}
	return openApp(tb, s, w, h)
}

// openCannedFile writes the canned scenario name to dir/file and opens
// that file at 100 × 30, as ratelab FILE would; it returns the file's
// path and text.
func openCannedFile(tb testing.TB, name, dir, file string) (a *App, path string, src []byte) {
	tb.Helper()
	src, _ = scenarios.Source(name)
	path = filepath.Join(dir, file)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		tb.Fatal(err)
	}
	s, err := scenarios.Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	return openApp(tb, s, 100, 30), path, src
}

// keyPress is the message a terminal sends for the key written as
// bubbles/key writes it: "space", "shift+tab", "ctrl+c", "N", "+".
func keyPress(k string) tea.KeyPressMsg {
	named := map[string]rune{
		"space": tea.KeySpace, "enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab,
		"backspace": tea.KeyBackspace, "up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft,
		"right": tea.KeyRight, "home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
	}
	var mod tea.KeyMod
	for {
		switch {
		case strings.HasPrefix(k, "ctrl+") && len(k) > len("ctrl+"):
			mod |= tea.ModCtrl
			k = strings.TrimPrefix(k, "ctrl+")
			continue
		case strings.HasPrefix(k, "shift+") && len(k) > len("shift+"):
			mod |= tea.ModShift
			k = strings.TrimPrefix(k, "shift+")
			continue
		}
		break
	}
	if code, ok := named[k]; ok {
		msg := tea.KeyPressMsg{Code: code, Mod: mod}
		if code == tea.KeySpace {
			msg.Text = " "
		}
		return msg
	}
	r := []rune(k)[0]
	if mod != 0 {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	return tea.KeyPressMsg{Code: r, Text: k}
}

// press sends keys one by one and returns the last command.
func press(a *App, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = a.Update(keyPress(k))
	}
	return cmd
}

// typeText types s into whatever has the focus.
func typeText(a *App, s string) {
	for _, r := range s {
		a.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// answer replaces the open prompt's text with s and presses enter.
func answer(a *App, s string) {
	press(a, "ctrl+u")
	typeText(a, s)
	press(a, "enter")
}

// settle runs cmd, a command that does file work (a save's write, a
// file's load, a fit), and hands its message to the app, as the program
// would.
func settle(a *App, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case savedMsg, loadedMsg, fittedMsg:
		a.Update(msg)
	case tea.BatchMsg:
		for _, c := range msg {
			settle(a, c)
		}
	}
}

// seekTo moves the clock to t as a key that seeks does: the lab seeks,
// then the explorer follows (the current note's key and lane, the pinned
// key's verdict and the chart's states worked out to the end).
func seekTo(a *App, t time.Duration) {
	a.lab.Seek(t)
	a.Update(verdictMsg{})
	for a.verdictQueued {
		a.Update(verdictMsg{})
	}
	for a.chartQueued {
		a.Update(chartMsg{})
	}
}

// screen is the rendered screen without escape sequences.
func screen(a *App) string { return ansi.Strip(a.View().Content) }

// requireScreen fails unless the screen holds every one of wants.
func requireScreen(t *testing.T, a *App, wants ...string) {
	t.Helper()
	out := screen(a)
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Fatalf("the screen lacks %q:\n%s", w, out)
		}
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// overlay is what covers the lab's body, a page or the picker, as the
// tests name it.
type overlay int

const (
	overlayNone overlay = iota
	overlayHelp
	overlayAbout
	overlayPicker
	overlayPanel
)

func overlayOf(a *App) overlay {
	switch {
	case a.picker.open:
		return overlayPicker
	case a.pages.kind == helpPage:
		return overlayHelp
	case a.pages.kind == aboutPage:
		return overlayAbout
	case a.pages.kind == panelPage:
		return overlayPanel
	}
	return overlayNone
}

// The prompts, as the tests name them: by the start of the question each
// asks.
const (
	promptBurst      = "burst at "
	promptCost       = "cost of each request? "
	promptKey        = "fire one request at "
	promptPeakWindow = "peak window, now "
	promptSave       = "save as: "
	promptOpen       = "open file: "
	promptRetry      = "it fits in (from now"
)

// promptKind is the prompt open, one of the prompt names above; "" when
// none is, the question when it is another.
func promptKind(a *App) string {
	if !a.prompt.active() {
		return ""
	}
	q := a.prompt.input.Prompt
	for _, k := range []string{promptBurst, promptCost, promptKey, promptPeakWindow, promptSave, promptOpen, promptRetry} {
		if strings.HasPrefix(q, k) {
			return k
		}
	}
	return q
}
