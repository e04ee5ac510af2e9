package ui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// View draws the whole screen.
func (a *App) View() tea.View {
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.WindowTitle = "ratelab · " + a.lab.Scenario().Title
	return v
}

// bodyHeight is the height between the header and the status line.
func (a *App) bodyHeight() int {
	l := a.lay
	return max(l.height-l.header-l.status-l.footer, 0)
}

// render draws the screen as lines of exactly the terminal's width: the
// header, then what the open modes draw (mode.go) — the body, the status
// line and the footer. Every block draws its lines to that width itself
// (checkFrame holds them to it), so render measures no line again.
func (a *App) render() string {
	l := a.lay
	if l.tooSmall {
		return tooSmall(a.st, l)
	}
	w := l.width
	lines := make([]string, 0, l.height)
	lines = append(lines, a.headerBlock(w, l.header)...)
	lines = a.body(lines, w, a.bodyHeight())
	status, said := a.statusLine(w)
	footer := a.footer(w)
	if l.status > 0 {
		lines = append(lines, status)
	} else if said {
		footer = status // the minimal screen: what the status says replaces the keys
	}
	lines = append(lines, footer)
	return strings.Join(lines, "\n")
}

// tooSmall says what size the screen needs, centred as far as it fits.
func tooSmall(st *styles, l layout) string {
	if l.width <= 0 || l.height <= 0 {
		return ""
	}
	msg := []string{
		"terminal too small",
		"ratelab needs " + strconv.Itoa(l.needWidth) + "×" + strconv.Itoa(l.needHeight),
		"this one is " + strconv.Itoa(l.width) + "×" + strconv.Itoa(l.height),
		"q quits",
	}
	top := max((l.height-len(msg))/2, 0)
	lines := make([]string, 0, l.height)
	for range top {
		lines = append(lines, "")
	}
	for i, m := range msg {
		if len(lines) >= l.height {
			break
		}
		left := max((l.width-len([]rune(m)))/2, 0)
		if i == 0 {
			m = st.title.Render(m)
		}
		lines = append(lines, fit(strings.Repeat(" ", left)+m, l.width))
	}
	return strings.Join(lines, "\n")
}
