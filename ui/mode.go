package ui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// A mode is one way the explorer takes keys: a long job deciding requests
// (job), a question to confirm (confirmation), the one-line prompt
// (prompt), the scenario picker (picker), a page (pages), the quiz's
// question (quiz), or the lab itself (labMode). Several may be open at
// once — the prompt over a page over the quiz's question — but one is in
// charge (activeMode): it gets every key but ForceQuit and Suspend, and
// its keys are the footer's.
//
// A mode draws the parts of the screen it owns; a part it leaves (ok
// false) is drawn by the next open mode below it, down to the lab, which
// draws every part (the status line when it has something to say). So
// the prompt draws the status line and the footer over whatever body is
// below it, and a job draws nothing of its own: its progress is in the
// lab's status line, under the lab's footer.
type mode interface {
	// update handles a key press while the mode is in charge.
	update(a *App, msg tea.KeyPressMsg) tea.Cmd
	// status is the status line, exactly w cells.
	status(a *App, w int) (line string, ok bool)
	// footer is the footer, exactly w cells: the mode's keys (its
	// help.KeyMap group of keys.go), with what stays in sight on the
	// right.
	footer(a *App, w int) (line string, ok bool)
	// body appends to lines what lies between the header and the status
	// line: exactly h lines of exactly w cells.
	body(a *App, lines []string, w, h int) ([]string, bool)
}

// passThrough is embedded by a mode to leave the parts it does not draw to
// the modes below it.
type passThrough struct{}

func (passThrough) status(*App, int) (string, bool)                { return "", false }
func (passThrough) footer(*App, int) (string, bool)                { return "", false }
func (passThrough) body(*App, []string, int, int) ([]string, bool) { return nil, false }

// The modes; each implements mode.
var _ = []mode{(*job)(nil), (*confirmation)(nil), (*prompt)(nil), (*picker)(nil), (*pages)(nil), (*quiz)(nil), (*labMode)(nil)}

// openModes yields the modes open now, the one in charge first, the lab
// last. Their precedence is written here and nowhere else: a long job,
// then a question to confirm, the prompt, the picker, a page, the quiz's
// question, the lab.
func (a *App) openModes(yield func(mode) bool) {
	if a.job != nil && !yield(a.job) {
		return
	}
	if a.confirm != nil && !yield(a.confirm) {
		return
	}
	if a.prompt.active() && !yield(&a.prompt) {
		return
	}
	if a.picker.open && !yield(&a.picker) {
		return
	}
	if a.pages.open() && !yield(&a.pages) {
		return
	}
	if a.quiz.asking() && !yield(&a.quiz) {
		return
	}
	yield(&a.labMode)
}

// activeMode is the mode in charge: the first of openModes.
func (a *App) activeMode() mode {
	for m := range a.openModes {
		return m
	}
	return &a.labMode // not reached: the lab is always open
}

// statusLine is the status line of the first open mode that draws one;
// said is false, and the line blank, when none has anything to say.
func (a *App) statusLine(w int) (line string, said bool) {
	for m := range a.openModes {
		if line, ok := m.status(a, w); ok {
			return line, true
		}
	}
	return fit("", w), false
}

// footer is the footer of the first open mode that draws one.
func (a *App) footer(w int) string {
	for m := range a.openModes {
		if line, ok := m.footer(a, w); ok {
			return line
		}
	}
	return fit("", w)
}

// body appends to lines the body of the first open mode that draws one.
func (a *App) body(lines []string, w, h int) []string {
	for m := range a.openModes {
		if body, ok := m.body(a, lines, w, h); ok {
			return body
		}
	}
	return append(lines, pad(nil, w, h)...)
}

// keysFooter is a footer of km's short help, with right (bindings) kept in
// sight on the right whatever the width.
func (a *App) keysFooter(km help.KeyMap, right []key.Binding, w int) string {
	r := keysRight(a.st.help, right)
	// A copy, narrowed to what right leaves: drawing changes no state, and
	// the help page keeps the full width relayout gave a.help.
	view := a.help
	view.SetWidth(max(w-ansi.StringWidth(r)-1, 0))
	return joinFit(view.View(km), r, w)
}

// keysOnly is a footer of km's short help alone, over the whole width.
func (a *App) keysOnly(km help.KeyMap, w int) string {
	view := a.help
	view.SetWidth(w)
	return fit(view.View(km), w)
}
