package model

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// CheckpointEvery is how many requests at least lie between two
// checkpoints. Where the lanes' states are small, checkpoints are exactly
// this far apart and a seek replays at most this many requests per lane;
// where they are huge, checkpoints are further apart (see checkpointBudget).
const CheckpointEvery = 2048

// checkpointBudget bounds the memory that checkpoints hold, in bytes per
// decided request. A checkpoint shares every lane's state with the lanes it
// was cloned from (see algorithms.Memory): what it costs is its own tables,
// plus whatever the computing lanes later let go of or copy while it still
// holds it. A checkpoint is taken only when the cost of all of them so far
// fits the budget of the requests decided; what the last one comes to hold
// after that is at most one state. So the checkpoints hold at most
// checkpointBudget × Len bytes plus one state, whatever the limits, queues
// and keys; where states change a lot, a seek replays more.
const checkpointBudget = 16

// checkpoint is a frozen copy of every lane's state after events[:pos], and
// the checkpoints' cost (see checkpointBudget) when it was taken. whole[lane]
// tells that ls keeps lane's peak tracker whole (its window's passages and
// pending releases); the others keep their peak only and are refilled from
// the timeline when restored.
type checkpoint struct {
	pos   int
	ls    *lanes
	cost  int64
	whole []bool
}

// peakKeepBytes bounds what the peak trackers a checkpoint keeps whole may
// take: half of what checkpointBudget grants CheckpointEvery requests, so
// that the limiters' states keep the other half. A tracker is small for
// regular traffic whatever the window (see peakTracker); a larger one is
// refilled from the timeline instead, which costs a seek every admission
// inside the peak window. Tests set it to 0 to take the refilling path.
var peakKeepBytes int64 = checkpointBudget * CheckpointEvery / 2

// kind is what a run of requests has in common: the key (interned), the
// cost and who sent it. fired is 0 for the scenario's own traffic, else the
// serial number of the learner's fire action (1, 2, …, never reused) that
// added it; a burst's requests share one, so Undo can remove the latest
// action whole.
type kind struct {
	cost   int64
	key    int32
	fired  uint32
	client uint16 // scenarios.Request's Client
}

// Lab is a scenario's lanes over one timeline of requests, seen at the time
// Now of a virtual clock. It is not safe for concurrent use.
//
// The timeline is the scenario's traffic plus the requests the learner fired.
// Requests are ordered by time; a request fired at t goes after every other
// request at t. The first Pos requests are decided: after Seek, every
// request at or before Now; after SeekPos, some of those at exactly Now.
type Lab struct {
	scenario   *scenarios.Scenario
	defs       []Lane
	peakWindow time.Duration
	peakChoice time.Duration // the peak window asked for; 0 for the default
	end        time.Duration // the scenario's duration, stretched by fired requests (see End)
	store      Store         // keeps the lanes' state; nil: memory
	storeErr   error         // the store's failure, once it has failed
	// book is the scenario's clients, nil when it has none; clog[lane] is
	// then lane's record of retries and waits, and drainedEnd tells that
	// the frontier decided the retries owed after the last request.
	book       *clientBook
	clog       []*clientLog
	drainedEnd bool

	keys     interned[string]
	baseKeys int      // keys.list[:baseKeys] are the scenario's; later ones were fired
	tl       timeline // the requests: time and kind
	kinds    interned[kind]
	serial   uint32   // serial of the learner's latest fire action
	nFired   int      // how many of the timeline's requests the learner fired
	history  []action // what Undo takes back, latest last

	// outcomes[lane][i] is lane's verdict on events[i], for i < computed.
	// frontier is every lane's state after events[:computed], and each
	// checkpoint a frozen copy of the state after events[:pos].
	// delays[lane] are the delays a lane that can delay (its algorithm's
	// description has a MaxDelay, as a leaky bucket's does)
	// gave to events[:computed], those not zero; nil for the other lanes.
	outcomes [][]algorithms.Outcome
	delays   []*delayLog
	// marks[lane] are a lane of gateways' marked requests (markLog); nil
	// for a plain lane.
	marks  []*markLog
	blocks [][]Tally // blocks[lane][b] tallies events[b*tallyBlock:(b+1)*tallyBlock]
	// releases[lane] indexes the release times of the requests a delaying
	// lane delayed, by the same blocks; empty for the other lanes.
	releases []releaseBlocks
	// admittedSums[{lane, key}][b] is the cost of key that lane admitted in
	// events[:b*tallyBlock], filled as TrailingAdmitted asks.
	admittedSums map[laneKey][]int64
	computed     int
	frontier     *lanes
	checkpoints  []checkpoint // by pos, the first at 0, pos a multiple of tallyBlock
	// costBase is the frontier's dropped() when the last checkpoint was
	// taken or it was restored.
	costBase int64

	// live is the state after events[:livePos], where livePos counts the
	// requests at or before now (after Seek) or stops inside the instant of
	// now (after SeekPos), with the retries due by liveAt decided (liveAt
	// is now once moved); lastRecords are the lanes' latest decisions, on
	// events[livePos-1] or a retry after it.
	now         time.Duration
	live        *lanes
	livePos     int
	liveFrom    int // the checkpoint's pos that live was restored from
	liveAt      time.Duration
	lastRecords []Record
	// latencies caches Stats' latencies for (gen, livePos, now), keyRun
	// StatsFor's totals in a lab with clients.
	latencies latencyCache
	keyRun    keyRun
	span      spanReplay

	// scratch receives the lanes' decisions while computing: a Decision
	// passed through the limiters' interface would escape to the heap.
	scratch  algorithms.Decision
	attempt  Attempt
	retryReq Request

	// gen counts changes to the timeline, for caches of what it decided.
	gen      uint64
	keyCache keyVerdicts
	// keyStats prepares StatsFor per key, for timeline generation keyStatsGen.
	keyStats    map[int32]*keyStats
	keyStatsGen uint64
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
	defs := LanesOf(s)
	choice := max(peakWindow, 0)
	if peakWindow <= 0 {
		peakWindow = DefaultPeakWindow(defs)
	}
	l := &Lab{scenario: s, defs: defs, peakWindow: peakWindow, peakChoice: choice, end: s.Duration, store: store, book: newClientBook(s)}
	l.tl.reserve(int(s.RequestCount()) + slack(int(s.RequestCount())))
	for r := range s.Requests() {
		l.tl.push(event{at: r.At, kind: l.kindOf(kind{cost: r.Cost, key: l.intern(r.Key), client: uint16(r.Client)})})
	}
	for _, k := range s.Keys() {
		l.intern(k)
	}
	l.baseKeys = len(l.keys.list)
	if err := l.rebuild(); err != nil {
		return nil, err
	}
	return l, nil
}

// rebuild discards every computed decision and starts again from t = 0.
func (l *Lab) rebuild() error {
	start, err := newLanes(l.defs, l.peakWindow, l.store, l.end+explorerReach, l.book)
	if err != nil {
		return err
	}
	l.outcomes = make([][]algorithms.Outcome, len(l.defs))
	l.delays = make([]*delayLog, len(l.defs))
	l.marks = make([]*markLog, len(l.defs))
	l.admittedSums = map[laneKey][]int64{}
	l.blocks = make([][]Tally, len(l.defs))
	l.releases = make([]releaseBlocks, len(l.defs))
	l.clog, l.drainedEnd = nil, false
	if l.book != nil {
		l.clog = make([]*clientLog, len(l.defs))
		for i := range l.clog {
			l.clog[i] = &clientLog{}
		}
	}
	for i, def := range l.defs {
		l.outcomes[i] = make([]algorithms.Outcome, l.tl.len(), cap(l.tl.kind))
		if maxDelay(def.Policy) > 0 {
			l.delays[i] = &delayLog{}
		}
		if !def.Fleet.Plain() {
			l.marks[i] = &markLog{}
		}
	}
	l.checkpoints = []checkpoint{{pos: 0, ls: start.clone(nil), cost: start.cloneBytes()}}
	l.frontier, l.computed, l.costBase = start, 0, start.dropped()
	l.live = nil
	l.gen++
	l.Seek(l.now)
	return nil
}

// kindOf interns k.
func (l *Lab) kindOf(k kind) uint32 { return uint32(l.kinds.of(k)) }

// kind is the kind of events[i].
func (l *Lab) kind(i int) kind { return l.kinds.list[l.tl.kind[i]] }

func (l *Lab) intern(key string) int32 { return l.keys.of(key) }

// Scenario is the scenario the lab was built from.
func (l *Lab) Scenario() *scenarios.Scenario { return l.scenario }

// Lanes are the lab's lanes in file order.
func (l *Lab) Lanes() []Lane { return l.defs }

// Keys are the request keys seen so far, in order of first appearance.
func (l *Lab) Keys() []string { return l.keys.list }

// PeakWindow is the window over which Stats.Peak is measured.
func (l *Lab) PeakWindow() time.Duration { return l.peakWindow }

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
		d = DefaultPeakWindow(l.defs)
	}
	pos := l.livePos
	old := l.peakWindow
	l.peakWindow = d
	if err := l.rebuild(); err != nil {
		l.peakWindow = old
		return err
	}
	l.peakChoice = choice
	l.moveLive(pos)
	return nil
}

// Now is the virtual clock's time.
func (l *Lab) Now() time.Duration { return l.now }

// End is the end of the time axis: the scenario's duration, stretched to
// reach the lanes' longest horizon past any request the learner fired, or
// the last request if one lies beyond that.
func (l *Lab) End() time.Duration {
	if n := l.tl.len(); n > 0 && l.tl.at(n-1) > l.end {
		return l.tl.at(n - 1)
	}
	return l.end
}

// horizon is how long the lab's lanes remember a request: the longest lane's
// Policy.Horizon, capped at scenarios.MaxTime.
func (l *Lab) horizon() time.Duration {
	var h time.Duration
	for _, d := range l.defs {
		for _, p := range d.Policies() {
			h = max(h, p.Horizon())
		}
	}
	return min(h, scenarios.MaxTime)
}

// Len is the number of requests on the timeline.
func (l *Lab) Len() int { return l.tl.len() }

// Request is the i-th request of the timeline, 0 ≤ i < Len.
func (l *Lab) Request(i int) Request {
	k := l.kind(i)
	return Request{At: l.tl.at(i), Key: l.keys.list[k.key], Cost: k.cost, Client: int(k.client)}
}

// Fired reports whether the i-th request was fired by the learner.
func (l *Lab) Fired(i int) bool { return l.kind(i).fired != 0 }

// Outcome is lane's verdict on the i-th request, 0 ≤ i < Len.
func (l *Lab) Outcome(lane, i int) algorithms.Outcome {
	l.ensure(i + 1)
	return l.outcomes[lane][i]
}

// Search is the number of requests at or before t: the index of the first
// request after t.
func (l *Lab) Search(t time.Duration) int {
	return sort.Search(l.tl.len(), func(i int) bool { return l.tl.at(i) > t })
}

// searchBefore is the number of requests before t: the index of the first
// request at or after t.
func (l *Lab) searchBefore(t time.Duration) int {
	return sort.Search(l.tl.len(), func(i int) bool { return l.tl.at(i) >= t })
}

// Seek moves the clock to t, clamped to [0, End]. The cost is at most one
// checkpoint's worth of replay, wherever t is.
func (l *Lab) Seek(t time.Duration) {
	l.now = min(max(t, 0), l.End())
	l.moveLive(l.Search(l.now))
}

// Step moves the clock by d, back when d is negative.
func (l *Lab) Step(d time.Duration) { l.Seek(l.now + d) }

// Pos is how many requests of the timeline are decided at the clock: the
// state, Stats, Snapshot, LastDecision, LastDecisionFor and TrailingAdmitted
// all reflect the first Pos requests. After Seek(t) it is Search(t), every
// request at Now decided; after SeekPos it may stop inside an instant.
func (l *Lab) Pos() int { return l.livePos }

// SeekPos decides exactly p requests, p clamped to [0, Len], and moves the
// clock to the instant of the last of them: request p−1's time, or for p = 0
// the first request's time with that request not yet decided (0 with no
// request at all). Of the requests at that instant, those before p are
// decided and the others are not (see Instant). Seek, Step, firing, undoing
// and resetting go back to whole instants. The cost is at most one
// checkpoint's worth of replay, as for Seek.
func (l *Lab) SeekPos(p int) {
	p = min(max(p, 0), l.tl.len())
	switch {
	case p > 0:
		l.now = l.tl.at(p - 1)
	case l.tl.len() > 0:
		l.now = l.tl.at(0)
	default:
		l.now = 0
	}
	l.moveLive(p)
}

// Instant says where the clock is inside its instant: m requests arrive at
// exactly Now, and the first k of them are decided, 0 ≤ k ≤ m ("request k
// of m at Now"). After Seek k = m; m is 0 when no request arrives at Now.
func (l *Lab) Instant() (k, m int) {
	lo := l.searchBefore(l.now)
	return l.livePos - lo, l.Search(l.now) - lo
}

// ensure computes outcomes (and checkpoints) for events[:n].
func (l *Lab) ensure(n int) {
	n = min(n, l.tl.len())
	d, a := &l.scratch, &l.attempt
	for l.computed < n {
		r := l.Request(l.computed)
		if l.book != nil {
			l.drainFrontier(r.At, l.computed)
		}
		l.frontier.arrive(r, l.computed)
		for lane := range l.defs {
			l.frontier.decideInto(lane, r, d, a)
			if l.clog != nil {
				l.clog[lane].add(l.computed, r.At, d, a)
			}
			l.outcomes[lane][l.computed] = d.Outcome
			if d.Delay != 0 && l.delays[lane] != nil {
				l.delays[lane].add(l.computed, d.Delay)
			}
			if l.marks[lane] != nil {
				l.marks[lane].add(l.computed, d)
			}
		}
		l.computed++
		if l.computed%tallyBlock == 0 {
			for lane := range l.defs {
				var t Tally
				for _, o := range l.outcomes[lane][l.computed-tallyBlock : l.computed] {
					t.add(o)
				}
				l.blocks[lane] = append(l.blocks[lane], t)
				if l.delays[lane] != nil {
					l.releases[lane].add(l, lane, l.computed-tallyBlock)
				}
			}
		}
		if l.computed%tallyBlock == 0 && l.computed-l.checkpoints[len(l.checkpoints)-1].pos >= CheckpointEvery {
			l.maybeCheckpoint()
		}
	}
	if l.book != nil && l.computed == l.tl.len() && !l.drainedEnd {
		l.drainFrontier(endOfTime, l.computed)
		l.drainedEnd = true
	}
}

// drainFrontier decides on the frontier the retries due by t, before the
// original request events[pos], and logs them.
func (l *Lab) drainFrontier(t time.Duration, pos int) {
	l.frontier.drain(t, &l.retryReq, &l.scratch, &l.attempt, func(lane int) bool {
		l.clog[lane].add(pos, l.retryReq.At, &l.scratch, &l.attempt)
		return true
	})
}

// maybeCheckpoint takes a checkpoint at computed if its cost fits the
// budget (see checkpointBudget).
func (l *Lab) maybeCheckpoint() {
	dropped := l.frontier.dropped()
	cost := l.checkpoints[len(l.checkpoints)-1].cost + dropped - l.costBase + l.frontier.cloneBytes()
	budget := checkpointBudget * int64(l.computed)
	if cost > budget {
		return
	}
	// Keep whole the peak trackers that fit, lane by lane.
	var whole []bool
	var kept int64
	for lane := range l.frontier.peaks {
		n := l.frontier.peaks[lane].cloneBytes()
		// A lab with clients keeps every tracker whole: the timeline
		// holds no retry to refill one from.
		if l.book == nil && (kept+n > peakKeepBytes || cost+n > budget) {
			continue
		}
		if whole == nil {
			whole = make([]bool, len(l.frontier.peaks))
		}
		whole[lane] = true
		kept += n
		cost += n
	}
	l.checkpoints = append(l.checkpoints, checkpoint{pos: l.computed, ls: l.frontier.clone(whole), cost: cost, whole: whole})
	l.costBase = dropped
}

// checkpointAt is the index of the last checkpoint at or before pos ≥ 0.
func (l *Lab) checkpointAt(pos int) int {
	return sort.Search(len(l.checkpoints), func(k int) bool { return l.checkpoints[k].pos > pos }) - 1
}

// checkpointBytes is what the lab's checkpoints cost, as checkpointBudget
// counts it: at most checkpointBudget bytes per decided request, plus what
// the last one came to hold alone.
func (l *Lab) checkpointBytes() int64 {
	return l.checkpoints[len(l.checkpoints)-1].cost + l.frontier.dropped() - l.costBase
}

// restore returns a working copy of the state after events[:pos], where pos
// must be a checkpoint's.
func (l *Lab) restore(pos int) *lanes {
	cp := &l.checkpoints[l.checkpointAt(pos)]
	ls := cp.ls.clone(cp.whole)
	if pos == 0 {
		return ls
	}
	// Refill the peak trackers not kept whole from the timeline. A tracker lets delayed
	// requests pass only when the next admission arrives, so what has
	// passed is what was released by the lane's last admission (not by
	// the last request: rejections may follow it), and what was released
	// later, even before pos, is still pending. Passages older than one
	// window before that admission would leave at the next passage anyway.
	for lane := range ls.peaks {
		p := &ls.peaks[lane]
		if lane < len(cp.whole) && cp.whole[lane] {
			continue // kept whole
		}
		if !p.admitted {
			continue // nothing admitted yet: nothing passed or pending
		}
		last := p.lastAdmit
		reach := p.window + maxDelay(l.defs[lane].Policy)
		hi := sort.Search(pos, func(i int) bool { return l.tl.at(i) > last })
		from := sort.Search(hi, func(i int) bool { return l.tl.at(i) > last-reach })
		var src sourceCache
		for i := from; i < hi; i++ {
			if !l.outcomes[lane][i].Admitted() {
				continue
			}
			x := passage{l.passage(lane, i), l.kind(i).cost}
			switch {
			case x.at > last:
				p.push(x, src.of(l, ls, i))
			case x.at > l.tl.at(i) && x.at > last-p.window:
				p.refill(l.tl.at(i), x, src.of(l, ls, i)) // in release order, as they passed
			case x.at > last-p.window:
				p.refill(l.tl.at(i), x, 0) // passes at its arrival: no source needed
			}
		}
		p.refilled()
	}
	return ls
}

// sourceCache finds the source (see source) of the requests restore puts
// back in flight, numbering keys as the lanes do, so that the passages of
// a key refilled and those its later admissions push share a group (the
// lab keeps no gateway: a lane of gateways' refilled passages of one key
// share one group, and those out of its order go loose). It remembers the
// latest key: a shaper's queue is mostly one key's.
type sourceCache struct {
	key   int32
	src   int64
	valid bool
}

func (c *sourceCache) of(l *Lab, ls *lanes, i int) int64 {
	if k := l.kind(i).key; !c.valid || k != c.key {
		id, _ := ls.keys.Lookup(l.keys.list[k])
		c.key, c.src, c.valid = k, source(id.ID(), 0), true
	}
	return c.src
}

// invalidate forgets everything computed from events[i:] on, after the
// timeline changed at index i.
func (l *Lab) invalidate(i int) {
	if i < l.computed || l.drainedEnd {
		l.drainedEnd = false
		k := l.checkpointAt(i)
		clear(l.checkpoints[k+1:])
		l.checkpoints = l.checkpoints[:k+1]
		l.computed = l.checkpoints[k].pos
		l.frontier = l.restore(l.computed)
		l.costBase = l.frontier.dropped()
		for lane := range l.blocks {
			l.blocks[lane] = shrink(l.blocks[lane][:l.computed/tallyBlock])
			l.releases[lane].truncate(l.computed / tallyBlock)
			if l.delays[lane] != nil {
				l.delays[lane].truncate(l.computed)
			}
			if l.marks[lane] != nil {
				l.marks[lane].truncate(l.computed)
			}
			if l.clog != nil {
				l.clog[lane].truncate(l.computed)
			}
		}
	}
	for k, cum := range l.admittedSums {
		l.admittedSums[k] = cum[:min(len(cum), i/tallyBlock+1)]
	}
	l.live = nil
	l.gen++
}

// moveLive brings the live state to just after events[:pos].
func (l *Lab) moveLive(pos int) {
	l.ensure(pos)
	start := 0
	if pos > 0 {
		start = l.checkpoints[l.checkpointAt(pos-1)].pos
	}
	if l.live == nil || pos < l.livePos || l.book != nil && l.now < l.liveAt || start > l.livePos && pos-l.livePos > CheckpointEvery {
		l.live, l.livePos, l.liveFrom, l.liveAt = l.restore(start), start, start, 0
		l.lastRecords = nil
	}
	if l.lastRecords == nil {
		l.lastRecords = make([]Record, len(l.defs))
	}
	for ; l.livePos < pos; l.livePos++ {
		r := l.Request(l.livePos)
		l.drainLive(r.At)
		l.live.arrive(r, l.livePos)
		for lane := range l.defs {
			rec := &l.lastRecords[lane]
			l.live.decideInto(lane, r, &rec.Decision, &rec.Attempt)
			rec.Index, rec.Lane, rec.Request = l.livePos, lane, r
		}
	}
	l.drainLive(l.now)
	if l.store != nil {
		// A store outside the process holds what the lab shows: the live
		// lanes' states at the clock, not the frontier's ahead of it.
		for _, lim := range l.live.limiters {
			if in, ok := lim.(algorithms.Inspector); ok {
				if err := in.Hold(l.now); err != nil {
					l.storeErr = err
				}
			}
		}
	}
}

// drainLive decides on the live state the retries due by t.
func (l *Lab) drainLive(t time.Duration) {
	if l.book == nil {
		return
	}
	var r Request
	var d algorithms.Decision
	var a Attempt
	l.live.drain(t, &r, &d, &a, func(lane int) bool {
		l.lastRecords[lane] = Record{Index: a.Original, Lane: lane, Request: r, Decision: d, Attempt: a}
		return true
	})
	l.liveAt = max(l.liveAt, t)
}

// Stats are lane's totals over the decided requests (the first Pos: those
// at or before Now after Seek). The peak counts delayed requests released by
// Now.
func (l *Lab) Stats(lane int) Stats {
	s := l.live.statsAt(lane, l.now)
	s.Latency = l.latency(lane, s.Served)
	return s
}

// Snapshot is lane's state for key at Now, after the decided requests.
func (l *Lab) Snapshot(lane int, key string) algorithms.Snapshot {
	return l.live.limiters[lane].Snapshot(l.now, key)
}

// StoreView is where lane keeps key's state outside the process, as it is
// at the clock; false for a lab whose lanes keep their state in memory. A
// lane of a lab on a store that keeps its own state in memory (gateways
// with their own, a synced store's views) has a view with no Store.
func (l *Lab) StoreView(lane int, key string) (algorithms.StoreView, bool) {
	if l.store == nil {
		return algorithms.StoreView{}, false
	}
	if in, ok := l.live.limiters[lane].(algorithms.Inspector); ok {
		return in.Inspect(key), true
	}
	return algorithms.StoreView{}, true
}

// StoreFailure is the failure of the store the lanes keep their state in,
// once it has failed: from then on they decide in memory only, for the
// rest of the session.
func (l *Lab) StoreFailure() error { return l.storeErr }

// StateBytes is about how many bytes lane's state takes at the clock (every
// key's state, logged admissions and waiting requests included), as if
// shared with nothing: see algorithms.Memory.
func (l *Lab) StateBytes(lane int) int64 { return l.live.limiters[lane].Memory().State }

// LastDecision is lane's latest decision: on the latest decided request
// (request Pos−1, the record's Index), or on a retry the lane decided
// after it (Attempt.N > 1, Index its original's); ok is false when none is
// decided.
func (l *Lab) LastDecision(lane int) (rec Record, ok bool) {
	if l.livePos == 0 || l.lastRecords == nil {
		return Record{}, false
	}
	return l.lastRecords[lane], true
}

// TrailingAdmitted is the exact admitted cost of lane for key in the window
// (Now − window, Now], over the decided requests: what a sliding counter
// estimates. It reads running sums over blocks of requests, so it costs the
// same however many requests the window holds.
func (l *Lab) TrailingAdmitted(lane int, key string, window time.Duration) int64 {
	k, ok := l.keys.lookup(key)
	if !ok {
		return 0
	}
	if l.book != nil {
		// Retries are admitted too: summed on a replay of the window.
		var sum int64
		for _, p := range l.spanFrom(l.now - window + 1).passed[lane] {
			if p.key == k && p.at > l.now-window {
				sum += p.cost
			}
		}
		return sum
	}
	hi := l.livePos
	lo := min(l.Search(l.now-window), hi)
	return l.admittedBefore(lane, k, hi) - l.admittedBefore(lane, k, lo)
}

// Records calls fn with every lane's decision on each request with from ≤ At
// ≤ to, retries included, in the order they were decided (time order; at
// one instant, lane by lane for an original request), until fn returns
// false. It replays from the checkpoint before from and leaves the clock
// alone.
func (l *Lab) Records(from, to time.Duration, fn func(Record) bool) {
	l.replay(l.searchBefore(from), l.Search(to), to, func(r Record) bool {
		return r.Request.At < from || fn(r)
	})
}

// replay decides events[lo:hi] again, from the checkpoint at or before lo,
// and calls fn with every lane's decision on each of them, and on the
// retries decided after events[lo−1] and before events[hi] (those due by
// until, when hi is not before it), in the order decided, until fn returns
// false.
func (l *Lab) replay(lo, hi int, until time.Duration, fn func(Record) bool) {
	lo = max(lo, 0)
	if lo >= hi && (l.book == nil || lo > hi) {
		return
	}
	l.ensure(lo)
	start := l.checkpoints[l.checkpointAt(lo)].pos
	ls := l.restore(start)
	var d algorithms.Decision
	var a Attempt
	var rr Request
	drain := func(t time.Duration, pos int) bool {
		return ls.drain(t, &rr, &d, &a, func(lane int) bool {
			return pos < lo || fn(Record{Index: a.Original, Lane: lane, Request: rr, Decision: d, Attempt: a})
		})
	}
	for i := start; i < hi; i++ {
		r := l.Request(i)
		if !drain(r.At, i) {
			return
		}
		ls.arrive(r, i)
		for lane := range l.defs {
			ls.decideInto(lane, r, &d, &a)
			if i >= lo && !fn(Record{Index: i, Lane: lane, Request: r, Decision: d, Attempt: a}) {
				return
			}
		}
	}
	if hi < l.tl.len() {
		until = min(until, l.tl.at(hi))
	}
	drain(until, hi)
}

// ErrCost is returned for a request cost below 1.
var ErrCost = errors.New("a request's cost must be at least 1")

// Fire adds a request for key at Now and returns every lane's decision on it.
func (l *Lab) Fire(key string, cost int64) ([]Record, error) { return l.FireAt(l.now, key, cost) }

// FireAt adds a request for key at t, after every request already at t, and
// recomputes everything after it: the what-if of a request that came earlier.
// The time axis grows, if need be, to reach the lanes' longest horizon past
// t (see End).
// An empty key is scenarios.DefaultKey, as in a scenario file; a key a file
// could not hold (over 64 bytes, not UTF-8) is refused. The clock stays
// where it is. It returns every lane's decision on it.
func (l *Lab) FireAt(t time.Duration, key string, cost int64) ([]Record, error) {
	return l.fire(fireAction{at: t, key: key, cost: cost, n: 1})
}

// FireBurst adds n requests for key at Now as one action (one Undo removes
// them all) and returns every lane's decision on each, in timeline order then
// lane order. The n requests sit next to each other in the timeline, from
// the first record's Index on, after every request already at Now.
// Everything after them is recomputed once, not n times.
func (l *Lab) FireBurst(key string, cost int64, n int) ([]Record, error) {
	return l.FireSpread(key, cost, n, 0)
}

// FireSpread adds n requests for key from Now over spread as one action (one
// Undo removes them all), placed as a scenario's burst item with that count
// and spread places them: the i-th at Now + ⌊i × spread / n⌋, each after
// every request already at its time. With spread 0 it is FireBurst. It
// returns every lane's decision on each, in timeline order then lane order;
// with a spread, other requests may sit between them (each record's Index
// says where its request is). Everything after the first is recomputed once.
func (l *Lab) FireSpread(key string, cost int64, n int, spread time.Duration) ([]Record, error) {
	return l.fire(fireAction{at: l.now, spread: spread, key: key, cost: cost, n: n})
}

// MaxBurst bounds the requests one fire action may add.
const MaxBurst = 1_000_000

// fireAction is what one fire action added: n requests for key of cost
// cost, from at over spread as a burst item places them.
type fireAction struct {
	at, spread time.Duration
	key        string
	cost       int64
	n          int
}

// item is the traffic item that expands to the action's requests.
func (f fireAction) item() scenarios.Traffic {
	t := scenarios.Traffic{Form: scenarios.Single, At: f.at, Count: 1, Key: f.key, Cost: f.cost}
	if f.n > 1 {
		t.Form, t.Spread, t.Count = scenarios.Burst, f.spread, int64(f.n)
	}
	return t
}

// check refuses an action a scenario file could not hold, and fills in the
// default key.
func (f *fireAction) check() error {
	if f.cost < 1 {
		return ErrCost
	}
	if f.n < 1 || f.n > MaxBurst {
		return fmt.Errorf("a burst is 1 to %d requests, not %d", MaxBurst, f.n)
	}
	if f.key == "" {
		f.key = scenarios.DefaultKey
	}
	if err := checkKey(f.key); err != nil {
		return err
	}
	if f.spread < 0 {
		return fmt.Errorf("a spread is 0 or more, not %s", algorithms.FormatDuration(f.spread))
	}
	if f.n == 1 {
		f.spread = 0 // one request sits at the start of any spread
	}
	if f.at < 0 {
		return fmt.Errorf("time %s is before the scenario's start", algorithms.FormatDuration(f.at))
	}
	// A file's requests arrive before its duration, at most MaxTime: a
	// request at MaxTime could not be saved.
	if f.at >= scenarios.MaxTime || f.spread >= scenarios.MaxTime || f.item().Time(int64(f.n-1)) >= scenarios.MaxTime {
		return fmt.Errorf("time %s is not before %s, the end of the longest time axis",
			algorithms.FormatDuration(f.item().Time(int64(f.n-1))), algorithms.FormatDuration(scenarios.MaxTime))
	}
	return nil
}

// fire adds f's requests as one action and returns every lane's decision on
// each of them.
func (l *Lab) fire(f fireAction) ([]Record, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	l.serial++
	l.history = append(l.history, action{serial: l.serial, end: l.end, keys: len(l.keys.list), kinds: len(l.kinds.list), fire: f})
	l.nFired += f.n
	e := event{at: f.at, kind: l.kindOf(kind{cost: f.cost, key: l.intern(f.key), fired: l.serial})}
	first := l.Search(f.at)
	last := first + f.n - 1 // the index of the action's last request
	item := f.item()
	l.rewrite(first, f.n, func(next func() (event, bool), push func(event) int) {
		x, ok := next()
		for j := range int64(f.n) {
			e.at = item.Time(j)
			for ; ok && x.at <= e.at; x, ok = next() {
				push(x)
			}
			last = push(e)
		}
		for ; ok; x, ok = next() {
			push(x)
		}
	})
	// Let the axis reach past the requests as far as a scenario's default
	// duration reaches past its last one, so that the clock can follow what
	// a request fired at the end sets in motion (a refill, an expiry).
	l.end = max(l.end, min(l.tl.at(last)+l.horizon(), scenarios.MaxTime))
	l.replaceEvents(first)
	l.Seek(l.now)
	recs := make([]Record, 0, f.n*len(l.defs))
	l.replay(first, last+1, -1, func(r Record) bool {
		if r.Attempt.N == 1 && l.kind(r.Index).fired == l.serial {
			recs = append(recs, r)
		}
		return true
	})
	return recs, nil
}

// FiredCount is how many of the timeline's requests the learner fired.
func (l *Lab) FiredCount() int { return l.nFired }

// FiredRequests are the learner's requests still on the timeline, in
// timeline order: what a saved scenario adds to the original.
func (l *Lab) FiredRequests() []Request {
	var out []Request
	for i := range l.tl.len() {
		if l.kind(i).fired != 0 {
			out = append(out, l.Request(i))
		}
	}
	return out
}

// NextRequest is the time of the first request after t.
func (l *Lab) NextRequest(t time.Duration) (time.Duration, bool) {
	i := l.Search(t)
	if i == l.tl.len() {
		return 0, false
	}
	return l.tl.at(i), true
}

// PrevRequest is the time of the last request before t.
func (l *Lab) PrevRequest(t time.Duration) (time.Duration, bool) {
	i := l.searchBefore(t)
	if i == 0 {
		return 0, false
	}
	return l.tl.at(i - 1), true
}

// Disagrees reports whether the lanes split on the i-th request: some admit
// it (now or later) while others reject it. It is false when there is no
// i-th request.
func (l *Lab) Disagrees(i int) bool {
	if i < 0 || i >= l.tl.len() {
		return false
	}
	l.ensure(i + 1)
	first := l.outcomes[0][i].Admitted()
	for lane := 1; lane < len(l.outcomes); lane++ {
		if l.outcomes[lane][i].Admitted() != first {
			return true
		}
	}
	return false
}

// NextDisagreement is the time of the first request after t on which the
// lanes disagree.
func (l *Lab) NextDisagreement(t time.Duration) (time.Duration, bool) {
	for i := l.Search(t); i < l.tl.len(); i++ {
		if l.Disagrees(i) {
			return l.tl.at(i), true
		}
	}
	return 0, false
}

// PrevDisagreement is the time of the last request before t on which the
// lanes disagree.
func (l *Lab) PrevDisagreement(t time.Duration) (time.Duration, bool) {
	i := l.searchBefore(t)
	for i--; i >= 0; i-- {
		if l.Disagrees(i) {
			return l.tl.at(i), true
		}
	}
	return 0, false
}
