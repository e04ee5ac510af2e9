package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// CollapsingLog: a sliding log kept as a sorted set whose member is the
// admission's own timestamp in whole milliseconds, as in ZADD key ms ms with
// ms = ⌊now / 1ms⌋. A member at ms m counts while m × 1ms > now − Window.
// Admitted iff the cost of the members still counting + c ≤ Limit; then the
// member ⌊now/1ms⌋ is added with cost c — unless that member is already in
// the set, when adding it changes nothing. So every admission after the
// first within one millisecond is free: a burst at one instant passes
// whole. RetryAfter: until enough of the oldest members have stopped
// counting for c to fit.
const CollapsingLog Algorithm = "collapsing-log"

func init() {
	register(windowedDescription(Description{
		Algorithm: CollapsingLog,
		explain:   explainCollapsingLog,
		Family:    Mistake,
		Twin:      SlidingLog,
		Source:    "a Redis sorted-set log whose member is the timestamp in milliseconds, which the lesson warns collapses the admissions of one instant into one",
		Rule:      "member = ⌊now/1ms⌋; admitted iff the cost of members with member × 1ms > now − window, + c ≤ limit; a member already present is not added again",
		Words: func(p Policy) string {
			return "collapsing log: at most " + strconv.FormatInt(p.Limit, 10) + " members in any " + FormatSeconds(p.Window) + ", one member per millisecond however many are admitted in it"
		},
		Examples: []Example{
			{Name: "members", Policy: Policy{Algorithm: CollapsingLog, Limit: 12, Window: 10 * time.Second}},
		},
		Edges: []Policy{
			{Algorithm: CollapsingLog, Limit: 1, Window: 700 * time.Millisecond},
			{Algorithm: CollapsingLog, Limit: 7, Window: 3 * time.Millisecond},
			{Algorithm: CollapsingLog, Limit: 3, Window: 2*time.Millisecond + 300*time.Microsecond + 7},
			{Algorithm: CollapsingLog, Limit: 4, Window: 300 * time.Microsecond}, // a window under a millisecond: the member just added may be outside it already
			{Algorithm: CollapsingLog, Limit: 120, Window: time.Minute},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[collapsingLogState](newCollapsingLog(p), ks) },
		State: collapsingLogForm,
	}))
}

// collapsingLog is a sliding log of members at whole milliseconds.
type collapsingLog struct {
	log slidingLog
}

type collapsingLogState struct {
	set slidingLogState // the members, at ms × 1ms, each with the cost of the admission that added it
	// admitted and added count admissions and members ever added: the
	// difference is how many collapsed into a member already there.
	admitted, added int64
}

func newCollapsingLog(p Policy) *collapsingLog { return &collapsingLog{log: slidingLog{p: p}} }

func (c *collapsingLog) policy() *Policy { return &c.log.p }

func (c *collapsingLog) start(now time.Duration) collapsingLogState {
	return collapsingLogState{set: slidingLogState{last: now}}
}

// member is the member, and score, of an admission at t: t in whole ms,
// back as a time.
func member(t time.Duration) time.Duration { return t - t%time.Millisecond }

func (c *collapsingLog) decide(s *collapsingLogState, m *mem, now time.Duration, cost int64) (d Decision) {
	p := &c.log.p
	eff := max(now, s.set.last)
	c.log.expire(&s.set, m, eff)
	recent := s.set.total - s.set.base
	ms := member(eff)
	present := s.set.log.len() > 0 && s.set.log.at(s.set.log.len()-1).at == ms
	d = Decision{At: now, Cost: cost, policy: p, explain: explainCollapsingLog, v: [4]int64{recent, int64(eff), int64(s.set.log.len())}}
	switch {
	case cost > p.Limit:
		d.Outcome, d.RetryAfter = Rejected, Never
	case recent+cost <= p.Limit:
		d.Outcome = Allowed
		s.admitted++
		if present {
			d.v[3] = 1 // collapsed
		} else {
			s.added++
			s.set.push(m, ms, cost)
		}
	default:
		d.Outcome = Rejected
		var e *logItem
		e, d.RetryAfter = c.log.freeing(&s.set, s.set.base+recent+cost-p.Limit, eff, now)
		d.v[3] = int64(e.at)
	}
	return d
}

func (c *collapsingLog) snapshot(s collapsingLogState, now time.Duration) Snapshot {
	now = max(now, s.set.last)
	snap := CollapsingLogSnapshot{Now: now, Limit: c.log.p.Limit, Window: c.log.p.Window, Collapsed: s.admitted - s.added}
	snap.Members, snap.Count, snap.OldestExpiresAt = c.log.recent(&s.set, now)
	return snap
}

func (c *collapsingLog) clone(s *collapsingLogState, _ *mem) collapsingLogState { return *s }

func (c *collapsingLog) tables(*collapsingLogState) int64 { return 0 }

func (c *collapsingLog) dropItems(s *collapsingLogState, m *mem) { s.set.log.free(m) }

// rewind: see rewinder.
func (c *collapsingLog) rewind(live, saved *collapsingLogState) { live.set.log.rewind(&saved.set.log) }

// copyState shares src's log, owned by neither instance from then on.
func (c *collapsingLog) copyState(dst, src *collapsingLogState, m, from *mem) {
	dst.set.copyLog(&src.set, m, from)
	dst.admitted, dst.added = src.admitted, src.added
}

// collapsingLogForm: the time of the last request (ns), how many
// admissions there have been and how many of them added a member (the
// rest collapsed), and the members still counting then, oldest first, each
// its millisecond (a whole number of ms, as the sorted set's member) and
// the cost of the admission that added it.
var collapsingLogForm = StateForm{Fields: []string{"last", "admitted", "added"}, Log: "members", Item: []string{"ms", "cost"}}

func (c *collapsingLog) encode(s *collapsingLogState) State {
	st := State{Fields: []int64{int64(s.set.last), s.admitted, s.added}, Log: make([]int64, 0, 2*s.set.log.len())}
	for i := range s.set.log.len() {
		e := s.set.log.at(i)
		st.Log = append(st.Log, int64(e.at/time.Millisecond), e.cost)
	}
	return st
}

func (c *collapsingLog) decode(st State, m *mem) (collapsingLogState, error) {
	last := time.Duration(st.Fields[0])
	s := collapsingLogState{set: slidingLogState{last: last}, admitted: st.Fields[1], added: st.Fields[2]}
	members := len(st.Log) / 2
	if s.added < int64(members) || s.admitted < s.added {
		return s, fmt.Errorf("collapsing log state: %d admitted, %d added, %d members: want admitted ≥ added ≥ members", s.admitted, s.added, members)
	}
	log := make([]int64, len(st.Log))
	copy(log, st.Log)
	for i := 0; i < len(log); i += 2 {
		if log[i] < 0 || log[i] > int64(last/time.Millisecond) {
			return s, fmt.Errorf("collapsing log state: member %d is not a millisecond in [0, last]", log[i])
		}
		log[i] *= int64(time.Millisecond)
	}
	// A member is added at its request's millisecond, inside the window
	// but for a window under 1ms: then the member of last may be outside.
	if err := c.log.checkLog(last, log, 2, true, member(last)); err != nil {
		return s, err
	}
	if sum := logCost(log, 2, len(log)); sum > c.log.p.Limit {
		return s, fmt.Errorf("collapsing log state: the members' cost %d is past the limit %d", sum, c.log.p.Limit)
	}
	c.log.pushLog(&s.set, m, log, 2, nil)
	return s, nil
}

// CollapsingLogSnapshot shows the members inside (Now − Window, Now].
type CollapsingLogSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// Members are the recent members, oldest first, At the whole
	// millisecond each stands for. The slice is a copy.
	Members []LogEntry
	// Count is the members' cost, which the limit is held against.
	Count int64
	// Collapsed is how many admissions so far added no member, their
	// millisecond being in the set already.
	Collapsed int64
	// OldestExpiresAt is when the oldest member stops counting; zero when
	// there is none.
	OldestExpiresAt time.Duration
}

func (s CollapsingLogSnapshot) Moment() time.Duration { return s.Now }

// explainCollapsingLog: v = {members' cost before, time decided at, members
// before, and 1 for an admission whose member was there already, or for a
// rejection the member whose expiry makes room}.
func explainCollapsingLog(b []byte, d Decision) []byte {
	p := d.policy
	recent, eff, members := d.v[0], time.Duration(d.v[1]), d.v[2]
	b = appendf(b, d.times, "%s%s in (%s, %s], counting %d; %d + cost %d = %d",
		lateNote(&d, eff), plural(members, "member"), secs(eff-p.Window), secs(eff), recent, recent, d.Cost, recent+d.Cost)
	ms := secs(member(eff))
	if d.Outcome == Allowed {
		if d.v[3] == 1 {
			return appendf(b, d.times, " ≤ limit %d → allowed; member %s is already in the set, so this admission adds nothing: it is never counted", p.Limit, ms)
		}
		return appendf(b, d.times, " ≤ limit %d → allowed; member %s added (any more admissions in that millisecond will collapse into it)", p.Limit, ms)
	}
	oldest := time.Duration(d.v[3])
	return appendf(b, d.times, " > limit %d → rejected; retry after %s, when the members up to %s have expired",
		p.Limit, retryFrom(&d, eff), secs(oldest))
}

// plural is "1 member" or "n members".
func plural(n int64, word string) pluralArg { return pluralArg{n, word} }

// held is the set's members still inside the window at now.
func (c *collapsingLog) held(s collapsingLogState, now time.Duration) int64 {
	return c.log.held(s.set, now)
}
