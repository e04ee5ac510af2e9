package model

import (
	"slices"
	"sort"
	"time"

	"ratelab/algorithms"
)

// keyTimeline is what one key's timeline marks are read from, lane by lane,
// kept beside the key's prepared StatsFor (keyStats) and so forgotten with
// it when the decisions change. Each part is extended as the engine's logs
// grow, never rebuilt: a screen of columns costs binary searches and the
// key's own requests and retries in its columns.
type keyTimeline struct {
	lanes []keyTimelineLane
}

// keyTimelineLane is one lane's view of one key.
type keyTimelineLane struct {
	// sums[j] is the tally over the key's first j×keyStride requests
	// (keyStats.idx), for j×keyStride ≤ n; run is the tally over all n,
	// every one decided.
	n    int
	sums []Tally
	run  Tally
	// marks are the key's entries of the lane's markLog (a lane of
	// gateways), its first marksSeen entries read.
	marks     markLog
	marksSeen int
	// retries are the entries of the lane's clientLog that are retries of
	// the key's requests, its first logSeen entries read; admitted[x]
	// counts the admitted among retries[:x+1], and highest[b] is the
	// highest attempt among retries[b×subLen:(b+1)×subLen], for each
	// whole sub-block: a span costs two binary searches, at most 2×subLen
	// retries and a look at each sub-block between.
	retries  []int32
	admitted []int32
	highest  []uint8
	logSeen  int
}

// subLen is how many of a key's retries a keyTimelineLane's highest
// covers.
const subLen = 32

// keyTimelineFor is key k's timeline view with its requests listed among
// events[:n] at least.
func (l *Lab) keyTimelineFor(k int32, n int) (*keyStats, *keyTimeline) {
	ks := l.keyStatsFor(k)
	if ks.all {
		return ks, nil
	}
	if tl := l.timeline; ks.upto < n {
		// As keyStatsFor lists, doubling.
		ks.listTo(tl, k, min(tl.len(), max(n, 2*ks.upto)))
	}
	if ks.marks == nil {
		ks.marks = &keyTimeline{lanes: make([]keyTimelineLane, len(l.engine.defs))}
	}
	return ks, ks.marks
}

// keyOf looks up key; ok is false for a key that sent nothing.
func (l *Lab) keyOf(key string) (int32, bool) { return l.timeline.keys.lookup(key) }

// searchIdx is the number of idx's elements below i.
func searchIdx(idx []int32, i int) int {
	return sort.Search(len(idx), func(j int) bool { return int(idx[j]) >= i })
}

// KeyRequestsBefore is how many of the requests before events[i] (the first
// i) are key's. It decides nothing: the first call lists key's requests up
// to i (O(i), or less where StatsFor listed them), later ones cost a binary
// search and the requests not yet listed.
func (l *Lab) KeyRequestsBefore(key string, i int) int {
	i = min(max(i, 0), l.timeline.len())
	k, ok := l.keyOf(key)
	if !ok {
		return 0
	}
	ks, kt := l.keyTimelineFor(k, i)
	if kt == nil {
		return i
	}
	return searchIdx(ks.idx, i)
}

// KeyTally is Tally over key's requests alone: lane's outcomes on the
// requests lo ≤ i < hi from key (deciding them if need be). With the
// key's running tallies it costs two binary searches and at most
// 2×64 outcomes, plus the key's requests not yet tallied.
func (l *Lab) KeyTally(lane int, key string, lo, hi int) Tally {
	e := l.engine
	lo, hi = max(lo, 0), min(hi, l.timeline.len())
	k, ok := l.keyOf(key)
	if !ok || lo >= hi {
		return Tally{}
	}
	ks, kt := l.keyTimelineFor(k, hi)
	if kt == nil {
		return l.Tally(lane, lo, hi)
	}
	e.ensure(hi)
	kl := &kt.lanes[lane]
	a, b := searchIdx(ks.idx, lo), searchIdx(ks.idx, hi)
	if kl.sums == nil {
		kl.sums = []Tally{{}}
	}
	outcomes := e.outcomes[lane]
	for _, i := range ks.idx[kl.n:max(b, kl.n)] {
		kl.run.add(outcomes[i])
		if kl.n++; kl.n%keyStride == 0 {
			kl.sums = append(kl.sums, kl.run)
		}
	}
	prefix := func(j int) Tally {
		t := kl.sums[j/keyStride]
		for _, i := range ks.idx[j/keyStride*keyStride : j] {
			t.add(outcomes[i])
		}
		return t
	}
	if b-a <= keyStride {
		var t Tally
		for _, i := range ks.idx[a:b] {
			t.add(outcomes[i])
		}
		return t
	}
	t, u := prefix(b), prefix(a)
	return Tally{t.Allowed - u.Allowed, t.Delayed - u.Delayed, t.Rejected - u.Rejected}
}

// KeyMarked is Marked over key's requests alone: among lane's requests
// lo ≤ i < hi from key, the refusals by a fallback while the store was
// down and the admissions beyond the policy; 0, 0 for a plain lane. It
// costs two binary searches, plus the lane's marks not yet read.
func (l *Lab) KeyMarked(lane int, key string, lo, hi int) (down, beyond int) {
	e := l.engine
	ml := e.marks[lane]
	k, ok := l.keyOf(key)
	if ml == nil || !ok || lo >= hi {
		return 0, 0
	}
	_, kt := l.keyTimelineFor(k, 0)
	if kt == nil {
		return l.Marked(lane, lo, hi)
	}
	e.ensure(hi)
	kl := &kt.lanes[lane]
	for ; kl.marksSeen < len(ml.idx); kl.marksSeen++ {
		j := kl.marksSeen
		i := int(ml.idx[j])
		if l.timeline.kind(i).key != k {
			continue
		}
		dn, by := ml.down[j], ml.beyond[j]
		if j > 0 {
			dn, by = dn-ml.down[j-1], by-ml.beyond[j-1]
		}
		n := len(kl.marks.idx)
		if n > 0 {
			dn, by = dn+kl.marks.down[n-1], by+kl.marks.beyond[n-1]
		}
		kl.marks.idx = append(kl.marks.idx, int32(i))
		kl.marks.down, kl.marks.beyond = append(kl.marks.down, dn), append(kl.marks.beyond, by)
	}
	_, d0, b0 := kl.marks.before(lo)
	_, d1, b1 := kl.marks.before(hi)
	return int(d1 - d0), int(b1 - b0)
}

// keyRetries is lane's view of key k with its retries listed among the
// first n entries of the lane's clientLog at least.
func (l *Lab) keyRetries(kt *keyTimeline, lane int, k int32, n int) *keyTimelineLane {
	cl, kl := l.engine.clog[lane], &kt.lanes[lane]
	for ; kl.logSeen < n; kl.logSeen++ {
		ev := cl.head(kl.logSeen)
		if ev.n <= 1 || l.timeline.kind(int(ev.orig)).key != k {
			continue
		}
		var ad int32
		if x := len(kl.admitted); x > 0 {
			ad = kl.admitted[x-1]
		}
		if ev.ok {
			ad++
		}
		kl.retries, kl.admitted = append(kl.retries, int32(kl.logSeen)), append(kl.admitted, ad)
		if x := len(kl.retries); x%subLen == 0 {
			var h uint8
			for _, j := range kl.retries[x-subLen:] {
				h = max(h, cl.head(int(j)).n)
			}
			kl.highest = append(kl.highest, h)
		}
	}
	return kl
}

// span is what the key's retries retries[a:b] came to.
func (kl *keyTimelineLane) span(cl *clientLog, a, b int) RetrySpan {
	s := RetrySpan{Retries: b - a}
	if a >= b {
		return s
	}
	s.Admitted = int(kl.admitted[b-1])
	if a > 0 {
		s.Admitted -= int(kl.admitted[a-1])
	}
	// The highest attempt: whole sub-blocks by theirs, the rest one by one.
	one := func(rs []int32) {
		for _, j := range rs {
			s.Highest = max(s.Highest, int(cl.head(int(j)).n))
		}
	}
	k0, k1 := (a+subLen-1)/subLen, b/subLen
	if k0 >= k1 {
		one(kl.retries[a:b])
		return s
	}
	one(kl.retries[a : k0*subLen])
	one(kl.retries[k1*subLen : b])
	for _, h := range kl.highest[k0:k1] {
		s.Highest = max(s.Highest, int(h))
	}
	return s
}

// KeyRetries is Retries over key's retries alone: what lane's retries of
// key's requests in [from, to), decided by the clock, came to. Zero in a
// lab without clients. It costs what Retries does, two binary searches, at
// most 64 of key's retries and a look at every 32nd of those in the span,
// plus the lane's log entries not yet read.
func (l *Lab) KeyRetries(lane int, key string, from, to time.Duration) RetrySpan {
	e := l.engine
	k, ok := l.keyOf(key)
	if e.clog == nil || !ok || from >= to {
		return RetrySpan{}
	}
	_, kt := l.keyTimelineFor(k, 0)
	if kt == nil {
		return l.Retries(lane, from, to)
	}
	// As Retries: every retry before to is decided with the first request
	// at or after to.
	if e.computed == 0 || l.timeline.at(e.computed-1) < to {
		e.ensure(l.timeline.searchBefore(to) + 1)
	}
	cl := e.clog[lane]
	j0, j1 := cl.bounds(from, to, l.clock.now)
	j1 = max(min(j1, cl.decided(l.clock.pos, l.clock.now)), j0)
	kl := l.keyRetries(kt, lane, k, j1)
	return kl.span(cl, searchIdx(kl.retries, j0), searchIdx(kl.retries, j1))
}

// KeyReleased is Released over key's requests alone: how many of the
// decided requests from key (with clients, and their retries decided by the
// clock, less the waits given back) lane delayed with a release in
// [from, to). It costs a binary search and a look at each of key's
// requests (and retries) arriving in [from − the lane's longest delay, to);
// Released's cost when key sent every request.
func (l *Lab) KeyReleased(lane int, key string, from, to time.Duration) int64 {
	k, ok := l.keyOf(key)
	if l.engine.delays[lane] == nil || !ok || from >= to {
		return 0
	}
	if l.keyStatsFor(k).all {
		return l.Released(lane, from, to)
	}
	var n int64
	l.keyReleases(lane, k, from, to, func(time.Duration) { n++ })
	return n
}

// KeyReleases are the releases KeyReleased counts, in time order, for a
// row of columns to read once and bin rather than count each column's. It
// costs what KeyReleased does, and a sort of what it returns.
func (l *Lab) KeyReleases(lane int, key string, from, to time.Duration) []time.Duration {
	k, ok := l.keyOf(key)
	if l.engine.delays[lane] == nil || !ok || from >= to {
		return nil
	}
	var out []time.Duration
	l.keyReleases(lane, k, from, to, func(at time.Duration) { out = append(out, at) })
	slices.Sort(out)
	return out
}

// OnlyKey reports whether key sent every request of the timeline (and
// there is one): its marks are then the lanes', which the lab-wide methods
// answer at less cost.
func (l *Lab) OnlyKey(key string) bool {
	k, ok := l.keyOf(key)
	return ok && l.timeline.len() > 0 && l.keyStatsFor(k).all
}

// keyReleases calls fn with the release in [from, to) of each decided
// request (and retry) from key k that lane delayed, in no order.
func (l *Lab) keyReleases(lane int, k int32, from, to time.Duration, fn func(time.Duration)) {
	e, tl, c := l.engine, l.timeline, l.clock
	ks, kt := l.keyTimelineFor(k, c.pos)
	start := from - maxDelay(e.defs[lane].Policy)
	if start > from { // overflowed below the smallest time
		start = from
	}
	lo := tl.searchBefore(start)
	hi := max(min(tl.searchBefore(to), c.pos), lo)
	e.ensure(c.pos + 1) // with clients, the logs reach the retries decided by the clock
	var cl *clientLog
	if e.clog != nil {
		cl = e.clog[lane]
	}
	in := func(at time.Duration) bool { return from <= at && at < to }
	original := func(i int32) {
		switch {
		case e.outcomes[lane][i] != algorithms.Delayed:
		case cl == nil:
			if at := e.passage(lane, int(i)); in(at) {
				fn(at)
			}
		case cancelled(cl.cancels, i): // given back: it never passes
		default:
			if d := e.delays[lane].delay(int(i)); d > 0 && in(tl.at(int(i))+d) {
				fn(tl.at(int(i)) + d)
			}
		}
	}
	if ks.all {
		for i := lo; i < hi; i++ {
			original(int32(i))
		}
	} else {
		for _, i := range ks.idx[searchIdx(ks.idx, lo):searchIdx(ks.idx, hi)] {
			original(i)
		}
	}
	if cl == nil {
		return
	}
	// The key's admitted retries decided by the clock, arriving from start.
	end := cl.decided(c.pos, c.now)
	retry := func(j int32) bool {
		ev := cl.ev(int(j))
		if ev.at >= to {
			return false
		}
		if ev.n <= 1 || !ev.ok {
			return true
		}
		a := sort.Search(len(cl.admits), func(x int) bool { return entryOf(cl.admits[x]) >= int(j) })
		if uint32(cl.admits[a])&cancelledBit != 0 {
			return true // given back
		}
		if d := cl.retryDelays.delay(int(j)); d > 0 && in(ev.at+d) {
			fn(ev.at + d)
		}
		return true
	}
	if ks.all {
		for j := cl.before(start); j < end && retry(int32(j)); j++ {
		}
		return
	}
	kl := l.keyRetries(kt, lane, k, end)
	rs := kl.retries[:searchIdx(kl.retries, end)]
	rs = rs[sort.Search(len(rs), func(x int) bool { return cl.at(int(rs[x])) >= start }):]
	for _, j := range rs {
		if !retry(j) {
			break
		}
	}
}

// cancelled reports whether original i's wait was given back.
func cancelled(cancels []int32, i int32) bool {
	x := sort.Search(len(cancels), func(x int) bool { return cancels[x] >= i })
	return x < len(cancels) && cancels[x] == i
}
