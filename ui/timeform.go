package ui

import (
	"slices"
	"time"

	"ratelab/algorithms"
	"ratelab/model"
)

// timeForm is how one lab's screen writes every time and duration: at
// this many decimals of a second (3 to 9; algorithms.AppendSecondsAt), so
// that the clock, a lane's box, its why panel and the status line say the
// same instant the same way.
type timeForm int

const (
	// screenForm is the explorer's usual form: to the millisecond
	// (algorithms.AppendScreenSeconds).
	screenForm timeForm = 3
	// exactForm writes every nanosecond: a scenario that steps by less
	// than a millisecond shows every digit its steps move.
	exactForm timeForm = 9
)

// formBlock is how many requests a lab's form is worked out over, on each
// side of the block the clock is in: a small lesson is read whole, a lab
// of millions only near the clock (the instants its screen shows), at no
// more cost per key than a few thousand requests.
const formBlock = 2048

// formOf is the form of lab's screen at a clock step of step, the clock
// among its requests' block b (of formBlock): every digit when the step is
// under a millisecond; else the fewest decimals, from 3, at which no two
// of the requests of blocks b−1 to b+1 a microsecond or more apart read
// the same (boundary's bursts, 120 in 100ms, need 4: "≈60.0025s" and
// "≈60.0033s", not "≈60.003s" twice), and no more.
func formOf(lab *model.Lab, step time.Duration, b int) timeForm {
	if step%time.Millisecond != 0 {
		return exactForm
	}
	lo, hi := max(b-1, 0)*formBlock, min((b+2)*formBlock, lab.Len())
	var between []time.Duration // the instants off a whole millisecond and their neighbours
	prev := time.Duration(-1)
	for i := lo; i < hi; i++ {
		at := lab.Request(i).At
		if at%time.Millisecond != 0 {
			if prev >= 0 {
				between = append(between, prev)
			}
			between = append(between, at)
			if i+1 < hi {
				between = append(between, lab.Request(i+1).At)
			}
		}
		prev = at
	}
	if len(between) == 0 {
		return screenForm
	}
	slices.Sort(between)
	between = slices.Compact(between)
	f := screenForm
	for f < exactForm && f.collide(between) {
		f++
	}
	return f
}

// collide reports whether two of the sorted instants ts, a microsecond or
// more apart, read the same in form f.
func (f timeForm) collide(ts []time.Duration) bool {
	for i := 1; i < len(ts); i++ {
		if ts[i]-ts[i-1] >= time.Microsecond && algorithms.SecondsAt(ts[i], int(f)) == algorithms.SecondsAt(ts[i-1], int(f)) {
			return true
		}
	}
	return false
}

// secs writes d in form f: "2.0095s", "≈60.0033s".
func (f timeForm) secs(d time.Duration) string {
	return string(algorithms.AppendSecondsAt(nil, d, int(f)))
}

// explain is decision d's explanation with its times in form f (or with
// more decimals where two of its own times would read the same).
func (f timeForm) explain(d algorithms.Decision) string {
	return string(d.AppendExplainTimes(nil, algorithms.TimesAt(int(f))))
}

// form is the form of the shown lab's screen, worked out again only when
// its requests or its step change, or the clock moves to another block of
// requests.
func (c *programContext) form() timeForm {
	k := formKey{c.lab, c.lab.Len(), c.lab.FiredCount(), c.step(), c.lab.Pos() / formBlock}
	if c.formFor != k {
		c.formFor, c.timeForm = k, formOf(c.lab, k.step, k.block)
	}
	return c.timeForm
}

// formKey is what a lab's form depends on.
type formKey struct {
	lab        *model.Lab
	len, fired int
	step       time.Duration
	block      int
}

// secs writes d as the shown lab's screen writes every time (form).
func (c *programContext) secs(d time.Duration) string { return c.form().secs(d) }
