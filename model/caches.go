package model

import "time"

// stamp is what an answer about the clock was computed from: the
// decisions' generation (engine.gen) and the clock's position. An answer
// is good for as long as its stamp is the clock's.
type stamp struct {
	gen uint64
	pos int
	now time.Duration
}

// caches remember the answers that cost a replay or a scan, which a screen
// asks again every frame: each is kept with its stamp (or the generation
// alone) and computed again, by the function the caller passes, when that
// no longer matches. The running sums of admitted cost are kept by block
// instead, and cut where the timeline changed (truncate, forgetKeys).
type caches struct {
	latencies latencyCache
	keyRun    keyRun
	spans     []spanReplay // by lane
	lastFor   keyVerdicts
	// latest is a key's latest request at a stamp; verdict the replay
	// toward its records, done in steps (see PendingLastDecisionFor).
	latest  latestRequest
	verdict verdictWork
	// keyStats prepares StatsFor per key, for generation keyStatsGen.
	keyStats    map[int32]*keyStats
	keyStatsGen uint64
	// admittedSums[{lane, key}][b] is the cost of key that lane admitted in
	// events[:b*tallyBlock], filled as TrailingAdmitted asks.
	admittedSums map[laneKey][]int64
	// trace is the lanes' states at instants before the clock (StatesAt).
	trace stateTrace
}

// newCaches is empty caches.
func newCaches() *caches { return &caches{admittedSums: map[laneKey][]int64{}} }

// latencyCache holds Lab.Stats' latencies for one stamp.
type latencyCache struct {
	at    stamp
	lanes []laneLatency
	known []bool
}

// laneLatency is a lane's latency at the clock, and how many of its
// served requests are released after it (still queued).
type laneLatency struct {
	lat    Latency
	queued int64
}

// latency is lane's latency (of lanes) at at, from compute the first time
// it is asked there.
func (cs *caches) latency(at stamp, lane, lanes int, compute func() laneLatency) laneLatency {
	c := &cs.latencies
	if c.lanes == nil || c.at != at {
		*c = latencyCache{at: at, lanes: make([]laneLatency, lanes), known: make([]bool, lanes)}
	}
	if !c.known[lane] {
		c.lanes[lane], c.known[lane] = compute(), true
	}
	return c.lanes[lane]
}

// keyRun holds one key's totals in every lane at one stamp (see
// Lab.clientStatsFor).
type keyRun struct {
	at    stamp
	key   int32
	stats []Stats
}

// keyTotals is key's totals in every lane at at, from compute the first
// time they are asked there; asking for another key forgets them.
func (cs *caches) keyTotals(at stamp, key int32, compute func() []Stats) []Stats {
	c := &cs.keyRun
	if c.stats == nil || c.at != at || c.key != key {
		*c = keyRun{at: at, key: key, stats: compute()}
	}
	return c.stats
}

// spanReplay is, in a lab with clients, a lane's decisions that pass it,
// of requests arriving from `from` to the clock, replayed: what Released
// and TrailingAdmitted read there, since the timeline's running sums know
// nothing of retries and of waits given back.
type spanReplay struct {
	at   stamp
	from time.Duration
	ok   bool
	// releases are, sorted, the releases of the delayed decisions that
	// pass; passed the decisions that pass, in decision order.
	releases []time.Duration
	passed   []passing
}

type passing struct {
	at   time.Duration
	key  int32
	cost int64
}

// spanFrom is the replay of lane's (of lanes) decisions arriving from
// `from` on at at, reused while the stamp holds and no earlier from is
// asked, else made by compute. Each lane keeps its own: a screen asks one
// lane from the clock less its window and another from its view's start.
func (cs *caches) spanFrom(at stamp, lane, lanes int, from time.Duration, compute func() spanReplay) *spanReplay {
	if len(cs.spans) != lanes {
		cs.spans = make([]spanReplay, lanes)
	}
	c := &cs.spans[lane]
	if !c.ok || c.at != at || c.from > from {
		*c = compute()
		c.at, c.from, c.ok = at, from, true
	}
	return c
}

// keyVerdicts remembers the lanes' decisions on one request: a screen asks
// for the same key's last decision once per lane per frame, and finding it
// costs a scan back and a replay from a checkpoint.
type keyVerdicts struct {
	at      stamp
	key     int32
	index   int // the key's latest request before the clock's pos; -1 if none
	records []Record
	// retries[lane] is lane's latest retry from the key decided by the
	// clock, when later than the request index; nil otherwise.
	retries []*Record
}

// latestRequest is key's latest request before the clock at at: its
// index, −1 if none.
type latestRequest struct {
	at    stamp
	key   int32
	index int
	ok    bool
}

// verdictWork is the replay toward one request's records that a screen
// does in steps; it is good for its generation and request only.
type verdictWork struct {
	rc *recordsReplay
}

// lastDecisions is key's latest decisions at at, from compute the first
// time they are asked there; asking for another key forgets them.
func (cs *caches) lastDecisions(at stamp, key int32, compute func() keyVerdicts) *keyVerdicts {
	c := &cs.lastFor
	if c.records == nil || c.at != at || c.key != key {
		*c = compute()
		c.at, c.key = at, key
	}
	return c
}

// keyStatsOf is key's prepared StatsFor at generation gen, made by fresh
// the first time it is asked for there (the caller grows it as the clock
// moves on).
func (cs *caches) keyStatsOf(gen uint64, key int32, fresh func() *keyStats) *keyStats {
	if cs.keyStatsGen != gen {
		cs.keyStats, cs.keyStatsGen = map[int32]*keyStats{}, gen
	}
	ks := cs.keyStats[key]
	if ks == nil {
		ks = fresh()
		cs.keyStats[key] = ks
	}
	return ks
}

// laneKey names one key's requests in one lane.
type laneKey struct {
	lane int
	key  int32
}

// runningSums are the running sums of k's admitted cost over whole
// blocks, at least blocks + 1 of them: sums[b] is the cost admitted in
// events[:b*tallyBlock]; block(b) is what block b admitted.
func (cs *caches) runningSums(k laneKey, blocks int, block func(b int) int64) []int64 {
	cum := cs.admittedSums[k]
	if cum == nil {
		cum = []int64{0}
	}
	for b := len(cum) - 1; b < blocks; b++ {
		cum = append(cum, cum[b]+block(b))
	}
	cs.admittedSums[k] = cum
	return cum
}

// truncate forgets the running sums that reach past events[i], where the
// timeline changed, and the work toward a verdict on decisions now gone.
func (cs *caches) truncate(i int) {
	cs.verdict = verdictWork{} // of decisions now forgotten
	for k, cum := range cs.admittedSums {
		cs.admittedSums[k] = cum[:min(len(cum), i/tallyBlock+1)]
	}
}

// forgetKeys forgets the running sums of every key after the first n.
func (cs *caches) forgetKeys(n int) {
	for k := range cs.admittedSums {
		if int(k.key) >= n {
			delete(cs.admittedSums, k)
		}
	}
}

// reset forgets the running sums, after every decision was made again.
// (The others hold their generation.)
func (cs *caches) reset() {
	cs.admittedSums, cs.verdict = map[laneKey][]int64{}, verdictWork{}
}
