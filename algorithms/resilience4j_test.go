package algorithms

import (
	"math/rand/v2"
	"testing"
	"time"
)

func init() {
	// The refresh period and the timeout are drawn alike: vary the timeout
	// around the period, 0 and resilience4j's default 5s among them.
	policyFixups[Resilience4j] = func(r *rand.Rand, p *Policy) {
		per := p.LimitRefreshPeriod
		p.TimeoutDuration = []time.Duration{0, per / 2, per, per + 1, 3 * per, 5 * sec, time.Duration(r.Int64N(int64(4*per) + 1))}[r.IntN(7)]
	}
}

// TestResilience4jExamples: AtomicRateLimiter's rules, by hand. 2 permissions
// per 1s cycle, timeout 1.5s, the limiter made at the first request, 0.5s:
// cycles are [0.5s, 1.5s), [1.5s, 2.5s), ...
func TestResilience4jExamples(t *testing.T) {
	p := Policy{Algorithm: Resilience4j, LimitForPeriod: 2, LimitRefreshPeriod: sec, TimeoutDuration: 1500 * ms}
	steps := []step{
		{at: 500 * ms, cost: 1, want: Allowed,
			explain: "cycle 0 of 1s since the limiter was made at 0.5s, permissions 2 (refilled to at most 2 each cycle); 2 ≥ 1 permits → allowed; permissions 1"},
		{at: 600 * ms, cost: 1, want: Allowed},
		// Permissions 0: the next cycle's, at 1.5s, reserved: a wait of 0.8s.
		{at: 700 * ms, cost: 1, want: Delayed, delay: 800 * ms,
			explain: "cycle 0 of 1s since the limiter was made at 0.5s, permissions 0 (refilled to at most 2 each cycle); 0 < 1 permits: paid at the start of cycle 1, 1.5s, a wait of 0.8s ≤ timeout_duration 1.5s → delayed, permissions -1 reserved ahead"},
		{at: 700 * ms, cost: 1, want: Delayed, delay: 800 * ms},
		// −2: cycle 1's both reserved; cycle 2 starts at 2.5s, 1.8s away,
		// past the timeout: refused, nothing reserved, until 2.5s − 1.5s.
		{at: 700 * ms, cost: 1, want: Rejected, retry: 300 * ms,
			explain: "cycle 0 of 1s since the limiter was made at 0.5s, permissions -2 (refilled to at most 2 each cycle); -2 < 1 permits: paid at the start of cycle 2, 2.5s, a wait of 1.8s > timeout_duration 1.5s → rejected, nothing reserved (acquirePermission returns false after waiting the timeout); retry after 0.3s"},
		{at: sec - 1, cost: 1, want: Rejected, retry: 1},
		{at: sec, cost: 2, want: Delayed, delay: 1500 * ms},
		// −4 at 1s; at 1.6s (cycle 1) −4 + 2 = −2: cycle 3 at 3.5s pays,
		// 1.9s away; retry at 3.5s − 1.5s.
		{at: 1600 * ms, cost: 1, want: Rejected, retry: 400 * ms},
		// A cost above limit_for_period never fits here.
		{at: 1600 * ms, cost: 3, want: Rejected, retry: Never},
		// Idle until 5s, cycle 4: min(−2 + 3 × 2, 2) = 2.
		{at: 5 * sec, cost: 2, want: Allowed},
		// Late: decided at 5s, permissions 0; cycle 5 starts at 5.5s.
		{at: 4 * sec, cost: 1, want: Delayed, delay: 1500 * ms},
	}
	l := mustNew(t, p)
	for i, s := range steps {
		d := l.Decide(s.at, "k", s.cost)
		if d.Outcome != s.want || d.Delay != s.delay || d.RetryAfter != s.retry {
			t.Fatalf("step %d at %v cost %d: %v delay %v retry %v, want %v delay %v retry %v: %s",
				i, s.at, s.cost, d.Outcome, d.Delay, d.RetryAfter, s.want, s.delay, s.retry, d.Explain())
		}
		if s.explain != "" && d.Explain() != s.explain {
			t.Errorf("step %d at %v:\n got  %s\n want %s", i, s.at, d.Explain(), s.explain)
		}
	}
}

// TestResilience4jNoTimeoutIsAFixedWindow: with timeout_duration 0 nothing
// is reserved ahead, so every cycle starts with limit_for_period: the
// lane is a fixed window of limit_for_period per limit_refresh_period
// whose windows start at the limiter's creation. With the first request
// at t = 0, it decides as fixed-window on random traces.
func TestResilience4jNoTimeoutIsAFixedWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 4))
	for range shortened(300) {
		p := randPolicy(r, Resilience4j)
		p.TimeoutDuration = 0
		fw := Policy{Algorithm: FixedWindow, Limit: p.LimitForPeriod, Window: p.LimitRefreshPeriod}
		reqs := append([]req{{0, 1}}, randTrace(r, p, 200, true)...)
		a, b := run(mustNew(t, p), reqs), run(mustNew(t, fw), reqs)
		for i := range a {
			if a[i].Outcome != b[i].Outcome || a[i].RetryAfter != b[i].RetryAfter {
				t.Fatalf("%v request %d at %v cost %d: %v retry %v, fixed window %v retry %v\n%s\n%s",
					p, i, reqs[i].at, reqs[i].cost, a[i].Outcome, a[i].RetryAfter, b[i].Outcome, b[i].RetryAfter, a[i].Explain(), b[i].Explain())
			}
		}
	}
}

// TestResilience4jRetryAndDelay: on random traces, every finite
// RetryAfter is exact, no delay passes the timeout, and a delayed request
// is released no earlier than the start of a cycle.
func TestResilience4jRetryAndDelay(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 5))
	for range shortened(300) {
		p := randPolicy(r, Resilience4j)
		reqs := randTrace(r, p, 200, true)
		if err := checkRetryExact(p, reqs); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		ds := run(mustNew(t, p), reqs)
		eff := effTimes(reqs)
		start := reqs[0].at
		for i, d := range ds {
			if d.Delay-(eff[i]-reqs[i].at) > p.TimeoutDuration {
				t.Fatalf("%v: request %d delayed %v > timeout", p, i, d.Delay)
			}
			if d.Outcome == Delayed && (reqs[i].at+d.Delay-start)%p.LimitRefreshPeriod != 0 {
				t.Fatalf("%v: request %d released at %v, not a cycle's start: %s", p, i, reqs[i].at+d.Delay, d.Explain())
			}
		}
	}
}

// TestResilience4jStatesRejected: states no run makes are refused.
func TestResilience4jStatesRejected(t *testing.T) {
	p := Policy{Algorithm: Resilience4j, LimitForPeriod: 2, LimitRefreshPeriod: sec, TimeoutDuration: 1500 * ms}
	s := int64(sec)
	for _, c := range []struct {
		st   State
		want string
	}{
		{State{Fields: []int64{s, 2, -4, 3 * s}}, ""},
		{State{Fields: []int64{s, 0, 2, s}}, ""},
		{State{Fields: []int64{-1, 0, 2, s}}, "start"},
		{State{Fields: []int64{4 * s, 0, 2, 3 * s}}, "start"},
		{State{Fields: []int64{s, 3, 2, 3 * s}}, "cycle"},
		{State{Fields: []int64{s, 1, 3, 3 * s}}, "permissions"},
		{State{Fields: []int64{s, 1, -5, 3 * s}}, "permissions"},
	} {
		checkImport(t, p, c.st, c.want)
	}
}
