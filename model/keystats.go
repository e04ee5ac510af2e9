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
	k, ok := l.keys.lookup(key)
	if !ok {
		return Stats{PeakWindow: l.peakWindow}
	}
	if l.book != nil {
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
		kl = l.prepareKeyLane(ks, lane)
		ks.lanes[lane] = kl
	}
	pos := l.livePos
	// The totals: the nearest running sum, then outcome by outcome.
	j := sort.Search(len(ks.idx), func(j int) bool { return int(ks.idx[j]) >= pos })
	s := kl.sums[j/keyStride]
	for _, i := range ks.idx[j/keyStride*keyStride : j] {
		s.add(l.outcomes[lane][i], l.kind(int(i)).cost)
	}
	// Every request of a lab without clients is tried once.
	s.Originals, s.Served, s.Abandoned = s.Requests(), s.Admitted, s.Rejected
	// The peak: the passages before (Now, Pos) in (time, index) order have
	// passed (an admission at Now passes when it is decided), the others not.
	now := l.now
	n := sort.Search(len(kl.order), func(j int) bool {
		i := int(kl.order[j])
		at := l.passage(lane, i)
		return at > now || (at == now && i >= pos)
	})
	if st := sort.Search(len(kl.steps), func(x int) bool { return kl.steps[x].n > n }); st > 0 {
		s.Peak, s.PeakAt = kl.steps[st-1].peak, kl.steps[st-1].at
	}
	s.PeakWindow = l.peakWindow
	return s
}

// keyStatsFor is key k's prepared requests, up to at least Search(Now).
func (l *Lab) keyStatsFor(k int32) *keyStats {
	if l.keyStatsGen != l.gen {
		l.keyStats, l.keyStatsGen = map[int32]*keyStats{}, l.gen
	}
	ks := l.keyStats[k]
	need := l.Search(l.now)
	if ks == nil {
		ks = &keyStats{all: true}
		for _, e := range l.tl.kind {
			if l.kinds.list[e].key != k {
				ks.all = false
				break
			}
		}
		l.keyStats[k] = ks
	}
	if ks.all || ks.upto >= need && ks.lanes != nil {
		return ks
	}
	upto := min(l.tl.len(), max(need, 2*ks.upto, CheckpointEvery))
	l.ensure(upto)
	*ks = keyStats{upto: upto, lanes: make([]*keyLane, len(l.defs))}
	for i, e := range l.tl.kind[:upto] {
		if l.kinds.list[e].key == k {
			ks.idx = append(ks.idx, int32(i))
		}
	}
	return ks
}

// prepareKeyLane computes lane's running totals and peak steps over ks.
func (l *Lab) prepareKeyLane(ks *keyStats, lane int) *keyLane {
	kl := &keyLane{sums: make([]Stats, 1, len(ks.idx)/keyStride+1)}
	var s Stats
	for j, i := range ks.idx {
		o := l.outcomes[lane][i]
		s.add(o, l.kind(int(i)).cost)
		if (j+1)%keyStride == 0 {
			kl.sums = append(kl.sums, s)
		}
		if o.Admitted() {
			kl.order = append(kl.order, i)
		}
	}
	// A leaky bucket releases one key's requests in arrival order, so this
	// finds them sorted; it keeps the order right whatever a lane delays.
	if l.delays[lane] != nil {
		slices.SortFunc(kl.order, func(a, b int32) int {
			return cmp.Or(cmp.Compare(l.passage(lane, int(a)), l.passage(lane, int(b))), cmp.Compare(a, b))
		})
	}
	var sum, peak int64
	lo := 0
	for j, i := range kl.order {
		at := l.passage(lane, int(i))
		sum += l.kind(int(i)).cost
		for l.passage(lane, int(kl.order[lo])) <= at-l.peakWindow {
			sum -= l.kind(int(kl.order[lo])).cost
			lo++
		}
		if sum > peak {
			peak = sum
			kl.steps = append(kl.steps, peakStep{n: j + 1, peak: peak, at: at})
		}
	}
	return kl
}

// passage is when events[i], admitted by lane, passes it: its arrival plus
// its delay.
func (l *Lab) passage(lane, i int) time.Duration {
	at := l.tl.at(i)
	if dl := l.delays[lane]; dl != nil {
		at += dl.delay(i)
	}
	return at
}
