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
		explain:         explainAttemptLog,
		KeepsRejections: true,
		Family:          Mistake,
		Twin:            SlidingLog,
		Source:          "a sliding log that appends rejected requests too, where the lesson's log counts admissions only: counting attempts is the policy it warns against",
		Rule:            "admitted iff the cost of attempts (rejected ones too) at times > now − window, + c ≤ limit; every attempt is logged",
		Words: func(p Policy) string {
			return "attempt log: at most " + strconv.FormatInt(p.Limit, 10) + " attempts in any " + FormatSeconds(p.Window) + ", rejected ones counted too"
		},
		Examples: []Example{
			{Name: "attempts", Policy: Policy{Algorithm: AttemptLog, Limit: 12, Window: 10 * time.Second}},
		},
		Edges: []Policy{
			{Algorithm: AttemptLog, Limit: 1, Window: 700 * time.Millisecond},
			{Algorithm: AttemptLog, Limit: 7, Window: time.Second},
			{Algorithm: AttemptLog, Limit: 3, Window: 700*time.Millisecond + 3},
			{Algorithm: AttemptLog, Limit: 120, Window: time.Minute},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[attemptLogState](newAttemptLog(p), ks) },
		State: attemptLogForm,
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

// copyState shares src's logs, owned by neither instance from then on.
func (a *attemptLog) copyState(dst, src *attemptLogState, m, from *mem) {
	dst.tried.copyLog(&src.tried, m, from)
	dst.adm.copyLog(&src.adm, m, from)
}

func (a *attemptLog) dropItems(s *attemptLogState, m *mem) {
	s.tried.log.free(m)
	s.adm.log.free(m)
}

// attemptLogForm: the time of the last request (ns), and the attempts still
// counting then, oldest first, each its time (ns), its cost, and 1 if it
// was admitted, else 0. The process keeps the admitted ones in a second log
// of their own; both logs move to the same last and drop what no longer
// counts at once, so the second is the first's admitted items, and one log
// with a mark says both.
var attemptLogForm = StateForm{Fields: []string{"last"}, Log: "log", Item: []string{"at", "cost", "admitted"}}

func (a *attemptLog) encode(s *attemptLogState) State {
	st := State{Fields: []int64{int64(s.tried.last)}, Log: make([]int64, 0, 3*s.tried.log.len())}
	j, nadm := 0, s.adm.log.len()
	for i := range s.tried.log.len() {
		e := s.tried.log.at(i)
		// The admissions are a subsequence of the attempts: the next
		// one not yet matched is this attempt if it has its time and
		// cost. Matching the first alike is exact: at one time, an
		// attempt rejected is never followed by one alike admitted
		// (the attempts' cost only grows there).
		adm := int64(0)
		if j < nadm {
			if x := s.adm.log.at(j); x.at == e.at && x.cost == e.cost {
				adm = 1
				j++
			}
		}
		st.Log = append(st.Log, int64(e.at), e.cost, adm)
	}
	return st
}

func (a *attemptLog) decode(st State, m *mem) (attemptLogState, error) {
	last := time.Duration(st.Fields[0])
	s := attemptLogState{tried: slidingLogState{last: last}, adm: slidingLogState{last: last}}
	if err := a.log.checkLog(last, st.Log, 3, false, -1); err != nil {
		return s, err
	}
	end := 0 // just past the last admitted attempt
	for i := 0; i < len(st.Log); i += 3 {
		switch st.Log[i+2] {
		case 1:
			end = i + 3
		case 0:
		default:
			return s, fmt.Errorf("attempt log state: item %d's admitted mark is %d, not 0 or 1", i/3, st.Log[i+2])
		}
	}
	// The attempts before the latest admission all counted when it was
	// admitted (they are inside the window at last, and so at it).
	if sum := logCost(st.Log, 3, end); sum > a.log.p.Limit {
		return s, fmt.Errorf("attempt log state: the attempts up to the latest admission cost %d, past the limit %d", sum, a.log.p.Limit)
	}
	if logCost(st.Log, 3, len(st.Log)) > maxScaled {
		return s, fmt.Errorf("attempt log state: the attempts cost more than %d", int64(maxScaled))
	}
	a.log.pushLog(&s.tried, m, st.Log, 3, nil)
	a.log.pushLog(&s.adm, m, st.Log, 3, func(item []int64) bool { return item[2] == 1 })
	return s, nil
}

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
func explainAttemptLog(b []byte, d Decision) []byte {
	p := d.policy
	tried, adm, eff := d.v[0], d.v[1], time.Duration(d.v[2])
	b = appendf(b, d.times, "%sattempts in (%s, %s] = %d (%d of them admitted); %d + cost %d = %d",
		lateNote(&d, eff), secs(eff-p.Window), secs(eff), tried, adm, tried, d.Cost, tried+d.Cost)
	if d.Outcome == Allowed {
		return appendf(b, d.times, " ≤ limit %d → allowed; logged", p.Limit)
	}
	oldest := time.Duration(d.v[3])
	return appendf(b, d.times, " > limit %d → rejected, and logged all the same: it now counts against the next try; retry after %s, when the attempts up to %s have expired — each retry sooner is logged and pushes this further",
		p.Limit, retryFrom(&d, eff), secs(oldest))
}

// held is both logs' entries still inside the window at now: the attempts,
// which decide, and the admissions kept beside them to show.
func (a *attemptLog) held(s attemptLogState, now time.Duration) int64 {
	return a.log.held(s.tried, now) + a.log.held(s.adm, now)
}
