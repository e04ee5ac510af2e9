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
	if keys := p.MaxKeys(); keys > 0 && (c.store() == Racy && c.Latency > 0 || c.store() == Synced) {
		// Such a store copies one key's state at a time between the
		// gateways and itself, while the policy's keys share one table
		// that frees some to make room for others.
		return fmt.Errorf("a policy that keeps at most %d keys (a zone) frees keys for one another, and a %s store copies each key's state on its own: give the lane store local, split or shared, or leave its zone out", keys, c.store())
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
