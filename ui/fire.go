package ui

import (
	"errors"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// Bounds of what the fire prompts accept. A burst is one fire action that
// recomputes the timeline once; 100,000 (a tenth of model.MaxBurst) keeps
// the records it returns, one per request per lane, small.
const (
	maxBurst = 100_000
	maxCost  = algorithms.MaxCount // the largest limit or capacity a policy may have
)

// fire sends n requests for the current key from the clock's time, spread
// over spread as a scenario's traffic item places them (all at once when
// spread is 0), as one action that one undo removes. Requests fired before
// later ones are inserted there and everything after them is recomputed.
// The status line says what each lane did with them, once decided: a
// spread reaching over many requests (every key's second, with many keys)
// is decided as a job, in slices.
func (m *labMode) fire(a *App, n int, spread time.Duration) tea.Cmd {
	at := a.lab.Now()
	f, err := a.lab.FireSpreadLater(a.key(), a.cost, n, spread)
	if err != nil {
		a.status.setError(err.Error())
		return nil
	}
	a.changed()
	return m.sayWhenDecided(a, f, n, at, spread)
}

// fireAs fires one request as key (a new client, a second account) and
// pins the lanes to it; model refuses a key a scenario file could not hold.
func (m *labMode) fireAs(a *App, key string) (tea.Cmd, error) {
	at := a.lab.Now()
	f, err := a.lab.FireSpreadLater(key, a.cost, 1, 0)
	if err != nil {
		return nil, err
	}
	a.changed()
	a.pin(key)
	return m.sayWhenDecided(a, f, 1, at, 0), nil
}

// sayWhenDecided says what the lanes did with the fired requests f
// (sayFired) once the lab has decided them: at once when that takes a
// slice at most, else after a job that decides them in slices.
func (m *labMode) sayWhenDecided(a *App, f model.Fired, n int, at, spread time.Duration) tea.Cmd {
	say := func() tea.Cmd {
		if tallies, ok := a.lab.FiredTallies(f); ok {
			m.sayFired(a, f, tallies, n, at, spread)
		}
		return nil
	}
	if a.decide(f.Need, sliceBudget) {
		return say()
	}
	a.play.pause()
	cmd := a.startJob(f.Need, "the "+requestCount(n)+" fired", say)
	a.job.sayProgress(a)
	return cmd
}

// askBurst asks for a burst: how many requests, over how long; the last
// burst's are proposed.
func (m *labMode) askBurst(a *App) tea.Cmd {
	value := strconv.Itoa(m.burstSize)
	if m.burstSpread > 0 {
		value += " " + algorithms.FormatDuration(m.burstSpread)
	}
	return a.openPrompt(&ask{
		prompt: "burst at " + a.secs(a.lab.Now()) + ": how many, over how long? ",
		value:  value,
		submit: func(answer string) (tea.Cmd, error) {
			n, spread, err := parseBurst(answer)
			if err != nil {
				return nil, err
			}
			m.burstSize, m.burstSpread = n, spread
			return m.fire(a, n, spread), nil
		},
	})
}

// parseBurst reads the burst prompt: a count, and optionally a spread over
// which the requests are placed as a traffic item's are ("120 100ms").
func parseBurst(value string) (n int, spread time.Duration, err error) {
	fields := strings.Fields(value)
	bad := errors.New("a burst is a count from 1 to " + strconv.Itoa(maxBurst) + " and an optional spread, such as 120 100ms; not " + strconv.Quote(value))
	if len(fields) < 1 || len(fields) > 2 {
		return 0, 0, bad
	}
	n, err = strconv.Atoi(fields[0])
	if err != nil || n < 1 || n > maxBurst {
		return 0, 0, bad
	}
	if len(fields) == 2 {
		if spread, err = scenarios.ParseDuration(fields[1], false); err != nil {
			return 0, 0, errors.New("spread: " + err.Error())
		}
	}
	return n, spread, nil
}

// askCost asks for the cost of each request fired; a cost some lane can
// never admit is refused, saying which and why.
func (m *labMode) askCost(a *App) tea.Cmd {
	return a.openPrompt(&ask{
		prompt: "cost of each request? ",
		value:  itoa(a.cost),
		submit: func(answer string) (tea.Cmd, error) {
			n, err := parseCost(answer)
			if err != nil {
				return nil, err
			}
			if err := a.lab.CheckCost(n); err != nil {
				return nil, err
			}
			a.cost = n
			a.status.set("each request now costs " + itoa(n))
			return nil, nil
		},
	})
}

// parseCost reads the cost prompt: a whole number from 1 to maxCost.
func parseCost(value string) (int64, error) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 1 || n > maxCost {
		return 0, errors.New("a cost is a whole number from 1 to " + itoa(maxCost) + ", not " + strconv.Quote(value))
	}
	return n, nil
}

// askKey asks for a new key's name and fires one request as it.
func (m *labMode) askKey(a *App) tea.Cmd {
	return a.openPrompt(&ask{
		prompt: "fire one request at " + a.secs(a.lab.Now()) + " as key: ",
		submit: func(answer string) (tea.Cmd, error) {
			if answer == "" {
				return nil, errors.New("type the new key's name, or esc")
			}
			return m.fireAs(a, answer)
		},
	})
}

// sayFired reports a fire action: where, and each lane's outcomes over
// its requests (tallies, by lane).
func (m *labMode) sayFired(a *App, f model.Fired, tallies []model.Tally, n int, at, spread time.Duration) {
	what := "fired " + requestCount(n) + " at " + a.secs(at)
	if spread > 0 {
		what += " over " + a.secs(spread)
	}
	if len(a.lab.Keys()) > 1 {
		what += " (key " + keyText(f.Key) + ")"
	}
	what += ": "
	var parts []string
	for i, l := range a.lab.Lanes() {
		parts = append(parts, l.Name+" "+tallyText(a.st, tallies[i]))
	}
	what += strings.Join(parts, " · ")
	if _, ok := a.lab.NextRequest(f.Last); ok {
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
func (m *labMode) undoLast(a *App) tea.Cmd {
	var u model.Undone
	var ok bool
	cmd, _ := a.parked("undo", func() error { u, ok = a.lab.Undo(); return nil })
	switch {
	case !ok:
		a.status.set("nothing to undo: you have fired no request")
		return cmd
	case u.Reset:
		a.status.set("undid the reset: your " + requestCount(u.N) + " " + agree(u.N, "is", "are") + " back")
	default:
		a.status.set("undid " + requestCount(u.N) + " at " + a.secs(u.Request.At) + "; everything after it is recomputed")
	}
	a.changed()
	return cmd
}

// requestCount is "1 request" or "n requests".
func requestCount(n int) string { return counted(n, "request", "requests") }

// verdicts is every lane's verdict on the last request, "fixed ✓ · log ✗".
func verdicts(st *styles, lab *model.Lab) string {
	var parts []string
	for i, l := range lab.Lanes() {
		rec, ok := lab.LastDecision(i)
		if !ok {
			continue
		}
		parts = append(parts, l.Name+" "+outcomeGlyph(st, rec.Decision.Outcome))
	}
	return strings.Join(parts, " · ")
}

// splitText says how the lanes disagree at t. With one request there, each
// lane's verdict; with several (a burst at one instant), how many of them
// split the lanes and each lane's outcomes over them, as model's SplitAt
// counts them.
func splitText(a *App, t time.Duration) string {
	st, lab := a.st, a.lab
	sp := lab.SplitAt(t)
	if sp.Requests <= 1 {
		return "the lanes disagree at " + a.secs(t) + ": " + verdicts(st, lab)
	}
	of := strconv.Itoa(sp.Disagree)
	if !sp.Complete {
		of += "+"
	}
	var parts []string
	for lane, l := range lab.Lanes() {
		parts = append(parts, l.Name+" "+tallyText(st, sp.Tallies[lane]))
	}
	// Short, so that at 80 columns the lanes' counts are not cut.
	return "split on " + of + " of " + strconv.Itoa(sp.Requests) + " requests at " + a.secs(t) + ": " + strings.Join(parts, " · ")
}
