package model

import (
	"cmp"
	"slices"
	"sort"
	"time"
)

// keyStride is how many of a key's requests lie between two of its running
// totals: StatsFor adds up at most this many outcomes past the nearest.
const keyStride = 64

// keyStats answers StatsFor for one key until the timeline changes. It
// covers the key's requests among events[:upto], where upto is at least
// Search(Now) when asked, and grows (doubling) as the clock moves on.
type keyStats struct {
	all   bool    // the key sent every request of the timeline: its stats are the lane's
	upto  int     // idx and lanes cover events[:upto]
	idx   []int32 // the key's requests among events[:upto], in timeline order
	lanes []*keyLane
}

// keyLane is one lane's view of one key's requests.
type keyLane struct {
	// sums[j] are the totals (Peak aside) over the key's first j×keyStride
	// requests.
	sums []Stats
	// order is the key's admitted requests (indexes into events) by passage
	// time (arrival + delay) then index, and steps the running peak along
	// it: each step is where the largest cost passing in a trailing window
	// first rose, and to what.
	order []int32
	steps []peakStep
}

// peakStep says that over order[:n] the peak is peak, first reached by the
// window ending at.
type peakStep struct {
	n    int
	peak int64
	at   time.Duration
}

// StatsFor is Stats over key's requests alone: lane's totals over the
// decided requests (the first Pos) from key, and the largest cost of key's
// admissions passing in any trailing PeakWindow, delayed requests counted
// at release, by Now. They are key's requests' in the whole timeline (with
// clients, its retries too). A key that sent nothing has zero totals; a
// key's totals hold a Latency only with clients (see Stats.Latency).
//
// The first call after the timeline changes prepares key in O(n log n) for
// the n requests up to the clock (or answers Stats, when key sent every
// request); later calls cost two binary searches and at most 64 outcomes,
// until the clock passes what was prepared, which is then redone twice as
// far.
func (l *Lab) StatsFor(lane int, key string) Stats {
	e := l.engine
	k, ok := l.timeline.keys.lookup(key)
	if !ok {
		return Stats{PeakWindow: e.window}
	}
	if e.book != nil {
		return l.clientStatsFor(lane, k)
	}
	ks := l.keyStatsFor(k)
	if ks.all {
		s := l.Stats(lane)
		s.Latency = Latency{}
		return s
	}
	kl := ks.lanes[lane]
	if kl == nil {
		kl = e.prepareKeyLane(ks, lane)
		ks.lanes[lane] = kl
	}
	pos := l.clock.pos
	// The totals: the nearest running sum, then outcome by outcome.
	j := sort.Search(len(ks.idx), func(j int) bool { return int(ks.idx[j]) >= pos })
	s := kl.sums[j/keyStride]
	for _, i := range ks.idx[j/keyStride*keyStride : j] {
		s.add(e.outcomes[lane][i], l.timeline.kind(int(i)).cost)
	}
	// Every request of a lab without clients is tried once.
	s.Originals, s.Served, s.Abandoned = s.Requests(), s.Admitted, s.Rejected
	// The peak: the passages before (Now, Pos) in (time, index) order have
	// passed (an admission at Now passes when it is decided), the others not.
	now := l.clock.now
	n := sort.Search(len(kl.order), func(j int) bool {
		i := int(kl.order[j])
		at := e.passage(lane, i)
		return at > now || (at == now && i >= pos)
	})
	if st := sort.Search(len(kl.steps), func(x int) bool { return kl.steps[x].n > n }); st > 0 {
		s.Peak, s.PeakAt = kl.steps[st-1].peak, kl.steps[st-1].at
	}
	s.PeakWindow = e.window
	return s
}

// keyStatsFor is key k's prepared requests, up to at least Search(Now).
func (l *Lab) keyStatsFor(k int32) *keyStats {
	tl := l.timeline
	ks := l.caches.keyStatsOf(l.engine.gen, k, func() *keyStats {
		ks := &keyStats{all: true}
		for _, e := range tl.ev.kind {
			if tl.kinds.list[e].key != k {
				ks.all = false
				break
			}
		}
		return ks
	})
	need := tl.search(l.clock.now)
	if ks.all || ks.upto >= need && ks.lanes != nil {
		return ks
	}
	upto := min(tl.len(), max(need, 2*ks.upto, CheckpointEvery))
	l.engine.ensure(upto)
	*ks = keyStats{upto: upto, lanes: make([]*keyLane, len(l.engine.defs))}
	for i, e := range tl.ev.kind[:upto] {
		if tl.kinds.list[e].key == k {
			ks.idx = append(ks.idx, int32(i))
		}
	}
	return ks
}

// prepareKeyLane computes lane's running totals and peak steps over ks.
func (e *engine) prepareKeyLane(ks *keyStats, lane int) *keyLane {
	kl := &keyLane{sums: make([]Stats, 1, len(ks.idx)/keyStride+1)}
	var s Stats
	for j, i := range ks.idx {
		o := e.outcomes[lane][i]
		s.add(o, e.tl.kind(int(i)).cost)
		if (j+1)%keyStride == 0 {
			kl.sums = append(kl.sums, s)
		}
		if o.Admitted() {
			kl.order = append(kl.order, i)
		}
	}
	// A leaky bucket releases one key's requests in arrival order, so this
	// finds them sorted; it keeps the order right whatever a lane delays.
	if e.delays[lane] != nil {
		slices.SortFunc(kl.order, func(a, b int32) int {
			return cmp.Or(cmp.Compare(e.passage(lane, int(a)), e.passage(lane, int(b))), cmp.Compare(a, b))
		})
	}
	var sum, peak int64
	lo := 0
	for j, i := range kl.order {
		at := e.passage(lane, int(i))
		sum += e.tl.kind(int(i)).cost
		for e.passage(lane, int(kl.order[lo])) <= at-e.window {
			sum -= e.tl.kind(int(kl.order[lo])).cost
			lo++
		}
		if sum > peak {
			peak = sum
			kl.steps = append(kl.steps, peakStep{n: j + 1, peak: peak, at: at})
		}
	}
	return kl
}
