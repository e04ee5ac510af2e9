package fleet

import (
	"math"
	"slices"
	"time"
	"unsafe"

	"ratelab/algorithms"
)

// Limiter is a lane of c.Gateways gateways deciding p: an
// algorithms.Limiter whose every Decision names its gateway and how it
// moves the lane off the yardstick. It is not safe for concurrent use.
type Limiter struct {
	algorithms.Decider
	cfg Config
	p   algorithms.Policy
	ids *algorithms.Keys
	// gws is one limiter per gateway (local, split), or the one all share.
	// fresh is one of the same policy that never decides: what a store
	// shows of a key it holds nothing of (an expired one).
	gws   []algorithms.Limiter
	fresh algorithms.Limiter
	// yard is the policy on one shared atomic store, fed every request it
	// does not surely refuse (see measure): the yardstick. nil when the store is shared (or racy with writes that
	// land at once), never fails, expires nothing and every clock is
	// right: the lane then decides as the yardstick would.
	yard algorithms.Limiter
	// serial counts the requests routed: the round-robin's and the random
	// route's position.
	serial uint64
	// latest is the gateway of each key's latest request, by key number,
	// so that a key's state is shown from the gateway that last decided it.
	latest []uint16
	// pending are the racy store's writes in flight, in the order they
	// land (each Latency after its read, and reads come in time order), a
	// window onto sent's array (see send); reads hold the states they
	// write, and latestRead[g] is gateway g's latest read, what it last saw
	// of the store and decided on (layer −1 before its first).
	pending    []write
	sent       []write
	reads      reads
	latestRead []racyRead
	// store makes the shared store's limiter (NewWithKeys, or one whose
	// state lives in a server: redisstore), again when it restarts empty.
	store algorithms.Maker
	// views are the synced store's gateways' own views (gws[0] is the
	// shared state), unsynced the admissions they made since the last
	// sync, in time order, and synced the number of syncs done. changed
	// are the keys whose state a view or the shared state changed since
	// the views last took the shared state, and stale[key id] the views
	// that must take the key's state again at the next sync (a bit a
	// gateway: the one that decided, or all when the shared state took the
	// key in); syncing copies those keys alone. took[key id] is whether
	// the shared state holds the key (took it in, and has not forgotten
	// it since).
	views    []algorithms.Limiter
	unsynced []admission
	synced   int64
	changed  []algorithms.Key
	stale    []uint64
	took     []bool
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
	// scratch and yardD are remembering's and the yardstick's decisions,
	// kept off the heap and never copied.
	scratch algorithms.Decision
	yardD   algorithms.Decision
	// refused is, by key number, the yardstick's latest refusal of each
	// key while it still stands, when foresees (see measure).
	refused  []refusal
	foresees bool
	// kind is the store (c.store()), and apart whether the gateways see
	// different states, so that a key's latest gateway matters.
	kind  Store
	apart bool
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
	l := &Limiter{cfg: c, p: p, ids: ids, capsFor: -1, store: algorithms.NewWithKeys, kind: c.store()}
	l.Decider = algorithms.NewDecider(l, ids)
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
	if c.ExpireIdle > 0 {
		fresh, err := algorithms.NewWithKeys(share, algorithms.NewKeys())
		if err != nil {
			return nil, err
		}
		l.fresh = fresh
	}
	if c.store() == Racy {
		blank, err := algorithms.NewWithKeys(p, ids)
		if err != nil {
			return nil, err
		}
		l.reads.blank = blank
		_, outside := l.gws[0].(algorithms.Inspector)
		l.reads.inMem = !outside
		l.latestRead = make([]racyRead, max(c.Gateways, 1))
		for g := range l.latestRead {
			l.latestRead[g].layer = -1
		}
	}
	if c.store() == Synced {
		for range max(c.Gateways, 1) {
			l.views = append(l.views, l.gws[0].Clone())
		}
	}
	l.apart = len(l.gws) > 1 || l.views != nil || l.kind == Racy
	exact := c
	exact.Gateways, exact.Store, exact.Route = 1, Shared, ""
	// A racy store whose writes land at once decides as the shared one
	// (each read sees every write before it): beyond is 0 for both.
	atomic := c.store() == Shared || c.store() == Racy && c.Latency == 0
	if !atomic || !exact.Plain() {
		// The yardstick: whatever can take the lane off its policy (local
		// gateways, races, outages, expiry, skew) needs one to measure by.
		y, err := algorithms.NewWithKeys(p, ids)
		if err != nil {
			return nil, err
		}
		l.yard = y
		l.foresees = algorithms.Describe(p.Algorithm).Family == algorithms.Textbook
	}
	return l, nil
}

// Config is the lane's gateways.
func (l *Limiter) Config() Config { return l.cfg }

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

// gatewayStore is the store gateway g keeps its state in: its own, or the
// one all share.
func (l *Limiter) gatewayStore(g int) int {
	if len(l.gws) > 1 {
		return g
	}
	return 0
}

// DecideInto routes the request to its gateway, which decides it, and
// measures it against the yardstick (measure; Decide and DecideKey come
// from the embedded Decider).
func (l *Limiter) DecideInto(d *algorithms.Decision, now time.Duration, key algorithms.Key, cost int64) {
	g := l.route(key)
	store := l.gatewayStore(g)
	arrived := now
	if len(l.cfg.Skew) > 0 {
		now = max(now+l.cfg.Skew[g], 0) // the gateway's clock
	}
	if l.cfg.ExpireIdle > 0 {
		l.expire(store, arrived, key)
	}
	// The store's events (outages, writes landing, syncs) keep real time;
	// the gateway decides on its own clock.
	switch o, ok := l.outage(arrived); {
	case ok:
		l.fallback(d, now, key, cost, g, o)
	case l.kind == Racy:
		l.decideRacy(d, now, arrived, key, cost, g) // one call fewer on its path
		d.Fallback = algorithms.NoFallback
	default:
		l.decide(d, now, arrived, key, cost, g, store)
	}
	d.Gateway, d.Beyond, d.Forgot = uint16(g), 0, 0
	if l.remembering != nil {
		r := &l.scratch
		l.remembering.DecideInto(r, arrived, key, cost)
		d.Forgot = moves(d.Outcome.Admitted(), r.Outcome.Admitted())
	}
	if l.yard != nil {
		// A refusal of the yardstick's that still stands (see measure),
		// looked up here: most of a lane's requests over its policy.
		if id := key.ID(); id >= 0 && id < len(l.refused) && l.refused[id].stands(arrived, cost) {
			d.Beyond = moves(d.Outcome.Admitted(), false)
		} else {
			l.measure(d, arrived, key, cost)
		}
	}
	// Which gateway took a key's latest request matters only where the
	// gateways see different states.
	if id := key.ID(); id >= 0 && l.apart {
		for len(l.latest) <= id {
			l.latest = append(l.latest, 0)
		}
		l.latest[id] = uint16(g)
	}
}

// refusal is a rejection of the yardstick's that still stands: a request
// of cost arriving in [from, until) is refused again.
type refusal struct {
	from, until time.Duration
	cost        int64
}

// stands is whether r refuses a request of cost arriving at arrived.
func (r *refusal) stands(arrived time.Duration, cost int64) bool {
	return r.from <= arrived && arrived < r.until && r.cost == cost
}

// measure runs the request, which the lane decided d, through the
// yardstick and sets d.Beyond. A textbook algorithm's rejection changes
// nothing that decides a later request, and its RetryAfter is exact: no
// shorter wait admits the same request while nothing but what is refused
// arrives. So once the yardstick refused a key's request arriving at from,
// it refuses every request of that key and cost arriving before from +
// RetryAfter, and the lane does not ask it (its state then differs from
// one that was asked only in what decides nothing): a lane whose traffic
// mostly exceeds its policy asks it about little more than its
// admissions. Only for a textbook algorithm (foresees): a library's or a
// mistake's rejection may change what decides (an attempt log logs it, a
// float bucket rounds its refill). Exact for a key's requests in time
// order, as a timeline's are: a late request of another cost, arriving
// before one that was skipped, finds the yardstick's clock at the refusal,
// not at the skipped request, and may be decided otherwise.
func (l *Limiter) measure(d *algorithms.Decision, arrived time.Duration, key algorithms.Key, cost int64) {
	id := key.ID() // a refusal that still stands is not asked again: DecideInto looked it up
	y := &l.yardD
	l.yard.DecideInto(y, arrived, key, cost)
	d.Beyond = moves(d.Outcome.Admitted(), y.Outcome.Admitted())
	if !l.foresees || id < 0 {
		return
	}
	if y.Outcome != algorithms.Rejected {
		if id < len(l.refused) {
			l.refused[id].until = 0 // stands no longer
		}
		return
	}
	if id >= len(l.refused) {
		l.refused = extend(l.refused, id+1)
	}
	until := arrived + y.RetryAfter
	if until < arrived {
		until = math.MaxInt64 // Never
	}
	l.refused[id] = refusal{arrived, until, cost}
}

// moves is how a lane's decision moves against another limiter's on the
// same request (Decision.Beyond, Forgot), given whether each admitted it:
// 1 the lane admitted what the other refuses, −1 the reverse, 0 neither.
func moves(lane, other bool) int8 {
	switch {
	case lane && !other:
		return 1
	case other && !lane:
		return -1
	}
	return 0
}

// decide has the lane's limiter decide: gateway g's, or the shared store.
// now is the gateway's clock, arrived the real time of the request.
func (l *Limiter) decide(d *algorithms.Decision, now, arrived time.Duration, key algorithms.Key, cost int64, g, store int) {
	switch l.kind { // a racy lane's DecideInto calls decideRacy itself
	case Synced:
		l.sync(arrived)
		l.views[g].DecideInto(d, now, key, cost)
		l.change(key, 1<<g)
		if d.Outcome.Admitted() {
			l.unsynced = append(l.unsynced, admission{arrived, now, key, cost})
		}
	default:
		l.gws[store].DecideInto(d, now, key, cost)
	}
	d.Fallback = algorithms.NoFallback
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
// what that gateway sees of it (for a shared store, the one state); a new
// key's once the store has expired it (ExpiredAt).
func (l *Limiter) Snapshot(now time.Duration, key string) algorithms.Snapshot {
	if l.kind == Racy {
		if _, gone := l.ExpiredAt(now, key); gone {
			return l.fresh.Snapshot(now, key)
		}
		return l.storeSnapshot(now, key) // the store, not a gateway's read
	}
	return l.GatewaySnapshot(l.LatestGateway(key), now, key)
}

// GatewaySnapshot is key's state as gateway g sees it: its own limiter, its
// view of a synced store, or what it last read of key from a racy one (and
// decided on); the shared state otherwise.
func (l *Limiter) GatewaySnapshot(g int, now time.Duration, key string) algorithms.Snapshot {
	if read, ok := l.gatewayRead(g, key); ok {
		return read.Snapshot(now, key)
	}
	if _, gone := l.expiredAt(l.gatewayStore(g), now, l.keyID(key)); gone {
		return l.fresh.Snapshot(now, key)
	}
	switch {
	case l.views != nil:
		return l.views[g].Snapshot(now, key)
	case len(l.gws) > 1:
		return l.gws[g].Snapshot(now, key)
	}
	return l.storeSnapshot(now, key)
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

// Clone copies every gateway, the yardstick and the route's position.
func (l *Limiter) Clone() algorithms.Limiter {
	c := *l
	c.Decider = algorithms.NewDecider(&c, c.ids)
	c.gws = make([]algorithms.Limiter, len(l.gws))
	for i, g := range l.gws {
		c.gws[i] = g.Clone()
	}
	if l.yard != nil {
		c.yard = l.yard.Clone()
	}
	c.latest = slices.Clone(l.latest)
	c.refused = slices.Clone(l.refused)
	// The racy reads are taken again for other reads: each side has its
	// own (sharing their states until either changes them).
	c.pending = slices.Clone(l.pending)
	c.sent = c.pending[:0]
	c.reads = l.reads.clone()
	c.latestRead = slices.Clone(l.latestRead)
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
		c.changed = slices.Clone(l.changed)
		c.stale = slices.Clone(l.stale)
		c.took = slices.Clone(l.took)
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
	for _, x := range l.reads.layers {
		add(x.lim.Memory())
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
	m.State += int64(cap(l.stale))*8 + int64(cap(l.took)) + int64(cap(l.changed))*int64(unsafe.Sizeof(algorithms.Key{}))
	m.Clone += int64(len(l.stale))*8 + int64(len(l.took)) + int64(len(l.changed))*int64(unsafe.Sizeof(algorithms.Key{}))
	m.State += int64(cap(l.refused)) * int64(unsafe.Sizeof(refusal{}))
	m.Clone += int64(len(l.refused)) * int64(unsafe.Sizeof(refusal{}))
	rs, rc := l.reads.bytes()
	m.State += rs + int64(cap(l.sent))*int64(unsafe.Sizeof(write{}))
	m.Clone += rc + int64(len(l.pending))*int64(unsafe.Sizeof(write{}))
	return m
}

// KeyBytes is what the gateways keep for key: one state each (local,
// split), or the one they share; a new key's where a store has expired it.
// The yardstick is ratelab's measure, not the lane's state, and is not
// counted.
func (l *Limiter) KeyBytes(now time.Duration, key algorithms.Key) int64 {
	if l.kind == Racy {
		if _, gone := l.expiredAt(0, now, key.ID()); gone {
			return l.fresh.KeyBytes(now, key)
		}
		return l.storeOf(key).KeyBytes(now, key)
	}
	var n int64
	for i, g := range l.gws {
		if _, gone := l.expiredAt(i, now, key.ID()); gone {
			g = l.fresh
		}
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
