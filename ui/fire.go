package ui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
	"ratelab/model"
)

// fire sends n requests for the current key from the clock's time, spread
// over spread as a scenario's traffic item places them (all at once when
// spread is 0), as one action that one undo removes. Requests fired before
// later ones are inserted there and everything after them is recomputed.
// The status line says what each lane did with them.
func (a *App) fire(n int, spread time.Duration) {
	at := a.lab.Now()
	recs, err := a.lab.FireSpread(a.key(), a.cost, n, spread)
	if err != nil {
		a.status.setError(err.Error())
		return
	}
	a.dirty = true
	a.sayFired(recs, n, at, spread)
}

// fireAs fires one request as key (a new client, a second account) and
// pins the lanes to it; model refuses a key a scenario file could not hold.
func (a *App) fireAs(key string) error {
	at := a.lab.Now()
	recs, err := a.lab.FireSpread(key, a.cost, 1, 0)
	if err != nil {
		return err
	}
	a.dirty = true
	a.pin(key)
	a.sayFired(recs, 1, at, 0)
	return nil
}

// sayFired reports a fire action: where, and each lane's outcomes.
func (a *App) sayFired(recs []model.Record, n int, at, spread time.Duration) {
	what := "fired " + requestCount(n) + " at " + secs(at)
	if spread > 0 {
		what += " over " + secs(spread)
	}
	if len(a.lab.Keys()) > 1 {
		what += " (key " + keyText(recs[0].Request.Key) + ")"
	}
	what += ": "
	// A spread action's requests may lie between others: count its own
	// records, not a range of the timeline.
	tallies := make([]model.Tally, len(a.lab.Lanes()))
	for _, r := range recs {
		t := &tallies[r.Lane]
		switch r.Decision.Outcome {
		case algorithms.Allowed:
			t.Allowed++
		case algorithms.Delayed:
			t.Delayed++
		default:
			t.Rejected++
		}
	}
	var parts []string
	for i, l := range a.lab.Lanes() {
		parts = append(parts, l.Name+" "+tallyText(a.st, tallies[i]))
	}
	what += strings.Join(parts, " · ")
	if _, ok := a.lab.NextRequest(recs[len(recs)-1].Request.At); ok {
		what += " · every later decision recomputed"
	}
	a.status.set(what)
}

// tallyText is "✓3 ✗7" (or "✓" alone for a single request).
func tallyText(st *styles, t model.Tally) string {
	var parts []string
	for _, c := range []struct {
		o algorithms.Outcome
		n int
	}{{algorithms.Allowed, t.Allowed}, {algorithms.Delayed, t.Delayed}, {algorithms.Rejected, t.Rejected}} {
		if c.n == 0 {
			continue
		}
		g := outcomeGlyph(st, c.o)
		if t.Total() > 1 {
			g += strconv.Itoa(c.n)
		}
		parts = append(parts, g)
	}
	return strings.Join(parts, " ")
}

// undoLast removes the requests of the last fire action, or undoes a
// reset.
func (a *App) undoLast() tea.Cmd {
	var u model.Undone
	var ok bool
	cmd, _ := a.parked("undo", func() error { u, ok = a.lab.Undo(); return nil })
	switch {
	case !ok:
		a.status.set("nothing to undo: you have fired no request")
		return cmd
	case u.Reset:
		a.status.set("undid the reset: your " + requestCount(u.N) + " are back")
	default:
		a.status.set("undid " + requestCount(u.N) + " at " + secs(u.Request.At) + "; everything after it is recomputed")
	}
	a.dirty = true
	return cmd
}

// requestCount is "1 request" or "n requests".
func requestCount(n int) string {
	if n == 1 {
		return "1 request"
	}
	return strconv.Itoa(n) + " requests"
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

// splitText says how the lanes disagree at t. With one request there, each
// lane's verdict; with several (a burst at one instant), how many of them
// split the lanes and each lane's outcomes over them, as model's SplitAt
// counts them.
func (a *App) splitText(t time.Duration) string {
	sp := a.lab.SplitAt(t)
	if sp.Requests <= 1 {
		return "the lanes disagree at " + secs(t) + ": " + a.verdicts()
	}
	of := strconv.Itoa(sp.Disagree)
	if !sp.Complete {
		of += "+"
	}
	var parts []string
	for lane, l := range a.lab.Lanes() {
		parts = append(parts, l.Name+" "+tallyText(a.st, sp.Tallies[lane]))
	}
	// Short, so that at 80 columns the lanes' counts are not cut.
	return "split on " + of + " of " + strconv.Itoa(sp.Requests) + " requests at " + secs(t) + ": " + strings.Join(parts, " · ")
}
