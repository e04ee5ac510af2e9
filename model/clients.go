package model

import (
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// Each lane sees its own retries: every lane gets the same original
// requests, and each lane's refusals make that lane's retries, which only
// that lane then decides. A lane keeps the retries it owes in a calendar
// (retryCalendar) beside its limiter (in lanes, so a checkpoint holds
// them). Before an original request at t, every retry due at or before t
// is decided first, in time order (ties in the order they were made); a
// retry due at the same instant as an original therefore goes before it,
// and one a refusal makes for its own instant (retry: at-once) goes before
// the next original at that instant. Retries are sent only before the scenario's Duration: one that
// would come later leaves its request unfinished.

// Fate is what became of a request after one of its attempts was decided.
type Fate uint8

const (
	// Retrying: refused, and its client sends it again later.
	Retrying Fate = iota
	// Served: admitted (released after any delay), within any deadline.
	Served
	// Abandoned: its client gave up (its rule, its attempts used, a cost
	// that never fits, or its deadline).
	Abandoned
	// Unfinished: its next attempt would come after the scenario's end.
	Unfinished
)

var fateNames = [...]string{Retrying: "retrying", Served: "served", Abandoned: "abandoned", Unfinished: "unfinished"}

// String is "retrying", "served", "abandoned" or "unfinished".
func (f Fate) String() string { return fateNames[f] }

// Attempt is one try of a request by its client: the original request
// (N = 1) or a retry.
type Attempt struct {
	// N is the attempt's number, 1 for the original request.
	N int
	// Original is the original request's index in the timeline (Lab) or
	// stream (Run), and First its arrival.
	Original int
	First    time.Duration
	// Client is 1 + the index in Scenario.Clients of the request's client,
	// 0 for none.
	Client int
	// Fate is what became of the request after this attempt; Ending says
	// why it was abandoned (or scenarios.TryAgain); Next is, when Fate is
	// Retrying, when the next attempt comes.
	Fate   Fate
	Ending scenarios.Ending
	Next   time.Duration
	// Latency is, when Served, the time from the first attempt to the
	// release: At + Delay − First.
	Latency time.Duration
	// Cancelled tells that the attempt, admitted after a wait past its
	// deadline, was given back: the lane is as if it never came, and it
	// never passes.
	Cancelled bool
}

// retryReq is what every attempt of a request shares, in a lane that
// retries it: its first arrival, key, cost, index in the timeline or
// stream, jitter salt (scenarios.JitterSalt: its client, first arrival and
// rank among the originals arriving then; 0 for a client that draws none)
// and client.
// A lane holds one a request it owes a retry, not one a retry.
type retryReq struct {
	first  time.Duration
	key    algorithms.Key
	cost   int64
	orig   int
	salt   uint64
	client int32
}

// clientBook is what the lanes know of a scenario's clients; nil when it
// has none, which leaves every request open-loop.
type clientBook struct {
	clients []scenarios.Client
	seed    uint64
	// end is the scenario's Duration: no retry is sent at or after it.
	end time.Duration
	// plans[c] is client c's (1 + its index) rule at hand, plans[0] the
	// rule of a request of no client (give up).
	plans []plan
}

// plan is a client's rule as retry reads it: the client, and for a client
// that backs off its steps after each attempt but its last,
// Client.Step(n), worked out once, and whether it draws a jitter. steps
// is non-nil exactly for a backoff, empty for one of a single attempt:
// retry reads "a backoff" from it.
type plan struct {
	c     *scenarios.Client
	steps []scenarios.Step
	draws bool
}

// noClient is the rule of a request of no client: it gives up at its
// first refusal.
var noClient = scenarios.Client{Retry: scenarios.GiveUp, Attempts: 1}

func newClientBook(s *scenarios.Scenario) *clientBook {
	if s == nil || len(s.Clients) == 0 {
		return nil
	}
	b := &clientBook{clients: s.Clients, seed: s.Seed, end: s.Duration, plans: make([]plan, len(s.Clients)+1)}
	b.plans[0].c = &noClient
	for i := range b.clients {
		c := &b.clients[i]
		p := &b.plans[i+1]
		p.c = c
		if c.Retry != scenarios.Backoff {
			continue
		}
		p.steps = make([]scenarios.Step, max(c.Attempts-1, 0))
		for n := range p.steps {
			p.steps[n] = c.Step(n + 1)
		}
		p.draws = c.Jitter != scenarios.NoJitter
	}
	return b
}

// salt is the jitter salt of a request of client (1 + its index) that
// arrived at first, rank among its instant's (see scenarios.JitterSalt); 0
// for a client that draws no jitter. The lanes and the log's reader draw
// by it alike.
func (b *clientBook) salt(client int, first time.Duration, rank int) uint64 {
	if !b.plans[client].draws {
		return 0
	}
	return scenarios.JitterSalt(b.seed, client-1, first, rank)
}

// retry is what becomes of request q when its attempt n, decided d, is
// refused, by p's rule, no retry being sent at or after end: Retrying with
// its next attempt's time, Unfinished with the time past the end, or
// Abandoned and why (its client's rule, the jitter drawn from q's salt and
// n). It is the client's NextTry, a backoff's step worked out once.
func (p *plan) retry(end time.Duration, n int32, q *retryReq, d *algorithms.Decision) (time.Duration, Fate, scenarios.Ending) {
	var next time.Duration
	var ending scenarios.Ending
	switch {
	case int(n) <= len(p.steps) && d.RetryAfter != algorithms.Never:
		// A backoff before its last attempt, on a refusal it can
		// outwait: NextTry's wait is the step's.
		next, ending = p.c.TryAfter(p.wait(n, q.salt), q.first, d)
	case int(n) > len(p.steps) && p.steps != nil:
		// A backoff's steps follow each attempt but its last, so n
		// is its last: its attempts are used, as NextTry would say
		// first whatever d, without the call (a quarter of a
		// backoff's refusals).
		return 0, Abandoned, scenarios.AttemptsUsed
	default:
		// Only a backoff's wait draws a jitter.
		next, ending = p.c.NextTry(int(n), q.first, d, 0)
	}
	switch {
	case ending != scenarios.TryAgain:
		return 0, Abandoned, ending
	case next >= end:
		return next, Unfinished, scenarios.TryAgain
	}
	return next, Retrying, scenarios.TryAgain
}

// wait is a backoff's wait after attempt n ≤ len(p.steps) of a request
// whose jitter salt is salt (0 for a client that draws none, whose steps
// take no draw).
func (p *plan) wait(n int32, salt uint64) time.Duration {
	if !p.draws {
		return p.steps[n-1].Least // no jitter: the nominal wait, no hash
	}
	return p.steps[n-1].Wait(scenarios.JitterOfAttempt(salt, int(n)))
}

// late tells whether q, released at release, comes past p's deadline: its
// caller has stopped waiting.
func (p *plan) late(q *retryReq, release time.Duration) bool {
	return p.c.Deadline > 0 && release-q.first > p.c.Deadline
}

// retryBytes is what one owed retry takes: its entry in the calendar and
// its request's retryReq.
const retryBytes = 24 + 64

// Then says what became of a request after attempt a, in a few words,
// its times exact (algorithms.FormatSeconds): "served 1.2s after its
// first attempt", "attempt 2 at 3s", "abandoned: gives up (attempts
// used)", "unfinished: attempt 5 would come at 31s, past the end".
func (a Attempt) Then() string { return a.ThenIn(algorithms.FormatSeconds) }

// ThenIn is Then with its times written by seconds, as a screen writes
// its times.
func (a Attempt) ThenIn(seconds func(time.Duration) string) string {
	switch a.Fate {
	case Served:
		if a.Latency == 0 {
			return "served"
		}
		return "served " + seconds(a.Latency) + " after its first attempt"
	case Retrying:
		return fmt.Sprintf("attempt %d at %s", a.N+1, seconds(a.Next))
	case Unfinished:
		return fmt.Sprintf("unfinished: attempt %d would come at %s, past the end", a.N+1, seconds(a.Next))
	}
	if a.Cancelled {
		return "abandoned: " + a.Ending.String() + ", its slot given back"
	}
	return "abandoned: " + a.Ending.String()
}
