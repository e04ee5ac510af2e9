package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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

// render draws the screen as lines of exactly the terminal's width. Every
// block draws its lines to that width itself (checkFrame holds them to it),
// so render measures no line again.
func (a *App) render() string {
	l := a.lay
	if l.tooSmall {
		return tooSmall(a.st, l)
	}
	w := l.width
	lines := make([]string, 0, l.height)
	lines = append(lines, a.headerBlock(w, l.header)...)

	body := a.bodyHeight()
	switch a.overlay {
	case overlayHelp, overlayAbout, overlayPanel:
		lines = append(lines, a.pageBlock(w, body)...)
	case overlayPicker:
		lines = append(lines, a.picker.View(a.st)...)
	default:
		views := laneViews(a.programContext)
		blank := fit("", w)
		gap := func() {
			if l.gaps {
				lines = append(lines, blank)
			}
		}
		lines = append(lines, lanesBlock(a.st, views, l)...)
		gap()
		tl := a.tl.span()
		lines = append(lines, a.tl.view(tl)...)
		gap()
		switch {
		case l.overview == 0:
		case tl.length() > a.lab.End():
			// The timeline shows the whole run already: keep the rows blank
			// rather than move the panels below as the zoom changes.
			for range l.overview {
				lines = append(lines, blank)
			}
			gap()
		default:
			lines = append(lines, a.tl.overview(tl)...)
			gap()
		}
		note, why := a.lowerBlocks(views, w)
		lines = append(lines, note...)
		gap()
		lines = append(lines, why...)
		for range l.spare {
			lines = append(lines, blank)
		}
	}

	status, footer := a.status.view(w), a.footerLine(w)
	switch {
	case a.confirm != nil:
		status = fit(a.st.errText.Render("? "+a.confirm.question), w)
		footer = a.footerWith(confirmKeys{}, w)
	case a.prompt.active():
		status = a.promptLine(w)
		if a.status.err {
			footer = fit(a.st.errText.Render(a.status.text), w)
		}
	}
	if l.status > 0 {
		lines = append(lines, status)
	} else if a.prompt.active() || a.confirm != nil || a.status.text != "" {
		footer = status // the minimal screen: the question replaces the keys
	}
	lines = append(lines, footer)
	return strings.Join(lines, "\n")
}

// quizWhy is the quiz mark's explanation while the clock stays on the
// request just answered; "" otherwise.
func (a *App) quizWhy() string {
	if a.quiz.revealed == a.lab.Pos() && a.quiz.revealedAt == a.lab.Now() {
		return a.quiz.revealedWhy
	}
	return ""
}

// footerLine is the short help, with "? help · q quit" kept in sight on
// the right whatever the width.
func (a *App) footerLine(w int) string {
	h := a.st.help
	right := h.ShortKey.Render("?") + " " + h.ShortDesc.Render("help") + h.ShortSeparator.Render(" · ") +
		h.ShortKey.Render("q") + " " + h.ShortDesc.Render("quit")
	var km help.KeyMap = a.keys
	switch {
	case a.quiz.asking() && a.overlay == overlayNone:
		km = quizKeyMap
	}
	switch a.overlay {
	case overlayHelp, overlayAbout, overlayPanel:
		km = pageKeys(a.keys)
	case overlayPicker:
		// The picker has no help page: ? there would do nothing.
		km, right = a.picker, h.ShortKey.Render("q")+" "+h.ShortDesc.Render("quit")
	}
	if a.prompt.active() {
		// q and ? are text in a prompt.
		km, right = a.prompt, ""
	}
	// A copy, narrowed to what right leaves: drawing changes no state, and
	// the help page (helpText) keeps the full width relayout gave a.help.
	view := a.help
	view.SetWidth(max(w-ansi.StringWidth(right)-1, 0))
	return joinFit(view.View(km), right, w)
}

// footerWith is the footer showing only km's keys.
func (a *App) footerWith(km help.KeyMap, w int) string {
	view := a.help
	view.SetWidth(w)
	return fit(view.View(km), w)
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
