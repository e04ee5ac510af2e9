package algorithms

import (
	"strconv"
	"time"
)

// FixedWindow: windows [k × Window, (k+1) × Window) aligned to t = 0.
// Admitted iff the cost admitted in now's window + c ≤ Limit.
// RetryAfter: until the next window starts.
const FixedWindow Algorithm = "fixed-window"

func init() {
	register(windowedDescription(Description{
		Algorithm: FixedWindow,
		explain:   explainFixedWindow,
		Rule:      "windows aligned to t=0 (index ⌊now/window⌋); admitted iff the cost admitted in now's window + c ≤ limit",
		Words: func(p Policy) string {
			return "fixed window: at most " + strconv.FormatInt(p.Limit, 10) + " per clock-aligned " + FormatSeconds(p.Window) + " window"
		},
		Examples: []Example{
			{Name: "fixed", Policy: Policy{Algorithm: FixedWindow, Limit: 12, Window: 10 * time.Second}},
		},
		Edges: []Policy{
			{Algorithm: FixedWindow, Limit: 7, Window: time.Second},
			{Algorithm: FixedWindow, Limit: 3, Window: 700 * time.Millisecond},
			{Algorithm: FixedWindow, Limit: 1, Window: 3},                       // a window of 3ns: every request rolls
			{Algorithm: FixedWindow, Limit: 2, Window: time.Millisecond},        // tiny
			{Algorithm: FixedWindow, Limit: 1000, Window: 24 * time.Hour},       // large
			{Algorithm: FixedWindow, Limit: MaxCount, Window: time.Millisecond}, // the largest limit
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[windowCounts](newFixedWindow(p), ks) },
		State: windowCountsForm,
	}))
}

// fixedWindow: time is cut into windows [k×Window, (k+1)×Window) aligned to
// t = 0, each with its own counter of admitted cost. A request is admitted
// iff count + cost ≤ Limit; then its cost is counted. A rejection counts
// nothing. A rejected request fits again when the next window starts.
type fixedWindow struct {
	p Policy
}

func newFixedWindow(p Policy) *fixedWindow { return &fixedWindow{p: p} }

func (f *fixedWindow) policy() *Policy { return &f.p }

func (f *fixedWindow) start(now time.Duration) windowCounts { return startWindow(now, f.p.Window) }

func (f *fixedWindow) decide(s *windowCounts, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	*s = s.roll(eff, f.p.Window)
	w := int64(f.p.Window)
	start := s.win * w
	d = Decision{At: now, Cost: cost, policy: &f.p, explain: explainFixedWindow, v: [4]int64{start, s.cur, int64(eff)}}
	switch {
	case cost > f.p.Limit:
		d.Outcome, d.RetryAfter = Rejected, Never
	case s.cur+cost <= f.p.Limit:
		d.Outcome = Allowed
		s.cur += cost
	default:
		d.Outcome = Rejected
		// start of the next window − now, as Window − elapsed so that it
		// cannot overflow near the end of time.
		d.RetryAfter = time.Duration(w-(int64(eff)-start)) + eff - now
	}
	return d
}

// FixedWindowSnapshot shows the current aligned window's counter.
type FixedWindowSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// Start and End bound the current window [Start, End).
	Start, End time.Duration
	// Count is the admitted cost in the current window, Previous in the one
	// before it.
	Count, Previous int64
}

func (s FixedWindowSnapshot) Moment() time.Duration { return s.Now }

func (f *fixedWindow) snapshot(s windowCounts, now time.Duration) Snapshot {
	s = s.roll(max(now, s.last), f.p.Window)
	start := time.Duration(s.win * int64(f.p.Window))
	return FixedWindowSnapshot{
		Now:      s.last,
		Limit:    f.p.Limit,
		Window:   f.p.Window,
		Start:    start,
		End:      start + f.p.Window,
		Count:    s.cur,
		Previous: s.prev,
	}
}

// recordWords are a fixed window's words a stack records: its count and
// its last request's time. Its decision never reads the previous count
// (only its snapshot shows it), and the window is last's.
func (f *fixedWindow) recordWords() uint8 { return windowCur | windowLast }

func (f *fixedWindow) rebuild(s *windowCounts) { rebuildWindow(s, f.p.Window) }

func (f *fixedWindow) clone(s *windowCounts, _ *mem) windowCounts { return *s }

func (f *fixedWindow) tables(*windowCounts) int64 { return 0 }

func (f *fixedWindow) encode(s *windowCounts) State { return s.encode() }

func (f *fixedWindow) decode(st State, _ *mem) (windowCounts, error) {
	return decodeWindowCounts(st, &f.p, nil)
}

// explainFixedWindow: v = {window start, count before, time decided at}.
func explainFixedWindow(b []byte, d Decision) []byte {
	// Appended piece by piece rather than through appendf: the million's
	// lanes explain every request in `run --format table` and `json`.
	p := d.policy
	start, count, eff := time.Duration(d.v[0]), d.v[1], time.Duration(d.v[2])
	end := start + p.Window
	b = lateNote(&d, eff).appendTo(b)
	b = d.times.seconds(append(b, "window ["...), start)
	b = d.times.seconds(append(b, ", "...), end)
	b = appendInt(append(b, "): count "...), count)
	b = appendInt(append(b, " + cost "...), d.Cost)
	b = appendInt(append(b, " = "...), count+d.Cost)
	if d.Outcome == Allowed {
		return append(appendInt(append(b, " ≤ limit "...), p.Limit), " → allowed"...)
	}
	b = appendInt(append(b, " > limit "...), p.Limit)
	b = d.times.seconds(append(b, " → rejected; retry after "...), end)
	b = d.times.seconds(append(b, " − "...), d.At)
	return d.times.seconds(append(b, " = "...), d.RetryAfter)
}
