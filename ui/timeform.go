package ui

import (
	"slices"
	"strconv"
	"time"

	"ratelab/algorithms"
	"ratelab/model"
)

// timeForm is how one lab's screen writes every time and duration: with
// at most this many decimals of a second (3 to 9), so that the clock, a
// lane's box, its why panel and the status line say the same instant the
// same way. A time with no more decimals than that is written exactly; one
// under a second and a whole number of microseconds, or under a
// millisecond, too (so that "0.0015s" and a nanosecond still show, as
// AppendScreenSeconds does); any other rounded to them with "≈".
type timeForm int

const (
	// screenForm is the explorer's usual form: to the millisecond
	// (AppendScreenSeconds), its explanations in algorithms.ScreenTimes.
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
		if ts[i]-ts[i-1] >= time.Microsecond && f.shown(ts[i]) == f.shown(ts[i-1]) {
			return true
		}
	}
	return false
}

// unit is the nanoseconds of the last decimal of f.
func (f timeForm) unit() time.Duration {
	u := time.Duration(1)
	for range exactForm - f {
		u *= 10
	}
	return u
}

// exact reports whether f writes d with every digit.
func (f timeForm) exact(d time.Duration) bool {
	small := d > -time.Second && d < time.Second
	return d%f.unit() == 0 || small && d%time.Microsecond == 0 || d > -time.Millisecond && d < time.Millisecond
}

// shown is the value f writes for d.
func (f timeForm) shown(d time.Duration) time.Duration {
	if f.exact(d) {
		return d
	}
	return d.Round(f.unit())
}

// secs writes d in form f: "2.0095s", "≈60.0033s".
func (f timeForm) secs(d time.Duration) string { return string(f.appendSecs(nil, d, false)) }

// appendSecs appends d in form f; near marks d as the nearest nanosecond
// of a fraction of one, never exact.
func (f timeForm) appendSecs(b []byte, d time.Duration, near bool) []byte {
	switch {
	case f <= screenForm && !near:
		return algorithms.AppendScreenSeconds(b, d)
	case f >= exactForm:
		if near {
			b = append(b, "≈"...)
		}
		return algorithms.AppendSeconds(b, d)
	case f.exact(d) && !near:
		return algorithms.AppendSeconds(b, d)
	}
	return algorithms.AppendSeconds(append(b, "≈"...), f.shown(d))
}

// explain is decision d's explanation with its times in form f: the
// algorithms' screen form for the usual one, every digit for exactForm,
// and between them the exact text with each time rewritten in f.
func (f timeForm) explain(d algorithms.Decision) string {
	switch f {
	case screenForm:
		return string(d.AppendExplainTimes(nil, algorithms.ScreenTimes))
	case exactForm:
		return string(d.AppendExplainTimes(nil, algorithms.ExactTimes))
	}
	return f.rewrite(d.AppendExplainTimes(nil, algorithms.ExactTimes))
}

// rewrite writes every time of an exact explanation ("60.003333333s",
// "≈0.333333333s": digits, an optional fraction and "s", not inside a
// word or a number) in form f.
func (f timeForm) rewrite(text []byte) string {
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		j, d, ok := timeAt(text, i)
		if !ok {
			out = append(out, text[i])
			i++
			continue
		}
		near := len(out) >= len("≈") && string(out[len(out)-len("≈"):]) == "≈"
		if near {
			out = out[:len(out)-len("≈")]
		}
		out = f.appendSecs(out, d, near)
		i = j
	}
	return string(out)
}

// timeAt reads a time written by algorithms.AppendSeconds at text[i:]:
// its end and its value, ok false when none starts there.
func timeAt(text []byte, i int) (end int, d time.Duration, ok bool) {
	if !isDigit(text[i]) || i > 0 && (isDigit(text[i-1]) || isLetter(text[i-1]) || text[i-1] == '.') {
		return 0, 0, false
	}
	j := i
	for j < len(text) && isDigit(text[j]) {
		j++
	}
	whole, err := strconv.ParseInt(string(text[i:j]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	var frac int64
	if j+1 < len(text) && text[j] == '.' && isDigit(text[j+1]) {
		k := j + 1
		for k < len(text) && isDigit(text[k]) {
			k++
		}
		if k-j-1 > 9 {
			return 0, 0, false
		}
		frac, _ = strconv.ParseInt(string(text[j+1:k]), 10, 64)
		for range 9 - (k - j - 1) {
			frac *= 10
		}
		j = k
	}
	if j >= len(text) || text[j] != 's' || j+1 < len(text) && isLetter(text[j+1]) {
		return 0, 0, false
	}
	return j + 1, time.Duration(whole)*time.Second + time.Duration(frac), true
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

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
