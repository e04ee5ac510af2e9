package ui

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// promptKind is what the one-line prompt asks for.
type promptKind int

const (
	promptNone promptKind = iota
	promptBurst
	promptCost
	promptSave
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

// openPrompt asks for a burst size, a cost or a path to save to.
func (a *App) openPrompt(kind promptKind) tea.Cmd {
	// The clock stops while the learner types, so that the time the burst
	// prompt names is the time it fires at.
	a.pause()
	p := &a.prompt
	p.kind, p.overwrite = kind, ""
	switch kind {
	case promptBurst:
		p.input.Prompt = "burst of how many requests at " + secs(a.lab.Now()) + "? "
		p.input.SetValue(strconv.Itoa(a.burstSize))
	case promptCost:
		p.input.Prompt = "cost of each request? "
		p.input.SetValue(itoa(a.cost))
	case promptSave:
		p.input.Prompt = "save as: "
		p.input.SetValue(a.defaultSavePath())
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
		a.closePrompt()
		a.setStatus("cancelled")
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
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > maxBurst {
			a.setError("a burst is a whole number from 1 to " + strconv.Itoa(maxBurst) + ", not " + strconv.Quote(value))
			return nil
		}
		a.closePrompt()
		a.burstSize = n
		a.fire(n)
		return nil
	case promptCost:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 1 || n > maxCost {
			a.setError("a cost is a whole number from 1 to " + itoa(maxCost) + ", not " + strconv.Quote(value))
			return nil
		}
		a.closePrompt()
		a.cost = n
		a.setStatus("each request now costs " + itoa(n))
	case promptSave:
		if value == "" {
			a.setError("type a path to save to, or esc")
			return nil
		}
		if a.save(value) {
			a.closePrompt()
		}
	}
	return nil
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
// `ratelab FILE` opens again. An existing file is overwritten only after a
// second enter. It reports whether the prompt may close.
func (a *App) save(path string) bool {
	data, dropped, err := a.marshal(path)
	if err != nil {
		a.setError("not saved: " + err.Error())
		return false
	}
	if _, err := os.Stat(path); err == nil && a.prompt.overwrite != path {
		a.prompt.overwrite = path
		a.setError(path + " exists: enter again to overwrite it, or edit the path")
		return false
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.setError("not saved: " + err.Error())
		return false
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		a.setError("not saved: " + err.Error())
		return false
	}
	// What matters first: where, and what was left out; the reminder of
	// how to reopen it may be cut.
	msg := "saved " + path + ": +" + strconv.Itoa(a.lab.FiredCount()) + " requests"
	if dropped > 0 {
		msg += ", " + strconv.Itoa(dropped) + " expectations left out (no longer true)"
	}
	a.setStatus(msg + " · ratelab " + path + " opens it")
	return true
}

// marshal writes the scenario with the learner's requests. Expectations
// written for the original traffic may no longer hold with the learner's
// requests added; model.Check finds those, and they are left out, so that
// `ratelab check` passes on the saved file. dropped counts them.
func (a *App) marshal(path string) (data []byte, dropped int, err error) {
	s := *a.lab.Scenario()
	// The axis as the learner had it: it grows past the scenario's duration
	// to follow requests fired near its end (see Lab.End).
	s.Duration = a.lab.End()
	fired := a.lab.FiredRequests()
	data, err = scenarios.Marshal(&s, fired)
	if err != nil || len(fired) == 0 || len(s.Expect) == 0 {
		return data, 0, err
	}
	saved, err := scenarios.Parse(path, data)
	if err != nil {
		return nil, 0, err
	}
	failures, err := model.Check(saved)
	if err != nil || len(failures) == 0 {
		return data, 0, err
	}
	failed := map[int]bool{}
	for _, f := range failures {
		failed[f.Expectation.Line] = true
	}
	var kept []scenarios.Expectation
	for i, e := range saved.Expect {
		if !failed[e.Line] {
			kept = append(kept, s.Expect[i])
		}
	}
	s.Expect = kept
	data, err = scenarios.Marshal(&s, fired)
	return data, len(failures), err
}

// promptLine is the prompt drawn in the status line.
func (a *App) promptLine(w int) string { return fit(a.prompt.input.View(), w) }
