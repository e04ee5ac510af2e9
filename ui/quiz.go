package ui

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// quiz is "predict, then see": with the quiz on, the clock stops before each
// moment worth predicting — the scenario's quiz marks, or every request when
// it marks none — and asks whether a lane will admit, delay or reject the
// request (and, for a rejection, when a retry would fit). The answer is
// graded by model.Grade, then the decision and its explanation appear. A
// moment answered once is not asked again; t twice starts afresh.
//
// The marks are asked every one, in the order of the requests they name
// on the timeline (start sorts them): the marks on one request make one
// question, their lanes asked in turn, each with its mark's hint, and one
// reveal; the marks of one instant on several requests are asked one
// after the other (costly-requests' 4s asks of the lookup, then of the
// export after it).
//
// While a question waits for its answer the quiz is the mode in charge:
// it takes the answers (quizKeys) and draws the lab's screen with the
// question in place of the why panel.
type quiz struct {
	passThrough
	ctx *programContext
	on  bool
	// marks are the scenario's moments to ask about, in the order of the
	// requests they name (see start); with none, every request is a moment
	// (every).
	marks []*scenarios.QuizMark
	every bool
	// answeredMarks and answeredAt hold the moments asked already: marks,
	// or with every, request indices.
	answeredMarks map[*scenarios.QuizMark]bool
	answeredAt    map[int]bool

	// The open question: the request at index, about lanes (each mark's
	// lane, every lane for a mark that names none, the focused lane when
	// every request is asked about), asked one after the other: cur is the
	// lane being asked, guesses the answers so far; stage says what is
	// awaited. group is the marks on the request, answered together; asks
	// the mark each lane is asked under (nil when every request is asked
	// about).
	stage   quizStage
	index   int
	lanes   []int
	asks    []*scenarios.QuizMark
	group   []*scenarios.QuizMark
	cur     int
	guesses []model.Guess
	// revealed is the timeline position after the last answered request,
	// while the clock stays there the why panel shows the mark's why.
	revealed     int
	revealedAt   time.Duration // the clock when it was revealed
	revealedWhy  string
	revealedText string // how the answers went, for the panel e opens
	// revealedShort is revealedText in a line: the lanes answered right
	// and wrong, by name, for a status line too narrow for it whole.
	revealedShort string
	// answeredKey is the answered request's key, and pinnedThen the key
	// pinned when it was revealed: while the reveal stands, the lanes
	// and the why panel show that key and its decision, not the key a
	// note pins (a key the learner pins with k since wins).
	answeredKey string
	pinnedThen  int

	right, asked           int // outcomes guessed right, of those asked
	retryClose, retryAsked int // retry waits guessed close, of those guessed
}

type quizStage int

const (
	quizIdle    quizStage = iota
	quizOutcome           // a, d or r
	quizRetry             // the retry prompt is open
)

// reset forgets the quiz: off, no score (a new scenario).
func (q *quiz) reset() {
	ctx := q.ctx
	ctx.asked, ctx.quizzing = "", nil
	*q = quiz{ctx: ctx, revealed: -1, answeredMarks: map[*scenarios.QuizMark]bool{}, answeredAt: map[int]bool{}}
}

func (q *quiz) asking() bool { return q.stage != quizIdle }

// start turns the quiz on with a fresh score.
func (q *quiz) start() {
	q.reset()
	q.on = true
	q.ctx.quizzing = q
	marks := q.ctx.lab.Scenario().Quiz
	q.every = len(marks) == 0
	for i := range marks {
		q.marks = append(q.marks, &marks[i])
	}
	// Within an instant, in the timeline's order: a mark's request number
	// counts its key's requests, so the file's order can name a later
	// request first (global-cap's acct-2, its tenth before its first), and
	// asking it first would take the clock back inside the instant, undoing
	// an answer's screen. A mark whose request is not there (its key drew
	// none) goes last at its instant; marks of one request keep the
	// lesson's order.
	index := make(map[*scenarios.QuizMark]int, len(q.marks)) // looked up once a mark, not once a comparison
	for _, m := range q.marks {
		index[m] = math.MaxInt
		if i, ok := q.ctx.lab.QuizIndex(*m); ok {
			index[m] = i
		}
	}
	slices.SortStableFunc(q.marks, func(a, b *scenarios.QuizMark) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(index[a], index[b]))
	})
}

// ask opens the question on request i, about the marks of group (none
// when every request is asked about: the focused lane then): the clock
// stands at its instant with it not yet decided.
func (q *quiz) ask(i int, group []*scenarios.QuizMark) {
	lab := q.ctx.lab
	lab.SeekBefore(i)
	q.ctx.asked = lab.Request(i).Key
	q.stage, q.index, q.group, q.cur, q.guesses = quizOutcome, i, group, 0, nil
	q.lanes, q.asks = q.lanes[:0], q.asks[:0]
	if len(group) == 0 {
		q.lanes, q.asks = append(q.lanes, q.ctx.focus), append(q.asks, nil)
	}
	for _, m := range group {
		for l, def := range lab.Lanes() {
			if m.Lane == "" || def.Name == m.Lane {
				q.lanes, q.asks = append(q.lanes, l), append(q.asks, m)
			}
		}
	}
}

// mark is the mark of the lane being asked about; nil when every request
// is asked about, or none is being asked.
func (q *quiz) mark() *scenarios.QuizMark {
	if q.cur < len(q.asks) {
		return q.asks[q.cur]
	}
	return nil
}

// lane is the lane being asked about.
func (q *quiz) lane() int { return q.lanes[q.cur] }

// next is the first moment among the requests from index from up to (not
// including) index upto, without moving the clock. With marks, it is the
// first unanswered mark whose request is in the range: the marks are in
// the timeline's order (see start), and the learner's requests, fired
// after every request of their instant, never reorder them. It costs the
// number of marks (a lookup each), or with every request a moment the
// number already answered, never the number of requests in the range.
func (q *quiz) next(from, upto int) (int, bool) {
	i, _, ok := q.nextGroup(from, upto)
	return i, ok
}

// nextGroup is next with the marks of the question there, in the quiz's
// order.
func (q *quiz) nextGroup(from, upto int) (int, []*scenarios.QuizMark, bool) {
	if !q.on || q.asking() {
		return 0, nil, false
	}
	lab := q.ctx.lab
	upto = min(upto, lab.Len())
	if q.every {
		for i := from; i < upto; i++ {
			if !q.answeredAt[i] {
				return i, nil, true
			}
		}
		return 0, nil, false
	}
	first := -1
	var group []*scenarios.QuizMark
	for _, m := range q.marks {
		if q.answeredMarks[m] {
			continue
		}
		idx, ok := lab.QuizIndex(*m)
		switch {
		case !ok:
		case first >= 0:
			if idx != first {
				return first, group, true // a request's marks are together
			}
			group = append(group, m)
		case idx >= from && idx < upto:
			first, group = idx, append(group, m)
		}
	}
	return first, group, first >= 0
}

// stopBetween asks about the first moment among the requests from index
// from up to index upto (next), putting the clock before it; it reports
// whether it asks.
func (q *quiz) stopBetween(from, upto int) bool {
	i, group, ok := q.nextGroup(from, upto)
	if ok {
		q.ask(i, group)
	}
	return ok
}

// waitsHere reports whether a question waits at the clock's instant, its
// request not yet decided.
func (q *quiz) waitsHere() bool {
	lab := q.ctx.lab
	_, waits := q.next(lab.Pos(), lab.Search(lab.Now()))
	return waits
}

// nextMoment is where ] goes with the quiz on, beside the notes: the
// clock's own instant while a question there waits (deciding that instant
// brings the clock back to the question), else the first instant after t
// that a mark names.
func (q *quiz) nextMoment(t time.Duration) (time.Duration, bool) {
	lab := q.ctx.lab
	if t == lab.Now() {
		if q.waitsHere() {
			return t, true // waits only for a request not yet decided: the instant is not whole
		}
	}
	at, found := time.Duration(0), false
	for _, m := range q.marks {
		if _, ok := lab.QuizIndex(*m); ok && m.At > t && (!found || m.At < at) {
			at, found = m.At, true
		}
	}
	return at, found
}

// prevMoment is the last instant before t that a mark names, for [.
func (q *quiz) prevMoment(t time.Duration) (time.Duration, bool) {
	at, found := time.Duration(0), false
	for _, m := range q.marks {
		if _, ok := q.ctx.lab.QuizIndex(*m); ok && m.At < t && (!found || m.At > at) {
			at, found = m.At, true
		}
	}
	return at, found
}

// answer takes the predicted outcome for the lane being asked about. A
// rejection then asks when a retry would fit (retry: the prompt opens);
// else the next lane is asked, and after the last (done) the answers are
// revealed.
func (q *quiz) answer(o algorithms.Outcome) (retry, done bool) {
	q.guesses = append(q.guesses, model.Guess{Outcome: o})
	if o == algorithms.Rejected {
		q.stage = quizRetry
		return true, false
	}
	return false, q.nextLane()
}

// answerRetry takes the guessed wait of the rejection just predicted (nil:
// no guess) and moves on; done as for answer.
func (q *quiz) answerRetry(wait *time.Duration) (done bool) {
	if q.stage != quizRetry {
		return false // the question went away (a reload) while the prompt was open
	}
	if wait != nil && len(q.guesses) > 0 {
		g := &q.guesses[len(q.guesses)-1]
		g.RetryAfter, g.HasRetry = *wait, true
	}
	q.stage = quizOutcome
	return q.nextLane()
}

// nextLane moves to the next lane to ask about; done when none is left.
func (q *quiz) nextLane() (done bool) {
	q.cur++
	return q.cur >= len(q.lanes)
}

// reveal decides the request, grades every answer and says how it went:
// "score 3 of 4 right: ✓ bucket admitted it · ✗ shaper delayed it 4.5s
// (you said admitted)".
func (q *quiz) reveal() string {
	lab := q.ctx.lab
	lab.SeekPos(q.index + 1)
	for _, m := range q.group {
		q.answeredMarks[m] = true
	}
	if len(q.group) == 0 {
		q.answeredAt[q.index] = true
	}
	q.stage = quizIdle
	q.revealed, q.revealedAt = lab.Pos(), lab.Now()
	q.revealedWhy = groupWhy(q.group)
	// Graded on the request itself: a lane may have decided its retries
	// since.
	recs := lab.DecisionsOn(q.index)
	if named(q.group) {
		q.ctx.focus = q.lanes[0] // the why panel shows a lane the marks explain
	}
	q.answeredKey, q.pinnedThen = q.ctx.asked, q.ctx.keyIdx
	q.ctx.asked = ""
	var parts, rightNames, wrongNames []string
	for k, lane := range q.lanes {
		d := recs[lane].Decision
		g := q.guesses[k]
		right, close := model.Grade(d, g)
		q.asked++
		part := "✓ "
		if right {
			q.right++
		} else {
			part = "✗ "
		}
		name := lab.Lanes()[lane].Name
		part += name + " " + q.decisionWords(d)
		if right {
			rightNames = append(rightNames, name)
		} else {
			wrongNames = append(wrongNames, name)
			part += " (you said " + g.Outcome.String() + ")"
		}
		if g.HasRetry && model.HasRetry(d) {
			q.retryAsked++
			switch {
			case close && g.RetryAfter == d.RetryAfter:
				q.retryClose++
				part += ", your retry " + q.ctx.secs(g.RetryAfter) + " was exact"
			case close:
				q.retryClose++
				part += ", your retry " + q.ctx.secs(g.RetryAfter) + " was close (" + q.ctx.secs(d.RetryAfter) + ")"
			default:
				part += ", your retry " + q.ctx.secs(g.RetryAfter) + " was off (" + q.ctx.secs(d.RetryAfter) + ")"
			}
		}
		parts = append(parts, part)
	}
	score := "score " + q.scoreText() + ": "
	q.revealedText = score + strings.Join(parts, " · ")
	var short []string
	if len(rightNames) > 0 {
		short = append(short, "✓ "+strings.Join(rightNames, ", "))
	}
	if len(wrongNames) > 0 {
		short = append(short, "✗ "+strings.Join(wrongNames, ", "))
	}
	q.revealedShort = score + strings.Join(short, " · ") + readAll
	return q.revealedText
}

// groupWhy is the lessons' explanation of the marks of one question: the
// one mark's why, or each mark's, named by its lane, a line each.
func groupWhy(group []*scenarios.QuizMark) string {
	var whys []string
	for _, m := range group {
		switch {
		case m.Why == "":
		case len(group) > 1 && m.Lane != "":
			whys = append(whys, m.Lane+": "+m.Why)
		default:
			whys = append(whys, m.Why)
		}
	}
	return strings.Join(whys, "\n")
}

// named reports whether every mark of group names its lane (and there is
// one).
func named(group []*scenarios.QuizMark) bool {
	for _, m := range group {
		if m.Lane == "" {
			return false
		}
	}
	return len(group) > 0
}

// revealLine is how the answers went for a status line w wide: whole where
// it fits, else the lanes right and wrong by name (revealedShort), the
// names cut before its "(e: read all)", which is never cut itself.
func (q *quiz) revealLine(w int) string {
	if ansi.StringWidth(q.revealedText) <= w {
		return q.revealedText
	}
	if ansi.StringWidth(q.revealedShort) <= w {
		return q.revealedShort
	}
	return cutMore(strings.TrimSuffix(q.revealedShort, readAll), w)
}

// decisionWords is what a lane did: "admitted it", "delayed it 0.5s",
// "rejected it; a retry fits after 1s".
func (q *quiz) decisionWords(d algorithms.Decision) string {
	switch d.Outcome {
	case algorithms.Allowed:
		return "admitted it"
	case algorithms.Delayed:
		return "delayed it " + q.ctx.secs(d.Delay)
	}
	if d.RetryAfter == algorithms.Never {
		return "rejected it: it can never fit"
	}
	return "rejected it; a retry fits after " + q.ctx.secs(d.RetryAfter)
}

// scoreText is "3 of 4 right" (and the retry guesses, if any: ", retry
// waits 1 of 2 close"), "" before the first answer.
func (q *quiz) scoreText() string {
	if q.asked == 0 {
		return ""
	}
	s := strconv.Itoa(q.right) + " of " + strconv.Itoa(q.asked) + " right"
	if q.retryAsked > 0 {
		s += ", retry waits " + strconv.Itoa(q.retryClose) + " of " + strconv.Itoa(q.retryAsked) + " close"
	}
	return s
}

// block draws the open question in h lines of width w, in place of the why
// panel: which request, which lane, the mark's hint, the keys, the score.
func (q *quiz) block(w, h int) []string {
	st, lab := q.ctx.st, q.ctx.lab
	r := lab.Request(q.index)
	name := lab.Lanes()[q.lane()].Name
	where := "the request at " + q.ctx.secs(r.At)
	if k, m := lab.Instant(); m > 1 {
		where = "request " + algorithms.Thousands(int64(k+1)) + " of " + algorithms.Thousands(int64(m)) + " at " + q.ctx.secs(r.At) + ", not decided yet"
	}
	// The score is the header's.
	lines := []string{fit(st.title.Render("quiz")+" "+st.muted.Render("· "+where+", key "+keyText(r.Key)+", cost "+itoa(r.Cost)), w)}
	question := "What will " + name + " do with this request?"
	if len(q.lanes) > 1 {
		question += " (lane " + strconv.Itoa(q.cur+1) + " of " + strconv.Itoa(len(q.lanes)) + ")"
	}
	if q.stage == quizRetry {
		question = "Rejected, you say. When would the same request fit, from now?"
	}
	for _, l := range wrap(st.accent.Render(question), w, 2) {
		lines = append(lines, fit(l, w))
	}
	// The keys to answer with are in the footer.
	if m := q.mark(); m != nil && m.Ask != "" && len(lines) < h {
		for _, l := range wrap(m.Ask, w, h-len(lines)) {
			lines = append(lines, fit(st.note.Render(l), w))
		}
	}
	return pad(lines, w, h)
}

// toggle turns the quiz on (fresh score) or off.
func (q *quiz) toggle(a *App) {
	if q.on {
		score := cmp.Or(q.scoreText(), "none: nothing was asked")
		q.reset()
		a.status.set("quiz off · final score " + score)
		return
	}
	q.start()
	// The requests at the clock's instant are taken back, so that those
	// among them worth predicting (a page load at 0s) can be asked about.
	if k, _ := a.lab.Instant(); k > 0 {
		a.lab.SeekBefore(a.lab.Pos() - k)
	}
	// Said whole at 80 columns.
	what := "when the lesson asks"
	if q.every {
		what = "every request"
	}
	a.status.set("quiz on: step (n) or play and predict " + what + " · t ends the quiz")
	if !q.every && !q.anyMoment() {
		a.status.set("quiz on, but this scenario's marks match no request · t ends it")
	}
}

// end forgets the quiz, closing its question's prompt if open: the
// question goes away (another scenario, a reload).
func (q *quiz) end(a *App) {
	if a.prompt.active() && a.prompt.ask.question {
		a.prompt.close()
	}
	q.reset()
}

// update handles a key while the quiz asks.
func (q *quiz) update(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k, lab := a.keys.Quiz, a.keys.Lab
	switch {
	case key.Matches(msg, lab.Quit):
		return a.quit()
	case key.Matches(msg, k.Leave):
		q.toggle(a)
	case key.Matches(msg, lab.Help):
		a.openPage(helpPage)
	case key.Matches(msg, lab.Expand):
		a.openPage(panelPage)
	case key.Matches(msg, k.Admit):
		q.take(a, algorithms.Allowed)
	case key.Matches(msg, k.Delay):
		q.take(a, algorithms.Delayed)
	case key.Matches(msg, k.Reject):
		q.take(a, algorithms.Rejected)
		return q.askRetry(a)
	default:
		a.status.set("answer with a, d or r (esc leaves the quiz)")
	}
	return nil
}

// footer is the answers, "? help · q quit" on the right.
func (q *quiz) footer(a *App, w int) (string, bool) {
	return a.keysFooter(a.keys.Quiz, a.keys.Lab.right, w), true
}

// body is the lab's screen with the question in place of the why panel.
func (q *quiz) body(a *App, lines []string, w, _ int) ([]string, bool) {
	return a.labMode.screen(a, lines, w, q.block), true
}

// take passes a predicted outcome to the quiz and reveals once every
// lane asked about has an answer.
func (q *quiz) take(a *App, o algorithms.Outcome) {
	if _, done := q.answer(o); done {
		q.revealTo(a)
	}
}

// revealTo reveals the answers and says how they went once on the
// screen: in the why panel where it has room for them (lower.go), else on
// the status line.
func (q *quiz) revealTo(a *App) {
	q.reveal()
	a.status.setDrawn(q.revealedText, func(w int) string {
		if a.revealInPanel() {
			return ""
		}
		return q.revealLine(w)
	})
}

// askRetry asks, after a rejection was predicted, when a retry would fit;
// enter with nothing (or esc) skips the guess, and the outcome still
// counts.
func (q *quiz) askRetry(a *App) tea.Cmd {
	return a.openPrompt(&ask{
		prompt:   "it fits in (from now, e.g. 1.5s; enter skips): ",
		question: true,
		submit: func(answer string) (tea.Cmd, error) {
			var guess *time.Duration
			if answer != "" {
				d, err := scenarios.ParseDuration(answer, false)
				if err != nil {
					return nil, errors.New("retry: " + err.Error())
				}
				guess = &d
			}
			q.takeRetry(a, guess)
			return nil, nil
		},
		cancel: func() { q.takeRetry(a, nil) },
	})
}

// takeRetry passes the guessed retry wait (nil: none) to the quiz.
func (q *quiz) takeRetry(a *App, wait *time.Duration) {
	if q.answerRetry(wait) {
		q.revealTo(a)
	}
}

// at is the time of the quiz's next question among the requests not
// yet decided that arrive by to.
func (q *quiz) at(to time.Duration) (time.Duration, bool) {
	lab := q.ctx.lab
	i, ok := q.next(lab.Pos(), lab.Search(to))
	if !ok {
		return 0, false
	}
	return lab.Request(i).At, true
}

// revealStands reports whether the clock stays on the request just
// answered, so that how the answers went still speaks of the screen.
func (q *quiz) revealStands() bool {
	return q.revealedText != "" && q.revealed == q.ctx.lab.Pos() && q.revealedAt == q.ctx.lab.Now()
}

// revealedKey is the key of the request just answered while its reveal
// stands and the learner has pinned no other key since; ok is false
// otherwise, and for a quiz that is off (nil).
func (q *quiz) revealedKey() (key string, ok bool) {
	if q == nil || !q.revealStands() || q.pinnedThen != q.ctx.keyIdx {
		return "", false
	}
	return q.answeredKey, true
}

// markWhy is the quiz mark's explanation while the clock stays on the
// request just answered; "" otherwise.
func (q *quiz) markWhy() string {
	if q.revealStands() {
		return q.revealedWhy
	}
	return ""
}

// revealWords are what the why panel says after an answer while the clock
// stays, in the order it prefers them (whyBlock takes the first that fits
// whole): how every answer went with the mark's why under it; else the
// why alone, how the answers went left to the status line (a small
// screen, many lanes). None when no reveal stands.
func (q *quiz) revealWords() []string {
	if !q.revealStands() {
		return nil
	}
	if q.revealedWhy == "" {
		return []string{q.revealedText}
	}
	return []string{q.revealedText + "\n" + q.revealedWhy, q.revealedWhy}
}

// anyMoment reports whether some mark matches a request of the timeline.
func (q *quiz) anyMoment() bool {
	for _, m := range q.marks {
		if _, ok := q.ctx.lab.QuizIndex(*m); ok {
			return true
		}
	}
	return false
}
