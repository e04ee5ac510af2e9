package ui

import (
	"errors"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ratelab/model"
	"ratelab/scenarios"
)

// picker chooses one of the canned scenarios and previews the highlighted
// one's about text, so the learner can browse the lessons. It is a
// component — Update moves its cursor, View draws it in its SetSize, its
// keys (pickerKeys) are a help.KeyMap — and, while open, a mode of the
// explorer (update): it draws the body and the footer.
type picker struct {
	open    bool
	keys    pickerKeys
	items   []scenarios.Info
	cursor  int
	current string // the scenario open now
	width   int
	height  int
	// abouts caches the previews by name: parsing is cheap, but not free
	// at every frame.
	abouts map[string]string
}

func newPicker(keys pickerKeys, current string) picker {
	p := picker{
		keys:    keys,
		items:   scenarios.List(),
		current: current,
		abouts:  map[string]string{},
	}
	for i, it := range p.items {
		if it.Name == current {
			p.cursor = i
		}
	}
	return p
}

func (p *picker) SetSize(w, h int) { p.width, p.height = w, h }

// pickFile is the picker's last line, which asks for a file's path.
const pickFile = "\x00file"

// Update moves the cursor; it reports the scenario chosen (enter; pickFile
// for the last line, a file by its path), or done without a choice (esc).
func (p *picker) Update(msg tea.KeyPressMsg) (choice string, done bool) {
	n := len(p.items) + 1
	switch {
	case key.Matches(msg, p.keys.Close):
		return "", true
	case key.Matches(msg, p.keys.Up):
		p.cursor = (p.cursor + n - 1) % n
	case key.Matches(msg, p.keys.Down):
		p.cursor = (p.cursor + 1) % n
	case key.Matches(msg, p.keys.First):
		p.cursor = 0
	case key.Matches(msg, p.keys.Last):
		p.cursor = n - 1
	case key.Matches(msg, p.keys.Choose) && p.cursor == len(p.items):
		return pickFile, true
	case key.Matches(msg, p.keys.Choose):
		return p.items[p.cursor].Name, true
	}
	return "", false
}

func (p *picker) about(name string) string {
	if s, ok := p.abouts[name]; ok {
		return s
	}
	text := ""
	if s, err := scenarios.Canned(name); err == nil {
		text = s.About
	}
	p.abouts[name] = text
	return text
}

// View draws the list and the preview in the picker's size.
func (p *picker) View(st *styles) []string {
	w, h := p.width, p.height
	lines := []string{fit(st.title.Render("open a canned scenario, or a file"), w), fit("", w)}
	nameW := 0
	for _, it := range p.items {
		nameW = max(nameW, len(it.Name))
	}
	for i, it := range p.items {
		mark := "  "
		name := fit(it.Name, nameW)
		if i == p.cursor {
			mark = st.accent.Render("▶ ")
			name = st.accent.Render(name)
		}
		current := ""
		if it.Name == p.current {
			current = st.muted.Render(" (open now)")
		}
		lines = append(lines, fit(mark+name+"  "+it.Title+current, w))
	}
	mark, name := "  ", "a file…"
	if p.cursor == len(p.items) {
		mark, name = st.accent.Render("▶ "), st.accent.Render(name)
	}
	lines = append(lines, fit(mark+name+"  "+st.muted.Render("type the path of a scenario file (ratelab show NAME gives one to edit)"), w))
	if p.cursor < len(p.items) && len(lines)+2 < h {
		lines = append(lines, fit("", w))
		for _, l := range wrap(p.about(p.items[p.cursor].Name), w-2, h-len(lines)) {
			lines = append(lines, fit("  "+st.muted.Render(l), w))
		}
	}
	if len(lines) > h && h > 2 {
		// Keep the cursor's line on screen.
		off := min(max(p.cursor+2-(h-1), 0), len(lines)-h)
		lines = lines[off:]
	}
	return pad(lines, w, h)
}

// openPicker opens the picker on the scenario open now, in place of any
// page.
func (a *App) openPicker() {
	a.play.pause()
	a.pages.close()
	a.picker = newPicker(a.keys.Picker, a.lab.Scenario().Name)
	a.picker.SetSize(a.lay.width, a.bodyHeight())
	a.picker.open = true
}

// update handles a key while the picker is open: Quit quits (asking first
// if requests would be lost); a choice closes the picker and opens the
// scenario, or asks for a file's path.
func (p *picker) update(a *App, msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, p.keys.Quit) {
		return a.quit()
	}
	choice, done := p.Update(msg)
	if done {
		p.open = false
	}
	switch choice {
	case "":
	case pickFile:
		return p.askFile(a)
	default:
		a.load(choice)
	}
	return nil
}

// status leaves the status line to the lab.
func (p *picker) status(*App, int) (string, bool) { return "", false }

// footer is the picker's keys, quit on the right: it has no help page.
func (p *picker) footer(a *App, w int) (string, bool) {
	return a.keysFooter(p.keys, p.keys.right, w), true
}

// body is the list and the preview.
func (p *picker) body(a *App, lines []string, _, _ int) ([]string, bool) {
	return append(lines, p.View(a.st)...), true
}

// askFile asks for the path of a scenario file to open.
func (p *picker) askFile(a *App) tea.Cmd {
	return a.openPrompt(&ask{
		prompt: "open file: ",
		submit: func(answer string) (tea.Cmd, error) {
			if answer == "" {
				return nil, errors.New("type the path of a scenario file, or esc")
			}
			return loadFile(answer, false), nil
		},
	})
}

// load opens the canned scenario name in place of the current one.
func (a *App) load(name string) {
	s, err := scenarios.Canned(name)
	if err != nil {
		a.status.setError(err.Error())
		return
	}
	lab, err := model.NewOn(s, 0, a.opts.Store)
	if err != nil {
		a.status.setError(err.Error())
		return
	}
	a.setLab(lab)
	a.watch = fileWatch{}
	a.status.set("opened " + name + " · a shows what it is about")
}
