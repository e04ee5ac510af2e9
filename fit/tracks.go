package fit

import (
	"fmt"
	"slices"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// grid is the points a fit computes at, and what each algorithm needs of
// them.
type grid struct {
	rates   []algorithms.Rate
	windows []time.Duration
	// nginxRate is each rate in nginx's thousandths of a request per
	// second, 0 where nginx cannot take it (or it is not fitted);
	// cellInterval each rate's redis-cell emission interval in ns, 0 where
	// redis-cell cannot take it (or it is not fitted).
	nginxRate, cellInterval []int64
	// Which tracks the fitted algorithms read.
	buckets, windowed, log bool
}

func newGrid(rates []algorithms.Rate, windows []time.Duration, algs []algorithms.Algorithm) *grid {
	g := &grid{rates: rates, windows: windows, nginxRate: make([]int64, len(rates)), cellInterval: make([]int64, len(rates))}
	for _, a := range algs {
		switch a {
		case algorithms.TokenBucket, algorithms.GCRA, algorithms.LeakyBucket, algorithms.XTimeRate:
			g.buckets = true
		case algorithms.FixedWindow, algorithms.SlidingCounter:
			g.windowed = true
		case algorithms.SlidingLog:
			g.log = true
		case algorithms.NginxLimitReq:
			for i, r := range rates {
				if families[a].takes(r) {
					g.nginxRate[i] = algorithms.NginxRateMilli(r)
				}
			}
		case algorithms.RedisCell:
			for i, r := range rates {
				if families[a].takes(r) {
					g.cellInterval[i] = int64(r.Per) / r.N
				}
			}
		}
	}
	return g
}

// keyTracks is one state's tracks: every key's for ByKey, else the one of
// all the traffic. Only the tracks the fitted algorithms read are made.
type keyTracks struct {
	name     string
	requests int64
	// last is the time of the state's latest request (the buckets' and
	// nginx's tracks share it), lastMs the same in nginx's whole
	// milliseconds.
	last    time.Duration
	lastMs  int64
	buckets []bucketTrack // per rate
	nginx   []nginxTrack  // per rate
	cells   *cellTracks
	windows []windowTrack // per window
	log     *logTrack
}

func (g *grid) newTracks(name string) *keyTracks {
	k := &keyTracks{name: name}
	if g.buckets {
		k.buckets = make([]bucketTrack, len(g.rates))
	}
	if slices.ContainsFunc(g.nginxRate, func(r int64) bool { return r > 0 }) {
		k.nginx = make([]nginxTrack, len(g.rates))
	}
	if slices.ContainsFunc(g.cellInterval, func(t int64) bool { return t > 0 }) {
		k.cells = &cellTracks{at: make([]cellTrack, len(g.rates))}
	}
	if g.windowed {
		k.windows = make([]windowTrack, len(g.windows))
	}
	if g.log {
		k.log = newLogTrack(len(g.windows))
	}
	return k
}

// cellTracks are redis-cell's tracks, per rate, and the time of the
// state's latest request as they saw it. They move in the part of the
// pass the windows do, so they keep their own time, apart from the
// keyTracks the other part writes (two processors writing one cache line
// would slow both).
type cellTracks struct {
	at   []cellTrack
	last time.Duration
	seen bool
}

// addRates moves key k's bucket and nginx tracks at every rate by a run
// of requests at one instant (see trackPass): runs requests of cost in
// all, the last of cost last.
func (g *grid) addRates(k *keyTracks, at time.Duration, cost, last, runs int64) {
	first := k.requests == 0
	k.requests += runs
	ms := int64(at / time.Millisecond) // nginx's clock
	elapsed, elapsedMs := at-k.last, ms-k.lastMs
	if first {
		elapsed, elapsedMs = 0, 0
	}
	for i, r := range g.rates {
		if k.buckets != nil {
			k.buckets[i].add(elapsed, cost, last, r.N, int64(r.Per))
		}
		if k.nginx != nil && g.nginxRate[i] > 0 {
			k.nginx[i].add(first, elapsedMs, cost, g.nginxRate[i])
		}
	}
	k.last, k.lastMs = at, ms
}

// addWindows moves key k's tracks at every window by a run of requests at
// one instant of cost in all, and its redis-cell tracks at every rate:
// with them the two parts of a pass take about as long as each other (see
// trackPass).
func (g *grid) addWindows(k *keyTracks, at time.Duration, cost int64) {
	if c := k.cells; c != nil {
		elapsed := at - c.last
		if !c.seen {
			elapsed = 0
		}
		for i, interval := range g.cellInterval {
			if interval > 0 {
				c.at[i].add(elapsed, cost, interval)
			}
		}
		c.last, c.seen = at, true
	}
	for i := range k.windows {
		k.windows[i].add(at, cost, int64(g.windows[i]))
	}
	if k.log != nil {
		k.log.add(at, cost, g.windows)
	}
}

// trackPass reads src once, following every state at every grid point:
// the keys' tracks in the order keys first appear (one for all the
// traffic unless byKey). addRates and addWindows are two parts of
// fanOut, run side by side.
//
// A state's requests at one instant are one run: nothing drains between
// them, so every track moves by their costs' sum as it would by each in
// turn (a backlog, an excess, a window's count and a log's total only
// grow within the run, so their largest is at its end), but for the
// leaky bucket's wait, which is the backlog before the last request:
// addRates is told the last one's cost. A log whose times are whole
// seconds has a run a second and a state, so the pass costs a run, not
// a request (TestRunsAreRequests).
func (g *grid) trackPass(src Source, byKey bool) ([]*keyTracks, error) {
	var keys []*keyTracks
	index := map[string]int{}
	var cur *keyTracks
	label := func(b *batch, r scenarios.Request) bool {
		if j := len(b.at) - 1; mergeRuns && j >= 0 && b.at[j] == r.At && b.tracks[j] == cur && (byKey && r.Key == cur.name || !byKey) &&
			b.cost[j] <= maxScaled-r.Cost {
			b.cost[j] += r.Cost
			b.last[j] = r.Cost
			b.runs[j]++
			return true
		}
		switch {
		case !byKey:
			if cur == nil {
				cur = g.newTracks("")
				keys = append(keys, cur)
			}
		case cur == nil || r.Key != cur.name:
			i, ok := index[r.Key]
			if !ok {
				i = len(keys)
				index[r.Key] = i
				keys = append(keys, g.newTracks(r.Key))
			}
			cur = keys[i]
		}
		b.tracks = append(b.tracks, cur)
		b.last, b.runs = append(b.last, r.Cost), append(b.runs, 1)
		return false
	}
	rates := func(b *batch) {
		for i, at := range b.at {
			g.addRates(b.tracks[i], at, b.cost[i], b.last[i], b.runs[i])
		}
	}
	windows := func(b *batch) {
		for i, at := range b.at {
			g.addWindows(b.tracks[i], at, b.cost[i])
		}
	}
	if _, err := fanOut(src, label, []func(*batch){rates, windows}); err != nil {
		return nil, fmt.Errorf("fit: reading the traffic: %w", err)
	}
	return keys, nil
}

// mergeRuns says trackPass takes a run of requests at one instant as one;
// tests turn it off to compare.
var mergeRuns = true
