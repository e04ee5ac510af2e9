// Package fleet makes a lane of several gateways behind a balancer out of
// the algorithms' limiters: which gateway takes each request (Route), and
// where the gateways keep their state (Store). A lane of one gateway is the
// plain limiter; so is a shared store, whatever the gateways.
//
// Every decision also runs through the yardstick, the lane's policy on one
// shared atomic store fed the same requests, so that a lane can say how
// many requests it admitted beyond its policy (algorithms.Decision.Beyond).
// Like the algorithms, a fleet reads no clock and draws no random number:
// the random route hashes the scenario's seed with the request's serial
// number, so a run repeats exactly, and a clone routes as the original.
package fleet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
)

// Store is where a lane's gateways keep their state.
type Store string

const (
	// Local: each gateway keeps its own limiter with the lane's whole
	// policy, so n gateways admit up to n times its burst and its rate.
	Local Store = "local"
	// Split: each gateway enforces 1/n of the policy (every amount divided
	// by n, rounded up: algorithms.SplitPolicy), which is right when the
	// balancer spreads a key's requests evenly and wrong when it does not.
	Split Store = "split"
	// Shared: one state for all gateways, each decision one atomic step
	// (what a single script in a shared store gives): the plain limiter.
	Shared Store = "shared"
	// Racy: one state, but a gateway reads it, decides on its copy, and
	// writes the key's state back Latency later (last write wins): every
	// request read while an earlier write is in flight sees the state
	// before it, so two gateways can spend the same token. A write lands
	// at its instant: a read at that instant sees it. With Latency 0 it is
	// Shared.
	Racy Store = "racy"
	// Synced: each gateway decides on its own view of the shared state,
	// and at every multiple of SyncEvery the shared state takes in what
	// the gateways admitted before it (each admission decided again on it,
	// in time order, as far as the policy lets it count) and every view is
	// reset to it: asynchronous counters. Between syncs the gateways spend
	// the same allowance apart, so the lane admits up to what they spend
	// between syncs beyond the policy.
	Synced Store = "synced"
)

// Stores are the store modes, in the order the format documents them.
var Stores = []Store{Local, Split, Shared, Racy, Synced}

// Route is how the balancer picks the gateway for a request.
type Route string

const (
	// RoundRobin sends the i-th request of the lane (from 0) to gateway
	// i mod n, whatever its key.
	RoundRobin Route = "round-robin"
	// ByKey sends every request of a key to one gateway: FNV-1a of the key
	// mod n. A hot key then loads one gateway alone.
	ByKey Route = "by-key"
	// Random sends the i-th request to the gateway FNV-1a(seed, i) mod n
	// picks: spread like chance, the same on every run of one seed.
	Random Route = "random"
)

// Routes are the routes, in the order the format documents them.
var Routes = []Route{RoundRobin, ByKey, Random}

// MaxGateways bounds a lane's gateways.
const MaxGateways = 64

// Config is a lane's gateways. Its zero value is one gateway: the plain
// lane.
type Config struct {
	// Gateways is how many gateways the lane stands for; 0 or 1 is one.
	Gateways int
	// Route picks each request's gateway; empty is RoundRobin.
	Route Route
	// Store is where they keep their state; empty is Local.
	Store Store
	// Seed is the scenario's seed, for the Random route.
	Seed uint64
	// Latency is, for the Racy store, how long after its read a gateway's
	// write lands.
	Latency time.Duration
	// SyncEvery is, for the Synced store, the time between syncs (the
	// first at SyncEvery).
	SyncEvery time.Duration
	// Outages are when the shared store (Shared or Racy) does not answer,
	// in time order, apart; Fallback decides meanwhile.
	Outages  []Outage
	Fallback algorithms.Fallback
	// ExpireIdle drops a key's state when no request has touched it for
	// this long (a store's key expiry): its next request finds it new.
	// 0: never.
	ExpireIdle time.Duration
	// Skew is each gateway's clock offset: gateway g decides a request
	// arriving at now as at now + Skew[g] (at least 0). Empty: none.
	Skew []time.Duration
}

// Outage is a span [From, Until) in which the store does not answer.
// LoseState: it comes back empty (a restart), every key's state as new.
type Outage struct {
	From, Until time.Duration
	LoseState   bool
}

// Fallbacks name the fallbacks as files write them.
var Fallbacks = []algorithms.Fallback{algorithms.FallbackOpen, algorithms.FallbackClosed, algorithms.FallbackLocalCap}

// Plain reports whether c is one gateway deciding as the plain limiter:
// one gateway, its store always answering and never racing itself.
func (c Config) Plain() bool {
	return c.Gateways <= 1 && len(c.Outages) == 0 && (c.store() != Racy || c.Latency == 0) &&
		c.ExpireIdle == 0 && !slices.ContainsFunc(c.Skew, func(d time.Duration) bool { return d != 0 })
}

// SafeExpiry is the shortest idle expiry that changes nothing for p: its
// horizon, after which an idle key's state is back to its initial value
// anyway.
func SafeExpiry(p algorithms.Policy) time.Duration { return p.Horizon() }

// route and store are c's, defaults filled in.
func (c Config) route() Route { return cmpOr(c.Route, RoundRobin) }
func (c Config) store() Store { return cmpOr(c.Store, Local) }

func cmpOr[T ~string](v, def T) T {
	if v == "" {
		return def
	}
	return v
}

// Validate reports what is wrong with c for a lane of policy p: a count of
// gateways out of range, an unknown route or store, or a split share that
// is no valid policy.
func (c Config) Validate(p algorithms.Policy) error {
	if c.Gateways < 0 || c.Gateways > MaxGateways {
		return fmt.Errorf("gateways %d must be from 1 to %d", c.Gateways, MaxGateways)
	}
	if !slices.Contains(Routes, c.route()) {
		return fmt.Errorf("route %q: want one of %s", c.Route, join(Routes))
	}
	if !slices.Contains(Stores, c.store()) {
		return fmt.Errorf("store %q: want one of %s", c.Store, join(Stores))
	}
	if c.Latency < 0 || c.Latency > 0 && c.store() != Racy {
		return fmt.Errorf("store_latency %s: want 0 or more, and only with store: racy", algorithms.FormatDuration(c.Latency))
	}
	if c.store() == Synced && c.SyncEvery <= 0 || c.store() != Synced && c.SyncEvery != 0 {
		return fmt.Errorf("sync_every %s: a positive time between syncs, with store: synced and only with it", algorithms.FormatDuration(c.SyncEvery))
	}
	if len(c.Outages) > 0 {
		if c.store() != Shared && c.store() != Racy {
			return fmt.Errorf("outages need a shared store (store: shared or racy); a %s store has none to lose", c.store())
		}
		if c.Fallback == algorithms.NoFallback {
			return fmt.Errorf("outages need a fallback: open, closed or local-cap")
		}
		for i, o := range c.Outages {
			if o.Until <= o.From || o.From < 0 || i > 0 && o.From < c.Outages[i-1].Until {
				return fmt.Errorf("outage %d [%s, %s): want from < until, in time order, apart", i+1, algorithms.FormatDuration(o.From), algorithms.FormatDuration(o.Until))
			}
		}
		if c.Fallback == algorithms.FallbackLocalCap {
			if err := algorithms.SplitPolicy(p, int64(max(c.Gateways, 1))).Validate(); err != nil {
				return fmt.Errorf("fallback local-cap over %d gateways: %v", c.Gateways, err)
			}
		}
	} else if c.Fallback != algorithms.NoFallback {
		return fmt.Errorf("fallback %s without outages decides nothing", c.Fallback)
	}
	if c.ExpireIdle < 0 {
		return fmt.Errorf("expire_idle %s must not be negative", algorithms.FormatDuration(c.ExpireIdle))
	}
	if len(c.Skew) > 0 && len(c.Skew) != max(c.Gateways, 1) {
		return fmt.Errorf("clock_skew has %d offsets for %d gateways: give one each", len(c.Skew), max(c.Gateways, 1))
	}
	if c.store() == Split && !c.Plain() {
		share := algorithms.SplitPolicy(p, int64(c.Gateways))
		if err := share.Validate(); err != nil {
			return fmt.Errorf("split over %d gateways: each gateway's share %v: %v", c.Gateways, share, err)
		}
	}
	return nil
}

func join[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// Words say what c does in a line: "4 gateways, round-robin, each with its
// own limiter (local)". Empty for one gateway.
func (c Config) Words() string {
	if c.Plain() {
		return ""
	}
	var store string
	switch c.store() {
	case Local:
		store = "each with its own limiter of the whole policy (local)"
	case Split:
		store = fmt.Sprintf("each enforcing 1/%d of the policy (split)", c.Gateways)
	case Shared:
		store = "one shared state, each decision atomic (shared)"
	case Racy:
		store = "one shared state read, decided on apart and written back " + algorithms.FormatDuration(c.Latency) + " later (racy)"
	case Synced:
		store = "each deciding on its own view, synced with the shared state every " + algorithms.FormatDuration(c.SyncEvery) + " (synced)"
	}
	words := fmt.Sprintf("%d gateways, %s, %s", max(c.Gateways, 1), c.route(), store)
	if len(c.Outages) > 0 {
		var spans []string
		for _, o := range c.Outages {
			span := "[" + algorithms.FormatDuration(o.From) + ", " + algorithms.FormatDuration(o.Until) + ")"
			if o.LoseState {
				span += " coming back empty"
			}
			spans = append(spans, span)
		}
		words += fmt.Sprintf("; the store does not answer in %s, and the gateways fail %s meanwhile", strings.Join(spans, ", "), c.Fallback)
	}
	return words
}

// ExpiryWords say a lane's idle expiry beside its policy's safe one:
// "keys idle for 2s expire (safe: 5s, so a paused key comes back with
// allowance it had not earned)"; empty without expiry.
func (c Config) ExpiryWords(p algorithms.Policy) string {
	if c.ExpireIdle == 0 {
		return ""
	}
	safe := SafeExpiry(p)
	w := fmt.Sprintf("keys idle for %s expire (safe: %s", algorithms.FormatDuration(c.ExpireIdle), algorithms.FormatDuration(safe))
	if c.ExpireIdle < safe {
		return w + ", so a paused key comes back with allowance it had not earned)"
	}
	return w + ", so nothing changes)"
}

// SkewWords say each gateway's clock offset: "clocks off by 0s, +40ms,
// -25ms"; empty when every clock is right.
func (c Config) SkewWords() string {
	if !slices.ContainsFunc(c.Skew, func(d time.Duration) bool { return d != 0 }) {
		return ""
	}
	parts := make([]string, len(c.Skew))
	for i, d := range c.Skew {
		switch {
		case d > 0:
			parts[i] = "+" + algorithms.FormatDuration(d)
		case d < 0:
			parts[i] = "-" + algorithms.FormatDuration(-d)
		default:
			parts[i] = "0s"
		}
	}
	return "gateway clocks off by " + strings.Join(parts, ", ")
}

// Short is c in a few words for a lane's title: "×4 local"; empty for one
// gateway.
func (c Config) Short() string {
	if c.Plain() {
		return ""
	}
	s := fmt.Sprintf("×%d %s", max(c.Gateways, 1), c.store())
	if len(c.Outages) > 0 {
		s += ", fails " + c.Fallback.String()
	}
	if c.ExpireIdle > 0 {
		s += ", expires " + algorithms.FormatDuration(c.ExpireIdle)
	}
	if c.SkewWords() != "" {
		s += ", skewed"
	}
	return s
}

// Limiter is a lane of c.Gateways gateways deciding p: an
// algorithms.Limiter whose every Decision names its gateway and how it
// moves the lane off the yardstick. It is not safe for concurrent use.
type Limiter struct {
	cfg Config
	p   algorithms.Policy
	ids *algorithms.Keys
	// gws is one limiter per gateway (local, split), or the one all share.
	gws []algorithms.Limiter
	// yard is the policy on one shared atomic store, fed every request: the
	// yardstick. nil when the store is shared, never fails, expires
	// nothing and every clock is right (it is gws[0]).
	yard algorithms.Limiter
	// serial counts the requests routed: the round-robin's and the random
	// route's position.
	serial uint64
	// latest is the gateway of each key's latest request, by key number,
	// so that a key's state is shown from the gateway that last decided it.
	latest []uint16
	// pending are the racy store's writes in flight, in the order they
	// land (each Latency after its read, and reads come in time order);
	// reads[g] is gateway g's latest read, what it last saw of the store
	// (nil before its first).
	pending []write
	reads   []racyRead
	// blank is the policy's limiter with no key, never decided on: a racy
	// read is a clone of it holding the one key read.
	blank algorithms.Limiter
	// store makes the shared store's limiter (NewWithKeys, or one whose
	// state lives in a server: redisstore), again when it restarts empty.
	store algorithms.Maker
	// views are the synced store's gateways' own views (gws[0] is the
	// shared state), unsynced the admissions they made since the last
	// sync, in time order, and synced the number of syncs done.
	lastRead racyRead
	views    []algorithms.Limiter
	unsynced []admission
	synced   int64
	// over counts the outages whose end has passed (a lost state is
	// reset then); caps are the local-cap fallback's limiters of the
	// outage capsFor (−1: none yet).
	over    int
	caps    []algorithms.Limiter
	capsFor int
	// touched is, with ExpireIdle, when each store's keys were last
	// touched: touched[store][key id], −1 never.
	touched [][]time.Duration
	// remembering is the same lane with no expiry and no lost state, fed
	// the same requests: what the lane would decide if it forgot nothing
	// (Decision.Forgot). nil when the lane forgets nothing.
	remembering *Limiter
	scratch     algorithms.Decision // remembering's decision, kept off the heap
}

// admission is a request a synced gateway admitted, for the next sync.
type admission struct {
	at   time.Duration // when it arrived, which orders the syncs
	t    time.Duration // when the gateway's clock said it came
	key  algorithms.Key
	cost int64
}

// racyRead is what a racy gateway read of key: a limiter holding key's
// state as the store had it, which the gateway then decided on.
type racyRead struct {
	key  algorithms.Key
	from algorithms.Limiter
}

// write is a racy gateway's write of key's state, as it decided it on its
// copy from, landing at at.
type write struct {
	at   time.Duration
	key  algorithms.Key
	from algorithms.Limiter
}

// New makes the lane of p with gateways c, numbering keys by ids (shared
// with the other lanes). p must be valid; c is validated. A Plain c decides
// as the plain limiter, at a fleet's cost (the model makes those plain).
func New(p algorithms.Policy, c Config, ids *algorithms.Keys) (*Limiter, error) {
	return NewOn(p, c, ids, algorithms.NewWithKeys)
}

// NewOn is New with the shared store (Shared, Racy) made by store: a
// server's (package redisstore), whose limiters can copy a key's state in
// and out (algorithms.KeyCopier, StateCodec). Everything else a lane keeps
// is ratelab's and stays in memory: local and split gateways' own state, a
// synced store's views, the fallback's caps, the yardstick and the
// remembering copy.
func NewOn(p algorithms.Policy, c Config, ids *algorithms.Keys, store algorithms.Maker) (*Limiter, error) {
	if err := c.Validate(p); err != nil {
		return nil, err
	}
	l := &Limiter{cfg: c, p: p, ids: ids, capsFor: -1, store: algorithms.NewWithKeys}
	if s := c.store(); s == Shared || s == Racy {
		l.store = store
	}
	if keep, forgets := c.remembering(); forgets {
		r, err := New(p, keep, ids)
		if err != nil {
			return nil, err
		}
		r.yard = nil // it is measured by its decisions, not by beyond
		l.remembering = r
	}
	share, n := p, c.Gateways
	switch c.store() {
	case Shared, Racy, Synced:
		n = 1
	case Split:
		share = algorithms.SplitPolicy(p, int64(c.Gateways))
	}
	for range max(n, 1) {
		g, err := l.store(share, ids)
		if err != nil {
			return nil, err
		}
		l.gws = append(l.gws, g)
	}
	if c.store() == Racy {
		blank, err := algorithms.NewWithKeys(p, ids)
		if err != nil {
			return nil, err
		}
		l.blank = blank
	}
	if c.store() == Synced {
		for range max(c.Gateways, 1) {
			l.views = append(l.views, l.gws[0].Clone())
		}
	}
	exact := c
	exact.Gateways, exact.Store, exact.Route = 1, Shared, ""
	if c.store() != Shared || !exact.Plain() {
		// The yardstick: whatever can take the lane off its policy (local
		// gateways, races, outages, expiry, skew) needs one to measure by.
		y, err := algorithms.NewWithKeys(p, ids)
		if err != nil {
			return nil, err
		}
		l.yard = y
	}
	return l, nil
}

// Config is the lane's gateways.
func (l *Limiter) Config() Config { return l.cfg }

// Forgets reports whether c ever forgets a key's state: an idle expiry, or
// a store that comes back empty.
func (c Config) Forgets() bool {
	return c.ExpireIdle > 0 || slices.ContainsFunc(c.Outages, func(o Outage) bool { return o.LoseState })
}

// remembering is c without idle expiry and with every outage keeping the
// state, and whether that differs from c.
func (c Config) remembering() (Config, bool) {
	keep := c
	keep.ExpireIdle = 0
	keep.Outages = slices.Clone(c.Outages)
	for i := range keep.Outages {
		keep.Outages[i].LoseState = false
	}
	return keep, c.Forgets()
}

// Policy is the lane's policy (each gateway's whole policy, or the policy
// split gateways share out).
func (l *Limiter) Policy() algorithms.Policy { return l.p }

// route picks the gateway of the next request, of key k.
func (l *Limiter) route(k algorithms.Key) int {
	n, serial := uint64(l.Gateways()), l.serial
	l.serial++
	switch l.cfg.route() {
	case ByKey:
		return int(fnv1a(fnvOffset, k.String()) % n)
	case Random:
		h := fnvOffset
		for i := range 8 {
			h = fnvByte(h, byte(l.cfg.Seed>>(8*i)))
		}
		for i := range 8 {
			h = fnvByte(h, byte(serial>>(8*i)))
		}
		return int(h % n)
	}
	return int(serial % n)
}

// Decide is DecideKey for a key by name.
func (l *Limiter) Decide(now time.Duration, key string, cost int64) algorithms.Decision {
	return l.DecideKey(now, l.ids.Key(key), cost)
}

// DecideKey routes the request to its gateway, which decides it, and runs
// it through the yardstick.
func (l *Limiter) DecideKey(now time.Duration, key algorithms.Key, cost int64) algorithms.Decision {
	var d algorithms.Decision
	l.DecideInto(&d, now, key, cost)
	return d
}

// DecideInto is DecideKey writing the decision into *d.
func (l *Limiter) DecideInto(d *algorithms.Decision, now time.Duration, key algorithms.Key, cost int64) {
	g := l.route(key)
	store := 0
	if len(l.gws) > 1 {
		store = g
	}
	arrived := now
	if len(l.cfg.Skew) > 0 {
		now = max(now+l.cfg.Skew[g], 0) // the gateway's clock
	}
	if l.cfg.ExpireIdle > 0 {
		l.expire(store, arrived, key)
	}
	// The store's events (outages, writes landing, syncs) keep real time;
	// the gateway decides on its own clock.
	if o, ok := l.outage(arrived); ok {
		l.fallback(d, now, key, cost, g, o)
	} else {
		l.decide(d, now, arrived, key, cost, g, store)
	}
	d.Gateway, d.Beyond, d.Forgot = uint16(g), 0, 0
	if l.remembering != nil {
		r := &l.scratch
		l.remembering.DecideInto(r, arrived, key, cost)
		switch a, b := d.Outcome.Admitted(), r.Outcome.Admitted(); {
		case a && !b:
			d.Forgot = 1
		case b && !a:
			d.Forgot = -1
		}
	}
	if l.yard != nil {
		y := l.yard.DecideKey(arrived, key, cost)
		switch a, b := d.Outcome.Admitted(), y.Outcome.Admitted(); {
		case a && !b:
			d.Beyond = 1
		case b && !a:
			d.Beyond = -1
		}
	}
	// Which gateway took a key's latest request matters only where the
	// gateways see different states.
	if id := key.ID(); id >= 0 && (len(l.gws) > 1 || l.views != nil || l.cfg.store() == Racy) {
		for len(l.latest) <= id {
			l.latest = append(l.latest, 0)
		}
		l.latest[id] = uint16(g)
	}
}

// expire drops key's state in store (and in the views that read it) when
// it has been idle for ExpireIdle by now, and marks it touched now.
func (l *Limiter) expire(store int, now time.Duration, key algorithms.Key) {
	for len(l.touched) <= store {
		l.touched = append(l.touched, nil)
	}
	id := key.ID()
	if id < 0 {
		return
	}
	t := l.touched[store]
	for len(t) <= id {
		t = append(t, -1)
	}
	if last := t[id]; last >= 0 && now-last >= l.cfg.ExpireIdle {
		l.gws[store].(algorithms.KeyCopier).ForgetKey(key)
		for _, v := range l.views {
			v.(algorithms.KeyCopier).ForgetKey(key)
		}
	}
	t[id] = now
	l.touched[store] = t
}

// decide has the lane's limiter decide: gateway g's, or the shared store.
// now is the gateway's clock, arrived the real time of the request.
func (l *Limiter) decide(d *algorithms.Decision, now, arrived time.Duration, key algorithms.Key, cost int64, g, store int) {
	switch l.cfg.store() {
	case Racy:
		l.decideRacy(d, now, arrived, key, cost)
		for len(l.reads) <= g {
			l.reads = append(l.reads, racyRead{})
		}
		l.reads[g] = l.lastRead
	case Synced:
		l.sync(arrived)
		l.views[g].DecideInto(d, now, key, cost)
		if d.Outcome.Admitted() {
			l.unsynced = append(l.unsynced, admission{arrived, now, key, cost})
		}
	default:
		l.gws[store].DecideInto(d, now, key, cost)
	}
	d.Fallback = algorithms.NoFallback
}

// outage is the outage the store is in at now, if any; an outage whose end
// has passed is over, and one that lost the state leaves the store empty.
func (l *Limiter) outage(now time.Duration) (Outage, bool) {
	for l.over < len(l.cfg.Outages) && l.cfg.Outages[l.over].Until <= now {
		if l.cfg.Outages[l.over].LoseState {
			if fresh, err := l.store(l.gws[0].Policy(), l.ids); err == nil {
				l.gws[0] = fresh // a restart: every key as new
			}
			l.pending = nil // writes in flight found no store
		}
		l.over++
	}
	if l.over < len(l.cfg.Outages) && l.cfg.Outages[l.over].From <= now {
		return l.cfg.Outages[l.over], true
	}
	return Outage{}, false
}

// fallback decides while the store does not answer: open admits, closed
// refuses until the outage ends (503, not 429), local-cap asks gateway g's
// own limiter of 1/N of the policy, made fresh when the outage began.
func (l *Limiter) fallback(d *algorithms.Decision, now time.Duration, key algorithms.Key, cost int64, g int, o Outage) {
	switch l.cfg.Fallback {
	case algorithms.FallbackOpen:
		*d = algorithms.Decision{Outcome: algorithms.Allowed, At: now, Cost: cost}
	case algorithms.FallbackClosed:
		*d = algorithms.Decision{Outcome: algorithms.Rejected, At: now, Cost: cost, RetryAfter: o.Until - now}
	case algorithms.FallbackLocalCap:
		if l.capsFor != l.over {
			share := algorithms.SplitPolicy(l.p, int64(l.Gateways()))
			l.caps = l.caps[:0]
			for range l.Gateways() {
				c, _ := algorithms.NewWithKeys(share, l.ids)
				l.caps = append(l.caps, c)
			}
			l.capsFor = l.over
		}
		l.caps[g].DecideInto(d, now, key, cost)
	}
	d.Fallback = l.cfg.Fallback
}

// decideRacy reads key's state from the shared store (a plain read, after
// the writes landed by now) into a limiter of its own, decides on it, and
// sends the key's new state back to land Latency later (a plain write).
func (l *Limiter) decideRacy(d *algorithms.Decision, now, arrived time.Duration, key algorithms.Key, cost int64) {
	l.land(l.gws[0], arrived)
	read := l.blank.Clone()
	read.(algorithms.KeyCopier).CopyKey(l.gws[0], key)
	read.DecideInto(d, now, key, cost)
	l.lastRead = racyRead{key, read}
	if l.cfg.Latency == 0 {
		l.gws[0].(algorithms.KeyCopier).CopyKey(read, key)
		return
	}
	l.pending = append(l.pending, write{at: arrived + l.cfg.Latency, key: key, from: read})
}

// land applies to store the writes in flight that have landed by now, and
// forgets them when store is the lane's own.
func (l *Limiter) land(store algorithms.Limiter, now time.Duration) {
	n := 0
	for _, w := range l.pending {
		if w.at > now {
			break
		}
		store.(algorithms.KeyCopier).CopyKey(w.from, w.key)
		n++
	}
	if store == l.gws[0] {
		l.pending = l.pending[n:]
	}
}

// sync runs the syncs due by now: each takes the admissions made before it
// into the shared state and resets every view to it.
func (l *Limiter) sync(now time.Duration) {
	every := l.cfg.SyncEvery
	due := int64(now / every) // the syncs at every, 2 × every, … ≤ now
	for l.synced < due {
		next := time.Duration(l.synced+1) * every
		if len(l.unsynced) == 0 || l.unsynced[0].at >= next {
			// Syncs with nothing to take in change nothing but the
			// views, which only rejections (which change nothing) have
			// touched since the last: skip to the one that has some.
			skip := due
			if len(l.unsynced) > 0 {
				skip = min(due, int64(l.unsynced[0].at/every))
			}
			if skip > l.synced {
				l.synced = skip
				continue
			}
		}
		n := 0
		for _, a := range l.unsynced {
			if a.at >= next {
				break
			}
			l.gws[0].DecideKey(a.t, a.key, a.cost)
			n++
		}
		l.unsynced = append(l.unsynced[:0], l.unsynced[n:]...)
		for g := range l.views {
			l.views[g] = l.gws[0].Clone()
		}
		l.synced++
	}
}

// InFlight is how many racy writes have not landed by now.
func (l *Limiter) InFlight(now time.Duration) int {
	n := 0
	for _, w := range l.pending {
		if w.at > now {
			n++
		}
	}
	return n
}

// Gateways is how many gateways the lane has.
func (l *Limiter) Gateways() int { return max(l.cfg.Gateways, 1) }

// LatestGateway is the gateway that took key's latest request (0 for a
// key never seen).
func (l *Limiter) LatestGateway(key string) int {
	k, ok := l.ids.Lookup(key)
	if !ok || k.ID() >= len(l.latest) {
		return 0
	}
	return int(l.latest[k.ID()])
}

// Snapshot is key's state on the gateway that took its latest request:
// what that gateway sees of it (for a shared store, the one state).
func (l *Limiter) Snapshot(now time.Duration, key string) algorithms.Snapshot {
	if l.cfg.store() == Racy {
		return l.storeSnapshot(now, key) // the store, not a gateway's read
	}
	return l.GatewaySnapshot(l.LatestGateway(key), now, key)
}

// GatewaySnapshot is key's state as gateway g sees it: its own limiter, its
// view of a synced store, or what it last read of key from a racy one (and
// decided on); the shared state otherwise.
func (l *Limiter) GatewaySnapshot(g int, now time.Duration, key string) algorithms.Snapshot {
	switch {
	case l.views != nil:
		return l.views[g].Snapshot(now, key)
	case g < len(l.reads) && l.reads[g].from != nil && l.reads[g].key.String() == key:
		return l.reads[g].from.Snapshot(now, key)
	case len(l.gws) > 1:
		return l.gws[g].Snapshot(now, key)
	}
	return l.storeSnapshot(now, key)
}

// storeSnapshot is key's state in the shared store at now: for a racy one,
// with the writes landed since the last request (on a copy: a snapshot
// changes nothing).
func (l *Limiter) storeSnapshot(now time.Duration, key string) algorithms.Snapshot {
	// The last write to land wins: the key's latest one landed by now, if
	// any, is its state in the store.
	for i := len(l.pending) - 1; i >= 0; i-- {
		if w := l.pending[i]; w.at <= now && w.key.String() == key {
			return w.from.Snapshot(now, key)
		}
	}
	return l.gws[0].Snapshot(now, key)
}

// Inspect is where the shared store keeps key's state, for a store
// outside the process; see NewOn. A lane whose gateways keep their own
// state has an empty view.
func (l *Limiter) Inspect(key string) algorithms.StoreView {
	if in, ok := l.gws[0].(algorithms.Inspector); ok {
		return in.Inspect(key)
	}
	return algorithms.StoreView{}
}

// shower is a store that can show a state without taking it as its own:
// Show writes src's state of key into the store (a racy write that has
// landed by the clock, which the lane shows but has not yet taken in), and
// the store's next decision or Hold writes its own states back first.
type shower interface {
	Show(key algorithms.Key, src algorithms.Limiter)
}

// Hold makes a store outside the process hold the lane's shared state as
// of now, a racy store's writes that have landed by now included (shown,
// not taken in: the lane takes them in when it next decides, and a clock
// moved back before them must not have them).
func (l *Limiter) Hold(now time.Duration) error {
	in, ok := l.gws[0].(algorithms.Inspector)
	if !ok {
		return nil
	}
	if err := in.Hold(now); err != nil {
		return err
	}
	for _, w := range l.pending {
		if w.at > now {
			break
		}
		if sh, ok := in.(shower); ok {
			sh.Show(w.key, w.from) // in landing order: the last write wins
		}
	}
	return nil
}

// Clone copies every gateway, the yardstick and the route's position.
func (l *Limiter) Clone() algorithms.Limiter {
	c := *l
	c.gws = make([]algorithms.Limiter, len(l.gws))
	for i, g := range l.gws {
		c.gws[i] = g.Clone()
	}
	if l.yard != nil {
		c.yard = l.yard.Clone()
	}
	c.latest = slices.Clone(l.latest)
	// The writes in flight share their copies: nothing decides on them
	// again, and landing one only reads it.
	c.pending = slices.Clone(l.pending)
	c.reads = slices.Clone(l.reads) // never decided on again: shared
	if l.touched != nil {
		c.touched = make([][]time.Duration, len(l.touched))
		for i, t := range l.touched {
			c.touched[i] = slices.Clone(t)
		}
	}
	if l.remembering != nil {
		c.remembering = l.remembering.Clone().(*Limiter)
	}
	if l.caps != nil {
		c.caps = make([]algorithms.Limiter, len(l.caps))
		for i, x := range l.caps {
			c.caps[i] = x.Clone()
		}
	}
	if l.views != nil {
		c.views = make([]algorithms.Limiter, len(l.views))
		for i, v := range l.views {
			c.views[i] = v.Clone()
		}
		c.unsynced = slices.Clone(l.unsynced)
	}
	return &c
}

// Memory adds up the gateways', their views and caps, the writes in
// flight and the yardstick's.
func (l *Limiter) Memory() algorithms.Memory {
	var m algorithms.Memory
	add := func(x algorithms.Memory) {
		m.State += x.State
		m.Clone += x.Clone
		m.Dropped += x.Dropped
	}
	for _, g := range l.gws {
		add(g.Memory())
	}
	for _, x := range l.views {
		add(x.Memory())
	}
	for _, x := range l.caps {
		add(x.Memory())
	}
	for _, w := range l.pending {
		add(w.from.Memory())
	}
	if l.yard != nil {
		add(l.yard.Memory())
	}
	if l.remembering != nil {
		add(l.remembering.Memory())
	}
	// The per-key tables every clone copies whole.
	m.State += int64(cap(l.latest)) * 2
	m.Clone += int64(len(l.latest)) * 2
	for _, t := range l.touched {
		m.State += int64(cap(t)) * 8
		m.Clone += int64(len(t)) * 8
	}
	return m
}

// KeyBytes is what the gateways keep for key: one state each (local,
// split), or the one they share. The yardstick is ratelab's measure, not
// the lane's state, and is not counted.
func (l *Limiter) KeyBytes(now time.Duration, key algorithms.Key) int64 {
	var n int64
	for _, g := range l.gws {
		n += g.KeyBytes(now, key)
	}
	return n
}

// FNV-1a, 64 bits, inline: the routes hash without allocating.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func fnvByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * fnvPrime }

func fnv1a(h uint64, s string) uint64 {
	for i := range len(s) {
		h = fnvByte(h, s[i])
	}
	return h
}
