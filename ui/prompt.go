package ui

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/safewrite"
	"ratelab/scenarios"
)

// promptKind is what the one-line prompt asks for.
type promptKind int

const (
	promptNone promptKind = iota
	promptBurst
	promptCost
	promptSave
	promptKey        // a new key to fire as
	promptPeakWindow // the window of the peak statistic
	promptOpen       // a scenario file's path
	promptRetry      // the quiz: when would a retry fit?
)

// Bounds of what the prompts accept. A burst is one fire action that
// recomputes the timeline once; 100,000 (a tenth of model.MaxBurst) keeps
// the records it returns, one per request per lane, small.
const (
	maxBurst = 100_000
	maxCost  = algorithms.MaxCount // the largest limit or capacity a policy may have
)

// prompt is a one-line text input in the status line.
type prompt struct {
	kind  promptKind
	input textinput.Model
	// overwrite is the path the learner was warned exists; a second enter
	// on the same path overwrites it.
	overwrite string
}

func (p *prompt) active() bool { return p.kind != promptNone }

// promptKeys are the prompt's own keys; the rest edit the text.
var promptKeys = struct{ Submit, Cancel key.Binding }{
	Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "ok")),
	Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
}

// ShortHelp and FullHelp make the prompt a help.KeyMap for the footer.
func (p prompt) ShortHelp() []key.Binding {
	return []key.Binding{promptKeys.Submit, promptKeys.Cancel}
}

func (p prompt) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// SetWidth fits the input to a status line of w cells.
func (p *prompt) SetWidth(w int) {
	p.input.SetWidth(max(w-ansi.StringWidth(p.input.Prompt)-2, 8))
}

func newPrompt() prompt {
	p := prompt{input: textinput.New()}
	p.input.CharLimit = 4096
	return p
}

func (p *prompt) setStyles(st *styles) {
	s := textinput.Styles{}
	s.Focused.Prompt = st.input.prompt
	s.Focused.Text = st.input.text
	s.Focused.Placeholder = st.input.placeholder
	s.Blurred = s.Focused
	s.Cursor.Shape = tea.CursorBlock
	s.Cursor.Blink = false // a blinking cursor is a ticker; paused means idle
	if st.colour {
		s.Cursor.Color = lipgloss.Color("7")
	}
	p.input.SetStyles(s)
}

func (p *prompt) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd
}

// openPrompt asks for a burst, a cost, a path, a key, a window or a
// guess.
func (a *App) openPrompt(kind promptKind) tea.Cmd {
	// The clock stops while the learner types, so that the time the burst
	// prompt names is the time it fires at.
	a.play.pause()
	p := &a.prompt
	p.kind, p.overwrite = kind, ""
	switch kind {
	case promptBurst:
		p.input.Prompt = "burst at " + secs(a.lab.Now()) + ": how many, over how long? "
		value := strconv.Itoa(a.burstSize)
		if a.burstSpread > 0 {
			value += " " + algorithms.FormatDuration(a.burstSpread)
		}
		p.input.SetValue(value)
	case promptCost:
		p.input.Prompt = "cost of each request? "
		p.input.SetValue(itoa(a.cost))
	case promptSave:
		p.input.Prompt = "save as: "
		p.input.SetValue(a.defaultSavePath())
	case promptKey:
		p.input.Prompt = "fire one request at " + secs(a.lab.Now()) + " as key: "
		p.input.SetValue("")
	case promptPeakWindow:
		// Empty, the current window named beside it: typing "1s" gives 1s,
		// where after a value left in place it would give "60s1s".
		p.input.Prompt = "peak window, now " + algorithms.FormatDuration(a.lab.PeakWindow()) + " (e.g. 1s; empty for the default)? "
		p.input.SetValue("")
	case promptOpen:
		p.input.Prompt = "open file: "
		p.input.SetValue("")
	case promptRetry:
		p.input.Prompt = "and when would a retry fit, from now (e.g. 1.5s; enter skips)? "
		p.input.SetValue("")
	}
	p.input.CursorEnd()
	p.SetWidth(a.width)
	return p.input.Focus()
}

func (a *App) closePrompt() {
	a.prompt.kind = promptNone
	a.prompt.input.Blur()
}

// promptKey handles a key while the prompt is open: enter submits, esc
// cancels, the rest edits.
func (a *App) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, promptKeys.Cancel):
		kind := a.prompt.kind
		a.afterSave = nil
		a.closePrompt()
		if kind == promptRetry {
			a.quizRetry(nil) // no guess of the retry: the outcome still counts
			return nil
		}
		a.status.set("cancelled")
		return nil
	case key.Matches(msg, promptKeys.Submit):
		return a.submitPrompt()
	}
	a.prompt.overwrite = ""
	return a.prompt.update(msg)
}

func (a *App) submitPrompt() tea.Cmd {
	value := strings.TrimSpace(a.prompt.input.Value())
	switch a.prompt.kind {
	case promptBurst:
		n, spread, err := parseBurst(value)
		if err != nil {
			a.status.setError(err.Error())
			return nil
		}
		a.closePrompt()
		a.burstSize, a.burstSpread = n, spread
		a.fire(n, spread)
	case promptCost:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 1 || n > maxCost {
			a.status.setError("a cost is a whole number from 1 to " + itoa(maxCost) + ", not " + strconv.Quote(value))
			return nil
		}
		if err := a.lab.CheckCost(n); err != nil {
			a.status.setError(err.Error())
			return nil
		}
		a.closePrompt()
		a.cost = n
		a.status.set("each request now costs " + itoa(n))
	case promptKey:
		if value == "" {
			a.status.setError("type the new key's name, or esc")
			return nil
		}
		if err := a.fireAs(value); err != nil {
			a.status.setError(err.Error())
			return nil
		}
		a.closePrompt()
	case promptPeakWindow:
		d := time.Duration(0)
		if value != "" {
			var err error
			if d, err = scenarios.ParseDuration(value, true); err != nil {
				a.status.setError("peak window: " + err.Error())
				return nil
			}
		}
		cmd, err := a.parked("the new peak window", func() error { return a.lab.SetPeakWindow(d) })
		if err != nil {
			a.status.setError(err.Error())
			return nil
		}
		a.closePrompt()
		if a.job == nil {
			a.status.set("peak now measured over any " + secs(a.lab.PeakWindow()) + " (the lanes' totals say per " + secs(a.lab.PeakWindow()) + ")")
		}
		return cmd
	case promptOpen:
		if value == "" {
			a.status.setError("type the path of a scenario file, or esc")
			return nil
		}
		a.closePrompt()
		return loadFile(value, false)
	case promptRetry:
		var guess *time.Duration
		if value != "" {
			d, err := scenarios.ParseDuration(value, false)
			if err != nil {
				a.status.setError("retry: " + err.Error())
				return nil
			}
			guess = &d
		}
		a.closePrompt()
		a.quizRetry(guess)
	case promptSave:
		if value == "" {
			a.status.setError("type a path to save to, or esc")
			return nil
		}
		return a.save(value)
	}
	return nil
}

// parseBurst reads the burst prompt: a count, and optionally a spread over
// which the requests are placed as a traffic item's are ("120 100ms").
func parseBurst(value string) (n int, spread time.Duration, err error) {
	fields := strings.Fields(value)
	bad := errors.New("a burst is a count from 1 to " + strconv.Itoa(maxBurst) + " and an optional spread, such as 120 100ms; not " + strconv.Quote(value))
	if len(fields) < 1 || len(fields) > 2 {
		return 0, 0, bad
	}
	n, err = strconv.Atoi(fields[0])
	if err != nil || n < 1 || n > maxBurst {
		return 0, 0, bad
	}
	if len(fields) == 2 {
		if spread, err = scenarios.ParseDuration(fields[1], false); err != nil {
			return 0, 0, errors.New("spread: " + err.Error())
		}
	}
	return n, spread, nil
}

// defaultSavePath proposes NAME-mine.yaml beside where ratelab runs (or in
// Options.SaveDir), NAME being the scenario's name without directory or
// extension.
func (a *App) defaultSavePath() string {
	name := filepath.Base(a.lab.Scenario().Name)
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".yml")
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "scenario"
	}
	if !strings.HasSuffix(name, "-mine") {
		name += "-mine"
	}
	dir := a.opts.SaveDir
	if dir == "" {
		return "." + string(filepath.Separator) + name + ".yaml"
	}
	return filepath.Join(dir, name+".yaml")
}

// save writes the scenario with the learner's requests to path, a file
// `ratelab FILE` opens again; model builds the text (leaving out the
// expectations that no longer hold), a command writes it. An existing file
// is overwritten only after a second enter.
func (a *App) save(path string) tea.Cmd {
	data, dropped, err := a.lab.Save(path)
	if err != nil {
		a.status.setError("not saved: " + err.Error())
		return nil
	}
	if _, err := os.Stat(path); err == nil && a.prompt.overwrite != path {
		a.prompt.overwrite = path
		a.status.setError(path + " exists: enter again to overwrite it, or edit the path")
		return nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.status.setError("not saved: " + err.Error())
		return nil
	}
	a.closePrompt()
	fired := a.lab.FiredCount()
	return func() tea.Msg {
		// Written beside and renamed into place: a full disk leaves the
		// file that was there (often the open scenario) as it was.
		return savedMsg{path: path, fired: fired, dropped: dropped, err: safewrite.WriteFile(path, data, 0o644)}
	}
}

// savedMsg reports a save's write.
type savedMsg struct {
	path           string
	fired, dropped int
	err            error
}

func (a *App) onSaved(m savedMsg) tea.Cmd {
	if m.err != nil {
		// The prompt opens again on the path, for the learner to mend it.
		cmd := a.openPrompt(promptSave)
		a.prompt.input.SetValue(m.path)
		a.prompt.input.CursorEnd()
		a.status.setError("not saved: " + m.err.Error())
		return cmd
	}
	a.dirty = false
	then := a.afterSave
	a.afterSave = nil
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
		msg += ", " + strconv.Itoa(m.dropped) + " expectations left out (no longer true)"
	}
	a.status.set(msg + " · ratelab " + m.path + " opens it")
	return nil
}

// promptLine is the prompt drawn in the status line.
func (a *App) promptLine(w int) string { return fit(a.prompt.input.View(), w) }

// sameFile reports whether two paths name one file ("" names none).
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
