package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// AttemptLog: a sliding log that logs every attempt, rejected ones too. An
// attempt at t counts while t > now − Window. Admitted iff the cost of the
// attempts still counting + c ≤ Limit; the attempt is logged either way (a
// request whose cost exceeds Limit is refused outright and not logged). So a
// client that keeps trying keeps itself locked out: every retry inside the
// window adds to the count that rejects it. RetryAfter: until enough of the
// oldest attempts, this one included, have stopped counting for c to fit
// (a retry before then is logged too and pushes the wait further).
const AttemptLog Algorithm = "attempt-log"

func init() {
	register(windowedDescription(Description{
		Algorithm:       AttemptLog,
		KeepsRejections: true,
		Family:          Mistake,
		Twin:            SlidingLog,
		Source:          "a sliding log that appends rejected requests too (the lesson's log counts admissions; counting attempts is the policy it warns against)",
		Rule:            "admitted iff the cost of attempts (rejected ones too) at times > now − window, + c ≤ limit; every attempt is logged",
		Words: func(p Policy) string {
			return "attempt log: at most " + strconv.FormatInt(p.Limit, 10) + " attempts in any " + FormatSeconds(p.Window) + ", rejected ones counted too"
		},
		new: func(p Policy, ks *Keys) Limiter { return newKeyed[attemptLogState](newAttemptLog(p), ks) },
	}))
}

// attemptLog is the sliding log's arithmetic on two logs per key
// (attemptLogState): the attempts, which decide, and the admissions among
// them, which only the picture and the why text show.
type attemptLog struct {
	log slidingLog // its policy is the attempt log's
}

type attemptLogState struct {
	tried, adm slidingLogState
}

func newAttemptLog(p Policy) *attemptLog { return &attemptLog{log: slidingLog{p: p}} }

func (a *attemptLog) policy() *Policy { return &a.log.p }

func (a *attemptLog) start(now time.Duration) attemptLogState {
	return attemptLogState{tried: slidingLogState{last: now}, adm: slidingLogState{last: now}}
}

func (a *attemptLog) decide(s *attemptLogState, m *mem, now time.Duration, cost int64) (d Decision) {
	p := &a.log.p
	eff := max(now, s.tried.last)
	a.log.expire(&s.tried, m, eff)
	a.log.expire(&s.adm, m, eff)
	tried, adm := s.tried.total-s.tried.base, s.adm.total-s.adm.base
	d = Decision{At: now, Cost: cost, policy: p, explain: explainAttemptLog, v: [4]int64{tried, adm, int64(eff)}}
	if cost > p.Limit {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	s.tried.push(m, eff, cost)
	if tried+cost <= p.Limit {
		d.Outcome = Allowed
		s.adm.push(m, eff, cost)
		return d
	}
	d.Outcome = Rejected
	// The same request fits once the oldest attempts, this one included,
	// have freed (tried + cost) + cost − Limit ≤ tried + cost.
	var e *logItem
	e, d.RetryAfter = a.log.freeing(&s.tried, s.tried.base+tried+2*cost-p.Limit, eff, now)
	d.v[3] = int64(e.at)
	return d
}

func (a *attemptLog) snapshot(s attemptLogState, now time.Duration) Snapshot {
	now = max(now, s.tried.last)
	snap := AttemptLogSnapshot{Now: now, Limit: a.log.p.Limit, Window: a.log.p.Window}
	for _, e := range s.adm.log.items(a.log.expired(&s.adm, now)) {
		snap.Admitted += e.cost
	}
	snap.Attempts, snap.Count, snap.OldestExpiresAt = a.log.recent(&s.tried, now)
	return snap
}

// clone shares both logs: see fifo.
func (a *attemptLog) clone(s *attemptLogState, _ *mem) attemptLogState { return *s }

func (a *attemptLog) tables(*attemptLogState) int64 { return 0 }

// AttemptLogSnapshot shows the attempts inside (Now − Window, Now], rejected
// ones included, and how much of them was admitted.
type AttemptLogSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// Attempts are the recent attempts, oldest first. The slice is a copy.
	Attempts []LogEntry
	// Count is the cost of the attempts, which the limit is held against;
	// Admitted the cost of the admitted ones among them.
	Count, Admitted int64
	// OldestExpiresAt is when the oldest attempt stops counting; zero when
	// there is none.
	OldestExpiresAt time.Duration
}

func (s AttemptLogSnapshot) Moment() time.Duration { return s.Now }

// explainAttemptLog: v = {attempts' cost before, admitted cost before, time
// decided at, and for a rejection the time of the attempt whose expiry makes
// room}.
func explainAttemptLog(d *Decision) string {
	p := d.policy
	tried, adm, eff := d.v[0], d.v[1], time.Duration(d.v[2])
	head := fmt.Sprintf("%sattempts in (%s, %s] = %d (%d of them admitted); %d + cost %d = %d",
		lateNote(d, eff), FormatSeconds(eff-p.Window), FormatSeconds(eff), tried, adm, tried, d.Cost, tried+d.Cost)
	if d.Outcome == Allowed {
		return fmt.Sprintf("%s ≤ limit %d → allowed; logged", head, p.Limit)
	}
	oldest := time.Duration(d.v[3])
	return fmt.Sprintf("%s > limit %d → rejected, and logged all the same: it now counts against the next try; retry after %s, when the attempts up to %s have expired — each retry sooner is logged and pushes this further",
		head, p.Limit, retryFrom(d, eff), FormatSeconds(oldest))
}

// held is both logs' entries still inside the window at now: the attempts,
// which decide, and the admissions kept beside them to show.
func (a *attemptLog) held(s attemptLogState, now time.Duration) int64 {
	return a.log.held(s.tried, now) + a.log.held(s.adm, now)
}
