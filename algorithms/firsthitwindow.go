package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// FirstHitWindow: express-rate-limit's default MemoryStore (v7 and v8) and
// the Redis pattern INCRBY key c then EXPIRE key window NX (the expiry set
// only when the key is new). Each key's window starts at its first request
// and ends Window later, at its reset time; later requests never move it.
// A request at now with now ≥ reset time (the MemoryStore resets a client
// whose resetTime ≤ Date.now()) finds no window: the count starts again
// from 0 and a new window ends at now + Window. Every request adds its cost
// to the count, a refused one too (the MemoryStore's increment comes
// before the limit is read); it is admitted iff the count after adding c ≤
// Limit (refused when totalHits > limit, with 429). A request whose cost
// exceeds Limit is refused outright and counts nothing (express-rate-limit
// counts 1 a request; a cost is INCRBY's). RetryAfter: until the key's
// window ends (reset time − now), exact in nanoseconds: refused retries
// sooner count but do not move the end. The library's Retry-After header
// is that wait in whole seconds rounded up, ⌈(resetTime − now) / 1000 ms⌉.
// Unlike FixedWindow, whose windows are aligned to t = 0 and shared by
// every key, each key's windows start at its own first request after the
// previous one ended. All integers.
const FirstHitWindow Algorithm = "first-hit-window"

func init() {
	register(windowedDescription(Description{
		Algorithm: FirstHitWindow,
		explain:   explainFirstHit,
		Family:    Library,
		Source:    "express-rate-limit source/memory-store.ts (MemoryStore.increment: reset when resetTime ≤ now, then totalHits++) and source/rate-limit.ts (refused when totalHits > limit, 429; Retry-After ⌈(resetTime − now)/1s⌉ in source/headers.ts); the same as Redis INCR key then EXPIRE key window NX",
		Rule:      "a key's window starts at its first request and ends window later (not moved by later requests); count = 0 once it has ended; count += c on every request, refused ones too; admitted iff count ≤ limit",
		Words: func(p Policy) string {
			return "first-hit window: at most " + strconv.FormatInt(p.Limit, 10) + " per " + FormatSeconds(p.Window) +
				" window starting at each key's first request, refused requests counted too; unlike fixed-window, the windows are the key's own, not aligned to t = 0"
		},
		Examples: []Example{
			{Name: "express", Policy: Policy{Algorithm: FirstHitWindow, Limit: 12, Window: 10 * time.Second}},
		},
		Edges: []Policy{
			{Algorithm: FirstHitWindow, Limit: 5, Window: time.Minute}, // express-rate-limit's defaults: limit 5, windowMs 60000
			{Algorithm: FirstHitWindow, Limit: 7, Window: time.Second},
			{Algorithm: FirstHitWindow, Limit: 3, Window: 700 * time.Millisecond},
			{Algorithm: FirstHitWindow, Limit: 1, Window: time.Millisecond},
			{Algorithm: FirstHitWindow, Limit: 2, Window: 5},                       // a window of 5ns
			{Algorithm: FirstHitWindow, Limit: 1000, Window: time.Hour},            // large
			{Algorithm: FirstHitWindow, Limit: MaxCount, Window: time.Millisecond}, // the largest limit
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[firstHitState](newFirstHitWindow(p), ks) },
		State: firstHitForm,
	}))
}

// firstHitWindow: one counter and the end of its window per key.
type firstHitWindow struct {
	p Policy
}

type firstHitState struct {
	count  int64         // the requests' cost counted since the window started
	resets time.Duration // when the window ends: its first request + Window
	last   time.Duration
}

func newFirstHitWindow(p Policy) *firstHitWindow { return &firstHitWindow{p: p} }

func (f *firstHitWindow) policy() *Policy { return &f.p }

func (f *firstHitWindow) start(now time.Duration) firstHitState {
	return firstHitState{resets: now, last: now}
}

func (f *firstHitWindow) decide(s *firstHitState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	s.last = eff
	count, resets := s.count, s.resets
	if eff >= resets {
		count, resets = 0, eff+f.p.Window
	}
	d = Decision{At: now, Cost: cost, policy: &f.p, explain: explainFirstHit, v: [4]int64{count, int64(resets), int64(eff)}}
	if cost > f.p.Limit {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	// As the resetting window's: saturate a count past 2^62, the decision
	// is a rejection either way.
	s.count, s.resets = min(count+cost, maxScaled), resets
	if s.count <= f.p.Limit {
		d.Outcome = Allowed
		return d
	}
	d.Outcome = Rejected
	d.RetryAfter = resets - now
	return d
}

func (f *firstHitWindow) snapshot(s firstHitState, now time.Duration) Snapshot {
	now = max(now, s.last)
	snap := FirstHitWindowSnapshot{Now: now, Limit: f.p.Limit, Window: f.p.Window}
	if now < s.resets && s.count > 0 {
		snap.Count, snap.Start, snap.ResetsAt = s.count, s.resets-f.p.Window, s.resets
	}
	return snap
}

func (f *firstHitWindow) clone(s *firstHitState, _ *mem) firstHitState { return *s }

func (f *firstHitWindow) tables(*firstHitState) int64 { return 0 }

// firstHitForm: count, the requests' cost counted in the key's window
// (refused ones too); resets, when the window ends, in ns (its first
// request + window); last, the time of the latest request in ns (a late
// request is decided at it). A key whose window has ended by last (resets ≤
// last) decides as no key at all: it is written count 0, resets 0.
var firstHitForm = StateForm{Fields: []string{"count", "resets", "last"}}

func (f *firstHitWindow) encode(s *firstHitState) State {
	if s.resets <= s.last {
		return State{Fields: []int64{0, 0, int64(s.last)}}
	}
	return State{Fields: []int64{s.count, int64(s.resets), int64(s.last)}}
}

// decode rejects an ended window written other than as encode writes it,
// and a live one whose numbers no run makes: a count below 1 (a window
// starts with a counted request of cost ≥ 1) or above its saturation, or a
// window that ends more than a window after last.
func (f *firstHitWindow) decode(st State, _ *mem) (firstHitState, error) {
	v := st.Fields
	s := firstHitState{count: v[0], resets: time.Duration(v[1]), last: time.Duration(v[2])}
	switch {
	case s.last < 0:
		return s, fmt.Errorf("first-hit window state %v: last before t = 0", v)
	case s.resets <= s.last:
		if s.count != 0 || s.resets != 0 {
			return s, fmt.Errorf("first-hit window state %v: an ended window is count 0, resets 0", v)
		}
	case s.count < 1 || s.count > maxScaled || s.resets-s.last > f.p.Window:
		return s, fmt.Errorf("first-hit window state %v out of range", v)
	}
	return s, nil
}

// FirstHitWindowSnapshot shows a key's own window and its count.
type FirstHitWindowSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// Count is the requests' cost counted since Start, the window's first
	// request, refused ones too; ResetsAt is when the window ends (Start +
	// Window). All zero when the key has no window.
	Count    int64
	Start    time.Duration
	ResetsAt time.Duration
}

func (s FirstHitWindowSnapshot) Moment() time.Duration { return s.Now }

// explainFirstHit: v = {count before, when the window ends, time decided
// at}; a count of 0 means the request starts a new window.
func explainFirstHit(b []byte, d Decision) []byte {
	p := d.policy
	count, resets, eff := d.v[0], time.Duration(d.v[1]), time.Duration(d.v[2])
	b = lateNote(&d, eff).appendTo(b)
	if count > 0 { // a live window counted a request of cost ≥ 1
		b = appendf(b, d.times, "window started at %s by the key's first request, ends at %s (not moved by later requests)", secs(resets-p.Window), secs(resets))
	} else {
		b = appendf(b, d.times, "no window (none yet, or the last one ended): one starts now, %s, ending at %s + %s = %s", secs(eff), secs(eff), secs(p.Window), secs(resets))
	}
	b = appendf(b, d.times, "; count %d + cost %d = %d", count, d.Cost, count+d.Cost)
	if d.Outcome == Allowed {
		return appendf(b, d.times, " ≤ limit %d → allowed", p.Limit)
	}
	return appendf(b, d.times, " > limit %d → rejected, counted all the same; retry after %s, when the window ends at %s (Retry-After: whole seconds, rounded up)",
		p.Limit, retryFrom(&d, eff), secs(resets))
}
