package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// ResettingWindow: a counter kept as INCRBY key c then EXPIRE key Window on
// every attempt, rejected ones too. The key is gone at Window after the
// latest attempt (at exactly that time it has expired, ratelab's boundary
// convention, as for the sliding log; Redis keeps a key through the
// millisecond its expiry names), which starts the
// count again from 0. Admitted iff the count after adding c ≤ Limit (a
// request whose cost exceeds Limit is refused outright and counts nothing).
// The "window" is the time since the latest attempt, not a clock window: a
// client that calls at least once per Window never sees it end.
// RetryAfter: Window (from the decision), the first time the key has
// expired if nothing else came; each retry sooner counts and pushes the
// expiry out by a whole Window.
const ResettingWindow Algorithm = "resetting-window"

func init() {
	register(windowedDescription(Description{
		Algorithm: ResettingWindow,
		explain:   explainResetting,
		Family:    Mistake,
		Twin:      FixedWindow,
		Source:    "a Redis fixed-window counter that calls INCR then EXPIRE on every attempt, resetting the expiry each time, as the lesson warns against",
		Rule:      "count = 0 if window has passed since the latest attempt; count += c and the expiry is reset to now + window on every attempt; admitted iff count ≤ limit",
		Words: func(p Policy) string {
			return "resetting window: at most " + strconv.FormatInt(p.Limit, 10) + " attempts until " + FormatSeconds(p.Window) + " pass with none, the expiry pushed back by every attempt"
		},
		Examples: []Example{
			{Name: "resetting", Policy: Policy{Algorithm: ResettingWindow, Limit: 12, Window: 10 * time.Second}},
		},
		Edges: []Policy{
			{Algorithm: ResettingWindow, Limit: 7, Window: time.Second},
			{Algorithm: ResettingWindow, Limit: 3, Window: 700 * time.Millisecond},
			{Algorithm: ResettingWindow, Limit: 1, Window: time.Millisecond},
			{Algorithm: ResettingWindow, Limit: 2, Window: 5},                       // a window of 5ns
			{Algorithm: ResettingWindow, Limit: 1000, Window: time.Hour},            // large
			{Algorithm: ResettingWindow, Limit: MaxCount, Window: time.Millisecond}, // the largest limit
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[resettingState](newResettingWindow(p), ks) },
		State: resettingForm,
	}))
}

// resettingWindow: one counter and its expiry per key.
type resettingWindow struct {
	p Policy
}

type resettingState struct {
	count   int64         // the counter, attempts' cost since the key was made
	expires time.Duration // when the key is gone: the latest attempt + Window
	last    time.Duration
	since   time.Duration // when the key was made: the first attempt of this run
}

func newResettingWindow(p Policy) *resettingWindow { return &resettingWindow{p: p} }

func (r *resettingWindow) policy() *Policy { return &r.p }

func (r *resettingWindow) start(now time.Duration) resettingState {
	return resettingState{last: now, expires: now, since: now}
}

func (r *resettingWindow) decide(s *resettingState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	s.last = eff
	count, lived := s.count, eff < s.expires
	if !lived {
		count, s.since = 0, eff
	}
	d = Decision{At: now, Cost: cost, policy: &r.p, explain: explainResetting, v: [4]int64{count, int64(s.expires), int64(eff), int64(s.since)}}
	if cost > r.p.Limit {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	// count ≤ MaxCount × attempts would need 2^22 attempts of the largest
	// cost to pass 2^62: saturate, the decision is a rejection either way.
	s.count = min(count+cost, maxScaled)
	s.expires = eff + r.p.Window
	if s.count <= r.p.Limit {
		d.Outcome = Allowed
		return d
	}
	d.Outcome = Rejected
	d.RetryAfter = r.p.Window + eff - now
	return d
}

func (r *resettingWindow) snapshot(s resettingState, now time.Duration) Snapshot {
	now = max(now, s.last)
	snap := ResettingWindowSnapshot{Now: now, Limit: r.p.Limit, Window: r.p.Window}
	if now < s.expires {
		snap.Count, snap.ExpiresAt, snap.Since = s.count, s.expires, s.since
	}
	return snap
}

func (r *resettingWindow) clone(s *resettingState, _ *mem) resettingState { return *s }

func (r *resettingWindow) tables(*resettingState) int64 { return 0 }

// resettingForm: count, the counter (the attempts' cost since the key was
// made); expires, when the key is gone, in ns (the latest counted attempt
// + window); since, when it was made, in ns (the first attempt of its
// run); last, the time of the latest request in ns (a late request is
// decided at it). A key that has expired by last (expires ≤ last) decides
// as no key at all: it is written count 0, expires 0, since 0.
var resettingForm = StateForm{Fields: []string{"count", "expires", "since", "last"}}

func (r *resettingWindow) encode(s *resettingState) State {
	if s.expires <= s.last {
		return State{Fields: []int64{0, 0, 0, int64(s.last)}}
	}
	return State{Fields: []int64{s.count, int64(s.expires), int64(s.since), int64(s.last)}}
}

// decode rejects an expired key written other than as encode writes it,
// and a live one whose numbers no run makes: a count below 1 (every
// counted attempt costs at least 1) or above its saturation, an expiry
// more than a window after last, or a key made after its latest counted
// attempt (expires − window).
func (r *resettingWindow) decode(st State, _ *mem) (resettingState, error) {
	f := st.Fields
	s := resettingState{count: f[0], expires: time.Duration(f[1]), since: time.Duration(f[2]), last: time.Duration(f[3])}
	switch {
	case s.last < 0:
		return s, fmt.Errorf("resetting window state %v: last before t = 0", f)
	case s.expires <= s.last:
		if s.count != 0 || s.expires != 0 || s.since != 0 {
			return s, fmt.Errorf("resetting window state %v: an expired key is count 0, expires 0, since 0", f)
		}
	case s.count < 1 || s.count > maxScaled || s.expires-s.last > r.p.Window || s.since < 0 || s.since > s.expires-r.p.Window:
		return s, fmt.Errorf("resetting window state %v out of range", f)
	}
	return s, nil
}

// ResettingWindowSnapshot shows the counter and when its key expires.
type ResettingWindowSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// Count is the attempts' cost counted since Since, when the key was
	// made; ExpiresAt is when it will be gone if no attempt comes first
	// (the latest attempt + Window). All zero when there is no key.
	Count     int64
	Since     time.Duration
	ExpiresAt time.Duration
}

func (s ResettingWindowSnapshot) Moment() time.Duration { return s.Now }

// explainResetting: v = {count before, expiry before, time decided at, when
// the key was made}.
func explainResetting(b []byte, d Decision) []byte {
	p := d.policy
	count, expires, eff, since := d.v[0], time.Duration(d.v[1]), time.Duration(d.v[2]), time.Duration(d.v[3])
	b = lateNote(&d, eff).appendTo(b)
	if count > 0 { // a key lives: every attempt it counted cost ≥ 1
		b = appendf(b, d.times, "key alive since %s, expiring at %s", secs(since), secs(expires))
	} else {
		b = appendf(b, d.times, "no key (none yet, or none since an attempt %s ago or more): count starts at 0", secs(p.Window))
	}
	b = appendf(b, d.times, "; count %d + cost %d = %d", count, d.Cost, count+d.Cost)
	if d.Outcome == Allowed {
		return appendf(b, d.times, " ≤ limit %d → allowed; expiry reset to %s + %s = %s", p.Limit, secs(eff), secs(p.Window), secs(eff+p.Window))
	}
	return appendf(b, d.times, " > limit %d → rejected, counted all the same; expiry reset to %s + %s = %s; retry after %s — only a pause of a whole %s with no attempt clears it: each retry sooner counts and resets the expiry again",
		p.Limit, secs(eff), secs(p.Window), secs(eff+p.Window), retryFrom(&d, eff), secs(p.Window))
}
