package model

import (
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/fleet"
	"ratelab/scenarios"
)

// Lane is one limiter of the scenario, shown as one column of the lab.
type Lane struct {
	Name   string
	Policy algorithms.Policy
	// Fleet is the gateways the lane stands for (zero: one, the plain
	// limiter).
	Fleet fleet.Config
}

// Request is one request on the timeline: its arrival, key and cost.
type Request = scenarios.Request

// Record is what one lane decided about one request.
type Record struct {
	// Index is the request's position in the timeline (Lab) or stream (Run).
	Index    int
	Lane     int
	Request  Request
	Decision algorithms.Decision
}

// lanes is the limiters of all lanes and their totals at one point of a
// timeline: the engine shared by the lab and the streaming runner.
type lanes struct {
	// keys numbers the request keys for every limiter, shared by clones:
	// a request's key is looked up once, not once a lane (lastKey
	// remembers the latest, once hasKey).
	keys     *algorithms.Keys
	hasKey   bool
	lastKey  algorithms.Key
	limiters []algorithms.Limiter
	stats    []Stats
	peaks    []peakTracker
}

func newLanes(defs []Lane, peakWindow time.Duration, store Store, until time.Duration) (*lanes, error) {
	ls := &lanes{keys: algorithms.NewKeys()}
	for _, def := range defs {
		lim, err := newLimiter(def, ls.keys, store, until)
		if err != nil {
			return nil, fmt.Errorf("lane %s: %w", def.Name, err)
		}
		ls.limiters = append(ls.limiters, lim)
		ls.stats = append(ls.stats, Stats{PeakWindow: peakWindow})
		ls.peaks = append(ls.peaks, peakTracker{window: peakWindow})
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
	maker := algorithms.Maker(algorithms.NewWithKeys)
	if store != nil {
		maker = store(def.Name, until)
	}
	if def.Fleet.Plain() {
		return maker(def.Policy, keys)
	}
	return fleet.NewOn(def.Policy, def.Fleet, keys, maker)
}

// decide runs one request through lane i and updates its totals.
func (ls *lanes) decide(i int, r Request) algorithms.Decision {
	var d algorithms.Decision
	ls.decideInto(i, r, &d)
	return d
}

// decideInto is decide writing the decision into *d: the streaming run and
// the lab's computing call it for millions of requests, and a Decision
// copied twice a lane a request is a good part of their time.
func (ls *lanes) decideInto(i int, r Request, d *algorithms.Decision) {
	if !ls.hasKey || r.Key != ls.lastKey.String() {
		ls.hasKey, ls.lastKey = true, ls.keys.Key(r.Key)
	}
	ls.limiters[i].DecideInto(d, r.At, ls.lastKey, r.Cost)
	ls.stats[i].count(d)
	if d.Outcome.Admitted() {
		ls.peaks[i].admit(r.At, d.Delay, r.Cost)
	}
}

// statsAt is lane i's totals with the peak counted up to t, which must not
// be before the last request decided.
func (ls *lanes) statsAt(i int, t time.Duration) Stats {
	s := ls.stats[i]
	s.Peak, s.PeakAt = ls.peaks[i].peakBy(t)
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
		peaks:    make([]peakTracker, len(ls.peaks)),
	}
	for i, lim := range ls.limiters {
		c.limiters[i] = lim.Clone()
		p := ls.peaks[i]
		if i < len(whole) && whole[i] {
			c.peaks[i] = p.clone()
			continue
		}
		c.peaks[i] = peakTracker{window: p.window, peak: p.peak, peakAt: p.peakAt, admitted: p.admitted, lastAdmit: p.lastAdmit}
	}
	return c
}

// laneBytes is about what a clone of one lane takes beside its limiter's
// clone: its totals and its peak tracker's peak.
const laneBytes = 256

// cloneBytes is about what clone allocates.
func (ls *lanes) cloneBytes() int64 {
	n := int64(len(ls.limiters)) * laneBytes
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

// LanesOf reads the lane definitions of a scenario.
func LanesOf(s *scenarios.Scenario) []Lane {
	defs := make([]Lane, len(s.Lanes))
	for i, l := range s.Lanes {
		defs[i] = Lane{Name: l.Name, Policy: l.Policy, Fleet: l.Fleet}
	}
	return defs
}

// DefaultPeakWindow is the window over which Stats.Peak is measured unless
// chosen otherwise: the longest window among the windowed lanes (so the fixed
// window's boundary burst shows as twice its limit), else the longest rate
// period among the others, else one second.
func DefaultPeakWindow(defs []Lane) time.Duration {
	var windowed, period time.Duration
	for _, d := range defs {
		windowed = max(windowed, d.Policy.Window)
		period = max(period, d.Policy.Rate.Per)
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
	if f, ok := l.live.limiters[lane].(*fleet.Limiter); ok {
		return f.Gateways()
	}
	return 1
}

// GatewaySnapshot is key's state at Now as gateway g of lane sees it (its
// own limiter, or the one state its gateways share); for a plain lane, the
// lane's state.
func (l *Lab) GatewaySnapshot(lane, g int, key string) algorithms.Snapshot {
	if f, ok := l.live.limiters[lane].(*fleet.Limiter); ok {
		return f.GatewaySnapshot(g, l.now, key)
	}
	return l.Snapshot(lane, key)
}
