package ui

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
)

// The lab decides requests as far as the clock needs them. A key that moves
// the clock far ahead on a timeline of millions of requests (G, a leap, d
// searching for a disagreement) would decide them all inside one key press,
// and the screen would freeze: quit and even SIGTERM would wait. So such a
// key becomes a job: the explorer decides requests for about sliceBudget
// per message, draws its progress between slices, and does the key's work
// once the decisions it needs are there. q and ctrl+c quit at once, esc
// gives up.
//
// A slice is sized by time, not by count: a request costs 40 ns on one
// lane and microseconds on a stack of policies, 64 racy gateways or a
// client that retries. The explorer decides in chunks and reads the wall
// clock between them (the model never reads it); the chunks are sized from
// what the last ones of the same kind of work cost (pacer).

// sliceBudget is how long one slice of a job decides requests, and how long
// a key press may decide them before it becomes a job: the screen is drawn
// and keys are read between slices.
const sliceBudget = 20 * time.Millisecond

// pacer times the explorer's long work on the wall clock: it sizes the
// chunks in which the work is done, so that the clock is read often enough
// to stop near a budget. Each kind of work learns its own cost a request:
// deciding the timeline (each decision recorded) and replaying requests
// from a checkpoint toward a pinned key's verdict (nothing recorded, every
// state restored from a checkpoint) cost differently, by up to several
// times with many keys, and one cost learned from both would size each
// kind's first chunk after the other's from the other's cost.
type pacer struct {
	// now is the wall clock; tests replace it.
	now func() time.Time
	// deciding is what deciding the timeline's requests costs (decide);
	// replaying, what replaying them toward a verdict costs (verdict.go);
	// charting, what replaying them for the chart's states costs (chart.go).
	deciding, replaying, charting rate
}

// rate is what one kind of work has cost a request lately.
type rate struct {
	// perRequest is in nanoseconds; 0 before anything was measured.
	perRequest float64
}

// Chunks are at least minChunk requests (a clock read costs far less than
// deciding them) and at most maxChunk.
const (
	minChunk = 256
	maxChunk = 1 << 20
)

// chunk is how many requests to work on before reading the clock again:
// about a quarter of budget's worth.
func (r *rate) chunk(budget time.Duration) int {
	if r.perRequest <= 0 {
		return minChunk
	}
	return int(min(max(float64(budget)/4/r.perRequest, minChunk), maxChunk))
}

// within reports whether working on n requests would take no more than
// budget, at what they have cost lately (at 1 µs a request before any was
// measured).
func (r *rate) within(n int, budget time.Duration) bool {
	cost := r.perRequest
	if cost <= 0 {
		cost = float64(time.Microsecond)
	}
	return float64(n)*cost <= float64(budget)
}

// learn takes in that n requests were worked on in d.
func (r *rate) learn(n int, d time.Duration) {
	if n <= 0 {
		return
	}
	cost := float64(max(d, 0)) / float64(n)
	if r.perRequest <= 0 {
		r.perRequest = cost
		return
	}
	r.perRequest = (r.perRequest + cost) / 2
}

// slice works for about budget, in chunks that r sizes, reading the clock
// between them and teaching r what each cost: step(n) works on at most n
// requests and returns how many it worked on and whether work is left.
// slice stops when no work is left, when a chunk did nothing, or once
// budget has passed; it reports whether no work is left.
func (p *pacer) slice(r *rate, budget time.Duration, step func(n int) (did int, more bool)) bool {
	start := p.now()
	for {
		t0 := p.now()
		did, more := step(r.chunk(budget))
		t1 := p.now()
		r.learn(did, t1.Sub(t0))
		if !more {
			return true
		}
		if did == 0 || t1.Sub(start) >= budget {
			return false
		}
	}
}

// decide has the lab decide requests toward need for about budget (a
// slice of deciding); it reports whether the lab has decided need
// requests.
func (c *programContext) decide(need int, budget time.Duration) bool {
	lab := c.lab
	need = min(need, lab.Len())
	if lab.Computed() >= need {
		return true
	}
	return c.pace.slice(&c.pace.deciding, budget, func(n int) (int, bool) {
		from := lab.Computed()
		lab.ComputeAhead(min(n, need-from))
		return lab.Computed() - from, lab.Computed() < need
	})
}

// job is a key's work waiting for the lab to decide requests up to need:
// the mode in charge while it runs. It takes only its own keys (jobKeys),
// every other key waiting; its progress is in the status line, and it
// draws nothing of its own.
type job struct {
	passThrough
	need int
	then func() tea.Cmd
	what string
	gen  int
	// said is what the status line said when the job began (what the
	// action did), put back when the job ends; saved marks it read.
	said  string
	saved bool
}

// computeMsg asks for the next slice of a job.
type computeMsg struct{ gen int }

// needs is how far the lab must have decided for the lab's key msg to be
// answered at once; 0 when the key moves the clock nowhere ahead.
func (m *labMode) needs(a *App, msg tea.KeyPressMsg) int {
	k, lab := a.keys.Lab, a.lab
	ahead := func(d time.Duration) int { return lab.Search(lab.Now() + d) }
	switch {
	case key.Matches(msg, k.End):
		return lab.Len()
	case key.Matches(msg, k.LeapFwd):
		return ahead(10 * a.step())
	case key.Matches(msg, k.StepFwd):
		return ahead(a.step())
	case key.Matches(msg, k.NextNote):
		if t, ok := a.nextNote(lab.Now()); ok {
			return lab.Search(t)
		}
	case key.Matches(msg, k.NextSplit), key.Matches(msg, k.ToMoment):
		// A search ahead may run to the end.
		return lab.Len()
	}
	return 0
}

// asJob runs the lab's key msg as a job when it needs many more decisions
// than the lab has; it reports whether it did. The job then hands the key
// to the lab again, which answers it at once.
func (m *labMode) asJob(a *App, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	need := m.needs(a, msg)
	if a.decide(need, sliceBudget) {
		return nil, false
	}
	a.play.pause()
	cmd := a.startJob(need, msg.String(), func() tea.Cmd { return m.update(a, msg) })
	a.job.sayProgress(a)
	return cmd, true
}

// startJob makes then a job, the mode in charge until the lab has decided
// need requests; what names it in the progress. It returns the job's first
// slice.
func (a *App) startJob(need int, what string, then func() tea.Cmd) tea.Cmd {
	a.jobGen++
	a.job = &job{need: need, then: then, what: what, gen: a.jobGen}
	return a.job.next()
}

// next schedules the job's next slice, after the screen has been drawn and
// any key read.
func (j *job) next() tea.Cmd {
	gen := j.gen
	return func() tea.Msg { return computeMsg{gen: gen} }
}

// onCompute decides one slice, about sliceBudget of work; when the job has
// what it needs, it does the key's work.
func (a *App) onCompute(m computeMsg) tea.Cmd {
	j := a.job
	if j == nil || m.gen != j.gen {
		return nil // given up, or an older job's
	}
	if !a.decide(j.need, sliceBudget) {
		j.sayProgress(a)
		return j.next()
	}
	a.job = nil
	a.status.set(j.said)
	return j.then()
}

// sayProgress puts the job's progress in the status line, keeping what it
// said before the first time.
func (j *job) sayProgress(a *App) {
	if !j.saved {
		j.said, j.saved = a.status.text, true
	}
	pct := 100 * int64(a.lab.Computed()) / int64(max(j.need, 1))
	a.status.set("deciding requests for " + j.what + ": " + algorithms.Thousands(int64(a.lab.Computed())) + " of " + algorithms.Thousands(int64(j.need)) +
		" (" + strconv.FormatInt(pct, 10) + "%) · " + keysText(a.keys.Job.ShortHelp()...))
}

// update handles a key while the job runs: Quit quits (asking first if
// requests would be lost), GiveUp gives up, any other key waits.
func (j *job) update(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys.Job
	switch {
	case key.Matches(msg, k.Quit):
		a.job = nil
		return a.quit()
	case key.Matches(msg, k.GiveUp):
		a.job = nil
		a.status.set("gave up; the requests decided so far stay decided")
	}
	return nil
}

// parked makes a change that recomputes every decision from an early point
// up to the clock (an undo far back, a new peak window, a reloaded file)
// without freezing the screen: the clock is parked at 0, where there is
// nothing to recompute, the change is made, and the clock goes back to
// where it was (its place, inside an instant too) in slices, as a job
// named what. A timeline decided no further than a slice's worth of
// requests is changed in place.
func (a *App) parked(what string, change func() error) (tea.Cmd, error) {
	at := placeOf(a.lab)
	if a.pace.deciding.within(a.lab.Pos(), sliceBudget) {
		return nil, change()
	}
	start := a.pace.now()
	a.lab.Seek(0)
	if err := change(); err != nil {
		at.seek(a.lab)
		return nil, err
	}
	// The change has its cost (the lanes' state restored from the
	// checkpoint before it: with many keys, tens of milliseconds): the
	// key's first slice of deciding gets what it left of the budget.
	return a.returnWithin(what, at, sliceBudget-a.pace.now().Sub(start)), nil
}

// returnTo brings the clock to at, in slices as a job when the lab must
// decide more than a slice to get there.
func (a *App) returnTo(what string, at place) tea.Cmd {
	return a.returnWithin(what, at, sliceBudget)
}

// returnWithin is returnTo deciding for at most budget before the job
// (none when budget is not positive and the lab must decide more).
func (a *App) returnWithin(what string, at place, budget time.Duration) tea.Cmd {
	need := a.lab.Search(at.t)
	if a.lab.Computed() >= need || budget > 0 && a.decide(need, budget) {
		at.seek(a.lab)
		return nil
	}
	return a.startJob(need, what, func() tea.Cmd { at.seek(a.lab); return nil })
}
