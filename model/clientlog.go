package model

import (
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
// takes 24 bytes; a served wait 16 more.
type clientLog struct {
	ev []clientEvent
	// waits are the latencies above 0 of the served, by entry.
	waits []servedWait
	// blocks[b] sums ev[:b×logBlock] and the highest attempt in its block:
	// marks count a span in O(log n + logBlock + blocks).
	blocks []logBlock
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

// logBlockLen is how many entries a logBlock sums.
const logBlockLen = 256

type logBlock struct {
	retries, admitted int32 // among the entries before the block
	highest           uint8 // the highest attempt in the block
}

// add records one decision, after every one recorded, if it is a retry or
// served its request after a wait.
func (cl *clientLog) add(pos int, at time.Duration, d *algorithms.Decision, a *Attempt) {
	retry := a.N > 1
	if !retry && !(a.Fate == Served && a.Latency > 0) {
		return
	}
	j := len(cl.ev)
	if j%logBlockLen == 0 {
		var b logBlock
		if j > 0 {
			r, ad := cl.count(j - logBlockLen)
			last := cl.blocks[len(cl.blocks)-1]
			b.retries, b.admitted = last.retries+r, last.admitted+ad
		}
		cl.blocks = append(cl.blocks, b)
	}
	if retry {
		blk := &cl.blocks[j/logBlockLen]
		blk.highest = max(blk.highest, uint8(a.N))
	}
	if a.Fate == Served && a.Latency > 0 {
		cl.waits = append(cl.waits, servedWait{int32(j), a.Latency})
	}
	cl.ev = append(cl.ev, clientEvent{at: at, pos: int32(pos), orig: int32(a.Original), n: uint8(a.N), ok: d.Outcome.Admitted()})
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
	cl.blocks = shrink(cl.blocks[:(j+logBlockLen-1)/logBlockLen])
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
	j := sort.Search(len(cl.ev), func(j int) bool { return int(cl.ev[j].pos) >= pos })
	for j < len(cl.ev) && int(cl.ev[j].pos) == pos && cl.ev[j].n > 1 && cl.ev[j].at <= now {
		j++
	}
	return j
}

// before is how many entries were decided before t.
func (cl *clientLog) before(t time.Duration) int {
	return sort.Search(len(cl.ev), func(j int) bool { return cl.ev[j].at >= t })
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
	b0, b1 := (j0+logBlockLen-1)/logBlockLen, j1/logBlockLen
	if b0 >= b1 {
		tally(j0, j1)
		return s
	}
	tally(j0, b0*logBlockLen)
	tally(b1*logBlockLen, j1)
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
func (l *Lab) latency(lane int, served int64) Latency {
	e, c := l.engine, l.clock
	if e.clog == nil {
		return Latency{} // see Stats.Latency
	}
	return l.caches.latency(c.stamp(), lane, len(e.defs), func() Latency {
		// The log must reach the retries due before the next request.
		e.ensure(c.pos + 1)
		cl := e.clog[lane]
		j := cl.decided(c.pos, c.now)
		var waits latencyCounts
		for _, w := range cl.waits {
			if int(w.j) >= j {
				break
			}
			waits.add(w.latency)
		}
		return waits.latency(served)
	})
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
				if r.Attempt.Fate == Served && r.Attempt.Latency > 0 {
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
	// after to (or after the last request).
	e.ensure(l.timeline.searchBefore(to) + 1)
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

// spanFrom is the replay of the decisions arriving from `from` on, up to
// the clock, reused while the clock stays and asks for no earlier from. It
// costs a replay from the checkpoint before from.
func (l *Lab) spanFrom(from time.Duration) *spanReplay {
	e, c := l.engine, l.clock
	return l.caches.spanFrom(c.stamp(), from, func() spanReplay {
		sp := spanReplay{releases: make([][]time.Duration, len(e.defs)), passed: make([][]passing, len(e.defs))}
		e.replay(l.timeline.searchBefore(from), c.pos, c.now, func(r Record) bool {
			d := &r.Decision
			if r.Request.At < from || !d.Outcome.Admitted() || r.Attempt.Cancelled {
				return true
			}
			k, _ := l.timeline.keys.lookup(r.Request.Key)
			sp.passed[r.Lane] = append(sp.passed[r.Lane], passing{r.Request.At, k, r.Request.Cost})
			if d.Delay > 0 {
				sp.releases[r.Lane] = append(sp.releases[r.Lane], r.Request.At+d.Delay)
			}
			return true
		})
		for _, rs := range sp.releases {
			slices.Sort(rs)
		}
		return sp
	})
}
