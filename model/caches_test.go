package model

import (
	"slices"
	"testing"
	"time"
)

// TestCachesKeepTheirStamp: each cache computes once per stamp (and
// key, lane), again when the stamp moves, and keeps one answer at a time.
func TestCachesKeepTheirStamp(t *testing.T) {
	a := stamp{gen: 1, pos: 10, now: time.Second}
	b := stamp{gen: 1, pos: 11, now: time.Second}
	c := stamp{gen: 2, pos: 10, now: time.Second}
	type ask struct {
		at       stamp
		lane     int
		key      int32
		from     time.Duration
		computes bool
	}
	for _, tc := range []struct {
		name string
		get  func(cs *caches, q ask, compute func()) // calls compute when it computes
		asks []ask
	}{
		{"latency", func(cs *caches, q ask, compute func()) {
			cs.latency(q.at, q.lane, 3, func() laneLatency { compute(); return laneLatency{lat: Latency{N: int64(q.lane)}} })
		}, []ask{
			{at: a, lane: 0, computes: true}, {at: a, lane: 0}, {at: a, lane: 2, computes: true}, {at: a, lane: 0},
			{at: b, lane: 0, computes: true}, {at: c, lane: 0, computes: true}, {at: c, lane: 2, computes: true},
		}},
		{"a key's totals", func(cs *caches, q ask, compute func()) {
			cs.keyTotals(q.at, q.key, func() []Stats { compute(); return []Stats{{Admitted: int64(q.key)}} })
		}, []ask{
			{at: a, key: 1, computes: true}, {at: a, key: 1}, {at: a, key: 2, computes: true}, {at: a, key: 1, computes: true},
			{at: b, key: 1, computes: true}, {at: b, key: 1},
		}},
		{"a span", func(cs *caches, q ask, compute func()) {
			cs.spanFrom(q.at, q.lane, 3, q.from, func() spanReplay { compute(); return spanReplay{} })
		}, []ask{
			{at: a, from: 5, computes: true}, {at: a, from: 7}, {at: a, from: 5}, {at: a, from: 4, computes: true},
			{at: a, from: 5}, {at: a, lane: 2, from: 9, computes: true}, {at: a, from: 5}, {at: a, lane: 2, from: 9},
			{at: c, from: 5, computes: true},
		}},
		{"a key's last decisions", func(cs *caches, q ask, compute func()) {
			cs.lastDecisions(q.at, q.key, func() keyVerdicts { compute(); return keyVerdicts{records: []Record{{}}} })
		}, []ask{
			{at: a, key: 1, computes: true}, {at: a, key: 1}, {at: b, key: 1, computes: true}, {at: b, key: 3, computes: true},
			{at: b, key: 3},
		}},
		{"a key's prepared stats", func(cs *caches, q ask, compute func()) {
			cs.keyStatsOf(q.at.gen, q.key, func() *keyStats { compute(); return &keyStats{} })
		}, []ask{ // by generation alone, every key kept
			{at: a, key: 1, computes: true}, {at: b, key: 1}, {at: a, key: 2, computes: true}, {at: a, key: 1},
			{at: c, key: 1, computes: true}, {at: c, key: 2, computes: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := newCaches()
			for i, q := range tc.asks {
				computed := false
				tc.get(cs, q, func() { computed = true })
				if computed != q.computes {
					t.Fatalf("ask %d %+v: computed %v", i, q, computed)
				}
			}
		})
	}
}

// TestCachesRunningSums: the running sums grow as asked, block by block,
// and are cut where the timeline changed or a key went.
func TestCachesRunningSums(t *testing.T) {
	cs := newCaches()
	blocks := 0
	block := func(b int) int64 { blocks++; return int64(b + 1) } // block b admitted b + 1
	k, other := laneKey{0, 1}, laneKey{1, 5}
	for _, step := range []struct {
		do         func()
		key        laneKey
		upto       int
		want       []int64
		blocksRead int
	}{
		{nil, k, 3, []int64{0, 1, 3, 6}, 3},
		{nil, k, 2, []int64{0, 1, 3, 6}, 0}, // kept
		{nil, k, 4, []int64{0, 1, 3, 6, 10}, 1},
		{func() { cs.truncate(2*tallyBlock + 5) }, k, 3, []int64{0, 1, 3, 6}, 1}, // block 2 changed: sums past it go
		{nil, other, 1, []int64{0, 1}, 1},
		{func() { cs.forgetKeys(5) }, other, 1, []int64{0, 1}, 1}, // key 5 went
		{func() { cs.forgetKeys(6) }, k, 3, []int64{0, 1, 3, 6}, 0},
		{func() { cs.reset() }, k, 1, []int64{0, 1}, 1},
	} {
		if step.do != nil {
			step.do()
		}
		blocks = 0
		if got := cs.runningSums(step.key, step.upto, block); !slices.Equal(got, step.want) || blocks != step.blocksRead {
			t.Fatalf("sums of %+v to %d: %v reading %d blocks, want %v reading %d", step.key, step.upto, got, blocks, step.want, step.blocksRead)
		}
	}
}
