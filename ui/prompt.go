package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// ask is one question of the prompt, made by the feature that asks it
// (fire.go's burst, cost and key, save.go's path, picker.go's file,
// labmode.go's peak window, quiz.go's retry), with what to do with the
// answer beside it: the prompt itself knows nothing of what it asks.
type ask struct {
	prompt string // the question, before the text field
	// value is the answer proposed: enter accepts it as it is, the first
	// text typed replaces it, a backspace clears it, and an arrow, home or
	// end takes it up for editing.
	value string
	// submit acts on the answer (trimmed of spaces) when enter is
	// pressed. An error keeps the prompt open, the error in the status
	// line for the learner to mend the answer; else the prompt closes.
	submit func(value string) (tea.Cmd, error)
	// cancel, when set, is what esc does once the prompt is closed; else
	// the status line says "cancelled".
	cancel func()
	// edited, when set, is told of every key that goes to the text field.
	edited func()
	// question marks the quiz's question: the prompt closes when the
	// question goes away (another scenario, a reload).
	question bool
}

// prompt is the mode of the one-line text input in the status line, open
// while it has an ask. It draws the status line (the input) and the
// footer (its keys, or the error the last enter met), over whatever body
// is below it.
type prompt struct {
	passThrough
	ask   *ask
	input textinput.Model
	// proposed is set while the ask's value waits untouched, shown as
	// the field's placeholder over an empty field (so that typing
	// replaces it rather than appending to it: "10" then "120" is 120,
	// not 10120).
	proposed bool
}

func newPrompt() prompt {
	p := prompt{input: textinput.New()}
	p.input.CharLimit = 4096
	return p
}

func (p *prompt) active() bool { return p.ask != nil }

// SetWidth fits the input to a status line of w cells.
func (p *prompt) SetWidth(w int) {
	p.input.SetWidth(max(w-ansi.StringWidth(p.input.Prompt)-2, 8))
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

// openPrompt asks q in the prompt, in place of any question it asked.
// The clock stops while the learner types, so that the time a prompt
// names (the burst's) is the time it acts at.
func (a *App) openPrompt(q *ask) tea.Cmd {
	a.play.pause()
	p := &a.prompt
	p.ask = q
	p.input.Prompt = q.prompt
	p.input.SetValue("")
	p.input.Placeholder = q.value
	p.proposed = q.value != ""
	p.SetWidth(a.width)
	return p.input.Focus()
}

func (p *prompt) close() {
	p.ask = nil
	p.proposed = false
	p.input.Placeholder = ""
	p.input.Blur()
}

// shown is the answer as the field shows it: the proposal while it
// waits, else the text typed.
func (p *prompt) shown() string {
	if p.proposed {
		return p.ask.value
	}
	return p.input.Value()
}

// answer is what enter hands to the ask: the answer shown, trimmed of
// spaces.
func (p *prompt) answer() string { return strings.TrimSpace(p.shown()) }

// takeProposal ends the proposal's wait before msg edits the field: a
// key that types text or deletes drops it (the field is then what is
// typed), and Edit puts it in the field for editing, the cursor where the
// key points. It reports whether msg has done its work.
func (p *prompt) takeProposal(k promptKeys, msg tea.KeyPressMsg) (done bool) {
	if !p.proposed {
		return false
	}
	p.proposed = false
	p.input.Placeholder = ""
	if !key.Matches(msg, k.Edit) {
		// Deleting the proposal is all a backspace or delete does; typed
		// text goes on into the empty field.
		return msg.Text == ""
	}
	p.input.SetValue(p.ask.value)
	if s := msg.String(); s == "left" || s == "home" {
		p.input.CursorStart()
	} else {
		p.input.CursorEnd()
	}
	return true
}

// update handles a key while the prompt is open: Submit hands the answer
// to the ask, Cancel closes the prompt, the rest edit the text.
func (p *prompt) update(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k, q := a.keys.Prompt, p.ask
	switch {
	case key.Matches(msg, k.Cancel):
		p.close()
		if q.cancel != nil {
			q.cancel()
		} else {
			a.status.set("cancelled")
		}
		return nil
	case key.Matches(msg, k.Submit):
		cmd, err := q.submit(p.answer())
		if err != nil {
			a.status.setError(err.Error())
			return nil
		}
		if p.ask == q { // the answer may have opened another question
			p.close()
		}
		return cmd
	}
	if q.edited != nil {
		q.edited()
	}
	if p.takeProposal(k, msg) {
		return nil
	}
	return p.updateInput(msg)
}

// updateInput hands a message to the text field.
func (p *prompt) updateInput(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd
}

// status is the prompt, in the status line.
func (p *prompt) status(_ *App, w int) (string, bool) { return fit(p.input.View(), w), true }

// footer is the prompt's keys, or the error its last answer met: q and ?
// are text here.
func (p *prompt) footer(a *App, w int) (string, bool) {
	if a.status.err {
		return fit(a.st.errText.Render(a.status.text), w), true
	}
	k := a.keys.Prompt
	k.Edit.SetEnabled(p.proposed)
	return a.keysFooter(k, nil, w), true
}
