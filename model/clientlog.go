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
// events[p−1]) has pos p; an original's entry has pos its index.
//
// Its entries are coded in chunks (see clientcodec.go): about 9 bits a
// retry of a backoff or at-once client, whose times are worked out from
// the originals again when read, more for one whose times are written.
// Reading an entry decodes its chunk (kept in a cache of a few): reading
// in order costs a few ns an entry, and a time one draw of the client's
// jitter an attempt. A chunk's header takes 20 bytes, a served wait 16
// more, an admitted retry 4 (and 12 if delayed), an original's entry 4.
// A screen's columns are remembered (see columnOf).
type clientLog struct {
	// times works out the times not written; nil in a log without a
	// timeline, which writes every time.
	times *attemptTimes
	// The sealed chunks: chunk k is coded from bit offs[k] of its page
	// (the last page whose pageFirst is at most k), its first entry's pos
	// is starts[k], its highest retry attempt and Rice parameters meta[k].
	pages     [][]uint64
	pageCap   int // a page's most words: pageWords (less in tests)
	lastFill  int // bits used in the last page
	pageFirst []int32
	offs      []uint32
	starts    []int32
	meta      []uint32
	// firstAts[k] is when chunk k's first entry came: a search by time
	// decodes one chunk.
	firstAts []time.Duration
	// open is the entries after the sealed chunks, fewer than chunkLen,
	// plainly; k is len(starts).
	open logChunk
	// cache holds decoded sealed chunks, chunk k in slot k % logCacheSlots.
	cache   [logCacheSlots]logChunk
	scratch bitWriter
	// firsts are the entries of originals (n = 1), ascending.
	firsts []int32
	// waits are the latencies above 0 of the served, by entry; counted
	// tallies those of waits[:countedTo] (see countedBefore).
	waits     []servedWait
	counted   latencyCounts
	countedTo int
	// admits are the entries of the admitted retries (at most one a
	// request: a request is admitted once), cancelledBit set on those
	// whose wait was given back, and retryDelays their delays above 0,
	// by entry; cancels are the originals admitted and given back (their
	// index): what passes the lane besides the originals it admitted,
	// read by spanFrom without a replay.
	admits      []int32
	retryDelays delayLog
	cancels     []int32
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
	// rankMemo is the latest ranks answer: how many admits and firsts
	// lie before entry j.
	rankMemo struct{ n, j, admits, firsts int }
	// most is the highest attempt the log ever held: no entry's is
	// higher, even after a cut.
	most int
	// columns remember a screen's columns (see columnOf), made when
	// first asked for (about 56 KB each); asks counts the asks for them.
	columns [columnWidths]*columnMemo
	asks    uint64
}

// beforeStep is how many entries more before decodes at a time: a
// quarter of a chunk, so that it decodes about 5/8 of one on average.
const beforeStep = chunkLen / 4

// logCacheSlots is how many decoded chunks a clientLog keeps.
const logCacheSlots = 8

// newClientLog is an empty log whose times not written p works out.
func newClientLog(p *attemptTimes) *clientLog {
	cl := &clientLog{times: p, pageCap: pageWords}
	cl.resetCache()
	return cl
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
	j, orig int32 // the entry, and its original request
	latency time.Duration
}

// cancelledBit marks in clientLog.admits a retry whose wait was given
// back: it never passes.
const cancelledBit = 1 << 31

// entryOf is the entry of an admits element.
func entryOf(x int32) int { return int(uint32(x) &^ cancelledBit) }

// len is how many entries the log holds.
func (cl *clientLog) len() int { return len(cl.starts)*chunkLen + cl.open.n }

func (cl *clientLog) resetCache() {
	// A decoder's reader lets go of its page too: a cut may drop it.
	for i := range cl.cache {
		cl.cache[i].k, cl.cache[i].rest = -1, bitReader{}
	}
	cl.open.k, cl.open.okKnown, cl.open.rest = len(cl.starts), true, bitReader{}
	cl.forgetLatest()
}

// chunk is chunk k, decoded (or the open one); its entries' outcomes may
// not be worked out yet (see chunkOK).
func (cl *clientLog) chunk(k int) *logChunk { return cl.chunkTo(k, chunkLen) }

// chunkTo is chunk k with at least its first n entries decoded (or the
// open one): a search stops decoding at what it looks for.
func (cl *clientLog) chunkTo(k, n int) *logChunk {
	if k >= len(cl.starts) {
		return &cl.open
	}
	c := &cl.cache[k%logCacheSlots]
	if c.k != k {
		cl.begin(k, c)
	}
	if c.n < n {
		decodeChunk(&c.rest, c, cl.times, cl.starts[k], metaKs(cl.meta[k]), n)
	}
	return c
}

// begin makes c sealed chunk k with no entry decoded yet.
func (cl *clientLog) begin(k int, c *logChunk) {
	p := sort.Search(len(cl.pageFirst), func(p int) bool { return int(cl.pageFirst[p]) > k }) - 1
	c.k, c.n, c.known, c.okKnown = k, 0, 0, false
	c.rest = bitReader{w: cl.pages[p], n: int(cl.offs[k])}
}

// fillOK works out which of c's entries were admitted: the admits among
// them, and the originals' (served).
func (cl *clientLog) fillOK(c *logChunk, k int) {
	c.ok, c.okKnown = 0, true
	n := c.n
	lo := k * chunkLen
	for a := sort.Search(len(cl.admits), func(a int) bool { return entryOf(cl.admits[a]) >= lo }); a < len(cl.admits); a++ {
		j := entryOf(cl.admits[a]) - lo
		if j >= n {
			break
		}
		c.ok |= 1 << j
	}
	for _, f := range cl.firsts[searchIdx(cl.firsts, lo):] {
		// An original's entry is there because it was served: admitted.
		if j := int(f) - lo; j < n {
			c.ok |= 1 << j
		} else {
			break
		}
	}
}

// ev is entry j with its time.
func (cl *clientLog) ev(j int) clientEvent {
	return cl.chunkOK(j/chunkLen).event(cl.times, j%chunkLen)
}

// chunkOK is chunk k with its entries' outcomes.
func (cl *clientLog) chunkOK(k int) *logChunk {
	c := cl.chunk(k)
	if !c.okKnown {
		cl.fillOK(c, k)
	}
	return c
}

// head is entry j without its time (at is 0).
func (cl *clientLog) head(j int) clientEvent {
	return cl.chunkOK(j / chunkLen).head(j % chunkLen)
}

// at is entry j's time.
func (cl *clientLog) at(j int) time.Duration {
	return cl.chunk(j/chunkLen).time(cl.times, j%chunkLen)
}

// firstAt is when chunk k's first entry came.
func (cl *clientLog) firstAt(k int) time.Duration {
	if k >= len(cl.firstAts) {
		return cl.open.time(cl.times, 0)
	}
	return cl.firstAts[k]
}

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
	j := cl.len()
	ok := d.Outcome.Admitted()
	if retry && ok {
		x := uint32(j)
		if a.Cancelled {
			x |= cancelledBit
		}
		cl.admits = append(cl.admits, int32(x))
		if d.Delay > 0 {
			cl.retryDelays.add(j, d.Delay)
		}
	}
	if !retry {
		cl.firsts = append(cl.firsts, int32(j))
	}
	if a.Fate == Served && a.Latency > 0 {
		cl.waits = append(cl.waits, servedWait{int32(j), int32(a.Original), a.Latency})
	}
	cl.most = max(cl.most, a.N)
	c, i := &cl.open, cl.open.n
	c.pos[i], c.orig[i], c.att[i], c.at[i] = int32(pos), int32(a.Original), uint8(a.N), at
	c.known |= 1 << i
	if ok {
		c.ok |= 1 << i
	} else {
		c.ok &^= 1 << i
	}
	c.n++
	cl.forgetLatest()
	if c.n == chunkLen {
		cl.seal()
	}
}

// seal codes the full open chunk and starts an empty one.
func (cl *clientLog) seal() {
	c := &cl.open
	ks := riceParams(c)
	var highest uint8
	for i := range c.n {
		if c.att[i] > 1 {
			highest = max(highest, c.att[i])
		}
	}
	w := &cl.scratch
	clear(w.w)
	w.w, w.n = w.w[:0], 0
	encodeChunk(w, c, cl.times, ks)
	last := len(cl.pages) - 1
	if last < 0 || cl.lastFill+w.n > cl.pageCap*64 {
		if last >= 0 {
			cl.pages[last] = trim(cl.pages[last])
		}
		cl.pages = append(cl.pages, make([]uint64, 0, 2*len(w.w)+8))
		cl.pageFirst = append(cl.pageFirst, int32(len(cl.starts)))
		cl.lastFill = 0
		last++
	}
	pw := bitWriter{w: cl.pages[last], n: cl.lastFill}
	cl.offs = append(cl.offs, uint32(pw.n))
	for x := 0; x < w.n; x += 64 {
		pw.put(w.w[x/64], min(64, w.n-x))
	}
	cl.pages[last] = pw.w
	cl.lastFill = pw.n
	cl.firstAts = append(cl.firstAts, c.at[0])
	cl.starts = append(cl.starts, c.pos[0])
	cl.meta = append(cl.meta, chunkMeta(highest, ks))
	c.n, c.known, c.ok, c.k = 0, 0, 0, len(cl.starts)
}

// trim is s without spare capacity beyond an eighth of it.
func trim(s []uint64) []uint64 {
	if cap(s) > len(s)+len(s)/8 {
		return slices.Clone(s)
	}
	return s
}

// search is the first entry of pos p or more (entries are in pos order).
func (cl *clientLog) search(p int) int {
	// k is the first sealed chunk starting at p or later: the entry is
	// in the chunk before it, or starts it.
	k := sort.Search(len(cl.starts), func(k int) bool { return int(cl.starts[k]) >= p })
	if k == len(cl.starts) && cl.open.n > 0 && int(cl.open.pos[0]) < p {
		k++ // in the open chunk, or after it
	}
	if k == 0 {
		return 0
	}
	c := cl.chunk(k - 1)
	i := sort.Search(c.n, func(i int) bool { return int(c.pos[i]) >= p })
	return (k-1)*chunkLen + i
}

// truncate forgets the entries decided after events[:n], those of pos n or
// more.
func (cl *clientLog) truncate(n int) {
	j := cl.search(n)
	cl.forgetColumnsFrom(j)
	w := sort.Search(len(cl.waits), func(i int) bool { return int(cl.waits[i].j) >= j })
	cl.countedBefore(min(cl.countedTo, w)) // the tally gives back the waits cut
	cl.waits = shrink(cl.waits[:w])
	a := sort.Search(len(cl.admits), func(i int) bool { return entryOf(cl.admits[i]) >= j })
	cl.admits = shrink(cl.admits[:a])
	cl.retryDelays.truncate(j)
	c, _ := slices.BinarySearch(cl.cancels, int32(n))
	cl.cancels = shrink(cl.cancels[:c])
	cl.firsts = shrink(cl.firsts[:searchIdx(cl.firsts, j)])
	if k := j / chunkLen; k < len(cl.starts) {
		// The chunk of the cut is open again, its times all worked out;
		// those after it and their bits are gone.
		var open logChunk
		if m := j % chunkLen; m > 0 {
			cl.begin(k, &open)
			decodeChunk(&open.rest, &open, cl.times, cl.starts[k], metaKs(cl.meta[k]), m)
			cl.fillOK(&open, k)
			for i := range m {
				open.time(cl.times, i)
			}
		}
		p := sort.Search(len(cl.pageFirst), func(p int) bool { return int(cl.pageFirst[p]) > k }) - 1
		if int(cl.pageFirst[p]) == k {
			clear(cl.pages[p:])
			cl.pages, cl.pageFirst = cl.pages[:p], cl.pageFirst[:p]
			if p > 0 {
				cl.lastFill = len(cl.pages[p-1]) * 64 // sealed whole: no room counted
			}
		} else {
			off := int(cl.offs[k])
			pg := cl.pages[p][:(off+63)/64]
			if off%64 != 0 {
				pg[len(pg)-1] &= 1<<(off%64) - 1
			}
			clear(cl.pages[p+1:])
			cl.pages, cl.pageFirst = cl.pages[:p+1], cl.pageFirst[:p+1]
			cl.pages[p], cl.lastFill = trim(pg), off
		}
		cl.pages = shrink(cl.pages)
		cl.pageFirst = shrink(cl.pageFirst)
		cl.offs, cl.starts, cl.meta = shrink(cl.offs[:k]), shrink(cl.starts[:k]), shrink(cl.meta[:k])
		cl.firstAts = shrink(cl.firstAts[:k])
		cl.open = open
	} else {
		cl.open.n = j % chunkLen
		cl.open.known &= 1<<cl.open.n - 1
		cl.open.ok &= 1<<cl.open.n - 1
	}
	cl.resetCache()
}

// decided is how many entries a state after events[:pos] with its retries
// decided up to now holds.
func (cl *clientLog) decided(pos int, now time.Duration) int {
	m := &cl.decidedMemo
	n := cl.len()
	if m.n == n+1 && m.pos == pos && m.now == now {
		return m.j
	}
	j := cl.search(pos)
	for j < n {
		e := cl.head(j)
		if int(e.pos) != pos || e.n <= 1 || cl.at(j) > now {
			break
		}
		j++
	}
	m.n, m.pos, m.now, m.j = n+1, pos, now, j
	return j
}

// forgetLatest forgets the latest answers of decided, before and ranks,
// for a log that changed.
func (cl *clientLog) forgetLatest() {
	cl.decidedMemo.n, cl.beforeMemo.n, cl.rankMemo.n = 0, 0, 0
}

// searchFrom is sort.Search(n, f) for an f known false below lo: it
// gallops from lo, so that it costs the log of the distance to the
// answer, not of n.
func searchFrom(n, lo int, f func(int) bool) int {
	hi, step := lo, 1
	for hi < n && !f(hi) {
		lo, hi = hi+1, hi+step
		step *= 2
	}
	hi = min(hi, n)
	return lo + sort.Search(hi-lo, func(i int) bool { return f(lo + i) })
}

// ranks is how many of the admits and of the firsts are of entries
// before j. After an earlier j (a screen asks for its columns' spans in
// order), the searches gallop on from the latest answer.
func (cl *clientLog) ranks(j int) (admits, firsts int) {
	m := &cl.rankMemo
	n := cl.len()
	if m.n != n+1 || m.j > j {
		m.admits, m.firsts = 0, 0
	}
	m.admits = searchFrom(len(cl.admits), m.admits, func(a int) bool { return entryOf(cl.admits[a]) >= j })
	m.firsts = searchFrom(len(cl.firsts), m.firsts, func(f int) bool { return int(cl.firsts[f]) >= j })
	m.n, m.j = n+1, j
	return m.admits, m.firsts
}

// before is how many entries were decided before t: a search of the
// chunks' first times, then of one chunk, decoded no further than a
// quarter past the answer. After an earlier t (a screen
// asks for its columns' bounds in order), the search gallops on from the
// chunk of the last answer instead: the next bound is near, in memory just
// read.
func (cl *clientLog) before(t time.Duration) int {
	m := &cl.beforeMemo
	n := cl.len()
	if m.n == n+1 && m.t == t {
		return m.j
	}
	chunks := (n + chunkLen - 1) / chunkLen
	// k is the first chunk starting at or after t: the first entry at
	// or after t is in the chunk before it, or begins it.
	var k int
	if m.n == n+1 && m.t < t {
		// Every chunk before the last answer's starts before the last t.
		k = searchFrom(chunks, (m.j+chunkLen-1)/chunkLen, func(k int) bool { return cl.firstAt(k) >= t })
	} else {
		k = sort.Search(chunks, func(k int) bool { return cl.firstAt(k) >= t })
	}
	j := 0
	if k > 0 {
		// The chunk is decoded a few entries at a time, up to the
		// first at or after t.
		size := chunkLen
		if k-1 == len(cl.starts) {
			size = cl.open.n
		}
		for i := 0; ; {
			c := cl.chunkTo(k-1, i+beforeStep)
			if end := min(i+beforeStep, size); end == size || c.time(cl.times, end-1) >= t {
				j = (k-1)*chunkLen + i + sort.Search(end-i, func(x int) bool { return c.time(cl.times, i+x) >= t })
				break
			}
			i += beforeStep
		}
	}
	m.n, m.t, m.j = n+1, t, j
	return j
}

// span is what the entries j0 to j1 − 1 came to.
func (cl *clientLog) span(j0, j1 int) RetrySpan {
	if j0 >= j1 {
		return RetrySpan{}
	}
	a0, f0 := cl.ranks(j0)
	a1, f1 := cl.ranks(j1)
	s := RetrySpan{Retries: j1 - j0 - (f1 - f0), Admitted: a1 - a0}
	// The highest attempt: whole sealed chunks by theirs, the rest one
	// by one.
	one := func(lo, hi int) {
		for j := lo; j < hi; {
			c := cl.chunk(j / chunkLen)
			for i := j % chunkLen; i < c.n && j < hi; i, j = i+1, j+1 {
				s.Highest = max(s.Highest, int(c.att[i]))
			}
		}
	}
	k0, k1 := (j0+chunkLen-1)/chunkLen, min(j1/chunkLen, len(cl.starts))
	if k0 >= k1 {
		one(j0, j1)
	} else {
		for _, m := range cl.meta[k0:k1] {
			s.Highest = max(s.Highest, int(metaHighest(m)))
		}
		if s.Highest < cl.most {
			// The ends may hold a higher attempt: their chunks are
			// decoded only then.
			one(j0, k0*chunkLen)
			one(k1*chunkLen, j1)
		}
	}
	if s.Retries == 0 {
		s.Highest = 0 // originals' entries only
	}
	return s
}

// latency is lane's Latency at the clock, of its served requests, and
// how many of them are released after it (still queued). It costs the
// waits the clock moved over since it was last asked, not every wait up
// to the clock (see countedBefore).
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
		w := sort.Search(len(cl.waits), func(i int) bool { return int(cl.waits[i].j) >= j })
		lat, queued := cl.latencyAt(w, c.now, maxDelay(e.defs[lane].Policy), l.timeline, served)
		return laneLatency{lat, queued}
	})
	return ll.lat, ll.queued
}

// latencyAt is the Latency of served requests at now, waits[:w] being the
// waits decided by the clock, and how many of those are released after now
// (still queued, not counted). The queued are among the last: a wait's
// release is its entry's time plus a delay of at most reach, and the
// entries come in time order, so once one is released by now − reach,
// every wait before it is by now. They are taken out of the tally for the
// reading and put back.
func (cl *clientLog) latencyAt(w int, now, reach time.Duration, tl *timeline, served int64) (Latency, int64) {
	counts := cl.countedBefore(w)
	released := func(i int) time.Duration { return tl.at(int(cl.waits[i].orig)) + cl.waits[i].latency }
	var queued int64
	last := 0 // the waits from last on were looked at
	for i := w - 1; i >= 0; i-- {
		if r := released(i); r > now {
			counts.remove(cl.waits[i].latency)
			queued++
		} else if r <= now-reach {
			last = i
			break
		}
	}
	lat := counts.latency(served - queued)
	for i := last; i < w && queued > 0; i++ {
		if released(i) > now {
			counts.add(cl.waits[i].latency)
		}
	}
	return lat, queued
}

// countedBefore is the tally of the latencies of waits[:w], moved there
// from the last asked: by the waits between, or counted again from the
// first when that is fewer. latencyAt alone borrows it.
func (cl *clientLog) countedBefore(w int) latencyCounts {
	if cl.countedTo-w > w {
		cl.counted, cl.countedTo = nil, 0
	}
	for ; cl.countedTo < w; cl.countedTo++ {
		cl.counted.add(cl.waits[cl.countedTo].latency)
	}
	for ; cl.countedTo > w; cl.countedTo-- {
		cl.counted.remove(cl.waits[cl.countedTo-1].latency)
	}
	return cl.counted
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
// costs two binary searches and a look at each retry of the span; a
// screen's column asked again, a look-up (see columnOf).
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
	decided := cl.decided(l.clock.pos, l.clock.now) // not past the clock
	if col := cl.columnOf(from, to, l.clock.now); col != nil {
		return col.spanTo(cl, decided)
	}
	j0, j1 := cl.before(from), cl.before(to)
	return cl.span(j0, max(min(j1, decided), j0))
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
		for j, n := cl.before(t+1), cl.len(); j < n; j++ {
			if ev := cl.ev(j); ev.n > 1 {
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
			if ev := cl.ev(j); ev.n > 1 {
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

// spanFrom is what passed lane among its decisions arriving from `from`
// on, up to the clock, reused while the clock stays and asks for no
// earlier from. It replays nothing: the originals are the lane's outcomes
// (less those given back, cancels), the retries the admitted ones of its
// client log; a block of requests none of which the lane admitted is
// skipped whole. So it costs the originals arriving from `from` on, a byte
// each, at most, and the admitted retries among them.
func (l *Lab) spanFrom(lane int, from time.Duration) *spanReplay {
	e, c := l.engine, l.clock
	return l.caches.spanFrom(c.stamp(), lane, len(e.defs), from, func() spanReplay {
		// The log must reach the retries decided by the clock.
		e.ensure(c.pos + 1)
		tl := l.timeline
		lo := tl.searchBefore(from)
		cl := e.clog[lane]
		// The admitted retries decided by the clock, from `from` on: the
		// entries are in time order.
		first, _ := cl.ranks(cl.before(from))
		last, _ := cl.ranks(cl.decided(c.pos, c.now))
		admits := cl.admits[first:max(last, first)]
		cancels := cl.cancels[sort.Search(len(cl.cancels), func(i int) bool { return int(cl.cancels[i]) >= lo }):]
		var sp spanReplay
		pass := func(at time.Duration, orig int, delay time.Duration) {
			k := tl.kind(orig)
			sp.passed = append(sp.passed, passing{at, k.key, k.cost})
			if delay > 0 {
				sp.releases = append(sp.releases, at+delay)
			}
		}
		// next is the pos of the first admitted retry left.
		next := math.MaxInt
		if len(admits) > 0 {
			next = int(cl.head(entryOf(admits[0])).pos)
		}
		// retriesBefore passes the admitted retries decided before
		// events[i], in order.
		retriesBefore := func(i int) {
			for len(admits) > 0 && next <= i {
				if x := admits[0]; uint32(x)&cancelledBit == 0 {
					j := entryOf(x)
					ev := cl.ev(j)
					pass(ev.at, int(ev.orig), cl.retryDelays.delay(j))
				}
				admits = admits[1:]
				next = math.MaxInt
				if len(admits) > 0 {
					next = int(cl.head(entryOf(admits[0])).pos)
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
		slices.Sort(sp.releases)
		return sp
	})
}
