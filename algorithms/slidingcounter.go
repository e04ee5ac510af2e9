package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// SlidingCounter: aligned windows as FixedWindow, with the previous
// window's admitted cost weighted by the part of a window not yet
// elapsed: estimate = current + previous × (Window − elapsed) / Window.
// Admitted iff estimate + c ≤ Limit, compared exactly. RetryAfter: until
// the estimate, falling as time passes, lets c fit; that may be in the
// next window (current becomes previous) or the one after (both zero).
//
// With SubWindows N > 1 the window is counted in N sub-windows of S =
// Window / N (N must divide Window, at most MaxSubWindows), aligned to t =
// 0: estimate = the N most recent sub-windows' cost (the current one and
// the N − 1 before it) + the cost of the one before them × (S − elapsed in
// the current) / S, admitted iff estimate + c ≤ Limit, compared exactly
// (see subWindowCounter). N = 1, or SubWindows left out, is the rule above.
const SlidingCounter Algorithm = "sliding-counter"

// SubWindowsParam is the sliding counter's number of sub-windows: the
// window is counted in that many equal parts.
var SubWindowsParam = Param{Name: "sub_windows", Kind: Count, Want: "a positive whole number of sub-windows",
	field: func(p *Policy) any { return &p.SubWindows }}

// MaxSubWindows bounds sub_windows: each key keeps sub_windows + 1 counts.
const MaxSubWindows = 1000

// subWindows is p's number of sub-windows, 1 when left out.
func subWindows(p Policy) int64 { return max(p.SubWindows, 1) }

func init() {
	d := windowedDescription(Description{
		Algorithm: SlidingCounter,
		explain:   explainCounter,
		Rule:      "S = window / sub_windows; admitted iff the last sub_windows sub-window counts + the one before × (S − elapsed) / S + c ≤ limit, compared exactly",
		Words: func(p Policy) string {
			if n := subWindows(p); n > 1 {
				return "sliding counter: at most " + strconv.FormatInt(p.Limit, 10) + " per " + FormatSeconds(p.Window) + ", estimated from " + strconv.FormatInt(n+1, 10) + " sub-window counts of " + FormatSeconds(p.Window/time.Duration(n))
			}
			return "sliding counter: at most " + strconv.FormatInt(p.Limit, 10) + " per " + FormatSeconds(p.Window) + ", estimated from two window counts"
		},
		// The oldest sub-window still weighs until one sub-window past a
		// whole window (the previous window, for one sub-window).
		Horizon: func(p Policy) time.Duration { return p.Window + p.Window/time.Duration(subWindows(p)) },
		check: func(p Policy) error {
			if !mulFits(2, int64(p.Window)) {
				return fmt.Errorf("window %s is too large: a sliding counter remembers two windows, at most 2^62 ns", FormatDuration(p.Window))
			}
			if p.SubWindows < 0 || p.SubWindows > MaxSubWindows {
				return fmt.Errorf("sub_windows %d must be from 1 to %d (0, like leaving it out, is 1)", p.SubWindows, MaxSubWindows)
			}
			if n := subWindows(p); int64(p.Window)%n != 0 {
				return fmt.Errorf("window %s is not a whole number of nanoseconds %d times over: sub_windows must divide it", FormatDuration(p.Window), n)
			}
			return nil
		},
		Examples: []Example{
			{Name: "counter", Policy: Policy{Algorithm: SlidingCounter, Limit: 12, Window: time.Second}},
			{Name: "subs", Policy: Policy{Algorithm: SlidingCounter, Limit: 12, Window: 2 * time.Second, SubWindows: 4}},
		},
		Edges: []Policy{
			{Algorithm: SlidingCounter, Limit: 7, Window: time.Second},
			{Algorithm: SlidingCounter, Limit: 3, Window: 700 * time.Millisecond},
			{Algorithm: SlidingCounter, Limit: 1, Window: 3},                                     // a window of 3ns
			{Algorithm: SlidingCounter, Limit: 2, Window: time.Millisecond, SubWindows: 1},       // sub_windows 1: the two-window counter
			{Algorithm: SlidingCounter, Limit: 3, Window: 700 * time.Millisecond, SubWindows: 4}, // sub-windows of 175ms
			{Algorithm: SlidingCounter, Limit: 7, Window: 7 * time.Second, SubWindows: 7},
			{Algorithm: SlidingCounter, Limit: 2, Window: 9, SubWindows: 3}, // sub-windows of 3ns
			{Algorithm: SlidingCounter, Limit: 5, Window: 11 * time.Millisecond, SubWindows: 11},
			{Algorithm: SlidingCounter, Limit: 50, Window: time.Second, SubWindows: MaxSubWindows},
			{Algorithm: SlidingCounter, Limit: 12000, Window: time.Minute, SubWindows: 60},
			{Algorithm: SlidingCounter, Limit: 50_000, Window: 24 * time.Hour, SubWindows: 1000}, // limit × sub-window 4.32e15: near 2^53
		},
		new: func(p Policy, ks *Keys) Limiter {
			if subWindows(p) > 1 {
				return newKeyed[subWindowState](newSubWindowCounter(p), ks)
			}
			return newKeyed[windowCounts](newSlidingCounter(p), ks)
		},
		StateFor: func(p Policy) StateForm {
			if subWindows(p) > 1 {
				return subWindowForm
			}
			return windowCountsForm
		},
	})
	d.Params = append(d.Params, Optional(SubWindowsParam, "a positive whole number of sub-windows dividing the window, at most 1000; 1 (a current and a previous window) if left out"))
	line := d.Line
	d.Line = func(p Policy) string {
		if n := subWindows(p); n > 1 {
			return fmt.Sprintf("%s, %d sub-windows", line(p), n)
		}
		return line(p)
	}
	register(d)
}

// slidingCounter: aligned windows as in the fixed window, but the previous
// window's count still weighs, in proportion to how much of a window ago it
// overlaps the sliding window (now − Window, now]:
//
//	estimate = current + previous × (Window − elapsed) / Window
//
// where elapsed = now − start of the current window, 0 ≤ elapsed < Window. A
// request is admitted iff estimate + cost ≤ Limit, compared exactly as
//
//	previous × (Window − elapsed) ≤ (Limit − current − cost) × Window
//
// after checking current + cost ≤ Limit; then its cost is counted in the
// current window. Each product is at most Limit × Window ≤ 2^62.
//
// If nothing else is admitted, the estimate never rises as time passes, so
// a rejected request fits from some moment on; RetryAfter is the wait until
// the first whole nanosecond at which it does. That may be later in the
// current window, in the next one (where the current count becomes the
// previous one) or at the start of the one after (both counts zero).
type slidingCounter struct {
	p Policy
}

func newSlidingCounter(p Policy) *slidingCounter { return &slidingCounter{p: p} }

func (c *slidingCounter) policy() *Policy { return &c.p }

func (c *slidingCounter) start(now time.Duration) windowCounts { return startWindow(now, c.p.Window) }

// fits reports whether cost fits with counts cur, prev at elapsed e.
func (c *slidingCounter) fits(cur, prev, e, cost int64) bool {
	l, w := c.p.Limit, int64(c.p.Window)
	return cur+cost <= l && prev*(w-e) <= (l-cur-cost)*w
}

// wait is the least x > 0 such that cost fits at elapsed e + x, the counts
// rolling over at the window's end and nothing else admitted, for a cost ≤
// Limit that does not fit at e.
func (c *slidingCounter) wait(cur, prev, e, cost int64) int64 {
	l, w := c.p.Limit, int64(c.p.Window)
	if cur+cost <= l {
		// This window: prev × (w − e − x) ≤ (l − cur − cost) × w. As the
		// request does not fit now, excess > 0 and so prev > 0.
		excess := prev*(w-e) - (l-cur-cost)*w
		if x := ceilDiv(excess, prev); x < w-e {
			return x
		}
	}
	// Next window, elapsed e2 = e + x − w, counts (0, cur):
	// cost × w + cur × (w − e2) ≤ l × w ⟺ cur × e2 ≥ (cost + cur − l) × w.
	excess := (cost + cur - l) * w // ≤ cost × w ≤ l × w: no overflow
	if excess <= 0 {
		return w - e
	}
	if e2 := ceilDiv(excess, cur); e2 < w { // cur > 0 as cost ≤ l
		return w - e + e2
	}
	// The window after: both counts are zero and cost ≤ l fits.
	return 2*w - e
}

func (c *slidingCounter) decide(s *windowCounts, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	*s = s.roll(eff, c.p.Window)
	e := int64(eff) - s.win*int64(c.p.Window)
	d = Decision{At: now, Cost: cost, policy: &c.p, explain: explainSlidingCounter, v: [4]int64{s.cur, s.prev, e, int64(eff)}}
	switch {
	case cost > c.p.Limit:
		d.Outcome, d.RetryAfter = Rejected, Never
	case c.fits(s.cur, s.prev, e, cost):
		d.Outcome = Allowed
		s.cur += cost
	default:
		d.Outcome = Rejected
		d.RetryAfter = time.Duration(c.wait(s.cur, s.prev, e, cost)) + eff - now
	}
	return d
}

// SlidingCounterSnapshot shows the counters and the weighted estimate. The
// window is counted in SubWindows sub-windows of SubWindow each (one of
// Window, the classic current and previous windows, when sub_windows is
// left out).
type SlidingCounterSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// SubWindows is the number N of sub-windows, SubWindow their length
	// Window / N.
	SubWindows int64
	SubWindow  time.Duration
	// Start is the start of the current aligned (sub-)window.
	Start time.Duration
	// Current is the admitted cost in the current sub-window, Middle in the
	// N − 1 whole sub-windows before it (0 when N = 1), and Previous in the
	// oldest one, before those, of which only the share Weight still
	// counts.
	Current, Middle, Previous int64
	// Counts are, when N > 1, the N + 1 sub-windows' counts, oldest
	// (Previous) first, current last; nil when N = 1. The slice is a copy.
	Counts []int64
	// Weight is the oldest sub-window's share still counted: (SubWindow −
	// elapsed) / SubWindow.
	Weight Quantity
	// Estimate is Current + Middle + Previous × Weight, over SubWindow.
	Estimate Quantity
}

func (s SlidingCounterSnapshot) Moment() time.Duration { return s.Now }

func (c *slidingCounter) snapshot(s windowCounts, now time.Duration) Snapshot {
	s = s.roll(max(now, s.last), c.p.Window)
	w := int64(c.p.Window)
	start := s.win * w
	rem := w - (int64(s.last) - start)
	return SlidingCounterSnapshot{
		Now:        s.last,
		Limit:      c.p.Limit,
		Window:     c.p.Window,
		SubWindows: 1,
		SubWindow:  c.p.Window,
		Start:      time.Duration(start),
		Current:    s.cur,
		Previous:   s.prev,
		Weight:     Quantity{rem, w},
		// Every admission keeps the estimate ≤ Limit and it only falls
		// with time, so this is at most Limit × Window ≤ 2^62.
		Estimate: Quantity{s.cur*w + s.prev*rem, w},
	}
}

// recordWords are a sliding counter's words a stack records: both counts
// and its last request's time, whose window is the current one.
func (c *slidingCounter) recordWords() uint8 { return windowCur | windowPrev | windowLast }

func (c *slidingCounter) rebuild(s *windowCounts) { rebuildWindow(s, c.p.Window) }

func (c *slidingCounter) clone(s *windowCounts, _ *mem) windowCounts { return *s }

func (c *slidingCounter) tables(*windowCounts) int64 { return 0 }

func (c *slidingCounter) encode(s *windowCounts) State { return s.encode() }

func (c *slidingCounter) decode(st State, _ *mem) (windowCounts, error) {
	return decodeWindowCounts(st, &c.p, c.fits)
}

// explainCounter words a decision of either sliding counter: in
// sub-windows (explainSubWindows) or of a current and a previous window.
// It is the description's explain, which words a stack's layers.
func explainCounter(b []byte, d Decision) []byte {
	if subWindows(*d.policy) > 1 {
		return explainSubWindows(b, d)
	}
	return explainSlidingCounter(b, d)
}

// explainSlidingCounter: v = {current, previous, elapsed, time decided at}.
func explainSlidingCounter(b []byte, d Decision) []byte {
	// Appended piece by piece, as explainFixedWindow.
	p := d.policy
	cur, prev, e, eff := d.v[0], d.v[1], d.v[2], time.Duration(d.v[3])
	w := int64(p.Window)
	est := cur*w + prev*(w-e) // ≤ Limit × Window, see snapshot; + cost × w may not fit an int64
	b = lateNote(&d, eff).appendTo(b)
	b = estimateTerms(p.Window, cur, prev, e, d.times).appendTo(append(b, "estimate = "...))
	b = exact(est, w).appendTo(append(b, " = "...))
	b = exact(est, w).appendTo(append(b, "; "...))
	b = appendInt(append(b, " + cost "...), d.Cost)
	b = exactN{uint64(est) + uint64(d.Cost*w), w}.appendTo(append(b, " = "...))
	if d.Outcome == Allowed {
		return append(appendInt(append(b, " ≤ limit "...), p.Limit), " → allowed"...)
	}
	// Replay the wait to show the estimate at the retry time.
	x := int64(d.RetryAfter - (eff - d.At))
	switch e2 := e + x; {
	case e2 < w:
		e = e2
	case e2 < 2*w:
		cur, prev, e = 0, cur, e2-w
	default:
		cur, prev, e = 0, 0, e2-2*w
	}
	then := cur*w + prev*(w-e)
	b = appendInt(append(b, " > limit "...), p.Limit)
	b = retryFrom(&d, eff).appendTo(append(b, " → rejected; retry after "...))
	b = estimateTerms(p.Window, cur, prev, e, d.times).appendTo(append(b, ", when estimate = "...))
	b = exact(then, w).appendTo(append(b, " = "...))
	b = exact(then, w).appendTo(append(b, " and "...))
	b = appendInt(append(b, " + cost "...), d.Cost)
	return appendInt(append(b, " ≤ "...), p.Limit)
}

// estimateTerms writes "current + previous × (Window − elapsed)/Window".
//
// It is an argument of appendf, like lateNote.
func estimateTerms(window time.Duration, cur, prev, e int64, t Times) estTerms {
	return estTerms{window, cur, prev, e, t}
}

// estTerms is estimateTerms's text, its times written in the form t.
type estTerms struct {
	window       time.Duration
	cur, prev, e int64
	t            Times
}

func (t estTerms) appendTo(b []byte) []byte {
	b = appendInt(b, t.cur)
	b = appendInt(append(b, " + "...), t.prev)
	b = t.t.seconds(append(b, " × ("...), t.window)
	b = t.t.seconds(append(b, " − "...), time.Duration(t.e))
	return t.t.seconds(append(b, ")/"...), t.window)
}
