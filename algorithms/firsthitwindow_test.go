package algorithms

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestFirstHitWindowExamples: express-rate-limit's MemoryStore rules, by
// hand. Limit 3 per 10s: the key's first request at 2s starts its window,
// which ends at 12s whatever comes later (resetTime ≤ now resets it);
// refused requests count (increment comes before the limit is read), and
// a request is refused when the count passes the limit (totalHits > limit).
func TestFirstHitWindowExamples(t *testing.T) {
	p := Policy{Algorithm: FirstHitWindow, Limit: 3, Window: 10 * sec}
	steps := []step{
		{at: 2 * sec, cost: 1, want: Allowed,
			explain: "no window (none yet, or the last one ended): one starts now, 2s, ending at 2s + 10s = 12s; count 0 + cost 1 = 1 ≤ limit 3 → allowed"},
		{at: 3 * sec, cost: 1, want: Allowed},
		{at: 4 * sec, cost: 1, want: Allowed},
		// The 4th within the window: refused until the window's end, 12s.
		{at: 5 * sec, cost: 1, want: Rejected, retry: 7 * sec,
			explain: "window started at 2s by the key's first request, ends at 12s (not moved by later requests); count 3 + cost 1 = 4 > limit 3 → rejected, counted all the same; retry after 7s, when the window ends at 12s (Retry-After: whole seconds, rounded up)"},
		// Refused retries count (5, 6) but do not move the end.
		{at: 11 * sec, cost: 1, want: Rejected, retry: sec},
		{at: 12*sec - 1, cost: 1, want: Rejected, retry: 1},
		// At exactly 12s the window has ended: a new one, 12s to 22s.
		{at: 12 * sec, cost: 1, want: Allowed},
		{at: 21 * sec, cost: 3, want: Rejected, retry: sec},
		// A cost above the limit never fits and counts nothing.
		{at: 21*sec + 500*ms, cost: 4, want: Rejected, retry: Never,
			explain: "cost 4 > limit 3 → rejected; this request can never fit"},
		// A late request is decided at the latest time seen, 21.5s; its
		// retry counts from its own arrival.
		{at: 20 * sec, cost: 1, want: Rejected, retry: 2 * sec},
		{at: 22 * sec, cost: 3, want: Allowed},
		// Fixed windows aligned to t = 0 would have restarted at 30s; this
		// one, started at 22s, ends at 32s.
		{at: 30 * sec, cost: 1, want: Rejected, retry: 2 * sec},
		{at: 32 * sec, cost: 3, want: Allowed},
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
		if err := checkDecision(p, req{s.at, s.cost}, d); err != nil {
			t.Errorf("step %d: %v", i, err)
		}
	}
}

// TestFirstHitWindowDefaults: express-rate-limit's defaults, limit 5 per
// windowMs 60000: a client hammering once a second is admitted 5 times a
// minute, each minute counted from its own first request after the last
// one ended.
func TestFirstHitWindowDefaults(t *testing.T) {
	p := Policy{Algorithm: FirstHitWindow, Limit: 5, Window: time.Minute}
	l := mustNew(t, p)
	var admitted []time.Duration
	for at := 7 * sec; at < 7*sec+3*time.Minute; at += sec {
		if d := l.Decide(at, "ip", 1); d.Outcome.Admitted() {
			admitted = append(admitted, at)
		}
	}
	var want []time.Duration
	for w := range 3 {
		for i := range 5 {
			want = append(want, 7*sec+time.Duration(w)*time.Minute+time.Duration(i)*sec)
		}
	}
	if len(admitted) != len(want) {
		t.Fatalf("admitted %v, want %v", admitted, want)
	}
	for i := range want {
		if admitted[i] != want[i] {
			t.Fatalf("admitted %v, want %v", admitted, want)
		}
	}
}

// TestFirstHitWindowProperties: on random traces, every finite RetryAfter
// is exact, and no key's window (from a request that found none, for
// Window) admits more than Limit.
func TestFirstHitWindowProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	for range shortened(300) {
		p := randPolicy(r, FirstHitWindow)
		reqs := randTrace(r, p, 200, true)
		if err := checkRetryExact(p, reqs); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		ds := run(mustNew(t, p), reqs)
		eff := effTimes(reqs)
		var start, sum time.Duration = -1, 0
		for i, d := range ds {
			if start < 0 || eff[i] >= start+p.Window {
				if reqs[i].cost > p.Limit {
					continue // counts nothing and starts no window
				}
				start, sum = eff[i], 0
			}
			if d.Outcome.Admitted() {
				sum += time.Duration(reqs[i].cost)
			}
			if int64(sum) > p.Limit {
				t.Fatalf("%v: window from %v admitted %d by request %d", p, start, sum, i)
			}
		}
	}
}
