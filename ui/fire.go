package ui

import (
	"strconv"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/model"
)

// fire sends n requests for the current key at the clock's time, as one
// action that one undo removes. Requests fired before later ones are
// inserted there and everything after them is recomputed. The status line
// says what each lane did with them.
func (a *App) fire(n int) {
	at := a.lab.Now()
	recs, err := a.lab.FireBurst(a.key(), a.cost, n)
	if err != nil {
		a.setError(err.Error())
		return
	}
	first := recs[0].Index // the burst's requests sit together from here
	what := "fired " + requestCount(n) + " at " + secs(at) + ": "
	var parts []string
	for i, l := range a.lab.Lanes() {
		parts = append(parts, l.Name+" "+tallyText(a.st, a.lab.Tally(i, first, first+n)))
	}
	what += strings.Join(parts, " · ")
	if _, ok := a.lab.NextRequest(at); ok {
		what += " · every later decision recomputed"
	}
	a.setStatus(what)
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

// undoLast removes the requests of the last fire action.
func (a *App) undoLast() {
	r, n := a.lab.Undo()
	if n == 0 {
		a.setStatus("nothing to undo: you have fired no request")
		return
	}
	a.setStatus("undid " + requestCount(n) + " at " + secs(r.At) + "; everything after it is recomputed")
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
		parts = append(parts, l.Name+" "+tallyText(a.st, lab.Tally(lane, lo, hi)))
	}
	// Short, so that at 80 columns the lanes' counts are not cut.
	return "split on " + of + " of " + strconv.Itoa(hi-lo) + " requests at " + secs(t) + ": " + strings.Join(parts, " · ")
}
