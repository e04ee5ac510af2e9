package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// The help (?) and about (a) pages cover the body; they scroll in a
// viewport when the terminal is short.

func (a *App) openPage(o overlay) {
	a.overlay = o
	a.page = viewport.New()
	// Only arrows and page keys scroll: every other key of the lab closes
	// the page and does its job, so that a learner who starts typing on the
	// about page is not ignored.
	km := &a.page.KeyMap
	km.Left.Unbind()
	km.Right.Unbind()
	km.PageDown.SetKeys("pgdown")
	km.PageUp.SetKeys("pgup")
	km.HalfPageDown.Unbind()
	km.HalfPageUp.Unbind()
	km.Up.SetKeys("up")
	km.Down.SetKeys("down")
	a.sizePage()
}

// sizePage fits the page to the body and refills it, since its text wraps
// to the width.
func (a *App) sizePage() {
	w, h := a.lay.width, a.bodyHeight()
	a.picker.SetSize(w, h)
	if a.overlay != overlayHelp && a.overlay != overlayAbout {
		return
	}
	a.page.SetWidth(w)
	a.page.SetHeight(max(h-1, 1))
	if a.overlay == overlayHelp {
		a.page.SetContent(a.helpText(w))
	} else {
		a.page.SetContent(a.aboutText(w))
	}
}

func (a *App) pageKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Close), key.Matches(msg, k.Choose),
		a.overlay == overlayHelp && key.Matches(msg, k.Help),
		a.overlay == overlayAbout && key.Matches(msg, k.About):
		a.overlay = overlayNone
		return nil
	case key.Matches(msg, a.page.KeyMap.Up, a.page.KeyMap.Down, a.page.KeyMap.PageUp, a.page.KeyMap.PageDown):
		var cmd tea.Cmd
		a.page, cmd = a.page.Update(msg)
		return cmd
	}
	a.overlay = overlayNone
	return a.mainKey(msg)
}

// pageBlock draws the open page in h lines: a title line, then the
// viewport.
func (a *App) pageBlock(w, h int) []string {
	title := "keys"
	if a.overlay == overlayAbout {
		title = "about this scenario"
	}
	more := ""
	if !a.page.AtTop() || !a.page.AtBottom() {
		more = "  ↑/↓ scroll"
	}
	head := a.st.title.Render(title) + a.st.muted.Render(more+"  esc closes")
	lines := []string{fit(head, w)}
	if h > 1 {
		for _, l := range strings.Split(a.page.View(), "\n") {
			lines = append(lines, fit(l, w))
		}
	}
	return pad(lines, w, h)
}

// helpText is every key binding, grouped, then what the marks mean.
func (a *App) helpText(w int) string {
	st := a.st
	var cols []string
	for i, group := range a.keys.FullHelp() {
		col := st.title.Render(helpGroupTitles[i]) + "\n" + a.help.FullHelpView([][]key.Binding{group})
		cols = append(cols, col)
	}
	// As many columns side by side as fit, the rest below.
	var rows []string
	var row []string
	rowW := 0
	for _, c := range cols {
		cw := lipgloss.Width(c) + 4
		if len(row) > 0 && rowW+cw > w {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, rowW = nil, 0
		}
		row = append(row, lipgloss.NewStyle().PaddingRight(4).Render(c))
		rowW += cw
	}
	rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))

	legend := []string{
		st.title.Render("marks"),
		st.allowed.Render("✓") + " allowed: admitted now",
		st.delayed.Render("◷") + " delayed: admitted, released later by a queue",
		st.rejected.Render("✗") + " rejected: the server answers 429 Too Many Requests",
		st.mixed.Render("±") + " some admitted, some rejected in one timeline column",
		st.upcoming.Render("·") + " a request the clock has not reached yet",
		st.note.Render("◆") + " a note the clock has passed, " + st.upcoming.Render("◇") + " one ahead",
		st.cursor.Render(" ") + " ▲ the clock · ▶ the focused lane (heavy border)",
		"",
		st.title.Render("numbers"),
		"peak N per W: the most a lane let through in any window of W; a fixed window's boundary burst shows as twice its limit",
		"est … exact …: a sliding counter's estimate beside the true count of its window",
		"key … (auto): the lanes show the key of the latest request; k pins one key, then the next",
		"",
		st.title.Render("prompts and pages"),
		"enter confirms · esc cancels or closes · ↑/↓ pgup/pgdn scroll a page; any other key closes it and does its job · in the picker ↑/↓ or j/k, then enter",
	}
	text := strings.Join(rows, "\n\n") + "\n\n" + strings.Join(legend, "\n")
	return ansi.Wrap(text, w, "")
}

// aboutText is the scenario's story, its lanes and its notes.
func (a *App) aboutText(w int) string {
	st := a.st
	s := a.lab.Scenario()
	var b strings.Builder
	b.WriteString(st.title.Render(s.Title) + "\n\n")
	b.WriteString(strings.TrimRight(s.About, "\n") + "\n\n")
	b.WriteString(st.title.Render("lanes") + "\n")
	for _, l := range a.lab.Lanes() {
		b.WriteString("  " + l.Name + ": " + policyWords(l.Policy) + "\n")
	}
	if len(s.Notes) > 0 {
		b.WriteString("\n" + st.title.Render("notes") + st.muted.Render("  (] and [ jump between them)") + "\n")
		for _, n := range s.Notes {
			b.WriteString("  ◆ " + secs(n.At) + "  " + n.Text + "\n")
		}
	}
	b.WriteString("\n" + st.muted.Render("esc or a returns to the lab · ? lists every key"))
	return ansi.Wrap(b.String(), w, "")
}
