package model

import (
	"ratelab/model/internal/peak"
	"ratelab/scenarios"
)

// KeyStats are one key's totals in every lane: the Stats of that key's
// requests alone, its peak included.
type KeyStats struct {
	Key   string
	Lanes []Stats // in lane order
}

// keyTotals is one key's running totals and peak trackers, one per lane.
type keyTotals struct {
	stats []Stats
	peaks []peak.Tracker
	waits []latencyCounts // with clients: the served requests' latencies
}

// RunByKey is Run that also totals each key apart: it returns each lane's
// totals over every key, as Run does, and each key's totals per lane, keys in
// the order their first request arrives. A key's totals are its requests'
// in the whole run; as every limiter keeps a state per key, they are what a
// run of its requests alone would give, unless a lane has a policy over all
// keys or a client draws jitter (which depends on a request's rank among
// all the requests of its instant). Like
// Run it keeps no decision: its memory grows with the keys (and with what
// the keys' peak trackers keep, see peak.Tracker), not with the requests
// decided.
func RunByKey(s *scenarios.Scenario, opt Options, emit func(Record) error) ([]Stats, []KeyStats, error) {
	defs := LanesOf(s)
	if opt.PeakWindow <= 0 {
		opt.PeakWindow = DefaultPeakWindow(defs)
	}
	clients := len(s.Clients) > 0
	index := map[string]int{}
	var keys []string
	var totals []*keyTotals
	var cur *keyTotals // the totals of the request being decided
	last := -1         // its index
	stats, err := Run(s, opt, func(r Record) error {
		if r.Index != last || r.Attempt.N > 1 {
			last = r.Index
			k, ok := index[r.Request.Key]
			if !ok {
				k = len(keys)
				index[r.Request.Key] = k
				keys = append(keys, r.Request.Key)
				t := &keyTotals{stats: make([]Stats, len(defs)), peaks: make([]peak.Tracker, len(defs)), waits: make([]latencyCounts, len(defs))}
				for lane := range defs {
					t.stats[lane].PeakWindow = opt.PeakWindow
					t.peaks[lane] = peak.NewTracker(opt.PeakWindow)
				}
				totals = append(totals, t)
			}
			cur = totals[k]
		}
		d := r.Decision
		cur.stats[r.Lane].count(&d)
		cur.stats[r.Lane].settle(&r.Attempt)
		if clients && r.Attempt.Fate == Served && r.Attempt.Latency > 0 {
			cur.waits[r.Lane].add(r.Attempt.Latency)
		}
		if d.Outcome.Admitted() && !r.Attempt.Cancelled {
			cur.peaks[r.Lane].Admit(r.Request.At, d.Delay, r.Request.Cost, peak.Source(0, d.Gateway)) // a tracker of one key: its gateways are its sources
		}
		if emit != nil {
			return emit(r)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	byKey := make([]KeyStats, len(keys))
	for k, t := range totals {
		for lane := range t.stats {
			t.stats[lane].Peak, t.stats[lane].PeakAt = t.peaks[lane].PeakBy(endOfTime)
			if clients {
				t.stats[lane].Latency = t.waits[lane].latency(t.stats[lane].Served)
			}
		}
		byKey[k] = KeyStats{Key: keys[k], Lanes: t.stats}
	}
	return stats, byKey, nil
}
