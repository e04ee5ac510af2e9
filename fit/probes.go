package fit

import (
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// probe is one real limiter (algorithms.New) run over a whole pass, and
// what it did.
type probe struct {
	policy algorithms.Policy
	lim    algorithms.Limiter
	// refused counts the requests it refused, the first at first;
	// longestWait is the longest Delay it gave.
	refused     int64
	first       time.Duration
	longestWait time.Duration
	// watch, when not nil, counts refusals per key: watch[id] is the index
	// in keys of the key numbered id, or −1 for a key not watched.
	watch []int32
	keys  []TopKey
}

// decide runs the probe over a batch of requests.
func (p *probe) decide(b *batch) {
	if p.watch != nil {
		p.decideWatching(b)
		return
	}
	var d algorithms.Decision
	for i, at := range b.at {
		p.lim.DecideInto(&d, at, b.keys[i], b.cost[i])
		switch {
		case d.Outcome == algorithms.Rejected:
			if p.refused == 0 {
				p.first = at
			}
			p.refused++
		case d.Delay > p.longestWait:
			p.longestWait = d.Delay
		}
	}
}

// decideWatching is decide counting the refusals of the keys watched.
func (p *probe) decideWatching(b *batch) {
	var d algorithms.Decision
	for i, at := range b.at {
		key := b.keys[i]
		p.lim.DecideInto(&d, at, key, b.cost[i])
		switch {
		case d.Outcome == algorithms.Rejected:
			if p.refused == 0 {
				p.first = at
			}
			p.refused++
			if id := key.ID(); id < len(p.watch) && p.watch[id] >= 0 {
				t := &p.keys[p.watch[id]]
				if t.Refused == 0 {
					t.FirstRefusal = at
				}
				t.Refused++
				t.LastRefusal = at
			}
		case d.Delay > p.longestWait:
			p.longestWait = d.Delay
		}
	}
}

// run passes src once through every probe, each with one state for all
// the traffic or, byKey, one a key, the probes shared among the workers of
// fanOut. It returns how many requests there were.
func run(src Source, byKey bool, probes []*probe) (int64, error) {
	ks := algorithms.NewKeys()
	parts := make([]func(*batch), len(probes))
	for i, p := range probes {
		lim, err := algorithms.NewWithKeys(p.policy, ks)
		if err != nil {
			return 0, fmt.Errorf("fit: policy %s: %w", p.policy, err) // fit checks each policy before
		}
		p.lim = lim
		parts[i] = p.decide
	}
	// One state for all the traffic is the key "": for byKey no key is
	// numbered before the traffic's, so that the numbers are the order in
	// which keys first appear, as the tracks' are.
	var key algorithms.Key
	named := !byKey
	if !byKey {
		key = ks.Key("")
	}
	n, err := fanOut(src, func(b *batch, r scenarios.Request) bool {
		if byKey && (!named || r.Key != key.String()) {
			key, named = ks.Key(r.Key), true
		}
		b.keys = append(b.keys, key)
		return false // a real limiter decides each request
	}, parts)
	if err != nil {
		return n, fmt.Errorf("fit: reading the traffic: %w", err)
	}
	return n, nil
}
