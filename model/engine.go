package model

import (
	"sort"
	"time"

	"ratelab/algorithms"
	"ratelab/model/internal/peak"
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
// regular traffic whatever the window (see peak.Tracker); a larger one is
// refilled from the timeline instead, which costs a seek every admission
// inside the peak window. Tests set it to 0 to take the refilling path.
var peakKeepBytes int64 = checkpointBudget * CheckpointEvery / 2

// engine decides a timeline's requests in every lane and keeps what it
// decided. It decides lazily, as far as asked (ensure), on its frontier,
// the lanes' state after the requests decided so far, and keeps each
// lane's verdict on each request (outcome), the delays and marks, tallies
// by block and, with clients, each lane's log of retries; and checkpoints,
// frozen copies of the lanes from which any point is replayed (restore,
// replay) at the cost of at most one checkpoint interval. When the
// timeline changes from some request on, replace forgets what was decided
// from there; gen counts these changes, for what others derive from the
// decisions.
type engine struct {
	tl     *timeline
	defs   []Lane
	window time.Duration // the peak window
	store  Store         // keeps the lanes' state; nil: memory
	// book is the scenario's clients, nil when it has none; clog[lane] is
	// then lane's record of retries and waits, and drainedEnd tells that
	// the frontier decided the retries owed after the last request.
	book       *clientBook
	clog       []*clientLog
	drainedEnd bool

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
	releases    []releaseBlocks
	computed    int
	frontier    *lanes
	checkpoints []checkpoint // by pos, the first at 0, pos a multiple of tallyBlock
	// costBase is the frontier's dropped() when the last checkpoint was
	// taken or it was restored.
	costBase int64

	// scratch receives the lanes' decisions while computing: a Decision
	// passed through the limiters' interface would escape to the heap.
	scratch  algorithms.Decision
	attempt  Attempt
	retryReq Request

	// gen counts the times the decisions were forgotten from some request
	// on (or all of them), for caches of what they decided.
	gen uint64

	// refilled is the last checkpoint restore refilled peak trackers for
	// (see restore), kept so that the next restore of it is a clone.
	refilled refilledCheckpoint

	// tip is every lane's record of events[tipAt], the last request an
	// ensure decided, when the decisions were of generation tipGen: what
	// a clock that takes the frontier's state (clock.moveTo) shows as the
	// lanes' latest decisions. Kept for a lab without clients only.
	tip    []Record
	tipAt  int
	tipGen uint64
}

// tipFor reports whether the frontier is the state after events[:pos]
// with the records of events[pos−1] in tip, so that a clock may take a
// copy of it rather than replay from a checkpoint: a lab without clients
// or a store, pos the requests decided.
func (e *engine) tipFor(pos int) bool {
	return e.book == nil && e.store == nil && pos > 0 && pos == e.computed && e.tipAt == pos-1 && e.tipGen == e.gen
}

// newEngine is the engine of tl's requests through the lanes defs, the
// peaks measured over window, the states kept by store, with nothing
// decided yet.
func newEngine(tl *timeline, defs []Lane, window time.Duration, store Store, book *clientBook) (*engine, error) {
	e := &engine{tl: tl, defs: defs, window: window, store: store, book: book}
	if err := e.rebuild(); err != nil {
		return nil, err
	}
	return e, nil
}

// rebuild discards every decision and starts again from t = 0.
func (e *engine) rebuild() error {
	start, err := newLanes(e.defs, e.window, e.store, e.tl.end+explorerReach, e.book)
	if err != nil {
		return err
	}
	n := len(e.defs)
	e.outcomes = make([][]algorithms.Outcome, n)
	e.delays = make([]*delayLog, n)
	e.marks = make([]*markLog, n)
	e.blocks = make([][]Tally, n)
	e.releases = make([]releaseBlocks, n)
	e.clog, e.drainedEnd = nil, false
	if e.book != nil {
		e.clog = make([]*clientLog, n)
		for i := range e.clog {
			e.clog[i] = newClientLog(&attemptTimes{tl: e.tl, book: e.book})
		}
	}
	for i, def := range e.defs {
		e.outcomes[i] = make([]algorithms.Outcome, e.tl.len(), cap(e.tl.ev.kind))
		if maxDelay(def.Policy) > 0 {
			e.delays[i] = &delayLog{}
		}
		if !def.Fleet.Plain() || dryRuns(def) {
			e.marks[i] = &markLog{}
		}
	}
	e.checkpoints = []checkpoint{{pos: 0, ls: start.clone(nil), cost: start.cloneBytes()}}
	e.refilled = refilledCheckpoint{}
	e.frontier, e.computed, e.costBase = start, 0, start.dropped()
	e.gen++
	return nil
}

// setWindow measures the peaks over d from now on: every decision is made
// again. On an error nothing changed.
func (e *engine) setWindow(d time.Duration) error {
	old := e.window
	e.window = d
	if err := e.rebuild(); err != nil {
		e.window = old
		return err
	}
	return nil
}

// ensure decides events[:n] (n clamped to the timeline), taking
// checkpoints on the way.
func (e *engine) ensure(n int) {
	n = min(n, e.tl.len())
	d, a := &e.scratch, &e.attempt
	if e.computed < n && e.book == nil {
		e.tip, e.tipAt, e.tipGen = resize(e.tip, len(e.defs), len(e.defs)), n-1, e.gen
	}
	for e.computed < n {
		r := e.tl.request(e.computed)
		if e.book != nil {
			e.drainFrontier(r.At, e.computed)
		}
		e.frontier.arrive(r, e.computed)
		for lane := range e.defs {
			e.frontier.decideInto(lane, r, d, a)
			if e.clog != nil {
				e.clog[lane].add(e.computed, r.At, d, a)
			}
			if e.computed == e.tipAt && e.book == nil {
				e.tip[lane] = Record{Index: e.computed, Lane: lane, Request: r, Decision: *d, Attempt: *a}
			}
			e.outcomes[lane][e.computed] = d.Outcome
			if d.Delay != 0 && e.delays[lane] != nil {
				e.delays[lane].add(e.computed, d.Delay)
			}
			if e.marks[lane] != nil {
				e.marks[lane].add(e.computed, d)
			}
		}
		e.computed++
		if e.computed%tallyBlock == 0 {
			for lane := range e.defs {
				var t Tally
				for _, o := range e.outcomes[lane][e.computed-tallyBlock : e.computed] {
					t.add(o)
				}
				e.blocks[lane] = append(e.blocks[lane], t)
				if e.delays[lane] != nil {
					e.releases[lane].add(e, lane, e.computed-tallyBlock)
				}
			}
		}
		if e.computed%tallyBlock == 0 && e.computed-e.checkpoints[len(e.checkpoints)-1].pos >= CheckpointEvery {
			e.maybeCheckpoint()
		}
	}
	if e.book != nil && e.computed == e.tl.len() && !e.drainedEnd {
		e.drainFrontier(endOfTime, e.computed)
		e.drainedEnd = true
	}
}

// drainFrontier decides on the frontier the retries due by t, before the
// original request events[pos], and logs them.
func (e *engine) drainFrontier(t time.Duration, pos int) {
	e.frontier.drain(t, &e.retryReq, &e.scratch, &e.attempt, func(lane int) bool {
		e.clog[lane].add(pos, e.retryReq.At, &e.scratch, &e.attempt)
		return true
	})
}

// maybeCheckpoint takes a checkpoint at computed if its cost fits the
// budget (see checkpointBudget).
func (e *engine) maybeCheckpoint() {
	dropped := e.frontier.dropped()
	cost := e.checkpoints[len(e.checkpoints)-1].cost + dropped - e.costBase + e.frontier.cloneBytes()
	budget := checkpointBudget * int64(e.computed)
	if cost > budget {
		return
	}
	// Keep whole the peak trackers that fit, lane by lane.
	var whole []bool
	var kept int64
	for lane := range e.frontier.peaks {
		n := e.frontier.peaks[lane].CloneBytes()
		// A lab with clients keeps every tracker whole: the timeline
		// holds no retry to refill one from.
		if e.book == nil && (kept+n > peakKeepBytes || cost+n > budget) {
			continue
		}
		if whole == nil {
			whole = make([]bool, len(e.frontier.peaks))
		}
		whole[lane] = true
		kept += n
		cost += n
	}
	e.checkpoints = append(e.checkpoints, checkpoint{pos: e.computed, ls: e.frontier.clone(whole), cost: cost, whole: whole})
	e.costBase = dropped
}

// checkpointAt is the index of the last checkpoint at or before pos ≥ 0.
func (e *engine) checkpointAt(pos int) int {
	return sort.Search(len(e.checkpoints), func(k int) bool { return e.checkpoints[k].pos > pos }) - 1
}

// startFor is where a replay that must reach the state after events[:pos]
// starts: the position of the last checkpoint before request pos − 1 is
// decided (0 for pos 0).
func (e *engine) startFor(pos int) int {
	if pos == 0 {
		return 0
	}
	return e.checkpoints[e.checkpointAt(pos-1)].pos
}

// checkpointBytes is what the checkpoints cost, as checkpointBudget
// counts it: at most checkpointBudget bytes per decided request, plus what
// the last one came to hold alone.
func (e *engine) checkpointBytes() int64 {
	return e.checkpoints[len(e.checkpoints)-1].cost + e.frontier.dropped() - e.costBase
}

// refilledCheckpoint is a checkpoint's state with every peak tracker
// refilled from the timeline: from is the checkpoint's own state (the
// checkpoint at pos it was restored from, while it is kept), ls the
// refilled copy, which shares every limiter's state with it.
//
// With thousands of keys a checkpoint keeps its trackers' peaks only (they
// do not fit the budget whole), and refilling them replays a window's
// admissions: with 100,000 keys, 82,000 requests in six lanes, 30 to 40 ms
// on every restore of the same checkpoint, which the clock, the frontier
// and each replay toward a verdict or the chart's states do in turn after
// a seek back. The copy costs its trackers (what one restore holds) and
// the limiters' tables of chunks, no state of a key.
type refilledCheckpoint struct {
	pos  int
	from *lanes
	ls   *lanes
}

// restore returns a working copy of the state after events[:pos], where pos
// must be a checkpoint's.
func (e *engine) restore(pos int) *lanes {
	cp := &e.checkpoints[e.checkpointAt(pos)]
	if r := &e.refilled; r.from == cp.ls && r.ls != nil {
		return r.ls.clone(e.wholePeaks())
	}
	ls := cp.ls.clone(cp.whole)
	if pos == 0 {
		return ls
	}
	refilled := false
	defer func() {
		if refilled && e.store == nil {
			e.refilled = refilledCheckpoint{pos: cp.pos, from: cp.ls, ls: ls.clone(e.wholePeaks())}
		}
	}()
	// Refill the peak trackers not kept whole from the timeline. A tracker lets delayed
	// requests pass only when the next admission arrives, so what has
	// passed is what was released by the lane's last admission (not by
	// the last request: rejections may follow it), and what was released
	// later, even before pos, is still pending. Passages older than one
	// window before that admission would leave at the next passage anyway.
	tl := e.tl
	for lane := range ls.peaks {
		p := &ls.peaks[lane]
		if lane < len(cp.whole) && cp.whole[lane] {
			continue // kept whole
		}
		last, admitted := p.LastAdmit()
		if !admitted {
			continue // nothing admitted yet: nothing passed or pending
		}
		refilled = true
		w := p.Window()
		reach := w + maxDelay(e.defs[lane].Policy)
		hi := sort.Search(pos, func(i int) bool { return tl.at(i) > last })
		from := sort.Search(hi, func(i int) bool { return tl.at(i) > last-reach })
		var src sourceCache
		for i := from; i < hi; i++ {
			if !e.outcomes[lane][i].Admitted() {
				continue
			}
			x := peak.Passage{At: e.passage(lane, i), Cost: tl.kind(i).cost}
			switch {
			case x.At > last:
				p.Push(x, src.of(tl, ls, i))
			case x.At > tl.at(i) && x.At > last-w:
				p.Refill(tl.at(i), x, src.of(tl, ls, i)) // in release order, as they passed
			case x.At > last-w:
				p.Refill(tl.at(i), x, 0) // passes at its arrival: no source needed
			}
		}
		p.Refilled()
	}
	return ls
}

// sourceCache finds the source (see peak.Source) of the requests restore
// puts back in flight, numbering keys as the lanes do, so that the
// passages of a key refilled and those its later admissions push share a
// group (the lab keeps no gateway: a lane of gateways' refilled passages
// of one key share one group, and those out of its order go loose). It
// remembers the latest key: a shaper's queue is mostly one key's.
type sourceCache struct {
	key   int32
	src   int64
	valid bool
}

func (c *sourceCache) of(tl *timeline, ls *lanes, i int) int64 {
	if k := tl.kind(i).key; !c.valid || k != c.key {
		id, _ := ls.keys.Lookup(tl.keys.list[k])
		c.key, c.src, c.valid = k, peak.Source(id.ID(), 0), true
	}
	return c.src
}

// replace forgets what was decided from events[from] on, after the
// timeline changed there, and makes the outcomes fit the timeline's length.
func (e *engine) replace(from int) {
	for lane := range e.outcomes {
		e.outcomes[lane] = shrink(resize(e.outcomes[lane], e.tl.len(), cap(e.tl.ev.kind)))
	}
	e.invalidate(from)
}

// resize is s with length n, its first elements kept, copied to an array
// of room c ≥ n when its own has not room for n.
func resize[T any](s []T, n, c int) []T {
	if n <= len(s) {
		return s[:n]
	}
	s = growTo(s, max(n, c))
	return append(s, make([]T, n-len(s))...)
}

// invalidate forgets everything computed from events[i:] on, after the
// timeline changed at index i.
func (e *engine) invalidate(i int) {
	if i < e.computed || e.drainedEnd {
		e.drainedEnd = false
		k := e.checkpointAt(i)
		if e.refilled.from != nil && e.refilled.pos > e.checkpoints[k].pos {
			e.refilled = refilledCheckpoint{} // its checkpoint is going
		}
		clear(e.checkpoints[k+1:])
		e.checkpoints = e.checkpoints[:k+1]
		e.computed = e.checkpoints[k].pos
		e.frontier = e.restore(e.computed)
		e.costBase = e.frontier.dropped()
		for lane := range e.blocks {
			e.blocks[lane] = shrink(e.blocks[lane][:e.computed/tallyBlock])
			e.releases[lane].truncate(e.computed / tallyBlock)
			if e.delays[lane] != nil {
				e.delays[lane].truncate(e.computed)
			}
			if e.marks[lane] != nil {
				e.marks[lane].truncate(e.computed)
			}
			if e.clog != nil {
				e.clog[lane].truncate(e.computed)
			}
		}
	}
	e.gen++
}

// outcome is lane's verdict on events[i].
func (e *engine) outcome(lane, i int) algorithms.Outcome {
	e.ensure(i + 1)
	return e.outcomes[lane][i]
}

// passage is when events[i], admitted by lane, passes it: its arrival plus
// its delay. events[i] must be decided.
func (e *engine) passage(lane, i int) time.Duration {
	at := e.tl.at(i)
	if dl := e.delays[lane]; dl != nil {
		at += dl.delay(i)
	}
	return at
}

// disagrees reports whether the lanes split on events[i]: some admit it
// (now or later) while others reject it.
func (e *engine) disagrees(i int) bool {
	e.ensure(i + 1)
	first := e.outcomes[0][i].Admitted()
	for lane := 1; lane < len(e.outcomes); lane++ {
		if e.outcomes[lane][i].Admitted() != first {
			return true
		}
	}
	return false
}

// replay decides events[lo:hi] again, from the checkpoint at or before lo,
// and calls fn with every lane's decision on each of them, and on the
// retries decided after events[lo−1] and before events[hi] (those due by
// until, when hi is not before it), in the order decided, until fn returns
// false.
func (e *engine) replay(lo, hi int, until time.Duration, fn func(Record) bool) {
	lo = max(lo, 0)
	if lo >= hi && (e.book == nil || lo > hi) {
		return
	}
	e.ensure(lo)
	start := e.checkpoints[e.checkpointAt(lo)].pos
	ls := e.restore(start)
	var d algorithms.Decision
	var a Attempt
	var rr Request
	drain := func(t time.Duration, pos int) bool {
		return ls.drain(t, &rr, &d, &a, func(lane int) bool {
			return pos < lo || fn(Record{Index: a.Original, Lane: lane, Request: rr, Decision: d, Attempt: a})
		})
	}
	for i := start; i < hi; i++ {
		r := e.tl.request(i)
		if !drain(r.At, i) {
			return
		}
		ls.arrive(r, i)
		for lane := range e.defs {
			ls.decideInto(lane, r, &d, &a)
			if i >= lo && !fn(Record{Index: i, Lane: lane, Request: r, Decision: d, Attempt: a}) {
				return
			}
		}
	}
	if hi < e.tl.len() {
		until = min(until, e.tl.at(hi))
	}
	drain(until, hi)
}

// recordsAt is every lane's record of events[i], replayed from the
// checkpoint before it; empty records for i < 0.
func (e *engine) recordsAt(i int) []Record {
	if i < 0 {
		return make([]Record, len(e.defs))
	}
	rc := e.recordsCursor(i)
	rc.step(e.tl.len())
	return rc.out
}

// recordsReplay replays, in steps, from the checkpoint before events[at]
// to it, for every lane's record of it: what recordsAt does at once, done
// a few requests at a time (step) so that a screen need not wait for a
// replay of a long checkpoint interval. It holds its own copy of the
// lanes, good for as long as the engine's generation is gen.
type recordsReplay struct {
	e        *engine
	gen      uint64
	at, next int // the request whose records it wants, the next to decide
	start    int // the checkpoint it started from
	ls       *lanes
	out      []Record // every lane's record of events[at], once done
	done     bool
	d        algorithms.Decision
	a        Attempt
	rr       Request
}

// recordsCursor is a replay, not begun, toward every lane's record of
// events[i], 0 ≤ i < computed.
func (e *engine) recordsCursor(i int) *recordsReplay {
	e.ensure(i)
	start := e.checkpoints[e.checkpointAt(i)].pos
	return &recordsReplay{e: e, gen: e.gen, at: i, next: start, start: start}
}

// left is how many requests the replay has yet to decide.
func (rc *recordsReplay) left() int {
	if rc.done {
		return 0
	}
	return rc.at + 1 - rc.next
}

// step decides up to n more requests (at least one), as replay does, and
// reports whether the records are done.
func (rc *recordsReplay) step(n int) bool {
	if rc.done {
		return true
	}
	e := rc.e
	if rc.ls == nil {
		rc.ls = e.restore(rc.start)
		rc.out = make([]Record, len(e.defs))
	}
	ls := rc.ls
	for stop := min(rc.next+max(n, 1), rc.at+1); rc.next < stop; rc.next++ {
		i := rc.next
		r := e.tl.request(i)
		ls.drain(r.At, &rc.rr, &rc.d, &rc.a, func(int) bool { return true })
		ls.arrive(r, i)
		for lane := range e.defs {
			ls.decideInto(lane, r, &rc.d, &rc.a)
			if i == rc.at && rc.a.N == 1 {
				rc.out[lane] = Record{Index: i, Lane: lane, Request: r, Decision: rc.d, Attempt: rc.a}
			}
		}
	}
	if rc.next > rc.at {
		rc.done, rc.ls = true, nil
	}
	return rc.done
}

// wholePeaks asks a clone of the lanes to keep every peak tracker whole.
func (e *engine) wholePeaks() []bool {
	whole := make([]bool, len(e.defs))
	for i := range whole {
		whole[i] = true
	}
	return whole
}
