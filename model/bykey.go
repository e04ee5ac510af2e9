package model

import (
	"math"
	"time"
	"unsafe"

	"ratelab/algorithms"
	"ratelab/model/internal/peak"
	"ratelab/scenarios"
)

// KeyStats are one key's totals in every lane: the Stats of that key's
// requests alone, its peak included.
type KeyStats struct {
	Key   string
	Lanes []Stats // in lane order
}

// RunByKey is Run that also totals each key apart: it returns each lane's
// totals over every key, as Run does, and each key's totals per lane, keys in
// the order their first request arrives. A key's totals are its requests'
// in the whole run; as every limiter keeps a state per key, they are what a
// run of its requests alone would give, unless a lane has a policy over all
// keys or a client draws jitter (which depends on a request's rank among
// all the requests of its instant). Like
// Run it keeps no decision: its memory grows with the keys (and with what
// the keys' peak trackers keep, see peak.Small), not with the requests
// decided. It is RunKeys with every key's totals spelled out as Stats,
// 176 bytes a lane and key: a caller of many keys reads them from RunKeys'
// KeyTotals one at a time instead.
func RunByKey(s *scenarios.Scenario, opt Options, emit func(Record) error) ([]Stats, []KeyStats, error) {
	kr, stats, err := runKeys(s, opt, emit)
	if err != nil {
		return nil, nil, err
	}
	kt := kr.totals()
	byKey := make([]KeyStats, kt.Len())
	for k := range byKey {
		byKey[k] = KeyStats{Key: kt.Key(k), Lanes: make([]Stats, kt.lanes)}
		for lane := range kt.lanes {
			byKey[k].Lanes[lane] = kt.Stats(k, lane)
		}
	}
	return stats, byKey, nil
}

// KeyTotals are each key's totals in every lane, as RunKeys leaves them:
// 40 bytes a lane and key for a run whose lanes are plain and whose traffic
// is open-loop, a Stats (176 bytes) otherwise.
type KeyTotals struct {
	keys   []string
	lanes  int
	window time.Duration
	// counts[k×lanes + lane] is key k's totals in lane; full holds them
	// instead, as Stats, when the run needs more than counts say.
	counts []keyCounts
	full   []Stats
	peaks  []keyPeak
}

// keyCounts is what one key's requests did in one lane of a run without
// clients, whose lanes' decisions carry no fleet's figures: every request
// is tried once, served if admitted, abandoned if not.
type keyCounts struct {
	admitted, delayed, rejected uint32
	cost                        int64 // admitted
}

// keyPeak is one key's peak in one lane, and when it was first reached.
type keyPeak struct {
	peak int64
	at   time.Duration
}

// Len is the number of keys.
func (kt *KeyTotals) Len() int { return len(kt.keys) }

// Key is the k-th key, in the order of their first requests.
func (kt *KeyTotals) Key(k int) string { return kt.keys[k] }

// Stats is key k's totals in lane.
func (kt *KeyTotals) Stats(k, lane int) Stats {
	i := k*kt.lanes + lane
	var s Stats
	if kt.full != nil {
		s = kt.full[i]
	} else {
		s = kt.counts[i].stats()
		s.PeakWindow = kt.window
	}
	s.Peak, s.PeakAt = kt.peaks[i].peak, kt.peaks[i].at
	return s
}

// stats is c as Stats, the peak aside.
func (c keyCounts) stats() Stats {
	a, r := int64(c.admitted), int64(c.rejected)
	return Stats{Admitted: a, Delayed: int64(c.delayed), Rejected: r, AdmittedCost: c.cost,
		Originals: a + r, Served: a, Abandoned: r}
}

// keysRun is RunKeys' state while the run goes: the totals so far, each
// key's peak tracker in every lane (see peak.Small: about 100 bytes a lane
// and key that sent a window's worth of regular requests) and, with
// clients, each key's latencies.
type keysRun struct {
	KeyTotals
	// index[id] is 1 + the number of the key numbered id by the lanes
	// (algorithms.Key.ID, which numbers also a stack's key over all keys),
	// 0 for none yet.
	index    []int32
	trackers []peak.Small
	waits    []latencyCounts
	clients  bool
}

// RunKeys is RunByKey without the totals over all keys, each key's totals
// kept compact (KeyTotals): on open-loop traffic without emit (`ratelab run
// --format summary --by-key`), no lane keeps a peak tracker of its own
// beside the keys', nor makes a Record.
func RunKeys(s *scenarios.Scenario, opt Options, emit func(Record) error) (*KeyTotals, error) {
	if emit != nil || len(s.Clients) > 0 {
		kr, _, err := runKeys(s, opt, emit)
		if err != nil {
			return nil, err
		}
		return kr.totals(), nil
	}
	kr, err := runKeysOpen(s, opt)
	if err != nil {
		return nil, err
	}
	return kr.totals(), nil
}

// newKeysRun is RunKeys' state for s's lanes, its slices made for s's keys.
func newKeysRun(s *scenarios.Scenario, defs []Lane, opt Options) *keysRun {
	kr := &keysRun{KeyTotals: KeyTotals{lanes: len(defs), window: opt.PeakWindow}, clients: len(s.Clients) > 0}
	keys := len(s.Keys()) // a run until a time may see fewer
	n := keys * len(defs)
	kr.keys = make([]string, 0, keys)
	if kr.clients {
		kr.full = make([]Stats, 0, n)
		kr.waits = make([]latencyCounts, 0, n)
	} else {
		kr.counts = make([]keyCounts, 0, n)
	}
	kr.trackers = make([]peak.Small, 0, n)
	return kr
}

// runKeys runs s, totalling each key apart, and returns what the keys hold
// at the end, every tracker still there.
func runKeys(s *scenarios.Scenario, opt Options, emit func(Record) error) (*keysRun, []Stats, error) {
	defs := LanesOf(s)
	if opt.PeakWindow <= 0 {
		opt.PeakWindow = DefaultPeakWindow(defs)
	}
	kr := newKeysRun(s, defs, opt)
	stats, err := run(s, opt, func(r *Record, key algorithms.Key) error {
		kr.add(kr.keyOf(key)*kr.lanes+r.Lane, r)
		if emit != nil {
			return emit(*r)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return kr, stats, nil
}

// runKeysOpen is runKeys on open-loop traffic without emit: each lane's
// limiter decides, and only the keys' totals count.
func runKeysOpen(s *scenarios.Scenario, opt Options) (*keysRun, error) {
	defs := LanesOf(s)
	if opt.PeakWindow <= 0 {
		opt.PeakWindow = DefaultPeakWindow(defs)
	}
	ls, err := newLanes(defs, opt.PeakWindow, opt.Store, s.Duration, nil)
	if err != nil {
		return nil, err
	}
	kr := newKeysRun(s, defs, opt)
	var d algorithms.Decision
	var key algorithms.Key
	hasKey := false
	for r := range s.Requests() {
		if opt.Until > 0 && r.At >= opt.Until {
			break
		}
		if !hasKey || r.Key != key.String() {
			key, hasKey = ls.keys.Key(r.Key), true
		}
		base := kr.keyOf(key) * kr.lanes
		for lane, lim := range ls.limiters {
			lim.DecideInto(&d, r.At, key, r.Cost)
			kr.decided(base+lane, &d, r.At, r.Cost)
		}
	}
	return kr, nil
}

// totals reads every key's peak and latencies, and lets the trackers go.
func (kr *keysRun) totals() *KeyTotals {
	kt := kr.KeyTotals // a copy: kr, its trackers and index, is garbage then
	kt.peaks = make([]keyPeak, len(kr.trackers))
	for i := range kr.trackers {
		p := &kt.peaks[i]
		p.peak, p.at = kr.trackers[i].PeakBy(endOfTime, kt.window)
		if kr.clients {
			kt.full[i].Latency = kr.waits[i].latency(kt.full[i].Served)
		}
	}
	return &kt
}

// heldBytes is about what kr holds for the keys: the counts, the trackers
// and what they keep, the keys' index and list (the keys' strings are the
// scenario's).
func (kr *keysRun) heldBytes() int64 {
	n := int64(cap(kr.counts))*int64(unsafe.Sizeof(keyCounts{})) + int64(cap(kr.full))*int64(unsafe.Sizeof(Stats{}))
	n += int64(cap(kr.trackers)) * int64(unsafe.Sizeof(peak.Small{}))
	for i := range kr.trackers {
		n += kr.trackers[i].Bytes()
	}
	n += int64(cap(kr.keys))*16 + int64(cap(kr.index))*4
	return n
}

// keyOf is key's number, given it at its first request.
func (kr *keysRun) keyOf(key algorithms.Key) int {
	id := key.ID()
	if id < len(kr.index) && kr.index[id] > 0 {
		return int(kr.index[id] - 1)
	}
	for len(kr.index) <= id {
		kr.index = append(kr.index, 0)
	}
	k := len(kr.keys)
	kr.index[id] = int32(k + 1)
	kr.keys = append(kr.keys, key.String())
	for range kr.lanes {
		if kr.full != nil {
			kr.full = append(kr.full, Stats{PeakWindow: kr.window})
		} else {
			kr.counts = append(kr.counts, keyCounts{})
		}
		kr.trackers = append(kr.trackers, peak.Small{})
		if kr.clients {
			kr.waits = append(kr.waits, nil)
		}
	}
	return k
}

// add counts record r in the totals of a lane and key, i.
func (kr *keysRun) add(i int, r *Record) {
	d := &r.Decision
	if kr.full == nil && !kr.plain(i, r) {
		kr.spell()
	}
	if kr.full != nil {
		st := &kr.full[i]
		st.count(d)
		st.settle(&r.Attempt)
		if kr.clients && r.Attempt.Fate == Served && r.Attempt.Latency > 0 {
			kr.waits[i].add(r.Attempt.Latency)
		}
	} else {
		c := &kr.counts[i]
		switch d.Outcome {
		case algorithms.Rejected:
			c.rejected++
		case algorithms.Delayed:
			c.delayed++
			fallthrough
		default:
			c.admitted++
			c.cost += d.Cost
		}
	}
	if d.Outcome.Admitted() && !r.Attempt.Cancelled {
		// A tracker of one key: its gateways are its sources.
		kr.trackers[i].Admit(r.Request.At, d.Delay, r.Request.Cost, peak.Source(0, d.Gateway), kr.window)
	}
}

// decided counts d, a decision on an open-loop request at of cost, in the
// totals of a lane and key, i: the request is served if admitted,
// abandoned by its rule if not.
func (kr *keysRun) decided(i int, d *algorithms.Decision, at time.Duration, cost int64) {
	if kr.full == nil {
		c := &kr.counts[i]
		if d.Beyond != 0 || d.Forgot != 0 || d.Fallback != algorithms.NoFallback || c.admitted == math.MaxUint32 || c.rejected == math.MaxUint32 {
			kr.spell()
		}
	}
	if kr.full != nil {
		st := &kr.full[i]
		st.count(d)
		st.Originals++
		if d.Outcome.Admitted() {
			st.Served++
		} else {
			st.Abandoned++
		}
	} else {
		c := &kr.counts[i]
		switch d.Outcome {
		case algorithms.Rejected:
			c.rejected++
		case algorithms.Delayed:
			c.delayed++
			fallthrough
		default:
			c.admitted++
			c.cost += d.Cost
		}
	}
	if d.Outcome.Admitted() {
		kr.trackers[i].Admit(at, d.Delay, cost, peak.Source(0, d.Gateway), kr.window)
	}
}

// plain reports whether keyCounts say all that r adds to its totals: a
// request tried once, served if admitted, abandoned by its rule if not,
// no fleet's figure, and room in the counts.
func (kr *keysRun) plain(i int, r *Record) bool {
	d, a := &r.Decision, &r.Attempt
	if a.N != 1 || a.Cancelled || d.Beyond != 0 || d.Forgot != 0 || d.Fallback != algorithms.NoFallback {
		return false
	}
	if d.Outcome.Admitted() != (a.Fate == Served) || a.Fate == Abandoned && a.Ending == scenarios.PastDeadline {
		return false
	}
	c := &kr.counts[i]
	return c.admitted < math.MaxUint32 && c.rejected < math.MaxUint32
}

// spell turns every key's counts into Stats, for a run that needs them.
func (kr *keysRun) spell() {
	kr.full = make([]Stats, len(kr.counts))
	for i, c := range kr.counts {
		kr.full[i] = c.stats()
		kr.full[i].PeakWindow = kr.window
	}
	kr.counts = nil
}
