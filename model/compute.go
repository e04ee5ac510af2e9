package model

// Computing ahead. The lab decides requests lazily, as far as the clock (or
// a query) needs; a screen that must stay responsive on a timeline of
// millions of requests computes ahead in slices between its frames instead
// of all at once inside one key press.

// Computed is how many requests, from the first, have their decisions
// computed: a seek or a query up to there costs at most one checkpoint's
// replay, beyond it it costs the computing of every request in between.
func (l *Lab) Computed() int { return l.computed }

// ComputeAhead computes the decisions of at most n more requests (n < 1
// computes none) and returns Computed.
func (l *Lab) ComputeAhead(n int) int {
	if n > 0 {
		l.ensure(min(l.computed+n, l.tl.len()))
	}
	return l.computed
}
