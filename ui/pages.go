package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// pageKind is which page is open.
type pageKind int

const (
	noPage    pageKind = iota
	helpPage           // every key, and what the marks and numbers mean (?)
	aboutPage          // the scenario's story, lanes and notes (a)
	// panelPage is the lower panel (the notes and every lane's
	// explanation) expanded over the body, to read whole (e).
	panelPage
)

// pages is the mode of the help, about and panel pages, which cover the
// body and scroll in a viewport when the terminal is short. It draws the
// body and the footer.
type pages struct {
	kind pageKind
	view viewport.Model
}

func (p *pages) open() bool { return p.kind != noPage }
func (p *pages) close()     { p.kind = noPage }

// openPage opens the page of kind, in place of the picker or another
// page.
func (a *App) openPage(kind pageKind) {
	a.picker.open = false
	p := &a.pages
	p.kind = kind
	p.view = viewport.New()
	// Only the page keys scroll: every other key of the lab closes the
	// page and does its job.
	k, km := a.keys.Page, &p.view.KeyMap
	km.Left.Unbind()
	km.Right.Unbind()
	km.HalfPageDown.Unbind()
	km.HalfPageUp.Unbind()
	km.Up, km.Down, km.PageUp, km.PageDown = k.Up, k.Down, k.PageUp, k.PageDown
	p.fill(a, a.lay.width, a.bodyHeight())
}

// fill fits the open page to a body of w × h and fills it again, since its
// text wraps to the width.
func (p *pages) fill(a *App, w, h int) {
	if !p.open() {
		return
	}
	p.view.SetWidth(w)
	p.view.SetHeight(max(h-1, 1))
	switch p.kind {
	case helpPage:
		p.view.SetContent(p.helpText(a, w))
	case aboutPage:
		p.view.SetContent(p.aboutText(a, w))
	case panelPage:
		p.view.SetContent(p.panelText(a, w))
	}
}

// update handles a key while a page is open: Close, Choose and the key
// that opened the page close it, the page keys scroll it, and any other
// key closes it and does its job in the lab. Quit quits as it does in the
// lab: asking first when requests would be lost.
func (p *pages) update(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k, lab := a.keys.Page, a.keys.Lab
	switch {
	case key.Matches(msg, k.Quit):
		return a.quit()
	case key.Matches(msg, k.Close), key.Matches(msg, k.Choose),
		p.kind == helpPage && key.Matches(msg, lab.Help),
		p.kind == aboutPage && key.Matches(msg, lab.About),
		p.kind == panelPage && key.Matches(msg, lab.Expand):
		p.close()
		return nil
	case p.kind == aboutPage && key.Matches(msg, lab.NextNote) && a.noteAtClock():
		// The about page hid the lab at a note's moment (a lesson opens
		// at its note at 0s): the next note the learner has not seen is
		// that one, so ] shows it rather than jump past it, with its
		// instant decided when requests arrive then (the note speaks of
		// their outcome): the lab takes the key as its next note.
		p.close()
		if k, m := a.lab.Instant(); k < m {
			_, cmd := a.Update(msg)
			return cmd
		}
		return nil
	case key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown):
		var cmd tea.Cmd
		p.view, cmd = p.view.Update(msg)
		return cmd
	}
	p.close()
	return a.labMode.update(a, msg)
}

// status leaves the status line to the lab.
func (p *pages) status(*App, int) (string, bool) { return "", false }

// footer is the page's keys, "? help · q quit" on the right.
func (p *pages) footer(a *App, w int) (string, bool) {
	return a.keysFooter(a.keys.Page, a.keys.Lab.right, w), true
}

// body is a title line, then the viewport.
func (p *pages) body(a *App, dst []string, w, h int) ([]string, bool) {
	title := "keys"
	switch p.kind {
	case aboutPage:
		title = "about this scenario"
	case panelPage:
		title = "notes and why, whole, at t = " + a.secs(a.lab.Now())
	}
	more := ""
	if !p.view.AtTop() || !p.view.AtBottom() {
		more = "  ↑/↓ scroll"
	}
	head := a.st.title.Render(title) + a.st.muted.Render(more+"  esc closes")
	lines := []string{fit(head, w)}
	if h > 1 {
		for _, l := range strings.Split(p.view.View(), "\n") {
			lines = append(lines, fit(l, w))
		}
	}
	return append(dst, pad(lines, w, h)...), true
}

// helpText is every key binding, grouped, then what the marks mean.
func (p *pages) helpText(a *App, w int) string {
	st := a.st
	var cols []string
	for i, group := range a.keys.Lab.FullHelp() {
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
		st.rejected.Render("✗") + " rejected: the server answers 429 Too Many Requests (nginx's limit_req: 503)",
		st.mixed.Render("±") + " some admitted, some rejected in one timeline column",
		st.http.Render("⊘") + " (a lane of gateways) refused by its fallback while the store was down: 503, not 429; " + st.http.Render("+") + " admitted beyond the policy (a double spend, counting apart, a lost or expired state)",
		st.upcoming.Render("·") + " a request the clock has not reached yet",
		st.note.Render("◆") + " a note the clock has passed, " + st.upcoming.Render("◇") + " one ahead, or waiting for its instant's requests or a question's answer",
		st.delayed.Render("↦") + " (row \"↦ out\" under a shaper) a delayed request leaving the queue for the service; " + st.upcoming.Render("·") + " one due later",
		st.cursor.Render(" ") + " ▲ the clock · ▶ the focused lane (heavy border)",
		"",
		st.title.Render("numbers"),
		"peak N per W: the most a lane let through in any window of W, counted by cost (a request of cost 4 counts 4); a fixed window's boundary burst shows as twice its limit",
		"est … exact …: a sliding counter's estimate beside the true count of its window",
		"key … (auto): the lanes show the key of the latest request; k pins one key, then the next; K fires as a new key",
		"all keys ✓… ✗… · peak …: a lane's totals over every key; with a key pinned, that key's own come first",
		"request 3 of 10 at 0s: the clock stands inside an instant that holds several requests; n and N step through them one by one",
		"retry at 61s (in 0.9s): when the same request would fit if nothing else came, and how far that is from the clock",
		"state 16 B/key: the bytes the shown key's state takes in the lane after its latest request (a sliding log's grows with what it holds)",
		"",
		st.title.Render("words"),
		strings.Join(glossaryOf(a.lab), "\n"),
		"",
		st.title.Render("play, notes and the quiz"),
		"play stops at each note (m turns that off; the header then says \"no note stops\"); P plays to the next note or disagreement at any speed",
		"t starts the quiz: at each moment the lesson marks (or every request) the clock stops before the decision; a, d or r predicts it, a rejection also asks when a retry would fit (within a quarter of the wait, or 100ms, counts as close)",
		"",
		st.title.Render("prompts and pages"),
		"enter confirms · esc cancels or closes · ↑/↓ pgup/pgdn scroll a page; any other key closes it and does its job · in the picker ↑/↓ or j/k, then enter",
	}
	if len(a.lab.Clients()) > 0 {
		// Only a scenario with clients has retries to mark and count: the
		// others' help stays as it was.
		at := slices.Index(legend, "") // the end of the marks
		legend = slices.Insert(legend, at,
			st.rejected.Render("4")+" a lane decided retries in a timeline column (over the originals' mark), the highest of them its 4th attempt; "+st.rejected.Render("↻")+" the 10th or later; coloured as they went: "+st.allowed.Render("admitted")+", "+st.rejected.Render("refused")+" or "+st.mixed.Render("some of each")+". Each lane retries only what it refused itself")
		at = slices.Index(legend, "retry at 61s (in 0.9s): when the same request would fit if nothing else came, and how far that is from the clock") + 1
		legend = slices.Insert(legend, at,
			"originals 67 · attempts 157 ×2.34: the requests the traffic sent a lane, the attempts its clients made at them, and attempts ÷ originals, what retries multiply the load by",
			"served · abandoned · retrying: what became of the originals; abandoned counts those whose client gave up (its rule, its attempts, its deadline); latency p50 p95 p99: from a served request's first attempt to its release",
			"attempt 3 of 5 · client eager: … → attempt 4 at 0.5s (why panel): which try the decision was, whose, its client's rule, and what happens next")
	}
	text := strings.Join(rows, "\n\n") + "\n\n" + strings.Join(legend, "\n")
	return ansi.Wrap(text, w, "")
}

// aboutText is the scenario's story, its lanes and its notes, after how
// to go through it.
func (p *pages) aboutText(a *App, w int) string {
	st := a.st
	s := a.lab.Scenario()
	var b strings.Builder
	b.WriteString(st.title.Render(s.Title) + "\n\n")
	b.WriteString(st.muted.Render(howToGoThrough(len(s.Notes) > 0)) + "\n\n")
	b.WriteString(reflow(strings.TrimRight(s.About, "\n")) + "\n\n")
	if len(s.Logs) > 0 {
		b.WriteString(st.title.Render("logs") + "\n")
		for _, l := range s.Logs {
			b.WriteString(hanging("  · ", l.Summary(), w) + "\n")
			for _, bad := range l.Bad {
				b.WriteString(hanging("      ", bad.Error(), w) + "\n")
			}
			if l.Diagnosis != "" {
				b.WriteString(hanging("      ", l.Diagnosis, w) + "\n")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(st.title.Render("lanes") + "\n")
	for _, l := range a.lab.Lanes() {
		words := policyWords(l.Policy) + familyWords(l.Policy)
		if l.Stack != nil {
			words = stackWords(l.Stack)
		}
		for _, fw := range []string{l.Fleet.Words(), l.Fleet.ExpiryWords(l.Policy), l.Fleet.SkewWords()} {
			if fw != "" {
				words += "; " + fw
			}
		}
		b.WriteString(hanging("  "+l.Name+": ", words, w) + "\n")
	}
	b.WriteString("\n" + st.title.Render("words") + "\n")
	for _, g := range glossaryOf(a.lab) {
		b.WriteString(hanging("  · ", g, w) + "\n")
	}
	if len(s.Notes) > 0 {
		b.WriteString("\n" + st.title.Render("notes") + st.muted.Render("  ◆ passed · ◇ ahead of the clock · ] and [ jump between them") + "\n")
		for _, n := range s.Notes {
			mark := "◇ "
			if n.At <= a.lab.Now() {
				mark = "◆ "
			}
			b.WriteString(hanging("  "+mark+secs(n.At)+"  ", n.Text, w) + "\n")
		}
	}
	b.WriteString("\n" + st.muted.Render("esc or a returns to the lab · ? lists every key"))
	return ansi.Wrap(b.String(), w, "")
}

// reflow joins the lines of each paragraph of a scenario's text into one,
// so that the page wraps it to the screen's width rather than at the
// file's line breaks (which left a word alone on a line at 80 columns and
// a column 70 wide at 200). A blank line still ends a paragraph, and an
// indented line keeps its break (a table of lanes and their settings).
func reflow(text string) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			prev := lines[i-1]
			joins := strings.TrimSpace(prev) != "" && strings.TrimSpace(line) != "" &&
				!indented(prev) && !indented(line)
			if joins {
				b.WriteByte(' ')
			} else {
				b.WriteByte('\n')
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// indented reports whether a line of a scenario's text starts with a space.
func indented(line string) bool { return strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") }

// howToGoThrough is the about page's first line, for a learner who has
// not pressed a key yet: the keys that walk through a lesson.
func howToGoThrough(notes bool) string {
	ways := "n steps to the next request and t quizzes you: predict each lane's answer, then see it."
	if notes {
		ways = "] jumps to the next note, " + ways
	}
	return "To go through it: " + ways
}

// glossaryOf is the words the lab's lanes use, the layers of a stack's
// too, each once.
func glossaryOf(lab *model.Lab) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p algorithms.Policy) {
		for _, g := range pictureOf(p).glossary(p) {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	var fleets, forgets, expires bool
	twin := "" // the exact twin of a mistake lane, named as its box names it
	for i, l := range lab.Lanes() {
		if t, ok := lab.TwinOf(i); ok && twin == "" {
			twin = lab.Lanes()[t].Name
		}
		add(l.Policy)
		for _, layer := range l.Stack {
			add(layer.Policy)
		}
		fleets = fleets || !l.Fleet.Plain()
		forgets = forgets || l.Fleet.Forgets()
		expires = expires || l.Fleet.ExpireIdle > 0
	}
	if fleets {
		out = append(out, "beyond +3: how many more requests a lane of gateways admitted than its policy would on one shared store deciding each request whole (double spends, counting apart); negative, how many fewer (a slow clock's refill clamped away, a fallback that refuses)")
	}
	if forgets {
		out = append(out, "forgot +6: requests admitted only because the lane's store had dropped a key's state (idle past its expiry, or lost with the store) and began it anew, full: part of beyond")
	}
	if expires {
		out = append(out, "expired at 3s: the store dropped the shown key's state then, idle for its expiry; the box shows the new key its next request will find")
	}
	if twin != "" {
		out = append(out, "2 more than "+twin+" · 1 fewer than "+twin+" · same as "+twin+": how many more (or fewer) requests a mistake lane admitted than its exact twin, the lane named, over the same requests")
	}
	return out
}

// hanging wraps text to w cells after head, the lines after the first
// indented under the text, so a list item reads as one.
func hanging(head, text string, w int) string {
	hw := ansi.StringWidth(head)
	if w-hw < 10 {
		return head + text
	}
	lines := strings.Split(ansi.Wrap(text, w-hw, ""), "\n")
	pad := strings.Repeat(" ", hw)
	for i := range lines {
		if i == 0 {
			lines[i] = head + lines[i]
		} else {
			lines[i] = pad + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// earliestNoteInPanel is the index of the first of notes the lower panel
// shows at width w (earliestShown, in the rows lowerBlocks gives the
// notes); while a question waits, the current note's, as the question
// leaves the notes one line.
func (a *App) earliestNoteInPanel(notes []scenarios.Note, views []laneView, w int) int {
	if a.quiz.asking() {
		return currentNote(notes, a.lab.Now())
	}
	rows, _ := a.labMode.lowerBlocks(a, views, w, nil)
	return earliestShown(notes, a.lab.Now(), w, len(rows))
}

// panelText is the lower panel whole: the note the clock has passed, and
// every lane's explanation of its last decision with its reply, for the
// learner to read without anything cut.
func (p *pages) panelText(a *App, w int) string {
	st := a.st
	var b strings.Builder
	notes, instead := a.shownNotes()
	views := laneViews(a.programContext)
	if instead != "" {
		b.WriteString(st.muted.Render(instead) + "\n\n")
	} else if cur := currentNote(notes, a.lab.Now()); cur >= 0 {
		// The earlier notes the lower panel shows above the current one,
		// whole (the last of them it may have cut), and at least the one
		// just before it: the panel's rows change as a verdict is worked
		// out.
		for _, n := range notes[max(min(a.earliestNoteInPanel(notes, views, w), cur-1), 0):cur] {
			b.WriteString(hanging(st.muted.Render("◆ "+secs(n.At)+"  "), st.muted.Render(n.Text), w) + "\n")
		}
		b.WriteString(hanging("◆ "+secs(notes[cur].At)+"  ", notes[cur].Text, w) + "\n\n")
	} else if len(notes) > 0 {
		b.WriteString(st.muted.Render("◇ the first note is at "+secs(notes[0].At)) + "\n\n")
	}
	if inst := instantText(a); inst != "" {
		b.WriteString(st.muted.Render(inst) + "\n\n")
	}
	if a.quiz.revealStands() {
		b.WriteString(hanging(st.title.Render("quiz")+"  ", a.quiz.revealedText, w) + "\n")
		if why := a.quiz.markWhy(); why != "" {
			b.WriteString(hanging("      ", why, w) + "\n")
		}
		b.WriteString("\n")
	}
	if a.quiz.asking() {
		if m := a.quiz.mark(); m != nil && m.Ask != "" {
			b.WriteString(hanging(st.title.Render("quiz")+"  ", m.Ask, w) + "\n\n")
		}
	}
	for i, v := range views {
		mark := "  "
		if i == a.focus {
			mark = "▶ "
		}
		// Wrapped under the name: the panel cuts nothing.
		words := policyWords(v.policy)
		if v.layers != nil {
			words = stackWords(v.layers)
		}
		b.WriteString(hanging(st.title.Render(mark+v.name)+" ", st.muted.Render(words), w) + "\n")
		if v.verdictPending {
			b.WriteString("    working out the verdict on its latest request…\n\n")
			continue
		}
		if !v.hasLast {
			b.WriteString("    no request yet\n\n")
			continue
		}
		r := v.last.Request
		d := v.last.Decision
		b.WriteString(st.muted.Render("    request at "+v.secs(r.At)+", key "+keyText(r.Key)+", cost "+itoa(r.Cost)) + "\n")
		b.WriteString(hanging("    ", outcomeWord(st, d.Outcome)+": "+v.explain(), w) + "\n")
		b.WriteString(hanging("    ", replyTexts(st, v)[0], w) + "\n")
		if len(v.clients) > 0 {
			b.WriteString(hanging("    ", st.accent.Render(clientTexts(v.last, v.clients)[0]), w) + "\n")
		}
		b.WriteString(hanging("    ", first(totalsTexts(st, v), 1<<20), w) + "\n")
		if len(v.clients) > 0 {
			b.WriteString(hanging("    ", clientStatsText(v, 1<<20), w) + "\n")
		}
		for _, t := range storeTexts(v) {
			b.WriteString(st.muted.Render(hanging("    ", strings.TrimSpace(t), w)) + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString(st.muted.Render("e or esc returns to the lab · ↑/↓ pgup/pgdn scroll"))
	return b.String()
}
