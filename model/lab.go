package model

import (
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// Lab is a scenario's lanes over one timeline of requests, seen at the time
// Now of a virtual clock. It is not safe for concurrent use.
//
// The timeline is the scenario's traffic plus the requests the learner fired.
// Requests are ordered by time; a request fired at t goes after every other
// request at t. The first Pos requests are decided: after Seek, every
// request at or before Now; after SeekPos, some of those at exactly Now.
//
// A Lab is a front over four parts, each a type of its own: the timeline
// (the requests, keys, axis and the learner's actions), the engine (the
// decisions, checkpoints and the frontier), the clock (the live state at
// Now) and the caches (answers a screen asks for every frame). Its methods
// put them together: an action on the timeline tells the engine and the
// caches what changed (see changed), then moves the clock.
type Lab struct {
	scenario   *scenarios.Scenario
	peakChoice time.Duration // the peak window asked for; 0 for the default

	timeline *timeline
	engine   *engine
	clock    *clock
	caches   *caches
}

// New builds the lab for s with the clock at 0. peakWindow is the window of
// Stats.Peak; 0 means DefaultPeakWindow.
func New(s *scenarios.Scenario, peakWindow time.Duration) (*Lab, error) {
	return NewOn(s, peakWindow, nil)
}

// NewOn is New with the lanes' state kept by store: every decision the
// lab computes, and every one it computes again after a rewind, goes
// through it.
func NewOn(s *scenarios.Scenario, peakWindow time.Duration, store Store) (*Lab, error) {
	return NewReporting(s, peakWindow, store, nil)
}

// Building is told, while a lab is built, that built of the scenario's
// total requests are on its timeline: every BuildingEvery requests, from
// the goroutine that builds it.
type Building func(built, total int64)

// BuildingEvery is how many requests pass between two calls of a
// Building: at the timeline's tens of millions of requests a second, a
// few milliseconds.
const BuildingEvery = 1 << 16

// NewReporting is NewOn telling building (if not nil) how far the
// timeline is built: the part of building a lab that grows with its
// requests, about a second for the 20,000,000 the explorer keeps.
func NewReporting(s *scenarios.Scenario, peakWindow time.Duration, store Store, building Building) (*Lab, error) {
	if n := s.RequestCount(); n > scenarios.MaxRequests {
		// Only a log can hold more: a file's traffic is refused when read.
		return nil, fmt.Errorf("the log holds %d requests, more than the %d the explorer keeps (8 bytes each); cut it with --from and --until (run, check and fit read a log of any length)", n, scenarios.MaxRequests)
	}
	defs := LanesOf(s)
	choice := max(peakWindow, 0)
	if peakWindow <= 0 {
		peakWindow = DefaultPeakWindow(defs)
	}
	tl := newTimeline(s, building)
	if err := s.Err(); err != nil { // a log that could not be read to its end
		return nil, err
	}
	e, err := newEngine(tl, defs, peakWindow, store, newClientBook(s))
	if err != nil {
		return nil, err
	}
	l := &Lab{scenario: s, peakChoice: choice, timeline: tl, engine: e, clock: newClock(tl, e), caches: newCaches()}
	l.clock.seek(0)
	return l, nil
}

// changed tells the engine and the caches what an action changed on the
// timeline; the clock is then moved.
func (l *Lab) changed(ch change) {
	if ch.from >= 0 {
		l.engine.replace(ch.from)
		l.caches.truncate(ch.from)
	}
	l.caches.forgetKeys(ch.keys)
}

// Scenario is the scenario the lab was built from.
func (l *Lab) Scenario() *scenarios.Scenario { return l.scenario }

// Lanes are the lab's lanes in file order.
func (l *Lab) Lanes() []Lane { return l.engine.defs }

// Keys are the request keys seen so far, in order of first appearance.
func (l *Lab) Keys() []string { return l.timeline.keys.list }

// Clients are the scenario's clients (see scenarios.Client): a record's
// Attempt.Client is 1 + an index into them.
func (l *Lab) Clients() []scenarios.Client { return l.scenario.Clients }

// PeakWindow is the window over which Stats.Peak is measured.
func (l *Lab) PeakWindow() time.Duration { return l.engine.window }

// SetPeakWindow sets the window over which Stats.Peak and StatsFor's peak
// are measured; d ≤ 0 means DefaultPeakWindow. Every peak is recomputed
// (the decisions up to the clock are made again); the clock, inside its
// instant too, and the learner's requests stay. A window longer than
// scenarios.MaxTime is refused.
func (l *Lab) SetPeakWindow(d time.Duration) error {
	if d > scenarios.MaxTime {
		return fmt.Errorf("a peak window of %s is longer than %s, the longest a scenario may last",
			algorithms.FormatDuration(d), algorithms.FormatDuration(scenarios.MaxTime))
	}
	choice := max(d, 0)
	if d <= 0 {
		d = DefaultPeakWindow(l.engine.defs)
	}
	pos := l.clock.pos
	if err := l.engine.setWindow(d); err != nil {
		return err
	}
	l.caches.reset()
	l.clock.seek(l.clock.now)
	l.peakChoice = choice
	l.clock.moveTo(pos)
	return nil
}

// Now is the virtual clock's time.
func (l *Lab) Now() time.Duration { return l.clock.now }

// End is the end of the time axis: the scenario's duration, stretched to
// reach the lanes' longest horizon past any request the learner fired, or
// the last request if one lies beyond that.
func (l *Lab) End() time.Duration { return l.timeline.axisEnd() }

// Len is the number of requests on the timeline.
func (l *Lab) Len() int { return l.timeline.len() }

// Request is the i-th request of the timeline, 0 ≤ i < Len.
func (l *Lab) Request(i int) Request { return l.timeline.request(i) }

// Fired reports whether the i-th request was fired by the learner.
func (l *Lab) Fired(i int) bool { return l.timeline.kind(i).fired != 0 }

// Outcome is lane's verdict on the i-th request, 0 ≤ i < Len.
func (l *Lab) Outcome(lane, i int) algorithms.Outcome { return l.engine.outcome(lane, i) }

// Search is the number of requests at or before t: the index of the first
// request after t.
func (l *Lab) Search(t time.Duration) int { return l.timeline.search(t) }

// Seek moves the clock to t, clamped to [0, End]. The cost is at most one
// checkpoint's worth of replay, wherever t is.
func (l *Lab) Seek(t time.Duration) { l.clock.seek(t) }

// Step moves the clock by d, back when d is negative.
func (l *Lab) Step(d time.Duration) { l.clock.seek(l.clock.now + d) }

// Pos is how many requests of the timeline are decided at the clock: the
// state, Stats, Snapshot, LastDecision, LastDecisionFor and TrailingAdmitted
// all reflect the first Pos requests. After Seek(t) it is Search(t), every
// request at Now decided; after SeekPos it may stop inside an instant.
func (l *Lab) Pos() int { return l.clock.pos }

// SeekPos decides exactly p requests, p clamped to [0, Len], and moves the
// clock to the instant of the last of them: request p−1's time, or for p = 0
// the first request's time with that request not yet decided (0 with no
// request at all). Of the requests at that instant, those before p are
// decided and the others are not (see Instant). Seek, Step, firing, undoing
// and resetting go back to whole instants. The cost is at most one
// checkpoint's worth of replay, as for Seek.
func (l *Lab) SeekPos(p int) { l.clock.seekPos(p) }

// SeekBefore moves the clock to the instant of request i with the requests
// before it decided, and the retries due by then, but not i itself: where
// a question about request i is asked. i is clamped to [0, Len]; for Len it
// is SeekPos(Len).
func (l *Lab) SeekBefore(i int) { l.clock.seekBefore(i) }

// Instant says where the clock is inside its instant: m requests arrive at
// exactly Now, and the first k of them are decided, 0 ≤ k ≤ m ("request k
// of m at Now"). After Seek k = m; m is 0 when no request arrives at Now.
func (l *Lab) Instant() (k, m int) { return l.clock.instant() }

// Stats are lane's totals over the decided requests (the first Pos: those
// at or before Now after Seek). The peak, Served and the latency count
// delayed requests released by Now; Queued those released after it.
func (l *Lab) Stats(lane int) Stats {
	s := l.clock.stats(lane)
	s.Latency, s.Queued = l.latency(lane, s.Served)
	s.Served -= s.Queued
	return s
}

// Snapshot is lane's state for key at Now, after the decided requests.
func (l *Lab) Snapshot(lane int, key string) algorithms.Snapshot {
	return l.clock.limiter(lane).Snapshot(l.clock.now, key)
}

// StoreView is where lane keeps key's state outside the process, as it is
// at the clock; false for a lab whose lanes keep their state in memory. A
// lane of a lab on a store that keeps its own state in memory (gateways
// with their own, a synced store's views) has a view with no Store.
func (l *Lab) StoreView(lane int, key string) (algorithms.StoreView, bool) {
	if l.engine.store == nil {
		return algorithms.StoreView{}, false
	}
	if in, ok := l.clock.limiter(lane).(algorithms.Inspector); ok {
		return in.Inspect(key), true
	}
	return algorithms.StoreView{}, true
}

// StoreFailure is the failure of the store the lanes keep their state in,
// once it has failed: from then on they decide in memory only, for the
// rest of the session.
func (l *Lab) StoreFailure() error { return l.clock.storeErr }

// StateBytes is about how many bytes lane's state takes at the clock (every
// key's state, logged admissions and waiting requests included), as if
// shared with nothing: see algorithms.Memory.
func (l *Lab) StateBytes(lane int) int64 { return l.clock.limiter(lane).Memory().State }

// LastDecision is lane's latest decision: on the latest decided request
// (request Pos−1, the record's Index), or on a retry the lane decided
// after it (Attempt.N > 1, Index its original's); ok is false when none is
// decided.
func (l *Lab) LastDecision(lane int) (rec Record, ok bool) { return l.clock.lastDecision(lane) }

// Records calls fn with every lane's decision on each request with from ≤ At
// ≤ to, retries included, in the order they were decided (time order; at
// one instant, lane by lane for an original request), until fn returns
// false. It replays from the checkpoint before from and leaves the clock
// alone.
func (l *Lab) Records(from, to time.Duration, fn func(Record) bool) {
	l.engine.replay(l.timeline.searchBefore(from), l.timeline.search(to), to, func(r Record) bool {
		return r.Request.At < from || fn(r)
	})
}

// DecisionsOn is every lane's record of request i (its first attempt), in
// lane order, replayed from the checkpoint before it; nil for an i not on
// the timeline.
func (l *Lab) DecisionsOn(i int) []Record {
	if i < 0 || i >= l.timeline.len() {
		return nil
	}
	return l.engine.recordsAt(i)
}

// NextRequest is the time of the first request after t.
func (l *Lab) NextRequest(t time.Duration) (time.Duration, bool) {
	i := l.timeline.search(t)
	if i == l.timeline.len() {
		return 0, false
	}
	return l.timeline.at(i), true
}

// PrevRequest is the time of the last request before t.
func (l *Lab) PrevRequest(t time.Duration) (time.Duration, bool) {
	i := l.timeline.searchBefore(t)
	if i == 0 {
		return 0, false
	}
	return l.timeline.at(i - 1), true
}

// Disagrees reports whether the lanes split on the i-th request: some admit
// it (now or later) while others reject it. It is false when there is no
// i-th request.
func (l *Lab) Disagrees(i int) bool {
	if i < 0 || i >= l.timeline.len() {
		return false
	}
	return l.engine.disagrees(i)
}

// NextDisagreement is the time of the first request after t on which the
// lanes disagree.
func (l *Lab) NextDisagreement(t time.Duration) (time.Duration, bool) {
	for i := l.timeline.search(t); i < l.timeline.len(); i++ {
		if l.Disagrees(i) {
			return l.timeline.at(i), true
		}
	}
	return 0, false
}

// PrevDisagreement is the time of the last request before t on which the
// lanes disagree.
func (l *Lab) PrevDisagreement(t time.Duration) (time.Duration, bool) {
	i := l.timeline.searchBefore(t)
	for i--; i >= 0; i-- {
		if l.Disagrees(i) {
			return l.timeline.at(i), true
		}
	}
	return 0, false
}

// Computed is how many requests, from the first, have their decisions
// computed: a seek or a query up to there costs at most one checkpoint's
// replay, beyond it it costs the computing of every request in between.
//
// The lab decides requests lazily, as far as the clock (or a query) needs;
// a screen that must stay responsive on a timeline of millions of requests
// computes ahead in slices between its frames instead of all at once
// inside one key press.
func (l *Lab) Computed() int { return l.engine.computed }

// ComputeAhead computes the decisions of at most n more requests (n < 1
// computes none) and returns Computed.
func (l *Lab) ComputeAhead(n int) int {
	if n > 0 {
		l.engine.ensure(min(l.engine.computed+n, l.timeline.len()))
	}
	return l.engine.computed
}
