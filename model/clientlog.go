package model

import (
	"sort"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// clientLog is one lane's record of what its clients did, kept by a lab
// whose scenario has clients: every retry it decided, and every request it
// served with a latency above 0, in the order decided, which is also time
// order. A retry decided before the original request events[p] (and after
// events[p−1]) has pos p; an original's entry has pos its index.
type clientLog struct {
	ev []clientEvent
	// retries[j] counts the retries among ev[:j+1], admitted[j] those of
	// them admitted: marks count a span in O(log n).
	retries, admitted []int32
}

// clientEvent is one entry of a clientLog.
type clientEvent struct {
	at      time.Duration
	latency time.Duration // Fate Served: its latency; else 0
	pos     int32
	orig    int32
	key     int32
	n       int32 // the attempt's number: 1 for an original
	outcome algorithms.Outcome
	fate    Fate
}

// add records one decision, after every one recorded, if it is a retry or
// served its request after a wait.
func (cl *clientLog) add(pos int, key int32, at time.Duration, d *algorithms.Decision, a *Attempt) {
	retry := a.N > 1
	if !retry && !(a.Fate == Served && a.Latency > 0) {
		return
	}
	var r, ad int32
	if n := len(cl.ev); n > 0 {
		r, ad = cl.retries[n-1], cl.admitted[n-1]
	}
	if retry {
		r++
		if d.Outcome.Admitted() {
			ad++
		}
	}
	var lat time.Duration
	if a.Fate == Served {
		lat = a.Latency
	}
	cl.ev = append(cl.ev, clientEvent{at: at, latency: lat, pos: int32(pos), orig: int32(a.Original), key: key, n: int32(a.N), outcome: d.Outcome, fate: a.Fate})
	cl.retries, cl.admitted = append(cl.retries, r), append(cl.admitted, ad)
}

// truncate forgets the entries decided after events[:n], those of pos n or
// more.
func (cl *clientLog) truncate(n int) {
	j := sort.Search(len(cl.ev), func(j int) bool { return int(cl.ev[j].pos) >= n })
	cl.ev, cl.retries, cl.admitted = shrink(cl.ev[:j]), shrink(cl.retries[:j]), shrink(cl.admitted[:j])
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

// at is j and the retries and admitted retries among ev[:j].
func (cl *clientLog) at(j int) (int, int32, int32) {
	if j == 0 {
		return 0, 0, 0
	}
	return j, cl.retries[j-1], cl.admitted[j-1]
}

// before is how many entries were decided before t, and how many retries
// and admitted retries they hold.
func (cl *clientLog) before(t time.Duration) (j int, retries, admitted int32) {
	j = sort.Search(len(cl.ev), func(j int) bool { return cl.ev[j].at >= t })
	if j > 0 {
		retries, admitted = cl.retries[j-1], cl.admitted[j-1]
	}
	return j, retries, admitted
}

// latencyCache holds Lab.Stats' latencies for one clock position.
type latencyCache struct {
	gen   uint64
	pos   int
	now   time.Duration
	lanes []Latency
	known []bool
}

// latency is lane's Latency at the clock, of its served requests.
func (l *Lab) latency(lane int, served int64) Latency {
	c := &l.latencies
	if c.lanes == nil || c.gen != l.gen || c.pos != l.livePos || c.now != l.now {
		*c = latencyCache{gen: l.gen, pos: l.livePos, now: l.now, lanes: make([]Latency, len(l.defs)), known: make([]bool, len(l.defs))}
	}
	if c.known[lane] {
		return c.lanes[lane]
	}
	var waits []time.Duration
	switch {
	case l.clog != nil:
		// The log must reach the retries due before the next request.
		l.ensure(l.livePos + 1)
		cl := l.clog[lane]
		for _, e := range cl.ev[:cl.decided(l.livePos, l.now)] {
			if e.fate == Served && e.latency > 0 {
				waits = append(waits, e.latency)
			}
		}
	case l.delays[lane] != nil:
		dl := l.delays[lane]
		waits = append(waits, dl.d[:dl.search(l.livePos)]...)
	}
	c.lanes[lane], c.known[lane] = latencyOf(served, waits), true
	return c.lanes[lane]
}

// keyRun caches clientStatsFor's totals for one key at one clock position.
type keyRun struct {
	gen   uint64
	pos   int
	now   time.Duration
	key   int32
	stats []Stats
}

// clientStatsFor is StatsFor in a lab with clients: every lane's
// decisions up to the clock, retries included, replayed from the start,
// counting key's alone. (A run of key's requests alone would not do: a
// policy over all keys sees the others, and a jitter draw depends on a
// request's rank among all the originals at its instant.) It costs a
// replay of the timeline up to the clock, once per clock position.
func (l *Lab) clientStatsFor(lane int, k int32) Stats {
	c := &l.keyRun
	if c.stats == nil || c.gen != l.gen || c.pos != l.livePos || c.now != l.now || c.key != k {
		*c = keyRun{gen: l.gen, pos: l.livePos, now: l.now, key: k, stats: make([]Stats, len(l.defs))}
		peaks := make([]peakTracker, len(l.defs))
		for j := range peaks {
			peaks[j].window = l.peakWindow
			c.stats[j].PeakWindow = l.peakWindow
		}
		key := l.keys.list[k]
		if l.livePos > 0 {
			l.replay(0, l.livePos, l.now, func(r Record) bool {
				if r.Request.Key != key {
					return true
				}
				st := &c.stats[r.Lane]
				st.count(&r.Decision)
				st.settle(&r.Attempt)
				if r.Decision.Outcome.Admitted() && !r.Attempt.Cancelled {
					peaks[r.Lane].admit(r.Request.At, r.Decision.Delay, r.Request.Cost)
				}
				return true
			})
		}
		for j := range peaks {
			c.stats[j].Peak, c.stats[j].PeakAt = peaks[j].peakBy(l.now)
		}
	}
	return c.stats[lane]
}

// LayerSnapshots are, for a lane of several policies (scenarios.Lane's
// Stack), each policy's state for key at the clock, in order (for a policy
// over all keys, its one state); nil for any other lane.
func (l *Lab) LayerSnapshots(lane int, key string) []algorithms.Snapshot {
	s, ok := l.live.limiters[lane].(algorithms.Stacked)
	if !ok {
		return nil
	}
	out := make([]algorithms.Snapshot, len(s.Layers()))
	for i := range out {
		out[i] = s.LayerSnapshot(i, l.now, key)
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
	if l.clog == nil || from >= to {
		return RetrySpan{}
	}
	// Every retry before to is decided before the first request at or
	// after to (or after the last request).
	l.ensure(l.searchBefore(to) + 1)
	cl := l.clog[lane]
	j0, r0, a0 := cl.before(from)
	j1, r1, a1 := cl.before(to)
	if cut := cl.decided(l.livePos, l.now); j1 > cut {
		// Past the clock: those decided since are not counted.
		j1 = max(cut, j0)
		_, r1, a1 = cl.at(j1)
	}
	span := RetrySpan{Retries: int(r1 - r0), Admitted: int(a1 - a0)}
	for _, e := range cl.ev[j0:j1] {
		span.Highest = max(span.Highest, int(e.n))
	}
	if span.Highest == 1 {
		span.Highest = 0 // originals that waited only
	}
	return span
}

// Clients are the scenario's clients (see scenarios.Client): a record's
// Attempt.Client is 1 + an index into them.
func (l *Lab) Clients() []scenarios.Client { return l.scenario.Clients }
