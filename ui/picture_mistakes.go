package ui

import (
	"ratelab/algorithms"
)

// The mistake lanes' pictures: each draws its state as its twin's picture
// would, and names, in a muted line, what it does wrong.

func init() {
	register(algorithms.FloatTokenBucket, floatBucketPicture{})
	register(algorithms.WholeTokenBucket, wholeBucketPicture{})
	register(algorithms.AttemptLog, attemptLogPicture{})
	register(algorithms.CollapsingLog, collapsingLogPicture{})
	register(algorithms.ResettingWindow, resettingWindowPicture{})
}

// floatBucketPicture shows the float64 balance with every digit it holds,
// and beside it the exact balance after the same admissions.
type floatBucketPicture struct{}

func (floatBucketPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.FloatTokenBucketSnapshot)
	tokens := algorithms.FormatFloat(s.Tokens)
	count := gaugeLine(st, s.Tokens/float64(max(s.Capacity, 1)), tokens+" of "+itoa(s.Capacity)+" (float64)", w)
	exact := "exact, same history: " + qty(s.Exact)
	if n == 2 {
		return []string{count, exact}
	}
	return []string{
		count,
		exact,
		"refill " + s.Rate.String() + " · now = ns / 1e9",
		st.muted.Render("admit if float64 tokens ≥ cost"),
		st.muted.Render("rounding can fall a hair short"),
	}
}

func (floatBucketPicture) row(v laneView) (float64, string) {
	s := v.snap.(algorithms.FloatTokenBucketSnapshot)
	return s.Tokens / float64(max(s.Capacity, 1)), algorithms.FormatFloat(s.Tokens) + "/" + itoa(s.Capacity) + " f64"
}

func (floatBucketPicture) titles(p algorithms.Policy) []string {
	return sizedTitles(p, "cap", p.Capacity)
}

func (floatBucketPicture) glossary(algorithms.Policy) []string {
	return []string{"float-token-bucket: the lesson's admit() in float64, seconds as ns / 1e9; \"exact, same history\" is what exact arithmetic holds after the same admissions, so a difference is rounding, not time."}
}

// wholeBucketPicture shows the whole tokens, what a request now would add
// and drop, and what was dropped so far.
type wholeBucketPicture struct{}

func (wholeBucketPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.WholeTokenBucketSnapshot)
	count := gaugeLine(st, fraction(s.Tokens, s.Capacity), itoa(s.Tokens)+" of "+itoa(s.Capacity)+" whole tokens", w)
	next := "a request now: " + itoa(s.Next)
	if s.Pending.Num > 0 {
		next += ", drops " + qty(s.Pending)
	}
	if n == 2 {
		return []string{count, next}
	}
	return []string{
		count,
		next,
		"dropped so far " + qty(s.Lost) + " · refill " + s.Rate.String(),
		st.muted.Render("refill rounded down to whole tokens"),
		st.muted.Render("the clock moves on: fractions lost"),
	}
}

func (wholeBucketPicture) row(v laneView) (float64, string) {
	s := v.snap.(algorithms.WholeTokenBucketSnapshot)
	return fraction(s.Tokens, s.Capacity), itoa(s.Tokens) + "/" + itoa(s.Capacity) + " whole"
}

func (wholeBucketPicture) titles(p algorithms.Policy) []string {
	return sizedTitles(p, "cap", p.Capacity)
}

func (wholeBucketPicture) glossary(algorithms.Policy) []string {
	return []string{"whole-token-bucket: refill rounded down to whole tokens at each request, the clock moved on anyway; \"dropped\" is the refill it threw away."}
}

// attemptLogPicture shows the attempts of the trailing window, rejected
// ones too, as a strip, and how few of them were admitted.
type attemptLogPicture struct{}

func (attemptLogPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.AttemptLogSnapshot)
	count := gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+" of "+itoa(s.Limit)+" attempts in "+v.secs(s.Window), w)
	strip := logStrip(st, algorithms.SlidingLogSnapshot{Now: s.Now, Window: s.Window, Entries: s.Attempts}, w-2)
	if n == 2 {
		return []string{count, strip}
	}
	oldest := "log empty"
	if s.Count > 0 {
		oldest = "oldest leaves at " + v.secs(s.OldestExpiresAt)
	}
	return []string{
		count,
		strip,
		itoa(s.Admitted) + " admitted · " + oldest,
		st.muted.Render("admit if attempts + cost ≤ " + itoa(s.Limit)),
		st.muted.Render("rejected attempts are logged too"),
	}
}

func (attemptLogPicture) row(v laneView) (float64, string) {
	s := v.snap.(algorithms.AttemptLogSnapshot)
	return fraction(s.Count, s.Limit), itoa(s.Count) + "/" + itoa(s.Limit) + " tried"
}

func (attemptLogPicture) titles(p algorithms.Policy) []string { return windowTitles(p) }

func (attemptLogPicture) glossary(algorithms.Policy) []string {
	return []string{"attempt-log: a sliding log that logs rejected requests too, so a client that keeps retrying keeps its own window full."}
}

// collapsingLogPicture shows the set's members, one per millisecond, and
// how many admissions added none.
type collapsingLogPicture struct{}

func (collapsingLogPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.CollapsingLogSnapshot)
	count := gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+" of "+itoa(s.Limit)+" members in "+v.secs(s.Window), w)
	strip := logStrip(st, algorithms.SlidingLogSnapshot{Now: s.Now, Window: s.Window, Entries: s.Members}, w-2)
	if n == 2 {
		return []string{count, strip}
	}
	return []string{
		count,
		strip,
		counted(s.Collapsed, "admission", "admissions") + " added no member",
		st.muted.Render("member = the time in ms"),
		st.muted.Render("one ms holds one member"),
	}
}

func (collapsingLogPicture) row(v laneView) (float64, string) {
	s := v.snap.(algorithms.CollapsingLogSnapshot)
	return fraction(s.Count, s.Limit), itoa(s.Count) + "/" + itoa(s.Limit) + " members"
}

func (collapsingLogPicture) titles(p algorithms.Policy) []string { return windowTitles(p) }

func (collapsingLogPicture) glossary(algorithms.Policy) []string {
	return []string{"collapsing-log: a sorted-set log whose member is the millisecond of the admission; admissions in a millisecond already in the set add nothing and are never counted."}
}

// resettingWindowPicture shows the counter and an expiry that every attempt
// pushes back.
type resettingWindowPicture struct{}

func (resettingWindowPicture) state(st *styles, v laneView, w, n int) []string {
	s := v.snap.(algorithms.ResettingWindowSnapshot)
	count := gaugeLine(st, fraction(s.Count, s.Limit), itoa(s.Count)+" of "+itoa(s.Limit)+" counted", w)
	key := "no key: the count starts at 0"
	if s.ExpiresAt > 0 {
		key = "expires at " + v.secs(s.ExpiresAt) + " · since " + v.secs(s.Since)
	}
	if n == 2 {
		return []string{count, key}
	}
	return []string{
		count,
		key,
		"unless an attempt comes first",
		st.muted.Render("admit if count + cost ≤ " + itoa(s.Limit)),
		st.muted.Render("every attempt resets the expiry"),
	}
}

func (resettingWindowPicture) row(v laneView) (float64, string) {
	s := v.snap.(algorithms.ResettingWindowSnapshot)
	return fraction(s.Count, s.Limit), itoa(s.Count) + "/" + itoa(s.Limit) + " counted"
}

func (resettingWindowPicture) titles(p algorithms.Policy) []string { return windowTitles(p) }

func (resettingWindowPicture) glossary(algorithms.Policy) []string {
	return []string{"resetting-window: INCR then EXPIRE on every attempt, rejected ones too; the key lives until a whole window passes with no attempt, so it is not a clock window."}
}
