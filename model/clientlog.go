package model

import (
	"math"
	"slices"
	"sort"
	"time"

	"ratelab/algorithms"
	"ratelab/model/internal/peak"
)

// clientLog is one lane's record of what its clients did, kept by a lab
// whose scenario has clients: every retry it decided, and every request it
// served with a latency above 0, in the order decided, which is also time
// order. A retry decided before the original request events[p] (and after
// events[p−1]) has pos p; an original's entry has pos its index. An entry
// takes 24 bytes; a served wait 16 more, an admitted retry 4 more (and 12
// if delayed).
type clientLog struct {
	ev []clientEvent
	// waits are the latencies above 0 of the served, by entry.
	waits []servedWait
	// admits are the entries of the admitted retries (at most one a
	// request: a request is admitted once), cancelledBit set on those
	// whose wait was given back, and retryDelays their delays above 0,
	// by entry; cancels are the originals admitted and given back (their
	// index): what passes the lane besides the originals it admitted,
	// read by spanFrom without a replay.
	admits      []int32
	retryDelays delayLog
	cancels     []int32
	// blocks[b] sums ev[:b×logBlock] and the highest attempt in its block;
	// subs[k] counts the retries of ev[k×subLen:(k+1)×subLen], the
	// admitted and the highest attempt among them (a subCount): marks count
	// a span in O(log n + subLen + logBlockLen/subLen + blocks). starts[b]
	// and subStarts[k] are when block b's and sub-block k's first entries
	// came: a search by time looks at the blocks' first, a slice a 32nd of
	// the log's, then at one block's 8 sub-blocks, then at one sub-block.
	blocks    []logBlock
	starts    []time.Duration
	subs      []subCount
	subStarts []time.Duration
	// A screen asks for the entries decided by the clock, and before
	// each column's bounds, once a column and lane: the latest answers,
	// while the log holds n entries (0: none remembered).
	decidedMemo struct {
		n, pos, j int
		now       time.Duration
	}
	beforeMemo struct {
		n, j int
		t    time.Duration
	}
}

// clientEvent is one entry of a clientLog.
type clientEvent struct {
	at   time.Duration
	pos  int32
	orig int32 // the original request's index: its key is that request's
	n    uint8 // the attempt's number: 1 for an original (MaxAttempts ≤ 255)
	ok   bool  // admitted
}

type servedWait struct {
	j       int32
	latency time.Duration
}

// cancelledBit marks in clientLog.admits a retry whose wait was given
// back: it never passes.
const cancelledBit = 1 << 31

// logBlockLen is how many entries a logBlock sums.
const logBlockLen = 256

type logBlock struct {
	retries, admitted int32 // among the entries before the block
	highest           uint8 // the highest attempt in the block
}

// subLen is how many entries a subCount counts: logBlockLen is a whole
// number of them.
const subLen = 32

type subCount struct {
	retries, admitted, highest uint8
}

// add counts entry e.
func (c *subCount) add(e *clientEvent) {
	if e.n > 1 {
		c.retries++
		if e.ok {
			c.admitted++
		}
		c.highest = max(c.highest, e.n)
	}
}

// entryOf is the entry of an admits element.
func entryOf(x int32) int { return int(uint32(x) &^ cancelledBit) }

// add records one decision, after every one recorded, if it is a retry or
// served its request after a wait.
func (cl *clientLog) add(pos int, at time.Duration, d *algorithms.Decision, a *Attempt) {
	retry := a.N > 1
	if !retry && a.Cancelled {
		cl.cancels = append(cl.cancels, int32(pos))
	}
	if !retry && !(a.Fate == Served && a.Latency > 0) {
		return
	}
	j := len(cl.ev)
	if retry && d.Outcome.Admitted() {
		x := uint32(j)
		if a.Cancelled {
			x |= cancelledBit
		}
		cl.admits = append(cl.admits, int32(x))
		if d.Delay > 0 {
			cl.retryDelays.add(j, d.Delay)
		}
	}
	if j%logBlockLen == 0 {
		var b logBlock
		if j > 0 {
			r, ad := cl.count(j - logBlockLen)
			last := cl.blocks[len(cl.blocks)-1]
			b.retries, b.admitted = last.retries+r, last.admitted+ad
		}
		cl.blocks = append(cl.blocks, b)
		cl.starts = append(cl.starts, at)
	}
	if j%subLen == 0 {
		cl.subs = append(cl.subs, subCount{})
		cl.subStarts = append(cl.subStarts, at)
	}
	if retry {
		blk := &cl.blocks[j/logBlockLen]
		blk.highest = max(blk.highest, uint8(a.N))
	}
	if a.Fate == Served && a.Latency > 0 {
		cl.waits = append(cl.waits, servedWait{int32(j), a.Latency})
	}
	cl.ev = append(cl.ev, clientEvent{at: at, pos: int32(pos), orig: int32(a.Original), n: uint8(a.N), ok: d.Outcome.Admitted()})
	cl.subs[j/subLen].add(&cl.ev[j])
}

// count is the retries and admitted retries among the block of entries
// from j0, up to logBlockLen of them.
func (cl *clientLog) count(j0 int) (retries, admitted int32) {
	for _, e := range cl.ev[j0:min(j0+logBlockLen, len(cl.ev))] {
		if e.n > 1 {
			retries++
			if e.ok {
				admitted++
			}
		}
	}
	return retries, admitted
}

// truncate forgets the entries decided after events[:n], those of pos n or
// more.
func (cl *clientLog) truncate(n int) {
	j := sort.Search(len(cl.ev), func(j int) bool { return int(cl.ev[j].pos) >= n })
	cl.ev = shrink(cl.ev[:j])
	w := sort.Search(len(cl.waits), func(i int) bool { return int(cl.waits[i].j) >= j })
	cl.waits = shrink(cl.waits[:w])
	a := sort.Search(len(cl.admits), func(i int) bool { return entryOf(cl.admits[i]) >= j })
	cl.admits = shrink(cl.admits[:a])
	cl.retryDelays.truncate(j)
	c, _ := slices.BinarySearch(cl.cancels, int32(n))
	cl.cancels = shrink(cl.cancels[:c])
	cl.blocks = shrink(cl.blocks[:(j+logBlockLen-1)/logBlockLen])
	cl.starts = shrink(cl.starts[:len(cl.blocks)])
	k := (j + subLen - 1) / subLen
	cl.subs, cl.subStarts = shrink(cl.subs[:k]), shrink(cl.subStarts[:k])
	if j%subLen != 0 {
		// The last sub-block lost entries: counted again.
		var c subCount
		for i := range cl.ev[(k-1)*subLen:] {
			c.add(&cl.ev[(k-1)*subLen+i])
		}
		cl.subs[k-1] = c
	}
	cl.decidedMemo.n, cl.beforeMemo.n = 0, 0
	if k := len(cl.blocks); k > 0 && j%logBlockLen != 0 {
		// The last block lost entries: its highest attempt again.
		var h uint8
		for _, e := range cl.ev[(k-1)*logBlockLen:] {
			if e.n > 1 {
				h = max(h, e.n)
			}
		}
		cl.blocks[k-1].highest = h
	}
}

// decided is how many entries a state after events[:pos] with its retries
// decided up to now holds.
func (cl *clientLog) decided(pos int, now time.Duration) int {
	m := &cl.decidedMemo
	if m.n == len(cl.ev)+1 && m.pos == pos && m.now == now {
		return m.j
	}
	j := sort.Search(len(cl.ev), func(j int) bool { return int(cl.ev[j].pos) >= pos })
	for j < len(cl.ev) && int(cl.ev[j].pos) == pos && cl.ev[j].n > 1 && cl.ev[j].at <= now {
		j++
	}
	m.n, m.pos, m.now, m.j = len(cl.ev)+1, pos, now, j
	return j
}

// before is how many entries were decided before t: a search of the
// blocks' starts, then of one block's sub-blocks, then of one sub-block.
// After an earlier t (a screen asks for its columns' bounds in order), the
// search gallops on from the sub-block of the last answer instead: the
// next bound is near, in memory just read.
func (cl *clientLog) before(t time.Duration) int {
	m := &cl.beforeMemo
	if m.n == len(cl.ev)+1 && m.t == t {
		return m.j
	}
	// k is the first sub-block starting at or after t: the first entry
	// at or after t is in the sub-block before it, or begins it.
	var k int
	if m.n == len(cl.ev)+1 && m.t < t {
		// Every sub-block before lo starts before the last t.
		lo := (m.j + subLen - 1) / subLen
		hi, step := lo, 1
		for hi < len(cl.subStarts) && cl.subStarts[hi] < t {
			lo, hi = hi+1, hi+step
			step *= 2
		}
		hi = min(hi, len(cl.subStarts))
		k = lo + sort.Search(hi-lo, func(i int) bool { return cl.subStarts[lo+i] >= t })
	} else {
		b := sort.Search(len(cl.starts), func(b int) bool { return cl.starts[b] >= t })
		const per = logBlockLen / subLen
		lo, hi := max(b-1, 0)*per, min(b*per, len(cl.subStarts))
		k = lo + sort.Search(hi-lo, func(i int) bool { return cl.subStarts[lo+i] >= t })
	}
	j := 0
	if k > 0 {
		lo, hi := (k-1)*subLen, min(k*subLen, len(cl.ev))
		j = lo + sort.Search(hi-lo, func(i int) bool { return cl.ev[lo+i].at >= t })
	}
	m.n, m.t, m.j = len(cl.ev)+1, t, j
	return j
}

// span is what the entries ev[j0:j1] came to.
func (cl *clientLog) span(j0, j1 int) RetrySpan {
	var s RetrySpan
	tally := func(lo, hi int) {
		for _, e := range cl.ev[lo:hi] {
			if e.n > 1 {
				s.Retries++
				if e.ok {
					s.Admitted++
				}
				s.Highest = max(s.Highest, int(e.n))
			}
		}
	}
	// The entries of partial sub-blocks one by one, whole sub-blocks
	// outside whole blocks by their counts.
	k0, k1 := (j0+subLen-1)/subLen, j1/subLen
	if k0 >= k1 {
		tally(j0, j1)
		return s
	}
	tally(j0, k0*subLen)
	tally(k1*subLen, j1)
	subs := func(lo, hi int) {
		for _, c := range cl.subs[lo:hi] {
			s.Retries += int(c.retries)
			s.Admitted += int(c.admitted)
			s.Highest = max(s.Highest, int(c.highest))
		}
	}
	const per = logBlockLen / subLen
	b0, b1 := (k0+per-1)/per, k1/per
	if b0 >= b1 {
		subs(k0, k1)
		return s
	}
	subs(k0, b0*per)
	subs(b1*per, k1)
	// Whole blocks: their counts from the sums, their highest attempts.
	end := logBlock{}
	if b1 < len(cl.blocks) {
		end = cl.blocks[b1]
	} else {
		r, ad := cl.count((b1 - 1) * logBlockLen)
		last := cl.blocks[b1-1]
		end = logBlock{retries: last.retries + r, admitted: last.admitted + ad}
	}
	s.Retries += int(end.retries - cl.blocks[b0].retries)
	s.Admitted += int(end.admitted - cl.blocks[b0].admitted)
	for _, b := range cl.blocks[b0:b1] {
		s.Highest = max(s.Highest, int(b.highest))
	}
	return s
}

// latency is lane's Latency at the clock, of its served requests.
func (l *Lab) latency(lane int, served int64) (Latency, int64) {
	e, c := l.engine, l.clock
	if e.clog == nil {
		return Latency{}, 0 // see Stats.Latency
	}
	ll := l.caches.latency(c.stamp(), lane, len(e.defs), func() laneLatency {
		// The log must reach the retries due before the next request.
		e.ensure(c.pos + 1)
		cl := e.clog[lane]
		j := cl.decided(c.pos, c.now)
		var waits latencyCounts
		var queued int64
		for _, w := range cl.waits {
			if int(w.j) >= j {
				break
			}
			if l.timeline.at(int(cl.ev[w.j].orig))+w.latency > c.now {
				queued++ // admitted, released after the clock
				continue
			}
			waits.add(w.latency)
		}
		return laneLatency{waits.latency(served - queued), queued}
	})
	return ll.lat, ll.queued
}

// clientStatsFor is StatsFor in a lab with clients: every lane's
// decisions up to the clock, retries included, replayed from the start,
// counting key's alone. (A run of key's requests alone would not do: a
// policy over all keys sees the others, and a jitter draw depends on a
// request's rank among all the originals at its instant.) It costs a
// replay of the timeline up to the clock, once per clock position.
func (l *Lab) clientStatsFor(lane int, k int32) Stats {
	e, c := l.engine, l.clock
	return l.caches.keyTotals(c.stamp(), k, func() []Stats {
		stats := make([]Stats, len(e.defs))
		peaks := make([]peak.Tracker, len(e.defs))
		waits := make([]latencyCounts, len(e.defs))
		for j := range peaks {
			peaks[j] = peak.NewTracker(e.window)
			stats[j].PeakWindow = e.window
		}
		key := l.timeline.keys.list[k]
		if c.pos > 0 {
			e.replay(0, c.pos, c.now, func(r Record) bool {
				if r.Request.Key != key {
					return true
				}
				st := &stats[r.Lane]
				st.count(&r.Decision)
				st.settle(&r.Attempt)
				if r.Attempt.Fate == Served && r.Attempt.First+r.Attempt.Latency > c.now {
					st.Served-- // released after the clock: not served yet
					st.Queued++
				} else if r.Attempt.Fate == Served && r.Attempt.Latency > 0 {
					waits[r.Lane].add(r.Attempt.Latency)
				}
				if r.Decision.Outcome.Admitted() && !r.Attempt.Cancelled {
					peaks[r.Lane].Admit(r.Request.At, r.Decision.Delay, r.Request.Cost, peak.Source(0, r.Decision.Gateway)) // a tracker of one key: its gateways are its sources
				}
				return true
			})
		}
		for j := range peaks {
			stats[j].Peak, stats[j].PeakAt = peaks[j].PeakBy(c.now)
			stats[j].Latency = waits[j].latency(stats[j].Served)
		}
		return stats
	})[lane]
}

// LayerSnapshots are, for a lane of several policies (scenarios.Lane's
// Stack), each policy's state for key at the clock, in order (for a policy
// over all keys, its one state); nil for any other lane.
func (l *Lab) LayerSnapshots(lane int, key string) []algorithms.Snapshot {
	s, ok := l.clock.limiter(lane).(algorithms.Stacked)
	if !ok {
		return nil
	}
	out := make([]algorithms.Snapshot, len(s.Layers()))
	for i := range out {
		out[i] = s.LayerSnapshot(i, l.clock.now, key)
	}
	return out
}

// RetrySpan is what a lane's retries in a span of time came to.
type RetrySpan struct {
	// Retries counts them, Admitted those admitted; Highest is the
	// highest attempt number among them (0 with none).
	Retries, Admitted, Highest int
}

// Retries is what lane's retries in [from, to) came to, of those decided
// by the clock: the timeline's marks. Zero in a lab without clients. It
// costs two binary searches and a look at each retry of the span.
func (l *Lab) Retries(lane int, from, to time.Duration) RetrySpan {
	e := l.engine
	if e.clog == nil || from >= to {
		return RetrySpan{}
	}
	// Every retry before to is decided before the first request at or
	// after to (or after the last request): decided already when a
	// request at or after to is.
	if e.computed == 0 || l.timeline.at(e.computed-1) < to {
		e.ensure(l.timeline.searchBefore(to) + 1)
	}
	cl := e.clog[lane]
	j0, j1 := cl.before(from), cl.before(to)
	j1 = max(min(j1, cl.decided(l.clock.pos, l.clock.now)), j0) // not past the clock
	span := cl.span(j0, j1)
	return span
}

// NextRetry is when the first retry after t comes, in any lane, if one
// comes before the first request after t, or after the last request;
// false otherwise, and in a lab without clients.
func (l *Lab) NextRetry(t time.Duration) (time.Duration, bool) {
	e, tl := l.engine, l.timeline
	if e.clog == nil {
		return 0, false
	}
	next := tl.search(t)
	e.ensure(next + 1)
	var best time.Duration
	found := false
	for _, cl := range e.clog {
		for j := cl.before(t + 1); j < len(cl.ev); j++ {
			if ev := cl.ev[j]; ev.n > 1 {
				if !found || ev.at < best {
					best, found = ev.at, true
				}
				break
			}
		}
	}
	if !found || next < tl.len() && best >= tl.at(next) {
		return 0, false
	}
	return best, true
}

// PrevRetry is when the last retry before t came, in any lane, if it came
// after the last request before t; false otherwise, and in a lab without
// clients.
func (l *Lab) PrevRetry(t time.Duration) (time.Duration, bool) {
	e, tl := l.engine, l.timeline
	if e.clog == nil {
		return 0, false
	}
	e.ensure(tl.search(t) + 1)
	var best time.Duration
	found := false
	for _, cl := range e.clog {
		for j := cl.before(t) - 1; j >= 0; j-- {
			if ev := cl.ev[j]; ev.n > 1 {
				if !found || ev.at > best {
					best, found = ev.at, true
				}
				break
			}
		}
	}
	if prev := tl.searchBefore(t); !found || prev > 0 && best <= tl.at(prev-1) {
		return 0, false
	}
	return best, true
}

// spanFrom is what passed each lane among the decisions arriving from
// `from` on, up to the clock, reused while the clock stays and asks for no
// earlier from. It replays nothing: the originals are the lanes' outcomes
// (less those given back, cancels), the retries the admitted ones of the
// clients' logs; a block of requests none of which a lane admitted is
// skipped whole. So it costs the originals arriving from `from` on, a byte
// each, at most, and the admitted retries among them.
func (l *Lab) spanFrom(from time.Duration) *spanReplay {
	e, c := l.engine, l.clock
	return l.caches.spanFrom(c.stamp(), from, func() spanReplay {
		// The logs must reach the retries decided by the clock.
		e.ensure(c.pos + 1)
		tl := l.timeline
		lo := tl.searchBefore(from)
		sp := spanReplay{releases: make([][]time.Duration, len(e.defs)), passed: make([][]passing, len(e.defs))}
		for lane := range e.defs {
			cl := e.clog[lane]
			end := cl.decided(c.pos, c.now)
			// The admitted retries decided by the clock, from `from` on.
			admits := cl.admits[:sort.Search(len(cl.admits), func(i int) bool { return entryOf(cl.admits[i]) >= end })]
			admits = admits[sort.Search(len(admits), func(i int) bool { return cl.ev[entryOf(admits[i])].at >= from }):]
			cancels := cl.cancels[sort.Search(len(cl.cancels), func(i int) bool { return int(cl.cancels[i]) >= lo }):]
			passed, releases := sp.passed[lane], sp.releases[lane]
			pass := func(at time.Duration, orig int, delay time.Duration) {
				k := tl.kind(orig)
				passed = append(passed, passing{at, k.key, k.cost})
				if delay > 0 {
					releases = append(releases, at+delay)
				}
			}
			// next is the pos of the first admitted retry left.
			next := math.MaxInt
			if len(admits) > 0 {
				next = int(cl.ev[entryOf(admits[0])].pos)
			}
			// retriesBefore passes the admitted retries decided before
			// events[i], in order.
			retriesBefore := func(i int) {
				for len(admits) > 0 && next <= i {
					if x := admits[0]; uint32(x)&cancelledBit == 0 {
						j := entryOf(x)
						ev := &cl.ev[j]
						pass(ev.at, int(ev.orig), cl.retryDelays.delay(j))
					}
					admits = admits[1:]
					next = math.MaxInt
					if len(admits) > 0 {
						next = int(cl.ev[entryOf(admits[0])].pos)
					}
				}
			}
			outcomes, blocks := e.outcomes[lane], e.blocks[lane]
			for i := lo; i < c.pos; i++ {
				if i%tallyBlock == 0 {
					// A whole block the lane admitted none of, with no
					// retry admitted before its end: skipped.
					if b := i / tallyBlock; b < len(blocks) && i+tallyBlock <= c.pos && blocks[b].Allowed+blocks[b].Delayed == 0 && next >= i+tallyBlock {
						i += tallyBlock - 1
						continue
					}
				}
				if next <= i {
					retriesBefore(i)
				}
				if !outcomes[i].Admitted() {
					continue
				}
				for len(cancels) > 0 && int(cancels[0]) < i {
					cancels = cancels[1:]
				}
				if len(cancels) > 0 && int(cancels[0]) == i {
					cancels = cancels[1:]
					continue // given back: it never passes
				}
				var delay time.Duration
				if outcomes[i] == algorithms.Delayed && e.delays[lane] != nil {
					delay = e.delays[lane].delay(i)
				}
				pass(tl.at(i), i, delay)
			}
			retriesBefore(math.MaxInt) // those after the clock's last request
			slices.Sort(releases)
			sp.passed[lane], sp.releases[lane] = passed, releases
		}
		return sp
	})
}
