package model

import (
	"testing"
	"time"

	"golang.org/x/time/rate"

	"ratelab/scenarios"
)

// manyKeysFile is tools/many-keys.yaml: 100,000 keys × 10 requests on the
// million's six lanes.
func manyKeysFile(b *testing.B) *scenarios.Scenario {
	s, err := scenarios.Load("../tools/many-keys.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkRunSummaryManyKeys streams tools/many-keys.yaml through its six
// lanes, as `ratelab run --format summary` does (one op = the whole run).
func BenchmarkRunSummaryManyKeys(b *testing.B) {
	s := manyKeysFile(b)
	for b.Loop() {
		if _, err := Run(s, Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPeerManyKeys is the peer of BenchmarkRunSummaryManyKeys (as
// tools/versus -per-key): six x/time/rate limiters a key, found through a
// map a lane, deciding the same stream. ratelab's run takes about 0.6 of
// its time and allocates twice its bytes (the lanes' peak trackers keep a
// million irregular passages each: a 60 s window over 10 s of traffic).
func BenchmarkPeerManyKeys(b *testing.B) {
	s := manyKeysFile(b)
	base := time.Unix(0, 0)
	for b.Loop() {
		byKey := make([]map[string]*rate.Limiter, len(s.Lanes))
		for i := range byKey {
			byKey[i] = map[string]*rate.Limiter{}
		}
		for r := range s.Requests() {
			at := base.Add(r.At)
			for _, m := range byKey {
				lim := m[r.Key]
				if lim == nil {
					lim = rate.NewLimiter(2, 10)
					m[r.Key] = lim
				}
				lim.AllowN(at, int(r.Cost))
			}
		}
	}
}

// BenchmarkPeerMillion is the peer of BenchmarkRunSummaryMillion (as
// tools/versus): one x/time/rate limiter a lane, of the lane's size and
// rate, deciding the same stream in a plain loop. ratelab's run, its open
// loop paying for no Record, Attempt or client, takes about 0.6 of it.
func BenchmarkPeerMillion(b *testing.B) {
	s := millionRequests(b)
	base := time.Unix(0, 0)
	for b.Loop() {
		lims := make([]*rate.Limiter, len(s.Lanes))
		for i, l := range s.Lanes {
			p := l.Policy
			size, n, per := p.Capacity+p.Burst+p.Queue+p.Limit, p.Rate.N, p.Rate.Per
			if per == 0 {
				n, per = p.Limit, p.Window
			}
			lims[i] = rate.NewLimiter(rate.Limit(float64(n)/per.Seconds()), int(size))
		}
		for r := range s.Requests() {
			at := base.Add(r.At)
			for _, lim := range lims {
				lim.AllowN(at, int(r.Cost))
			}
		}
	}
}
