package model

import (
	"fmt"
	"slices"
	"time"

	"ratelab/algorithms"
	"ratelab/fleet"
	"ratelab/model/internal/peak"
	"ratelab/scenarios"
)

// Lane is one limiter of the scenario, shown as one column of the lab: a
// scenario's lane as it was read (see scenarios.Lane).
type Lane = scenarios.Lane

// Request is one request on the timeline: its arrival, key and cost.
type Request = scenarios.Request

// Record is what one lane decided about one request.
type Record struct {
	// Index is the request's position in the timeline (Lab) or stream (Run).
	Index    int
	Lane     int
	Request  Request
	Decision algorithms.Decision
	// Attempt is which try of its request this is, and what became of
	// the request; Index is the original request's.
	Attempt Attempt
}

// lanes is the limiters of all lanes and their totals at one point of a
// timeline: the lab's engine holds one at its frontier and one in each
// checkpoint, its clock one at Now, and the streaming runner one.
type lanes struct {
	// keys numbers the request keys for every limiter, shared by clones:
	// a request's key is looked up once, not once a lane (lastKey
	// remembers the latest, once hasKey).
	keys    *algorithms.Keys
	hasKey  bool
	lastKey algorithms.Key
	// retryKey is the key of the retry nextRetry decided last, numbered,
	// so that whoever records it need not look its name up again.
	retryKey algorithms.Key
	limiters []algorithms.Limiter
	stats    []Stats
	peaks    []peak.Tracker

	// book is the scenario's clients, shared by clones; nil when it has
	// none. owed[lane] are the retries lane owes (see clients.go), in the
	// order of their times and then of their making; cancels[lane] tells
	// that a client's cancel can matter on lane: one of the clients
	// cancels, and lane can delay.
	book    *clientBook
	owed    []retryCalendar
	cancels []bool
	// aside is a key's state kept aside while an attempt that may be
	// given back is decided (see try): a field, so that an attempt on a
	// lane where none can be given back clears none. It holds at most one
	// key's state until the next attempt that keeps one, or none after
	// a state put back.
	aside algorithms.State
	// req is the latest original request, as a lane that retries it
	// keeps it (its jitter salt worked out once for every lane); rank is
	// its place among the originals arriving at its instant, rankAt.
	req    retryReq
	rank   int32
	rankAt time.Duration
}

func newLanes(defs []Lane, peakWindow time.Duration, store Store, until time.Duration, book *clientBook) (*lanes, error) {
	ls := &lanes{keys: algorithms.NewKeys(), book: book, rankAt: -1}
	if book != nil {
		ls.owed = make([]retryCalendar, len(defs))
		ls.cancels = make([]bool, len(defs))
		shift := calendarShift(book.longestWait())
		cancel := slices.ContainsFunc(book.clients, func(c scenarios.Client) bool { return c.Cancel })
		for i, def := range defs {
			ls.cancels[i] = cancel && maxDelay(def.Policy) > 0
			ls.owed[i] = newRetryCalendar(shift)
		}
	}
	for _, def := range defs {
		lim, err := newLimiter(def, ls.keys, store, until)
		if err != nil {
			return nil, fmt.Errorf("lane %s: %w", def.Name, err)
		}
		ls.limiters = append(ls.limiters, lim)
		ls.stats = append(ls.stats, Stats{PeakWindow: peakWindow})
		ls.peaks = append(ls.peaks, peak.NewTracker(peakWindow))
	}
	return ls, nil
}

// Store is where lanes keep their state: for each lane's name, the maker
// of its limiters (its shared store's, for a lane of gateways), for a
// scenario whose requests all come before until. nil keeps every state in
// memory. The model does not know what is behind it.
type Store func(lane string, until time.Duration) algorithms.Maker

// explorerReach is how far past a scenario's end the lab may be asked to
// decide (requests fired after it), for a Store's bounds.
const explorerReach = 24 * time.Hour

// newLimiter makes def's limiter: the plain one, or its gateways', its
// state kept by store.
func newLimiter(def Lane, keys *algorithms.Keys, store Store, until time.Duration) (algorithms.Limiter, error) {
	if def.Stack != nil {
		// A stack's policies stay in memory whatever the store: its
		// lane shows that it is not in the store.
		return algorithms.NewStack(def.Stack, keys)
	}
	maker := algorithms.Maker(algorithms.NewWithKeys)
	if store != nil {
		maker = store(def.Name, until)
	}
	if def.Fleet.Plain() {
		return maker(def.Policy, keys)
	}
	return fleet.NewOn(def.Policy, def.Fleet, keys, maker)
}

// arrive readies the lanes for the orig-th original request, r: the lanes
// then decide it with decideInto, once each, after deciding every retry due
// by r.At (nextRetry).
func (ls *lanes) arrive(r Request, orig int) {
	if !ls.hasKey || r.Key != ls.lastKey.String() {
		ls.hasKey, ls.lastKey = true, ls.keys.Key(r.Key)
	}
	if r.At != ls.rankAt {
		ls.rankAt, ls.rank = r.At, -1
	}
	ls.rank++
	if ls.book == nil {
		ls.req.orig = orig
		return
	}
	ls.req = retryReq{first: r.At, key: ls.lastKey, cost: r.Cost, orig: orig, client: int32(r.Client)}
	ls.req.salt = ls.book.salt(r.Client, r.At, int(ls.rank))
}

// decide is decideInto returning the decision.
func (ls *lanes) decide(i int, r Request) (algorithms.Decision, Attempt) {
	var d algorithms.Decision
	var a Attempt
	ls.decideInto(i, r, &d, &a)
	return d, a
}

// decideInto runs the arrived original request r through lane i, updates
// its totals and writes the decision into *d and what became of the
// request into *a: the streaming run and the lab's computing call it for
// millions of requests, and a Decision copied twice a lane a request is a
// good part of their time.
func (ls *lanes) decideInto(i int, r Request, d *algorithms.Decision, a *Attempt) {
	if ls.book == nil {
		// Open-loop traffic, the common case, kept lean: each request is
		// tried once, served if admitted, abandoned if not.
		ls.limiters[i].DecideInto(d, r.At, ls.lastKey, r.Cost)
		s := &ls.stats[i]
		s.count(d)
		s.Originals++
		*a = Attempt{N: 1, Original: ls.req.orig, First: r.At}
		if d.Outcome.Admitted() {
			s.Served++
			a.Fate, a.Latency = Served, d.Delay
			ls.peaks[i].Admit(r.At, d.Delay, r.Cost, peak.Source(ls.lastKey.ID(), d.Gateway))
		} else {
			s.Abandoned++
			a.Fate, a.Ending = Abandoned, scenarios.GaveUpRule
		}
		return
	}
	ls.try(i, r.At, 1, &ls.req, -1, d, a)
}

// drain decides every retry the lanes owe due at or before t, in order
// (see nextRetry), calling fn with each one's lane, *r, *d and *a filled
// in, until fn returns false; it reports whether it went through them all.
func (ls *lanes) drain(t time.Duration, r *Request, d *algorithms.Decision, a *Attempt, fn func(lane int) bool) bool {
	for {
		lane, ok := ls.nextRetry(t, r, d, a)
		if !ok {
			return true
		}
		if !fn(lane) {
			return false
		}
	}
}

// nextRetry decides the earliest retry any lane owes due at or before t
// (ties: the lane first, then the order they were made), writing it into
// *r, *d and *a; false when none is due.
func (ls *lanes) nextRetry(t time.Duration, r *Request, d *algorithms.Decision, a *Attempt) (lane int, ok bool) {
	if ls.book == nil {
		return 0, false
	}
	lane = -1
	var first time.Duration
	for i := range ls.owed {
		if at, ok := ls.owed[i].next(); ok && at <= t && (lane < 0 || at < first) {
			lane, first = i, at
		}
	}
	if lane < 0 {
		return 0, false
	}
	o := &ls.owed[lane]
	at, x := o.pop() // due by t, as next said
	q := &o.reqs[x.slot]
	*r = Request{At: at, Key: q.key.String(), Cost: q.cost, Client: int(q.client)}
	ls.retryKey = q.key
	ls.try(lane, at, x.n, q, x.slot, d, a)
	return lane, true
}

// try decides attempt n, at, of request q in lane i (see laneAt.try).
func (ls *lanes) try(i int, at time.Duration, n int32, q *retryReq, slot int32, d *algorithms.Decision, a *Attempt) {
	l := ls.at(i)
	l.d, l.a = d, a
	l.try(at, n, q, slot)
}

// laneAt is one lane's parts an attempt reads and changes, each at hand:
// a summary run keeps one a lane, so that deciding an attempt indexes none
// of the lanes' slices (Go keeps no register across a call, so a slice is
// indexed again after each).
type laneAt struct {
	ls    *lanes
	lim   algorithms.Limiter
	stats *Stats
	peak  *peak.Tracker
	owed  *retryCalendar
	meter *summaryMeter // nil outside a summary run
	// d is where an attempt's decision is written, and a what became of
	// its request, unless a is nil: a summary run reads only the totals,
	// and an Attempt of nine fields filled for every decision would be a
	// good part of its time. Fields, not arguments: fewer words to keep
	// across try's calls.
	d      *algorithms.Decision
	a      *Attempt
	plans  []plan
	end    time.Duration // the clients' book's
	cancel bool          // ls.cancels' for the lane
}

// cancels tells whether q's client gives its slot back when it abandons
// a delayed admission, on a lane where that can matter. Asked again by
// admitted rather than kept across the limiter's call: a word fewer to
// keep on the common path.
func (l *laneAt) cancels(q *retryReq) bool { return l.cancel && l.plans[q.client].c.Cancel }

// at is lane i's parts (a summary run adds its meter).
func (ls *lanes) at(i int) laneAt {
	return laneAt{ls: ls, lim: ls.limiters[i], stats: &ls.stats[i], peak: &ls.peaks[i], owed: &ls.owed[i],
		plans: ls.book.plans, end: ls.book.end, cancel: ls.cancels[i]}
}

// try decides attempt n, at, of request q and settles what becomes of the
// request: served, abandoned, unfinished, or a retry the lane now owes.
// slot is q's in the lane's calendar, or −1 for an original request (q is
// then copied there if the lane retries it); the slot is freed unless the
// lane retries the request. The decision is written into *l.d and what
// became of the request into *l.a, unless l.a is nil.
func (l *laneAt) try(at time.Duration, n int32, q *retryReq, slot int32) {
	d := l.d
	var had bool
	if l.cancels(q) {
		l.ls.aside, had = l.lim.(algorithms.StateCodec).ExportKey(q.key)
	}
	l.lim.DecideInto(d, at, q.key, q.cost)
	var o settled
	if d.Outcome.Admitted() {
		l.stats.count(d)
		o = l.admitted(at, q, d, had)
	} else {
		// Refused, the common case, kept lean: count inline, and a
		// request that retries settled here.
		if rare(d) {
			l.stats.count(d)
		} else {
			l.stats.Rejected++
		}
		if m := l.meter; m != nil {
			// Inlined, keyMeter.measure only checks a refusal,
			// which mostly changes no key's size.
			m.keys.measure(l.lim, at, q.key, false)
		}
		next, fate, ending := l.plans[q.client].retry(l.end, n, q, d)
		if fate == Retrying {
			if slot < 0 {
				slot = l.owed.hold(q)
			}
			l.owed.push(d.At, next, owedRef{slot: slot, n: n + 1})
			l.stats.settleAs(n == 1, Retrying, scenarios.TryAgain)
			if l.a != nil {
				*l.a = settled{fate: Retrying, when: next}.attempt(n, q)
			}
			return
		}
		o = settled{fate: fate, ending: ending, when: next}
	}
	l.stats.settleAs(n == 1, o.fate, o.ending)
	if l.a != nil {
		*l.a = o.attempt(n, q)
	}
	if slot >= 0 {
		l.owed.release(slot)
	}
}

// settled is what became of a request after an attempt (see Attempt):
// when is its latency when served, else its next attempt's time (or 0).
// Four fields, which Go keeps in registers (five it keeps in memory).
type settled struct {
	fate     Fate
	ending   scenarios.Ending
	gaveBack bool
	when     time.Duration
}

// attempt is attempt n of request q, which o says what became of.
func (o settled) attempt(n int32, q *retryReq) Attempt {
	a := Attempt{N: int(n), Original: q.orig, First: q.first, Client: int(q.client),
		Fate: o.fate, Ending: o.ending, Next: o.when, Cancelled: o.gaveBack}
	if o.fate == Served {
		a.Next, a.Latency = 0, o.when
	}
	return a
}

// admitted settles request q, whose attempt at was admitted as d says:
// served, or abandoned past its deadline, its slot given back if its
// client cancels (its key's state, had, kept aside by try) or kept.
func (l *laneAt) admitted(at time.Duration, q *retryReq, d *algorithms.Decision, had bool) settled {
	cancel := l.cancels(q)
	var o settled
	if release := at + d.Delay; !l.plans[q.client].late(q, release) {
		o.fate, o.when = Served, release-q.first
		l.peak.Admit(at, d.Delay, q.cost, peak.Source(q.key.ID(), d.Gateway))
	} else {
		// The caller stops waiting. Given back, the slot is as if
		// never taken; kept, the request still passes the limiter
		// when released, for nobody.
		o.fate, o.ending, o.gaveBack = Abandoned, scenarios.PastDeadline, cancel
		if !cancel {
			l.peak.Admit(at, d.Delay, q.cost, peak.Source(q.key.ID(), d.Gateway))
		} else if had {
			err := l.lim.(algorithms.StateCodec).ImportKey(q.key, l.ls.aside)
			l.ls.aside = algorithms.State{}
			if err != nil {
				panic("model: a cancelled request's key cannot be put back: " + err.Error())
			}
		} else {
			l.lim.(algorithms.KeyCopier).ForgetKey(q.key)
		}
	}
	if m := l.meter; m != nil {
		m.keys.measure(l.lim, at, q.key, true)
		if o.fate == Served && o.when != 0 {
			m.waited.add(o.when)
		}
	}
	return o
}

// statsAt is lane i's totals with the peak counted up to t, which must not
// be before the last request decided.
func (ls *lanes) statsAt(i int, t time.Duration) Stats {
	s := ls.stats[i]
	s.Peak, s.PeakAt = ls.peaks[i].PeakBy(t)
	return s
}

// clone copies the limiters and totals. The peak trackers of the lanes
// whole marks are copied whole (their window and pending releases); the
// others keep only their peak, and the lab refills their windows from its
// timeline when it restores a clone, which keeps checkpoints small where a
// tracker is large. whole may be nil (none) or shorter than the lanes.
func (ls *lanes) clone(whole []bool) *lanes {
	c := &lanes{
		keys:     ls.keys,
		limiters: make([]algorithms.Limiter, len(ls.limiters)),
		stats:    append([]Stats(nil), ls.stats...),
		peaks:    make([]peak.Tracker, len(ls.peaks)),
		book:     ls.book,
		cancels:  ls.cancels,
		req:      ls.req,
		rank:     ls.rank,
		rankAt:   ls.rankAt,
	}
	if ls.owed != nil {
		c.owed = make([]retryCalendar, len(ls.owed))
		for i := range ls.owed {
			c.owed[i] = ls.owed[i].clone()
		}
	}
	for i, lim := range ls.limiters {
		c.limiters[i] = lim.Clone()
		p := &ls.peaks[i]
		if i < len(whole) && whole[i] {
			c.peaks[i] = p.Clone()
			continue
		}
		c.peaks[i] = p.PeakOnly()
	}
	return c
}

// laneBytes is about what a clone of one lane takes beside its limiter's
// clone: its totals and its peak tracker's peak.
const laneBytes = 256

// cloneBytes is about what clone allocates.
func (ls *lanes) cloneBytes() int64 {
	n := int64(len(ls.limiters)) * laneBytes
	for i := range ls.owed {
		n += int64(ls.owed[i].len()) * retryBytes
	}
	for _, lim := range ls.limiters {
		n += lim.Memory().Clone
	}
	return n
}

// dropped is what the limiters dropped of what their clones hold (see
// algorithms.Memory).
func (ls *lanes) dropped() int64 {
	var n int64
	for _, lim := range ls.limiters {
		n += lim.Memory().Dropped
	}
	return n
}

// LanesOf is a copy of a scenario's lanes.
func LanesOf(s *scenarios.Scenario) []Lane { return slices.Clone(s.Lanes) }

// horizon is how long lanes remember a request: the longest lane's
// Horizon, capped at scenarios.MaxTime.
func horizon(defs []Lane) time.Duration {
	var h time.Duration
	for _, d := range defs {
		h = max(h, d.Horizon())
	}
	return min(h, scenarios.MaxTime)
}

// DefaultPeakWindow is the window over which Stats.Peak is measured unless
// chosen otherwise: the longest window among the windowed lanes (so the fixed
// window's boundary burst shows as twice its limit), else the longest rate
// period among the others, else one second.
func DefaultPeakWindow(defs []Lane) time.Duration {
	var windowed, period time.Duration
	for _, d := range defs {
		for _, p := range d.Policies() {
			windowed = max(windowed, p.Window)
			period = max(period, p.Rate.Per)
		}
	}
	switch {
	case windowed > 0:
		return windowed
	case period > 0:
		return period
	}
	return time.Second
}

// maxDelay bounds the delay a policy can give an admitted request, as its
// algorithm's description says (for the leaky bucket Queue × I rounded up,
// the time to drain a full queue); 0 for one that never delays. A shaper
// with an unbounded queue (x/time/rate's Reserve, Guava's acquire) says
// Never; the lab's times all lie within scenarios.MaxTime, so a request
// released in a span of the axis arrived at most MaxTime before it, and the
// bound is cut there (which keeps sums of it from overflowing).
func maxDelay(p algorithms.Policy) time.Duration { return min(p.MaxDelay(), scenarios.MaxTime) }

// Gateways is how many gateways lane stands for (1 for a plain lane).
func (l *Lab) Gateways(lane int) int {
	if f, ok := l.clock.limiter(lane).(*fleet.Limiter); ok {
		return f.Gateways()
	}
	return 1
}

// GatewaySnapshot is key's state at Now as gateway g of lane sees it (its
// own limiter, or the one state its gateways share); for a plain lane, the
// lane's state.
func (l *Lab) GatewaySnapshot(lane, g int, key string) algorithms.Snapshot {
	if f, ok := l.clock.limiter(lane).(*fleet.Limiter); ok {
		return f.GatewaySnapshot(g, l.clock.now, key)
	}
	return l.Snapshot(lane, key)
}
