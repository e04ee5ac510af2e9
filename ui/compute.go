package ui

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The lab decides requests as far as the clock needs them. A key that moves
// the clock far ahead on a timeline of millions of requests (G, a leap, d
// searching for a disagreement) would decide them all inside one key press,
// and the screen would freeze: quit and even SIGTERM would wait. So such a
// key becomes a job: the explorer decides computeSlice requests per
// message, draws its progress between slices, and does the key's work once
// the decisions it needs are there. q and ctrl+c quit at once, esc gives up.

// computeSlice is how many requests one slice decides: about 20 ms of work
// for six lanes on this project's machine, so keys are answered between
// slices.
const computeSlice = 50_000

// job is a key's work waiting for the lab to decide requests up to need.
type job struct {
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

// needs is how far the lab must have decided for key msg to be answered at
// once; 0 when the key moves the clock nowhere ahead.
func (a *App) needs(msg tea.KeyPressMsg) int {
	k, lab := a.keys, a.lab
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

// asJob runs the key as a job when it needs many more decisions than the
// lab has; it reports whether it did.
func (a *App) asJob(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	need := a.needs(msg)
	if need-a.lab.Computed() <= computeSlice {
		return nil, false
	}
	a.play.pause()
	a.jobGen++
	a.job = &job{need: need, then: func() tea.Cmd { return a.mainKey(msg) }, what: msg.String(), gen: a.jobGen}
	a.sayProgress()
	return a.nextSlice(), true
}

// nextSlice schedules the job's next slice, after the screen has been
// drawn and any key read.
func (a *App) nextSlice() tea.Cmd {
	gen := a.jobGen
	return func() tea.Msg { return computeMsg{gen: gen} }
}

// onCompute decides one slice; when the job has what it needs, it does the
// key's work.
func (a *App) onCompute(m computeMsg) tea.Cmd {
	j := a.job
	if j == nil || m.gen != j.gen {
		return nil // given up, or an older job's
	}
	if a.lab.ComputeAhead(computeSlice) < j.need {
		a.sayProgress()
		return a.nextSlice()
	}
	a.job = nil
	a.status.set(j.said)
	return j.then()
}

// sayProgress puts the job's progress in the status line.
func (a *App) sayProgress() {
	j := a.job
	if !j.saved {
		j.said, j.saved = a.status.text, true
	}
	pct := 100 * int64(a.lab.Computed()) / int64(max(j.need, 1))
	a.status.set("deciding requests for " + j.what + ": " + commas(a.lab.Computed()) + " of " + commas(j.need) +
		" (" + strconv.FormatInt(pct, 10) + "%) · esc gives up · q quits")
}

// jobKey handles a key while a job runs: q quits (asking first if
// requests would be lost), esc gives up, any other key waits.
func (a *App) jobKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, a.keys.Quit):
		a.job = nil
		return a.discard("quit", func() tea.Cmd { return tea.Quit })
	case key.Matches(msg, a.keys.Close):
		a.job = nil
		a.status.set("gave up; the requests decided so far stay decided")
	}
	return nil
}

// commas writes n with thousands separators: 20,000,000.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// parked makes a change that recomputes every decision from an early point
// up to the clock (an undo far back, a new peak window, a reloaded file)
// without freezing the screen: the clock is parked at 0, where there is
// nothing to recompute, the change is made, and the clock goes back to
// where it was in slices, as a job named what. A timeline decided no
// further than a slice is changed in place.
func (a *App) parked(what string, change func() error) (tea.Cmd, error) {
	t := a.lab.Now()
	if a.lab.Pos() <= computeSlice {
		return nil, change()
	}
	a.lab.Seek(0)
	if err := change(); err != nil {
		a.lab.Seek(t)
		return nil, err
	}
	return a.returnTo(what, t), nil
}

// returnTo brings the clock to t, in slices as a job when the lab must
// decide more than a slice to get there.
func (a *App) returnTo(what string, t time.Duration) tea.Cmd {
	need := a.lab.Search(t)
	if need-a.lab.Computed() <= computeSlice {
		a.lab.Seek(t)
		return nil
	}
	a.jobGen++
	a.job = &job{need: need, then: func() tea.Cmd { a.lab.Seek(t); return nil }, what: what, gen: a.jobGen}
	return a.nextSlice()
}
