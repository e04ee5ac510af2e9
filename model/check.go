package model

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"ratelab/algorithms"
	"ratelab/model/internal/peak"
	"ratelab/scenarios"
)

// Check runs s and evaluates its expectations, and checks that the request
// each quiz mark names exists; it returns the failures in file order (none
// when all hold).
//
// It makes one pass over the requests whatever the number of expectations:
// each selection (a lane, and a key or every key) keeps running totals,
// read at each expectation's From and Until; an outcome assertion waits,
// from its From to its Until, in a list emptied by the first request of its
// selection that has another outcome; peaks are measured once per lane, key
// and window (see peakGroup), and on a lane that delays also by a tracker
// per distinct edge of a range, alive only over that edge (see peakEdges).
// A state_per_key takes the state of each selected decision's key just
// after it, a state_total adds up the lane's keys' states at its Until.
func Check(s *scenarios.Scenario) ([]Failure, error) { return CheckOn(s, nil) }

// CheckOn is Check with the lanes' state kept by store.
func CheckOn(s *scenarios.Scenario, store Store) ([]Failure, error) {
	c, err := newChecker(s)
	if err != nil {
		return nil, err
	}
	if err := c.run(s, store); err != nil {
		return nil, err
	}
	if err := s.Err(); err != nil { // a log that could not be read to its end
		return nil, err
	}
	failures := make([]Failure, 0, len(c.exps))
	for i := range c.exps {
		x := &c.exps[i]
		if got, ok := x.verdict(); !ok {
			failures = append(failures, Failure{Scenario: s.Name, Expectation: *x.e, Got: got})
		}
	}
	return checkQuiz(s, failures), nil
}

// run decides every request of s in every lane, as Run does but without
// Run's totals and peaks, which no expectation reads, and measures.
func (c *checker) run(s *scenarios.Scenario, store Store) error {
	defs := LanesOf(s)
	if book := newClientBook(s); book != nil {
		return c.runClients(s, defs, store, book)
	}
	keys := algorithms.NewKeys()
	lims := make([]algorithms.Limiter, len(defs))
	for i, def := range defs {
		var err error
		if lims[i], err = newLimiter(def, keys, store, s.Duration); err != nil {
			return fmt.Errorf("lane %s: %w", def.Name, err)
		}
	}
	c.limiters, c.ids = lims, keys
	index := 0
	// The key is looked up once a request, and each decision written in
	// place, as Run does.
	var d algorithms.Decision
	var key algorithms.Key
	hasKey := false
	for r := range s.Requests() {
		c.request(r)
		if !hasKey || r.Key != key.String() {
			key, hasKey = keys.Key(r.Key), true
		}
		for lane, lim := range lims {
			lim.DecideInto(&d, r.At, key, r.Cost)
			// With no client, a request is served if admitted, else
			// abandoned at once.
			a := Attempt{N: 1, Fate: Abandoned}
			if d.Outcome.Admitted() {
				a.Fate, a.Latency = Served, d.Delay
			}
			c.record(index, lane, &r, key, &d, &a)
		}
		index++
	}
	c.fire(endOfTime)
	return nil
}

// runClients is run for a scenario with clients: each lane's retries are
// decided too, all lanes' in time order.
func (c *checker) runClients(s *scenarios.Scenario, defs []Lane, store Store, book *clientBook) error {
	ls, err := newLanes(defs, time.Second, store, s.Duration, book)
	if err != nil {
		return err
	}
	c.limiters, c.ids = ls.limiters, ls.keys
	var d algorithms.Decision
	var a Attempt
	var rr Request
	record := func(lane int) bool {
		c.request(rr)
		c.record(a.Original, lane, &rr, ls.retryKey, &d, &a)
		return true
	}
	// retries decides the retries due by t, and fires each event due by
	// then before the retries at or after its instant: a state_total
	// reads the lanes' states before any request at or after its Until
	// is decided, as without clients (each request is recorded after the
	// events due by it either way).
	retries := func(t time.Duration) {
		for c.next < len(c.events) && c.events[c.next].at <= t {
			at := c.events[c.next].at
			ls.drain(at-1, &rr, &d, &a, record)
			c.fire(at)
		}
		ls.drain(t, &rr, &d, &a, record)
	}
	index := 0
	for r := range s.Requests() {
		retries(r.At)
		c.request(r)
		ls.arrive(r, index)
		for lane := range defs {
			ls.decideInto(lane, r, &d, &a)
			c.record(index, lane, &r, ls.lastKey, &d, &a)
		}
		index++
	}
	retries(endOfTime)
	c.fire(endOfTime)
	return nil
}

// clientCounts are a selection's counts of what clients did.
type clientCounts struct{ retries, served, abandoned int64 }

func (k *clientCounts) add(a *Attempt) {
	if a.N > 1 {
		k.retries++
	}
	switch a.Fate {
	case Served:
		k.served++
	case Abandoned:
		k.abandoned++
	}
}

// checker is Check's state during its pass.
type checker struct {
	keys   map[string]int // the keys expectations name: selection slot 1, 2, …
	slots  int            // 1 + len(keys)
	sels   []selection    // lane × slot; slot 0 is every key
	exps   []expState     // in file order
	events []checkEvent   // by time
	free   []*edgeState   // trackers' states to reuse
	next   int            // events[:next] have fired
	slot   int            // its key's slot, 0 when no expectation names it
	// keyIDs numbers the request keys when many releases are due (see
	// dueQueue); keyID is the number of keyName, the latest numbered.
	keyIDs  map[string]int64
	keyName string
	keyID   int64
	// limiters are the lanes', their keys numbered by ids: the state
	// assertions measure them.
	limiters []algorithms.Limiter
	ids      *algorithms.Keys
	// key is the key of the decision being recorded, keyBytes its state
	// in the lane just after it once measured (−1 before).
	key      algorithms.Key
	keyBytes int64
}

// selection is the running totals of one lane's requests, of one key or of
// every key, and what waits on them.
type selection struct {
	tally    Tally
	cost     int64         // admitted cost
	lastPass time.Duration // arrival of the latest admission
	// open holds, by the outcome they assert, the outcome assertions
	// between their From and Until that no request contradicted yet.
	open [3][]*expState
	// waits holds the Retry-After and wait assertions between their From
	// and Until: each rejection is held against them.
	waits []*expState
	// timed holds the latency assertions between their From and Until:
	// each served request's latency is counted for them.
	timed []*expState
	// sized holds the state_per_key assertions between their From and
	// Until: each decision's key state is measured for them.
	sized   []*expState
	groups  []*peakGroup // the active ones
	used    bool
	clients clientCounts
}

// expState is one expectation's measures.
type expState struct {
	e        *scenarios.Expectation
	sel      *selection
	lane     int   // sel's lane
	start    Tally // sel's tally at From
	outcomes Tally
	// clientsAt is sel's clients at From, clients what happened since.
	clientsAt, clients clientCounts
	closed             bool    // Until has fired
	mismatch           *Record // first selected request whose outcome is not e.Outcome
	// badWait is the first selected rejection whose Retry-After or wait
	// is not e's (outcomes counts the rejections); latencies are the
	// waits of the selected attempts served that waited (clients counts
	// them all).
	badWait   *Record
	latencies latencyCounts
	// keyMost is the most bytes a key's state took just after a selected
	// decision (state_per_key); total the lane's states at Until − 1ns, of
	// totalKeys keys (state_total).
	keyMost   int64
	total     int64
	totalKeys int
	// A peak is measured by a group for the windows ending in [From +
	// window + D, Until), D the lane's longest delay (0 for a lane that
	// passes requests on arrival), and for the others, at the edges, from
	// the running cost (D = 0) or by trackers (see peakEdges).
	group     *peakGroup
	edges     [2]*edgeTracker // the trackers, when D > 0; nil when none
	windowed  bool            // the group's window sums measure a part
	startCost int64           // sel.cost at From
	early     int64           // D = 0: the cost passing in [From, min(From + window, Until))
	earlyAt   time.Duration   // the last arrival among them
	query     int32           // group.max's query for the windows ending in [From + window + D, Until), −1 when none
	late      int64           // its answer, read at Until: the largest of those windows
	lateAt    time.Duration   // the end of the first one that reached it
}

// checkEvent is something to do before the first request at or after at.
type checkEvent struct {
	at   time.Duration
	kind uint8
	x    *expState    // eventFrom, eventMid, eventUntil
	tr   *edgeTracker // eventOn, eventOff
}

const (
	eventFrom uint8 = iota
	eventMid        // From + window + D, for a group's peak
	eventOn         // a tracker starts taking admissions
	eventOff        // and stops
	eventUntil
)

func newChecker(s *scenarios.Scenario) (*checker, error) {
	laneIndex := map[string]int{}
	for i, l := range s.Lanes {
		laneIndex[l.Name] = i
	}
	c := &checker{keys: map[string]int{}, exps: make([]expState, len(s.Expect))}
	for i := range s.Expect {
		e := &s.Expect[i]
		if _, ok := laneIndex[e.Lane]; !ok {
			return nil, fmt.Errorf("%s: expectation names unknown lane %q", s.Name, e.Lane)
		}
		if _, ok := c.keys[e.Key]; e.Key != "" && !ok {
			c.keys[e.Key] = len(c.keys) + 1
		}
	}
	c.slots = 1 + len(c.keys)
	peaks := 0
	for i := range s.Expect {
		if s.Expect[i].Peak != nil {
			peaks++
		}
	}
	// From, Until, and for a peak a Mid and two trackers' On and Off.
	c.events = make([]checkEvent, 0, 2*len(s.Expect)+5*peaks)
	c.sels = make([]selection, len(s.Lanes)*c.slots)
	defs := LanesOf(s)
	groups := map[groupKey]*peakGroup{}
	trackers := make(map[trackerKey]*edgeTracker, 2*peaks)
	for i := range s.Expect {
		e := &s.Expect[i]
		lane := laneIndex[e.Lane]
		slot := 0
		if e.Key != "" {
			slot = c.keys[e.Key]
		}
		sel := &c.sels[lane*c.slots+slot]
		sel.used = true
		x := &c.exps[i]
		*x = expState{e: e, sel: sel, query: -1, lane: lane}
		from, until := e.From, max(e.Until, e.From)
		c.events = append(c.events, checkEvent{at: from, kind: eventFrom, x: x})
		if e.Peak != nil {
			w, d := e.PeakWindow, maxDelay(defs[lane].Policy)
			group := func() *peakGroup {
				k := groupKey{lane, slot, w}
				if groups[k] == nil {
					groups[k] = &peakGroup{window: w}
				}
				return groups[k]
			}
			tracker := func(lo, hi, on, off time.Duration) *edgeTracker {
				k := trackerKey{lane, slot, w, lo, hi, on, off}
				t := trackers[k]
				if t == nil {
					t = &edgeTracker{g: x.group, lo: lo, hi: hi}
					trackers[k] = t
					x.group.trackers = append(x.group.trackers, t)
					c.events = append(c.events, checkEvent{at: on, kind: eventOn, tr: t}, checkEvent{at: off, kind: eventOff, tr: t})
				}
				return t
			}
			// edge = window + D, unless the range is no longer than that.
			if edge := until - from; w < edge && d < edge-w {
				edge = w + d
				x.group, x.windowed = group(), true
				c.events = append(c.events, checkEvent{at: from + edge, kind: eventMid, x: x})
				if d > 0 { // (until + d < 2 × until: no overflow)
					x.edges = [2]*edgeTracker{tracker(from, endOfTime, from, from+edge), tracker(0, until, until-w, until+d)}
				}
			} else if d > 0 {
				if from < until {
					x.group = group()
					x.edges[0] = tracker(from, until, from, until+min(d, endOfTime-until))
				}
			} else { // the running cost measures every window that ends by Until
				c.events = append(c.events, checkEvent{at: until, kind: eventMid, x: x})
			}
		}
		c.events = append(c.events, checkEvent{at: until, kind: eventUntil, x: x})
	}
	// By time, and at one instant Froms, then Mids, then Untils: an
	// expectation's own events stay in order (the others' order does not
	// matter). A tracker's eventOff may come at a release far past the last
	// request (Until + D), so time and kind are compared apart.
	slices.SortFunc(c.events, func(a, b checkEvent) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.kind, b.kind)
	})
	return c, nil
}

type groupKey struct {
	lane, slot int
	window     time.Duration
}

type trackerKey struct {
	lane, slot                 int
	window, lo, hi, from, till time.Duration
}

// request readies c for the next request, r.
func (c *checker) request(r Request) {
	c.fire(r.At)
	c.slot = 0
	if len(c.keys) > 0 {
		c.slot = c.keys[r.Key]
	}
}

// keyNumber numbers key (from 0, in order of first use), for the sources
// of a delaying lane's releases (see dueQueue).
func (c *checker) keyNumber(key string) int64 {
	if c.keyIDs == nil || key != c.keyName {
		if c.keyIDs == nil {
			c.keyIDs = map[string]int64{}
		}
		id, ok := c.keyIDs[key]
		if !ok {
			id = int64(len(c.keyIDs))
			c.keyIDs[key] = id
		}
		c.keyName, c.keyID = key, id
	}
	return c.keyID
}

// record counts lane's decision d on attempt a of the index-th request, r,
// of key (numbered by c.ids).
func (c *checker) record(index, lane int, r *Request, key algorithms.Key, d *algorithms.Decision, a *Attempt) {
	c.key, c.keyBytes = key, -1
	base := lane * c.slots
	if sel := &c.sels[base]; sel.used {
		sel.add(index, lane, r, d, a, c)
	}
	if c.slot > 0 {
		if sel := &c.sels[base+c.slot]; sel.used {
			sel.add(index, lane, r, d, a, c)
		}
	}
}

// add counts lane's decision d on attempt a of the index-th request, r,
// for c: a wait given back (a.Cancelled) counts but never passes.
func (sel *selection) add(index, lane int, r *Request, d *algorithms.Decision, a *Attempt, c *checker) {
	sel.tally.add(d.Outcome)
	sel.clients.add(a)
	if a.Fate == Served && a.Latency > 0 {
		for _, x := range sel.timed {
			x.latencies.add(a.Latency)
		}
	}
	if len(sel.sized) > 0 {
		b := c.stateOfKey(lane, r.At)
		for _, x := range sel.sized {
			x.keyMost = max(x.keyMost, b)
		}
	}
	if d.Outcome == algorithms.Rejected {
		for _, x := range sel.waits {
			if x.badWait == nil && !x.waitHolds(d) {
				x.badWait = &Record{Index: index, Lane: lane, Request: *r, Decision: *d}
			}
		}
	}
	for o := range sel.open {
		if algorithms.Outcome(o) != d.Outcome && len(sel.open[o]) > 0 {
			rec := &Record{Index: index, Lane: lane, Request: *r, Decision: *d}
			for _, x := range sel.open[o] {
				if !x.closed {
					x.mismatch = rec
				}
			}
			sel.open[o] = sel.open[o][:0]
		}
	}
	if !d.Outcome.Admitted() || a.Cancelled {
		return
	}
	at, cost := r.At, r.Cost
	sel.cost += cost
	sel.lastPass = at
	for _, g := range sel.groups {
		g.release(at, false)
		if d.Delay > 0 {
			g.due.push(peak.Passage{At: at + d.Delay, Cost: cost}, at, g, c, r.Key, d.Gateway)
		} else {
			g.pass(peak.Passage{At: at, Cost: cost}, at)
		}
	}
}

// stateOfKey is the bytes of the recorded decision's key state in lane
// just after it, at at, as Run's keyMeter measures it for Stats.KeyBytes
// (algorithms.Limiter.KeyBytes): measured once a decision, for the
// selections of every key and of the key alike. Unlike the keyMeter it
// measures every selected decision, not only where the state can have
// grown: a key's first decision in a selection that starts after 0s
// may be a rejection that leaves it as large as ever.
func (c *checker) stateOfKey(lane int, at time.Duration) int64 {
	if c.keyBytes < 0 {
		c.keyBytes = c.limiters[lane].KeyBytes(at, c.key)
	}
	return c.keyBytes
}

// stateTotal is the bytes lane's states take at at, no earlier than any
// request decided, and how many keys they are: the sum of
// algorithms.Limiter.KeyBytes over every key a request of which has been
// decided, or over key alone when it is set (none, 0 bytes, if it has had
// no request).
func (c *checker) stateTotal(lane int, key string, at time.Duration) (total int64, keys int) {
	lim := c.limiters[lane]
	if key != "" {
		k, ok := c.ids.Lookup(key)
		if !ok {
			return 0, 0
		}
		return lim.KeyBytes(at, k), 1
	}
	for k := range c.ids.All {
		total += lim.KeyBytes(at, k)
		keys++
	}
	return total, keys
}

// fire runs the events before the first request at or after t.
func (c *checker) fire(t time.Duration) {
	for ; c.next < len(c.events) && c.events[c.next].at <= t; c.next++ {
		ev := c.events[c.next]
		if tr := ev.tr; tr != nil {
			tr.g.release(ev.at, true) // what passes before the event's instant
			if ev.kind == eventOn {
				tr.start(&c.free)
			} else {
				tr.stop(&c.free)
			}
			continue
		}
		x := ev.x
		sel := x.sel
		if g := x.group; g != nil && ev.kind != eventFrom {
			g.release(ev.at, true) // what passes before the event's instant
		}
		switch ev.kind {
		case eventFrom:
			x.start, x.startCost, x.clientsAt = sel.tally, sel.cost, sel.clients
			if o := x.e.Outcome; o != nil {
				sel.open[*o] = append(sel.open[*o], x)
			}
			if x.assertsWait() {
				sel.waits = append(sel.waits, x)
			}
			if x.timesLatency() {
				sel.timed = append(sel.timed, x)
			}
			if x.e.StatePerKey != nil {
				sel.sized = append(sel.sized, x)
			}
			if g := x.group; g != nil {
				if g.active++; g.active == 1 {
					sel.groups = append(sel.groups, g)
				}
				if x.windowed {
					g.windowed++
				}
			}
		case eventMid:
			if x.edges[0] == nil {
				if x.early = sel.cost - x.startCost; x.early > 0 {
					x.earlyAt = sel.lastPass
				}
			}
			if x.group != nil && ev.at < max(x.e.Until, x.e.From) {
				x.query = x.group.max.open()
			}
		case eventUntil:
			x.outcomes = Tally{sel.tally.Allowed - x.start.Allowed, sel.tally.Delayed - x.start.Delayed, sel.tally.Rejected - x.start.Rejected}
			x.clients = clientCounts{sel.clients.retries - x.clientsAt.retries, sel.clients.served - x.clientsAt.served, sel.clients.abandoned - x.clientsAt.abandoned}
			x.closed = true
			if x.assertsWait() {
				sel.waits = slices.DeleteFunc(sel.waits, func(y *expState) bool { return y == x })
			}
			if x.timesLatency() {
				sel.timed = slices.DeleteFunc(sel.timed, func(y *expState) bool { return y == x })
			}
			if x.e.StatePerKey != nil {
				sel.sized = slices.DeleteFunc(sel.sized, func(y *expState) bool { return y == x })
			}
			if x.e.StateTotal != nil {
				x.total, x.totalKeys = c.stateTotal(x.lane, x.e.Key, ev.at-1)
			}
			if x.query >= 0 {
				x.late, x.lateAt = x.group.max.result(x.query)
			}
			if g := x.group; g != nil {
				if x.windowed {
					g.windowed--
				}
				if g.active--; g.active == 0 {
					sel.groups = slices.DeleteFunc(sel.groups, func(h *peakGroup) bool { return h == g })
				}
			}
		}
	}
}

// peak is the expectation's measured peak and the end of the first window
// that reached it: the largest of its parts' (each measures some windows
// exactly and the others never above their sum), the earliest on a tie.
func (x *expState) peak() (int64, time.Duration) {
	peak, at := x.early, x.earlyAt
	better := func(p int64, t time.Duration) {
		if p > peak || p == peak && p > 0 && t < at {
			peak, at = p, t
		}
	}
	better(x.late, x.lateAt)
	for _, t := range x.edges {
		if t != nil {
			better(t.peak, t.peakAt)
		}
	}
	return peak, at
}

// verdict reports whether the expectation holds and, when it does not,
// what was measured.
func (x *expState) verdict() (got string, ok bool) {
	e, o := x.e, x.outcomes
	k := x.clients
	counts := [7]struct {
		name string
		want *int64
		got  int
	}{{"allowed", e.Allowed, o.Allowed}, {"admitted", e.Admitted, o.Allowed + o.Delayed}, {"delayed", e.Delayed, o.Delayed}, {"rejected", e.Rejected, o.Rejected},
		{"retries", e.Retries, int(k.retries)}, {"served", e.Served, int(k.served)}, {"abandoned", e.Abandoned, int(k.abandoned)}}
	ok = true
	for _, c := range counts {
		ok = ok && (c.want == nil || int64(c.got) == *c.want)
	}
	var peak int64
	var peakAt time.Duration
	if e.Peak != nil {
		peak, peakAt = x.peak()
		ok = ok && peak == *e.Peak
	}
	if e.Outcome != nil && (o.Total() == 0 || x.mismatch != nil) {
		ok = false
	}
	waits := x.assertsWait()
	if waits && (o.Rejected == 0 || x.badWait != nil) {
		ok = false
	}
	var lat Latency
	if x.timesLatency() {
		lat = x.latencies.latency(k.served)
		got := [3]time.Duration{lat.P50, lat.P95, lat.P99}
		for i, l := range [3]*time.Duration{e.LatencyP50, e.LatencyP95, e.LatencyP99} {
			ok = ok && k.served > 0 && (l == nil || got[i] == *l)
		}
	}
	if e.StatePerKey != nil && (o.Total() == 0 || x.keyMost != *e.StatePerKey) {
		ok = false
	}
	if e.StateTotal != nil && x.total != *e.StateTotal {
		ok = false
	}
	if ok {
		return "", true
	}
	var b []byte
	sep := func() {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
	}
	for _, c := range counts {
		if c.want != nil {
			sep()
			b = append(append(b, c.name...), ' ')
			b = strconv.AppendInt(b, int64(c.got), 10)
		}
	}
	if e.Peak != nil {
		sep()
		b = strconv.AppendInt(append(b, "peak "...), peak, 10)
		b = append(append(b, " per "...), algorithms.FormatDuration(e.PeakWindow)...)
		b = append(append(append(b, " (window ending "...), algorithms.FormatSeconds(peakAt)...), ')')
	}
	if e.Outcome != nil {
		sep()
		switch m := x.mismatch; {
		case o.Total() == 0:
			b = append(b, "no request selected"...)
		case m != nil:
			b = fmt.Appendf(b, "the request at %s (key %s) was %s: %s", algorithms.FormatSeconds(m.Request.At),
				m.Request.Key, m.Decision.Outcome, m.Decision.Explain())
		default:
			b = fmt.Appendf(b, "all %d %s", o.Total(), *e.Outcome)
		}
	}
	if waits {
		sep()
		switch m := x.badWait; {
		case o.Rejected == 0:
			b = append(b, "no rejection selected"...)
		case m != nil:
			b = fmt.Appendf(b, "the rejection at %s (key %s) had Retry-After %d, wait %s", algorithms.FormatSeconds(m.Request.At),
				m.Request.Key, m.Decision.RetryAfterSeconds(), algorithms.FormatDuration(m.Decision.RetryAfter))
		default:
			b = fmt.Appendf(b, "all %d rejections as expected", o.Rejected)
		}
	}
	if x.timesLatency() {
		sep()
		if k.served == 0 {
			b = append(b, "no served request selected"...)
		} else {
			b = fmt.Appendf(b, "latency p50 %s, p95 %s, p99 %s of %d served", algorithms.FormatDuration(lat.P50),
				algorithms.FormatDuration(lat.P95), algorithms.FormatDuration(lat.P99), k.served)
		}
	}
	if e.StatePerKey != nil {
		sep()
		if o.Total() == 0 {
			b = append(b, "no request selected"...)
		} else {
			b = appendBytes(append(b, "state per key "...), x.keyMost)
		}
	}
	if e.StateTotal != nil {
		sep()
		b = appendBytes(append(b, "state total "...), x.total)
		if e.Key == "" {
			keys := "keys"
			if x.totalKeys == 1 {
				keys = "key"
			}
			b = fmt.Appendf(b, " of %d %s", x.totalKeys, keys)
		}
		b = algorithms.AppendSeconds(append(b, " at "...), max(e.Until, e.From)-1)
	}
	return string(b), false
}

// appendBytes appends n bytes as a state assertion's failure says it:
// "32 bytes", "2936 bytes (2.9 KiB)".
func appendBytes(b []byte, n int64) []byte {
	b = append(strconv.AppendInt(b, n, 10), " bytes"...)
	if n >= 1024 {
		b = append(append(append(b, " ("...), FormatBytes(n)...), ')')
	}
	return b
}

// assertsWait reports whether x asserts what rejections tell their
// clients: a Retry-After or a wait.
func (x *expState) assertsWait() bool { return x.e.RetryAfter != nil || x.e.Wait != nil }

// timesLatency reports whether x asserts a latency percentile.
func (x *expState) timesLatency() bool {
	e := x.e
	return e.LatencyP50 != nil || e.LatencyP95 != nil || e.LatencyP99 != nil
}

// waitHolds reports whether rejection d tells its client what x asserts:
// its Retry-After header and its exact wait.
func (x *expState) waitHolds(d *algorithms.Decision) bool {
	e := x.e
	return (e.RetryAfter == nil || d.RetryAfterSeconds() == *e.RetryAfter) && (e.Wait == nil || d.RetryAfter == *e.Wait)
}
