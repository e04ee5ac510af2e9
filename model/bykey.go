package model

import (
	"encoding/binary"
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
// the keys' peak trackers keep, see keysRun), not with the requests
// decided. It is RunKeys with every key's totals spelled out as Stats,
// 176 bytes a lane and key: a caller of many keys reads them from RunKeys'
// KeyTotals one at a time instead.
func RunByKey(s *scenarios.Scenario, opt Options, emit func(Record) error) ([]Stats, []KeyStats, error) {
	kr, stats, err := runKeys(s, opt, emit)
	if err == nil {
		err = s.Err()
	}
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
// for a run whose lanes are plain and whose traffic is open-loop, a few
// varints a lane and key (and a byte for a lane whose totals are another
// lane's), a Stats (176 bytes) otherwise.
type KeyTotals struct {
	keys   []string
	lanes  int
	window time.Duration
	// full[k×lanes + lane] is key k's Stats in lane, when the run needs more
	// than counts say; otherwise data holds every key's counts and peak,
	// key k's lanes from offs[k] on (see appendRecord).
	full []Stats
	data []byte
	offs []int
}

// keyCounts is what one key's requests did in one lane of a run without
// clients, whose lanes' decisions carry no fleet's figures: every request
// is tried once, served if admitted, abandoned if not.
type keyCounts struct {
	admitted, delayed, rejected int64
	cost                        int64 // admitted
}

// count counts d.
func (c *keyCounts) count(d *algorithms.Decision) {
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

// Len is the number of keys.
func (kt *KeyTotals) Len() int { return len(kt.keys) }

// Key is the k-th key, in the order of their first requests.
func (kt *KeyTotals) Key(k int) string { return kt.keys[k] }

// Stats is key k's totals in lane.
func (kt *KeyTotals) Stats(k, lane int) Stats {
	if kt.full != nil {
		return kt.full[k*kt.lanes+lane]
	}
	d := varints{b: kt.data, at: laneRecord(kt.data, kt.offs[k], lane)}
	c := keyCounts{admitted: d.int(), delayed: d.int(), rejected: d.int(), cost: d.int()}
	s := c.stats()
	s.PeakWindow = kt.window
	s.Peak, s.PeakAt = d.int(), time.Duration(d.int())
	return s
}

// stats is c as Stats, the peak aside.
func (c keyCounts) stats() Stats {
	a, r := c.admitted, c.rejected
	return Stats{Admitted: a, Delayed: c.delayed, Rejected: r, AdmittedCost: c.cost,
		Originals: a + r, Served: a, Abandoned: r}
}

// A key's lanes are kept as bytes, lane after lane, while a run goes (its
// counts and peak tracker, see keysRun) and after it (its counts and
// peak, KeyTotals.data): a lane's record is a varint tag, 2 × n followed
// by the n bytes of its content, or 2 × d + 1 when its content is the same
// as an earlier lane's, which starts d bytes before the tag. Lanes that
// treat a key alike (every one admits a key under every limit) hold it
// once.

// appendRecord appends lane's record, its content one, to b: a reference
// when an earlier lane's content, those at spans, is the same, else one
// itself, whose span it then adds.
func appendRecord(b, one []byte, spans *[]span) []byte {
	for _, sp := range *spans {
		if string(b[sp.start:sp.end]) == string(one) {
			return binary.AppendUvarint(b, uint64(len(b)-sp.start)*2+1)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(one))*2)
	*spans = append(*spans, span{len(b), len(b) + len(one), 0})
	return append(b, one...)
}

// span is where a lane's content lies in a key's bytes, and which lane's
// it is (or, for load, starts and which lane read it).
type span struct{ start, end, lane int }

// laneRecord is where lane's content starts in the key's lanes from at.
func laneRecord(b []byte, at, lane int) int {
	for ; lane > 0; lane-- {
		_, at = record(b, at)
	}
	content, _ := record(b, at)
	return content
}

// record reads the record at at: where its content starts, and where the
// next record does.
func record(b []byte, at int) (content, next int) {
	tag, n := binary.Uvarint(b[at:])
	if tag%2 == 1 {
		return at - int(tag/2), at + n
	}
	return at + n, at + n + int(tag/2)
}

// varints reads varints from b at at.
type varints struct {
	b  []byte
	at int
}

func (d *varints) int() int64 {
	v, n := binary.Varint(d.b[d.at:])
	d.at += n
	return v
}

// keysRun is RunKeys' state while the run goes: the totals so far and each
// key's peak tracker in every lane, kept as bytes (about 30 a lane and key
// that sent a window's worth of regular requests, one a lane that treated
// the key as another did), the latest key's decoded in open; with clients,
// each key's latencies.
type keysRun struct {
	KeyTotals
	// index[id] is 1 + the number of the key numbered id by the lanes
	// (algorithms.Key.ID, which numbers also a stack's key over all keys),
	// 0 for none yet.
	index []int32
	// blobs[k] is key k's lanes (see appendRecord): a lane's content its
	// counts, unless the run keeps full Stats, then its tracker (see
	// peak.Small.Append), those too big for bytes kept on the shelf.
	blobs [][]byte
	shelf []peak.Small
	waits []latencyCounts
	// cur is the key whose lanes open holds (its blob is stale then), -1
	// for none; enc, one and spans are scratch.
	cur     int
	open    []openLane
	enc     []byte
	one     []byte
	spans   []span
	clients bool
}

// openLane is one key's totals and peak tracker in one lane, decoded.
type openLane struct {
	c  keyCounts
	tr peak.Small
}

// RunKeys is RunByKey without the totals over all keys, each key's totals
// kept compact (KeyTotals): on open-loop traffic without emit (`ratelab run
// --format summary --by-key`), no lane keeps a peak tracker of its own
// beside the keys', nor makes a Record.
func RunKeys(s *scenarios.Scenario, opt Options, emit func(Record) error) (*KeyTotals, error) {
	if emit != nil || len(s.Clients) > 0 {
		kr, _, err := runKeys(s, opt, emit)
		if err == nil {
			err = s.Err()
		}
		if err != nil {
			return nil, err
		}
		return kr.totals(), nil
	}
	kr, err := runKeysOpen(s, opt)
	if err == nil {
		err = s.Err()
	}
	if err != nil {
		return nil, err
	}
	return kr.totals(), nil
}

// newKeysRun is RunKeys' state for s's lanes.
func newKeysRun(s *scenarios.Scenario, defs []Lane, opt Options) *keysRun {
	kr := &keysRun{KeyTotals: KeyTotals{lanes: len(defs), window: opt.PeakWindow}, clients: len(s.Clients) > 0, cur: -1}
	kr.open = make([]openLane, len(defs))
	if kr.clients {
		kr.full = []Stats{}
	}
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
		k := kr.keyOf(key)
		kr.use(k)
		kr.add(k, r.Lane, r)
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
		k := kr.keyOf(key)
		kr.use(k)
		for lane, lim := range ls.limiters {
			lim.DecideInto(&d, r.At, key, r.Cost)
			kr.decided(k, lane, &d, r.At, r.Cost)
		}
	}
	return kr, nil
}

// totals reads every key's peak and latencies into what the KeyTotals
// keep, and lets the trackers go, key by key.
func (kr *keysRun) totals() *KeyTotals {
	kr.close()
	kt := kr.KeyTotals // a copy: kr, its trackers and index, is garbage then
	counting := kt.full == nil
	if counting {
		kt.offs = make([]int, len(kt.keys))
	}
	var data []byte
	for k := range kt.keys {
		kr.load(k, counting)
		kr.blobs[k] = nil
		if !counting {
			for lane := range kr.open {
				i := k*kt.lanes + lane
				st := &kt.full[i]
				st.Peak, st.PeakAt = kr.open[lane].tr.PeakBy(endOfTime, kt.window)
				if kr.clients {
					st.Latency = kr.waits[i].latency(st.Served)
				}
			}
			continue
		}
		kt.offs[k] = len(data)
		kr.spans = kr.spans[:0]
		for lane := range kr.open {
			l := &kr.open[lane]
			p, at := l.tr.PeakBy(endOfTime, kt.window)
			one := appendCounts(kr.one[:0], &l.c)
			one = binary.AppendVarint(one, p)
			kr.one = binary.AppendVarint(one, int64(at))
			data = appendRecord(data, kr.one, &kr.spans)
		}
	}
	kt.data = data
	return &kt
}

// appendCounts appends c's four counts.
func appendCounts(b []byte, c *keyCounts) []byte {
	b = binary.AppendVarint(b, c.admitted)
	b = binary.AppendVarint(b, c.delayed)
	b = binary.AppendVarint(b, c.rejected)
	return binary.AppendVarint(b, c.cost)
}

// use readies key k's lanes in open, putting the key there before back
// into its bytes.
func (kr *keysRun) use(k int) {
	if kr.cur == k {
		return
	}
	kr.close()
	kr.load(k, kr.full == nil)
	kr.cur = k
}

// close puts the key in open back into its bytes.
func (kr *keysRun) close() {
	if kr.cur < 0 {
		return
	}
	kr.store(kr.cur, kr.full == nil)
	kr.cur = -1
}

// load decodes key k's lanes into open, counts included when counting.
func (kr *keysRun) load(k int, counting bool) {
	b := kr.blobs[k]
	if b == nil {
		for i := range kr.open {
			l := &kr.open[i]
			l.c = keyCounts{}
			l.tr.Load(emptySmall, nil)
		}
		return
	}
	at := 0
	kr.spans = kr.spans[:0]
	for i := range kr.open {
		l := &kr.open[i]
		content, next := record(b, at)
		at = next
		// A lane whose content is an earlier lane's is a copy of it.
		if j := kr.sameAs(content); j >= 0 {
			l.c = kr.open[j].c
			l.tr.CopyFrom(&kr.open[j].tr)
			kr.spans = append(kr.spans, span{start: content, lane: j})
			continue
		}
		kr.spans = append(kr.spans, span{start: content, lane: i})
		d := varints{b: b, at: content}
		if counting {
			l.c = keyCounts{admitted: d.int(), delayed: d.int(), rejected: d.int(), cost: d.int()}
		}
		l.tr.Load(b[d.at:], kr.shelf)
	}
}

// sameAs is the lane load read content at before, -1 for none.
func (kr *keysRun) sameAs(content int) int {
	for _, sp := range kr.spans {
		if sp.start == content {
			return sp.lane
		}
	}
	return -1
}

// emptySmall is the empty peak.Small, encoded.
var emptySmall = []byte{0}

// store encodes open's lanes into key k's bytes, counts included when
// counting, in the bytes it had if they have room.
func (kr *keysRun) store(k int, counting bool) {
	b := kr.enc[:0]
	kr.spans = kr.spans[:0]
	for i := range kr.open {
		l := &kr.open[i]
		// A lane like an earlier one is a reference to it, found without
		// encoding it.
		if j := kr.like(i); j >= 0 {
			b = binary.AppendUvarint(b, uint64(len(b)-kr.spans[j].start)*2+1)
			continue
		}
		one := kr.one[:0]
		if counting {
			one = appendCounts(one, &l.c)
		}
		kr.one = l.tr.Append(one, &kr.shelf)
		b = appendRecord(b, kr.one, &kr.spans)
		kr.spans[len(kr.spans)-1].lane = i
	}
	kr.enc = b
	if old := kr.blobs[k]; cap(old) >= len(b) {
		kr.blobs[k] = old[:copy(old[:len(b)], b)]
		return
	}
	kr.blobs[k] = append([]byte(nil), b...) // its size class's room
}

// like is the place in spans of a lane before i stored whole that is like
// lane i, -1 for none.
func (kr *keysRun) like(i int) int {
	l := &kr.open[i]
	for j, sp := range kr.spans {
		o := &kr.open[sp.lane]
		if o.c == l.c && o.tr.Equal(&l.tr) {
			return j
		}
	}
	return -1
}

// heldBytes is about what kr holds for the keys: their bytes, the
// shelved trackers, the full Stats, the keys' index and list (the keys'
// strings are the scenario's).
func (kr *keysRun) heldBytes() int64 {
	n := int64(cap(kr.full))*int64(unsafe.Sizeof(Stats{})) + int64(cap(kr.blobs))*int64(unsafe.Sizeof([]byte{}))
	for _, b := range kr.blobs {
		n += int64(cap(b))
	}
	n += int64(cap(kr.shelf)) * int64(unsafe.Sizeof(peak.Small{}))
	for i := range kr.shelf {
		n += kr.shelf[i].Bytes()
	}
	n += int64(cap(kr.keys))*int64(unsafe.Sizeof("")) + int64(cap(kr.index))*4
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
	kr.blobs = append(kr.blobs, nil)
	for range kr.lanes {
		if kr.full != nil {
			kr.full = append(kr.full, Stats{PeakWindow: kr.window})
		}
		if kr.clients {
			kr.waits = append(kr.waits, nil)
		}
	}
	return k
}

// add counts record r in key k's totals in lane; k is in use.
func (kr *keysRun) add(k, lane int, r *Record) {
	d := &r.Decision
	if kr.full == nil && !plain(r) {
		kr.spell()
	}
	l := &kr.open[lane]
	if kr.full != nil {
		i := k*kr.lanes + lane
		st := &kr.full[i]
		st.count(d)
		st.settle(&r.Attempt)
		if kr.clients && r.Attempt.Fate == Served && r.Attempt.Latency > 0 {
			kr.waits[i].add(r.Attempt.Latency)
		}
	} else {
		l.c.count(d)
	}
	if d.Outcome.Admitted() && !r.Attempt.Cancelled {
		// A tracker of one key: its gateways are its sources.
		l.tr.Admit(r.Request.At, d.Delay, r.Request.Cost, peak.Source(0, d.Gateway), kr.window)
	}
}

// decided counts d, a decision on an open-loop request at of cost, in key
// k's totals in lane (k is in use): the request is served if admitted,
// abandoned by its rule if not.
func (kr *keysRun) decided(k, lane int, d *algorithms.Decision, at time.Duration, cost int64) {
	if kr.full == nil && (d.Beyond != 0 || d.Forgot != 0 || d.Fallback != algorithms.NoFallback || d.DryRun != algorithms.Allowed) {
		kr.spell()
	}
	l := &kr.open[lane]
	if kr.full != nil {
		st := &kr.full[k*kr.lanes+lane]
		st.count(d)
		st.Originals++
		if d.Outcome.Admitted() {
			st.Served++
		} else {
			st.Abandoned++
		}
	} else {
		l.c.count(d)
	}
	if d.Outcome.Admitted() {
		l.tr.Admit(at, d.Delay, cost, peak.Source(0, d.Gateway), kr.window)
	}
}

// plain reports whether keyCounts say all that r adds to its totals: a
// request tried once, served if admitted, abandoned by its rule if not,
// and no fleet's figure.
func plain(r *Record) bool {
	d, a := &r.Decision, &r.Attempt
	if a.N != 1 || a.Cancelled || d.Beyond != 0 || d.Forgot != 0 || d.Fallback != algorithms.NoFallback || d.DryRun != algorithms.Allowed {
		return false
	}
	return d.Outcome.Admitted() == (a.Fate == Served) && (a.Fate != Abandoned || a.Ending != scenarios.PastDeadline)
}

// spell turns every key's counts into Stats, for a run that needs them:
// its keys' bytes keep only their trackers then.
func (kr *keysRun) spell() {
	cur := kr.cur
	kr.close()
	kr.full = make([]Stats, len(kr.keys)*kr.lanes)
	for k := range kr.keys {
		kr.load(k, true)
		for lane := range kr.open {
			st := &kr.full[k*kr.lanes+lane]
			*st = kr.open[lane].c.stats()
			st.PeakWindow = kr.window
		}
		kr.store(k, false)
	}
	if cur >= 0 {
		kr.use(cur)
	}
}
