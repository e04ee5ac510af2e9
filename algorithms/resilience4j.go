package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// Resilience4j: resilience4j's RateLimiter as its default AtomicRateLimiter
// decides it, one limiter per key, made at the key's first request (a
// RateLimiterRegistry makes a limiter on its first use; one limiter shared
// by every caller is every request under one key, or across: all when
// TimeoutDuration is 0 and nothing is delayed). Its clock is the nanoseconds
// since it was made, cut into cycles of LimitRefreshPeriod P from then: cycle
// = ⌊elapsed / P⌋. It starts in cycle 0 with LimitForPeriod L permissions;
// a request in a later cycle first adds L per cycle passed, at most up to L
// (permissions = min(permissions + cycles passed × L, L)). A request for c
// permissions when permissions ≥ c waits 0; otherwise it must wait until
// the start of the cycle R = cycle + ⌈(c − permissions) / L⌉ in which the
// permissions reserved so far and its own are paid, wait = R × P − elapsed
// (calculateNextState, nanosToWaitForPermission). Admitted iff wait ≤
// TimeoutDuration: then permissions −= c, which may go negative (a
// reservation of a future cycle), and it is Delayed by wait
// (reservePermissions, acquirePermission). Otherwise it is refused and
// reserves nothing. RetryAfter of a refusal: R × P − TimeoutDuration −
// elapsed, when the same request's wait comes down to the timeout. A cost
// above L is refused outright (RetryAfter Never), where resilience4j would
// reserve it over several cycles if the timeout allowed. All integers: long
// nanoseconds and int permissions, as the Java code.
const Resilience4j Algorithm = "resilience4j"

// The parameters of resilience4j's RateLimiterConfig.
var (
	LimitForPeriodParam = Param{Name: "limit_for_period", Kind: Count, Amount: true, Want: "a positive whole number of permissions each refresh period (a Java int)",
		field: func(p *Policy) any { return &p.LimitForPeriod }}
	LimitRefreshPeriodParam = Param{Name: "limit_refresh_period", Kind: Duration, Want: "a positive Go duration such as 500ms: a cycle, after which the permissions are back to limit_for_period",
		field: func(p *Policy) any { return &p.LimitRefreshPeriod }}
	TimeoutDurationParam = Param{Name: "timeout_duration", Kind: Duration, Optional: true,
		Want:  "a Go duration such as 5s (resilience4j's default): the longest a caller waits for a permission; left out or 0s, no wait",
		field: func(p *Policy) any { return &p.TimeoutDuration }}
)

// resilience4jSource is the file the lane follows.
const resilience4jSource = "resilience4j resilience4j-ratelimiter/src/main/java/io/github/resilience4j/ratelimiter/internal/AtomicRateLimiter.java (calculateNextState, nanosToWaitForPermission, reservePermissions, acquirePermission)"

func init() {
	register(Description{
		Algorithm: Resilience4j,
		explain:   explainResilience4j,
		Family:    Library,
		Source:    resilience4jSource,
		// It throws RequestNotPermitted: no header; the application maps
		// it to an answer, usually 429.
		NoRetryAfter: true,
		Params:       []Param{LimitForPeriodParam, LimitRefreshPeriodParam, TimeoutDurationParam},
		Size:         "limit_for_period",
		Rule:         "cycles of limit_refresh_period from the limiter's creation; each new cycle permissions = min(permissions + cycles passed × limit_for_period, limit_for_period); wait = 0 if permissions ≥ c, else until the cycle that pays them; admitted iff wait ≤ timeout_duration, then permissions −= c (may go negative), delayed by wait",
		Words: func(p Policy) string {
			return "resilience4j RateLimiter: " + strconv.FormatInt(p.LimitForPeriod, 10) + " permissions per cycle of " + FormatSeconds(p.LimitRefreshPeriod) +
				", cycles counted from the limiter's creation; a caller waits for a later cycle's permission at most " + FormatSeconds(p.TimeoutDuration) + ", else is refused"
		},
		Line: func(p Policy) string {
			return fmt.Sprintf("%s limit_for_period %d, limit_refresh_period %s, timeout_duration %s", p.Algorithm, p.LimitForPeriod, FormatDuration(p.LimitRefreshPeriod), FormatDuration(p.TimeoutDuration))
		},
		CostBound: func(p Policy) string {
			return fmt.Sprintf("it holds at most limit_for_period = %d permissions in a cycle", p.LimitForPeriod)
		},
		MaxDelay: func(p Policy) time.Duration { return p.TimeoutDuration },
		// Every reservation is paid by the cycle R with R × P ≤ now +
		// timeout; the cycle after it is full again.
		Horizon: func(p Policy) time.Duration { return p.TimeoutDuration + p.LimitRefreshPeriod },
		check: func(p Policy) error {
			if p.LimitForPeriod <= 0 || p.LimitForPeriod > maxJavaInt {
				return fmt.Errorf("limit_for_period %d must be positive, at most 2^31 − 1 (a Java int)", p.LimitForPeriod)
			}
			if p.LimitRefreshPeriod <= 0 {
				return fmt.Errorf("limit_refresh_period %s must be positive (resilience4j: at least 1ns)", FormatDuration(p.LimitRefreshPeriod))
			}
			if p.TimeoutDuration < 0 {
				return fmt.Errorf("timeout_duration %s must not be negative", FormatDuration(p.TimeoutDuration))
			}
			// Permissions go down to −(⌊timeout / P⌋ + 1) × L: a Java int.
			if cycles := int64(p.TimeoutDuration/p.LimitRefreshPeriod) + 2; cycles > maxJavaInt/p.LimitForPeriod {
				return fmt.Errorf("limit_for_period %d × (timeout_duration %s ÷ limit_refresh_period %s + 2) passes 2^31 − 1: the reserved permissions would overflow resilience4j's int",
					p.LimitForPeriod, FormatDuration(p.TimeoutDuration), FormatDuration(p.LimitRefreshPeriod))
			}
			return nil
		},
		Examples: []Example{
			{Name: "r4j", Policy: Policy{Algorithm: Resilience4j, LimitForPeriod: 4, LimitRefreshPeriod: time.Second, TimeoutDuration: 500 * time.Millisecond}},
			{Name: "r4j-nowait", Policy: Policy{Algorithm: Resilience4j, LimitForPeriod: 4, LimitRefreshPeriod: time.Second}},
		},
		Edges: []Policy{
			{Algorithm: Resilience4j, LimitForPeriod: 50, LimitRefreshPeriod: 500 * time.Nanosecond, TimeoutDuration: 5 * time.Second}, // resilience4j's defaults: 50 per 500ns, 5s
			{Algorithm: Resilience4j, LimitForPeriod: 1, LimitRefreshPeriod: 3, TimeoutDuration: 10},                                   // cycles of 3ns, waits of several
			{Algorithm: Resilience4j, LimitForPeriod: 3, LimitRefreshPeriod: 700 * time.Millisecond, TimeoutDuration: 5 * time.Second}, // waits of many cycles
			{Algorithm: Resilience4j, LimitForPeriod: 10, LimitRefreshPeriod: time.Minute, TimeoutDuration: time.Second},
			{Algorithm: Resilience4j, LimitForPeriod: 7, LimitRefreshPeriod: time.Second, TimeoutDuration: time.Second},                        // a wait of exactly the timeout
			{Algorithm: Resilience4j, LimitForPeriod: maxJavaInt / 2, LimitRefreshPeriod: time.Millisecond},                                    // the largest at no wait
			{Algorithm: Resilience4j, LimitForPeriod: maxJavaInt / 4, LimitRefreshPeriod: time.Millisecond, TimeoutDuration: time.Millisecond}, // permissions near −2^31
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[r4jState](newResilience4j(p), ks) },
		State: r4jForm,
	})
}

// maxJavaInt is 2^31 − 1, a Java int's largest value.
const maxJavaInt = 1<<31 - 1

type resilience4j struct {
	p Policy
}

// r4jState is AtomicRateLimiter's State (activeCycle, activePermissions)
// and the time it was made (nanoTimeStart).
type r4jState struct {
	start       time.Duration // when the limiter was made: the key's first request
	cycle       int64         // activeCycle
	permissions int64         // activePermissions: negative while reserved ahead
	last        time.Duration
}

func newResilience4j(p Policy) *resilience4j { return &resilience4j{p: p} }

func (r *resilience4j) policy() *Policy { return &r.p }

func (r *resilience4j) start(now time.Duration) r4jState {
	return r4jState{start: now, permissions: r.p.LimitForPeriod, last: now}
}

// refresh is calculateNextState's refill: the cycle of elapsed and the
// permissions at its start.
func (r *resilience4j) refresh(s r4jState, elapsed int64) (cycle, permissions int64) {
	cycle, permissions = elapsed/int64(r.p.LimitRefreshPeriod), s.permissions
	if cycle != s.cycle {
		permissions = min(permissions+(cycle-s.cycle)*r.p.LimitForPeriod, r.p.LimitForPeriod)
	}
	return cycle, permissions
}

// wait is nanosToWaitForPermission: 0 if permissions cover c, else until
// the start of the cycle that pays them, (cycle + 1 + ⌈(c − permissions −
// L) / L⌉) × P − elapsed, which is R × P − elapsed for R = cycle + ⌈(c −
// permissions) / L⌉.
func (r *resilience4j) wait(cycle, permissions, elapsed, c int64) int64 {
	if permissions >= c {
		return 0
	}
	l, p := r.p.LimitForPeriod, int64(r.p.LimitRefreshPeriod)
	full := (-(permissions + l - c) + l - 1) / l // divCeil, 0 when the next cycle pays
	return full*p + (cycle+1)*p - elapsed
}

func (r *resilience4j) decide(s *r4jState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	s.last = eff
	elapsed := int64(eff - s.start)
	cycle, perms := r.refresh(*s, elapsed)
	d = Decision{At: now, Cost: cost, policy: &r.p, explain: explainResilience4j, v: [4]int64{cycle, perms, int64(eff), int64(s.start)}}
	if cost > r.p.LimitForPeriod {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	// The refresh is stored whatever the verdict (reservePermissions
	// returns the new cycle either way); it changes no later decision.
	s.cycle, s.permissions = cycle, perms
	w := r.wait(cycle, perms, elapsed, cost)
	timeout := int64(r.p.TimeoutDuration)
	if w > timeout {
		d.Outcome = Rejected
		d.RetryAfter = time.Duration(w-timeout) + eff - now
		return d
	}
	s.permissions -= cost
	if w == 0 {
		d.Outcome = Allowed
		return d
	}
	d.Outcome, d.Delay = Delayed, time.Duration(w)+eff-now
	return d
}

func (r *resilience4j) snapshot(s r4jState, now time.Duration) Snapshot {
	now = max(now, s.last)
	cycle, perms := r.refresh(s, int64(now-s.start))
	p := r.p.LimitRefreshPeriod
	return Resilience4jSnapshot{Now: now, LimitForPeriod: r.p.LimitForPeriod, RefreshPeriod: p, Timeout: r.p.TimeoutDuration,
		Start: s.start, Cycle: cycle, CycleEnd: s.start + time.Duration(cycle+1)*p, Permissions: perms}
}

func (r *resilience4j) clone(s *r4jState, _ *mem) r4jState { return *s }

func (r *resilience4j) tables(*r4jState) int64 { return 0 }

// r4jForm: start, when the key's limiter was made, in ns (its first
// request); cycle, AtomicRateLimiter's activeCycle (⌊(last − start) /
// limit_refresh_period⌋ at the latest request); permissions, its
// activePermissions, negative while permissions of later cycles are
// reserved; last, the time of the latest request in ns.
var r4jForm = StateForm{Fields: []string{"start", "cycle", "permissions", "last"}}

func (r *resilience4j) encode(s *r4jState) State {
	return State{Fields: []int64{int64(s.start), s.cycle, s.permissions, int64(s.last)}}
}

// decode rejects a state no run makes: a start after last or before t =
// 0, a cycle after last's, permissions above limit_for_period or below
// what the timeout lets a run reserve.
func (r *resilience4j) decode(st State, _ *mem) (r4jState, error) {
	f := st.Fields
	s := r4jState{start: time.Duration(f[0]), cycle: f[1], permissions: f[2], last: time.Duration(f[3])}
	l := r.p.LimitForPeriod
	floor := -(int64(r.p.TimeoutDuration/r.p.LimitRefreshPeriod) + 1) * l
	switch {
	case s.start < 0 || s.last < s.start:
		return s, fmt.Errorf("resilience4j state %v: start must be from t = 0 to last", f)
	case s.cycle < 0 || s.cycle > int64(s.last-s.start)/int64(r.p.LimitRefreshPeriod):
		return s, fmt.Errorf("resilience4j state %v: cycle out of range", f)
	case s.permissions > l || s.permissions < floor:
		return s, fmt.Errorf("resilience4j state %v: permissions out of range", f)
	}
	return s, nil
}

// Resilience4jSnapshot shows the limiter's cycle and its permissions.
type Resilience4jSnapshot struct {
	Now            time.Duration
	LimitForPeriod int64
	RefreshPeriod  time.Duration
	Timeout        time.Duration
	// Start is when the limiter was made; Cycle is now's cycle from it,
	// which ends at CycleEnd; Permissions are the cycle's, refreshed as a
	// request now would find them: negative while later cycles' are
	// reserved.
	Start       time.Duration
	Cycle       int64
	CycleEnd    time.Duration
	Permissions int64
}

func (s Resilience4jSnapshot) Moment() time.Duration { return s.Now }

// explainResilience4j: v = {now's cycle, its permissions before this
// request, time decided at, when the limiter was made}.
func explainResilience4j(b []byte, d Decision) []byte {
	p := d.policy
	cycle, perms, eff, start := d.v[0], d.v[1], time.Duration(d.v[2]), time.Duration(d.v[3])
	l, per := p.LimitForPeriod, p.LimitRefreshPeriod
	b = appendf(b, d.times, "%scycle %d of %s since the limiter was made at %s, permissions %d (refilled to at most %d each cycle)",
		lateNote(&d, eff), cycle, secs(per), secs(start), perms, l)
	if perms >= d.Cost {
		return appendf(b, d.times, "; %d ≥ %d permits → allowed; permissions %d", perms, d.Cost, perms-d.Cost)
	}
	ready := cycle + (d.Cost-perms+l-1)/l
	w := start + time.Duration(ready)*per - eff
	b = appendf(b, d.times, "; %d < %d permits: paid at the start of cycle %d, %s, a wait of %s", perms, d.Cost, ready, secs(start+time.Duration(ready)*per), secs(w))
	if d.Outcome == Rejected {
		return appendf(b, d.times, " > timeout_duration %s → rejected, nothing reserved (acquirePermission returns false after waiting the timeout); retry after %s",
			secs(p.TimeoutDuration), retryFrom(&d, eff))
	}
	return appendf(b, d.times, " ≤ timeout_duration %s → delayed, permissions %d reserved ahead", secs(p.TimeoutDuration), perms-d.Cost)
}
