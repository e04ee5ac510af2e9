package ui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
	"ratelab/model"
)

// burst is a fire action in progress. Each request is inserted in the
// timeline and everything after it recomputed (model.Lab.Fire), which
// costs up to milliseconds on a long timeline; a burst therefore fires a
// chunk per message, so the screen stays alive and esc can stop it.
type burst struct {
	key    string
	cost   int64
	left   int
	fired  int
	at     time.Duration
	counts []outcomeCount // per lane
}

// burstMsg asks for the next chunk of the burst in progress.
type burstMsg struct{}

// burstChunk is how many requests one message fires.
const burstChunk = 50

// fire sends n requests for the current key at the clock's time; a
// request fired before later ones is inserted there and everything after
// it is recomputed. The status line says what each lane did with them.
// The first chunk is fired at once, so a small burst is done on return.
func (a *App) fire(n int) tea.Cmd {
	a.firing = &burst{key: a.key(), cost: a.cost, left: n, at: a.lab.Now(), counts: make([]outcomeCount, len(a.lab.Lanes()))}
	return a.fireChunk()
}

func (a *App) fireChunk() tea.Cmd {
	b := a.firing
	if b == nil {
		return nil
	}
	for i := 0; i < burstChunk && b.left > 0; i++ {
		recs, err := a.lab.Fire(b.key, b.cost)
		if err != nil {
			a.setError(err.Error())
			b.left = 0
			break
		}
		b.left--
		b.fired++
		for _, r := range recs {
			b.counts[r.Lane].add(r.Decision.Outcome)
		}
	}
	if b.left > 0 {
		a.setStatus("firing " + strconv.Itoa(b.fired) + " of " + strconv.Itoa(b.fired+b.left) + " at " + secs(b.at) + "… esc stops")
		return func() tea.Msg { return burstMsg{} }
	}
	a.endBurst()
	return nil
}

// endBurst finishes the burst in progress (esc stops it early): one undo
// step for all its requests, and the lanes' outcomes in the status line.
func (a *App) endBurst() {
	b := a.firing
	a.firing = nil
	if b == nil || b.fired == 0 {
		return
	}
	a.undo = append(a.undo, b.fired)
	what := "fired 1 request"
	if b.fired > 1 {
		what = "fired " + strconv.Itoa(b.fired) + " requests"
	}
	what += " at " + secs(b.at) + ": "
	var parts []string
	for i, l := range a.lab.Lanes() {
		parts = append(parts, l.Name+" "+b.counts[i].text(a.st))
	}
	what += strings.Join(parts, " · ")
	if _, ok := a.lab.NextRequest(b.at); ok {
		what += " · every later decision recomputed"
	}
	if a.statusErr {
		return // keep the error that stopped it
	}
	a.setStatus(what)
}

// outcomeCount counts the outcomes of one fire action in one lane, for the
// status line.
type outcomeCount [3]int

func (c *outcomeCount) add(o algorithms.Outcome) {
	if int(o) < len(c) {
		c[o]++
	}
}

// text is "✓3 ✗7" (or "✓" alone for a single request).
func (c outcomeCount) text(st *styles) string {
	total := c[0] + c[1] + c[2]
	var parts []string
	for o, n := range c {
		if n == 0 {
			continue
		}
		g := outcomeGlyph(st, algorithms.Outcome(o))
		if total > 1 {
			g += strconv.Itoa(n)
		}
		parts = append(parts, g)
	}
	return strings.Join(parts, " ")
}

// undoLast removes the requests of the last fire action.
func (a *App) undoLast() {
	if len(a.undo) == 0 {
		a.setStatus("nothing to undo: you have fired no request")
		return
	}
	n := a.undo[len(a.undo)-1]
	a.undo = a.undo[:len(a.undo)-1]
	var last model.Request
	for range n {
		r, ok := a.lab.Undo()
		if !ok {
			break
		}
		last = r
	}
	what := "undid 1 request"
	if n > 1 {
		what = "undid " + strconv.Itoa(n) + " requests"
	}
	a.setStatus(what + " at " + secs(last.At) + "; everything after it is recomputed")
}

// verdicts is every lane's verdict on the last request, "fixed ✓ · log ✗".
func (a *App) verdicts() string {
	var parts []string
	for i, l := range a.lab.Lanes() {
		rec, ok := a.lab.LastDecision(i)
		if !ok {
			continue
		}
		parts = append(parts, l.Name+" "+outcomeGlyph(a.st, rec.Decision.Outcome))
	}
	return strings.Join(parts, " · ")
}

// maxSplitScan bounds the requests at one instant that splitText examines
// one by one.
const maxSplitScan = 10000

// splitText says how the lanes disagree at t. With one request there, each
// lane's verdict; with several (a burst at one instant, of which the lanes
// show only the last), how many of them split the lanes (model's
// Disagrees) and each lane's outcomes over them.
func (a *App) splitText(t time.Duration) string {
	lab := a.lab
	lo, hi := lab.Search(t-1), lab.Search(t)
	if hi-lo <= 1 {
		return "the lanes disagree at " + secs(t) + ": " + a.verdicts()
	}
	split, scanned := 0, min(hi, lo+maxSplitScan)
	for i := lo; i < scanned; i++ {
		if lab.Disagrees(i) {
			split++
		}
	}
	of := strconv.Itoa(split)
	if scanned < hi {
		of += "+"
	}
	var parts []string
	for lane, l := range lab.Lanes() {
		tally := lab.Tally(lane, lo, hi)
		var c outcomeCount
		c[algorithms.Allowed], c[algorithms.Delayed], c[algorithms.Rejected] = tally.Allowed, tally.Delayed, tally.Rejected
		parts = append(parts, l.Name+" "+c.text(a.st))
	}
	return "the lanes split on " + of + " of the " + strconv.Itoa(hi-lo) + " requests at " + secs(t) + ": " + strings.Join(parts, " · ")
}
