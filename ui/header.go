package ui

import (
	"cmp"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

// headerBlock is the title and the clock, and on a second line the play
// state, speed, step and what space sends; h is 1 or 2.
func (a *App) headerBlock(w, h int) []string {
	st := a.st
	lab := a.lab
	clock := st.accent.Render("t = " + a.secs(lab.Now()))
	title := st.title.Render("ratelab") + st.muted.Render(" │ ") + st.title.Render(lab.Scenario().Title)
	play := a.play.text()
	if a.quiz.on {
		play += st.accent.Render(" · quiz " + cmp.Or(a.quiz.scoreText(), "on"))
	}
	if inst := instantText(a); inst != "" {
		clock = st.muted.Render(inst+" · ") + clock
	}
	if h < 2 {
		return []string{joinFit(title, clock+" "+play, w)}
	}
	line1 := joinFit(title, clock, w)
	key := st.key.Render(keyText(a.key()))
	switch {
	case a.noteKeyShown():
		key += st.muted.Render(" (the note's)") // the current note speaks of it
	case len(lab.Keys()) > 1 && a.keyIdx < 0:
		key += st.muted.Render(" (auto)") // the latest request's key; k pins one
	}
	step := st.muted.Render(" · → steps ") + secs(a.step())
	fires := "key " + key + ", cost " + st.key.Render(itoa(a.cost))
	right := st.muted.Render("· " + requestsText(lab.Len(), lab.FiredCount()))
	switch {
	case lab.StoreFailure() != nil:
		right = st.rejected.Render("⚠ store failed: in memory only (e)") + " " + right
	case a.opts.StoreName != "":
		where := a.opts.StoreName // "redis 127.0.0.1:6379/0"
		if w < 110 {
			where, _, _ = strings.Cut(where, " ") // the why panel names it whole
		}
		right = st.muted.Render("· in "+where+" ") + right
	}
	// In words a newcomer reads: what → and space do, the longest that
	// fits; the play state alone where not even "sends key" and a little
	// of the key would (a cut "sends…" says nothing).
	room := w - ansi.StringWidth(right) - 1
	left := fit(play, room)
	if ansi.StringWidth(play+" · sends key ")+2 <= room {
		left = first([]string{
			play + step + st.muted.Render(" · space sends a request as ") + fires,
			play + step + st.muted.Render(" · space sends ") + fires,
			play + st.muted.Render(" · space sends ") + fires,
			play + st.muted.Render(" · sends ") + fires,
		}, room)
	}
	return []string{line1, joinFit(left, right, w)}
}

// requestsText counts the timeline's requests and the learner's own.
func requestsText(total, yours int) string {
	s := requestCount(total)
	if yours > 0 {
		s += " (" + algorithms.Thousands(int64(yours)) + " yours)"
	}
	return s
}
