package model

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"ratelab/algorithms"
)

// keyStride is how many of a key's requests lie between two of its running
// totals: StatsFor adds up at most this many outcomes past the nearest.
const keyStride = 64

// keyStats answers StatsFor for one key until the timeline changes. It
// lists the key's requests among events[:upto], where upto is at least
// Search(Now) when asked and grows (doubling) as the clock moves on; each
// lane's view covers a prefix of that list, every request of it decided,
// and is extended as the clock moves on, never rebuilt: StatsFor never
// decides ahead of the clock.
type keyStats struct {
	all   bool    // the key sent every request of the timeline: its stats are the lane's
	upto  int     // idx covers events[:upto]
	idx   []int32 // the key's requests among events[:upto], in timeline order
	lanes []*keyLane
	marks *keyTimeline // the key's timeline marks (keytimeline.go), once asked for
}

// keyLane is one lane's view of one key's first n requests (ks.idx[:n]).
type keyLane struct {
	n int
	// sums[j] are the totals (Peak aside) over the key's first j×keyStride
	// requests, for j×keyStride ≤ n; run is the totals over all n.
	sums []Stats
	run  Stats
	// order is the key's admitted requests (indexes into events) by passage
	// time (arrival + delay) then index, and steps the running peak along
	// it: each step is where the largest cost passing in a trailing window
	// first rose, and to what. The trailing window ending at the last of
	// order holds order[lo:], of cost sum; peak is the last step's.
	order []int32
	steps []peakStep
	lo    int
	sum   int64
	peak  int64
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
// The first call after the timeline changes lists key's requests up to the
// clock in O(n) for the n requests there (or answers Stats, when key sent
// every request); later calls cost two binary searches and at most 64
// outcomes, plus the key's requests decided since the last call, and a
// scan of the requests the clock passes.
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
		kl = &keyLane{sums: make([]Stats, 1, len(ks.idx)/keyStride+1)}
		ks.lanes[lane] = kl
	}
	pos := l.clock.pos
	// The key's requests before pos are decided (the clock ensured them):
	// the view is extended to them.
	j := sort.Search(len(ks.idx), func(j int) bool { return int(ks.idx[j]) >= pos })
	e.extendKeyLane(kl, ks.idx[:max(j, kl.n)], lane)
	// The totals: the nearest running sum, then outcome by outcome.
	s := kl.sums[j/keyStride]
	for _, i := range ks.idx[j/keyStride*keyStride : j] {
		e.addKeyOutcome(&s, lane, i)
	}
	// Every request of a lab without clients is tried once.
	s.Originals, s.Served, s.Abandoned = s.Requests(), s.Admitted, s.Rejected
	// The peak: the passages before (Now, Pos) in (time, index) order have
	// passed (an admission at Now passes when it is decided), the others not;
	// those of the requests after pos, not in order yet, pass after Now.
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

// keyStatsFor is key k's prepared requests, listed up to at least
// Search(Now).
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
		if !ks.all {
			ks.lanes = make([]*keyLane, len(l.engine.defs))
		}
		return ks
	})
	need := tl.search(l.clock.now)
	if ks.all || ks.upto >= need {
		return ks
	}
	// Listing needs no decision: it may run ahead of the clock, doubling,
	// so that a clock moving on rescans nothing.
	ks.listTo(tl, k, min(tl.len(), max(need, 2*ks.upto, CheckpointEvery)))
	return ks
}

// listTo lists key k's requests among events[ks.upto:upto] in ks.idx,
// which then covers events[:upto]. It decides nothing.
func (ks *keyStats) listTo(tl *timeline, k int32, upto int) {
	for i, e := range tl.ev.kind[ks.upto:upto] {
		if tl.kinds.list[e].key == k {
			ks.idx = append(ks.idx, int32(ks.upto+i))
		}
	}
	ks.upto = upto
}

// extendKeyLane extends kl, lane's view of a key's requests, to idx, a
// longer list of them of which kl covers a prefix, every one decided.
func (e *engine) extendKeyLane(kl *keyLane, idx []int32, lane int) {
	from := len(kl.order)
	inOrder := true
	for _, i := range idx[kl.n:] {
		o := e.outcomes[lane][i]
		e.addKeyOutcome(&kl.run, lane, i)
		if kl.n++; kl.n%keyStride == 0 {
			kl.sums = append(kl.sums, kl.run)
		}
		if o.Admitted() {
			// A leaky bucket releases one key's requests in arrival order,
			// so each passes after those before it; a lane that delayed an
			// earlier one further puts order out of order, sorted below.
			if n := len(kl.order); n > 0 && inOrder && e.passesBefore(lane, i, kl.order[n-1]) {
				inOrder = false
			}
			kl.order = append(kl.order, i)
		}
	}
	if !inOrder {
		slices.SortFunc(kl.order, func(a, b int32) int {
			return cmp.Or(cmp.Compare(e.passage(lane, int(a)), e.passage(lane, int(b))), cmp.Compare(a, b))
		})
		// The steps are redone from the start.
		from, kl.steps, kl.lo, kl.sum, kl.peak = 0, kl.steps[:0], 0, 0, 0
	}
	for j := from; j < len(kl.order); j++ {
		i := kl.order[j]
		at := e.passage(lane, int(i))
		kl.sum += e.tl.kind(int(i)).cost
		for e.passage(lane, int(kl.order[kl.lo])) <= at-e.window {
			kl.sum -= e.tl.kind(int(kl.order[kl.lo])).cost
			kl.lo++
		}
		if kl.sum > kl.peak {
			kl.peak = kl.sum
			kl.steps = append(kl.steps, peakStep{n: j + 1, peak: kl.peak, at: at})
		}
	}
}

// addKeyOutcome counts lane's decision on events[i] in s: its outcome and,
// for a lane that only pretends (dry_run), what it would have done.
func (e *engine) addKeyOutcome(s *Stats, lane int, i int32) {
	s.add(e.outcomes[lane][i], e.tl.kind(int(i)).cost)
	if ml := e.marks[lane]; ml != nil {
		switch ml.dryRun(i) {
		case algorithms.Delayed:
			s.DryRunDelayed++
		case algorithms.Rejected:
			s.DryRunRejected++
		}
	}
}

// dryRuns reports whether def's policy only pretends (nginx's dry_run):
// its lane marks what it would have delayed or refused.
func dryRuns(def Lane) bool {
	if len(def.Stack) == 1 {
		return def.Stack[0].Policy.DryRun
	}
	return def.Stack == nil && def.Policy.DryRun
}

// passesBefore reports whether events[a] passes lane before events[b] in
// (passage, index) order.
func (e *engine) passesBefore(lane int, a, b int32) bool {
	pa, pb := e.passage(lane, int(a)), e.passage(lane, int(b))
	return pa < pb || pa == pb && a < b
}
