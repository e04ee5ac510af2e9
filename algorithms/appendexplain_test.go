package algorithms

import (
	"math"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// Explaining into a reused buffer allocates nothing, for every example and
// edge policy of every algorithm, for stacks of one policy, and for stacks
// of several (whose records were written when they decided). What the
// words are is held elsewhere: each algorithm's against known text
// (examples_test.go), a stack's against its layers' own
// (TestStackExplanationIsItsLayers); Explain is AppendExplain into a new
// buffer by its definition, so comparing the two here could not fail.
func TestAppendExplainAllocatesNothing(t *testing.T) {
	var ds, stacked []Decision // stacked: the stacks of several alone
	for _, a := range Algorithms {
		for _, p := range describedPolicies(a) {
			ds = append(ds, explainTrace(t, mustNew(t, p))...)
			if p.MaxDelay() == 0 {
				ds = append(ds, explainTrace(t, mustStack(t, Layer{Name: "all", Policy: p, AllKeys: true}))...)
				two := explainTrace(t, mustStack(t, Layer{Name: "each", Policy: p},
					Layer{Name: "total", Policy: Policy{Algorithm: FixedWindow, Limit: 3, Window: sec}, AllKeys: true}))
				ds, stacked = append(ds, two...), append(stacked, two...)
			}
		}
	}
	var buf []byte
	for _, d := range ds {
		buf = d.AppendExplain(buf[:0]) // grows buf to the longest
	}
	// The stacks apart too: averaged with the rest, one allocation a
	// stack's explanation would round down to none.
	for _, set := range []struct {
		name string
		ds   []Decision
	}{{"all", ds}, {"stacks of several", stacked}} {
		i := 0
		if allocs := testing.AllocsPerRun(len(set.ds), func() {
			buf = set.ds[i%len(set.ds)].AppendExplain(buf[:0])
			i++
		}); allocs != 0 {
			t.Errorf("%s: %.2f allocations an explanation", set.name, allocs)
		}
	}
}

// explainTrace is l's decisions of a few keys' requests, some late, some
// costly, some too costly ever to fit.
func explainTrace(t *testing.T, l Limiter) []Decision {
	var ds []Decision
	for i := range 60 {
		at := time.Duration(i) * 37 * ms
		if i%7 == 6 {
			at -= 20 * ms // late: before the key's latest request
		}
		cost := int64(1 + i%3)
		if i%11 == 10 {
			cost = MaxCount
		}
		ds = append(ds, l.Decide(at, []string{"a", "b"}[i%2], cost))
	}
	return ds
}

// A stack decides without allocating: of one policy (a lane `across:
// all`), of several whose states are plain values, their records in their
// decisions; records kept in chunks (x/time/rate's floats take 8 bytes a
// number) cost two allocations a chunk, a chunk stackChunkBytes of them.
// Layers that keep logs and tables allocate only what their put-back
// states cost: a log a stack kept aside copies its newest chunk (two
// allocations) when it next outgrows it (see keyed.saveKey), at most once
// a decision for each log the layers keep (an attempt log keeps two, a
// sub-window counter one table). Allocations are counted exactly
// (AllocsPerRun rounds down).
func TestStackAllocations(t *testing.T) {
	xrate := Policy{Algorithm: XTimeRate, Burst: 20, Rate: Rate{N: 900, Per: sec}}
	// nginx's zones, stacked: per key with a zone, then over all keys,
	// looked up only until one refuses.
	zone := Policy{Algorithm: NginxLimitReq, Rate: Rate{N: 100, Per: sec}, Burst: 5, NoDelay: true, Zone: 32 << 10}
	server := Policy{Algorithm: NginxLimitReq, Rate: Rate{N: 1500, Per: sec}, Burst: 20, NoDelay: true}
	for _, c := range []struct {
		layers []Layer
		most   float64 // allocations a decision
	}{
		{[]Layer{{Name: "all", Policy: benchLayers[0].Policy, AllKeys: true}}, 0},
		{benchLayers[:2], 0},
		{benchLayers[:3], 0},
		{benchLayers, 0},
		{[]Layer{{Name: "x", Policy: xrate}, {Name: "all-x", Policy: xrate, AllKeys: true}, benchLayers[2], benchLayers[3]}, 2 * float64(stackRecordMax-8) / stackChunkBytes},
		{[]Layer{logLayers[0], benchLayers[1]}, 2},
		{logLayers[:4], 2 * 3},
		{[]Layer{logLayers[4], benchLayers[0]}, 2 * 2},
		{[]Layer{{Name: "ip", Policy: zone}, {Name: "server", Policy: server, AllKeys: true}}, 0},
	} {
		s := mustStack(t, c.layers...)
		ks := s.(*stack).ids
		keys := make([]Key, len(benchStackKeys))
		for i, k := range benchStackKeys {
			keys[i] = ks.Key(k)
		}
		var d Decision
		var now time.Duration
		i, refused := 0, 0
		decide := func() {
			now += sec / 2000
			if s.DecideInto(&d, now, keys[i%len(keys)], 1); d.Outcome == Rejected {
				refused++
			}
			i++
		}
		for range 2000 {
			decide()
		}
		// The fewest of three rounds: the runtime may allocate on its own
		// once in a while (MemStats counts every goroutine), never in every
		// round.
		const n = 20000
		allocs, bytes := math.Inf(1), 0.0
		for range 3 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range n {
				decide()
			}
			runtime.ReadMemStats(&after)
			if a := float64(after.Mallocs-before.Mallocs) / n; a < allocs {
				allocs, bytes = a, float64(after.TotalAlloc-before.TotalAlloc)/n
			}
		}
		if refused == 0 {
			t.Errorf("%d layers (%s …): nothing refused", len(c.layers), c.layers[0].Name)
		}
		if allocs > c.most {
			t.Errorf("%d layers (%s …): %.4f allocations a decision, want at most %v", len(c.layers), c.layers[0].Name, allocs, c.most)
		}
		t.Logf("%d layers (%s …): %.4f allocations, %.1f bytes a decision", len(c.layers), c.layers[0].Name, allocs, bytes)
	}
}

// A state that is a plain value is saved and put back as it is; one that
// holds items is not taken for one.
func TestPlainValue(t *testing.T) {
	for _, c := range []struct {
		s    any
		want bool
	}{
		{tokenBucketState{}, true}, {gcraState{}, true}, {[3]int64{}, true},
		{slidingLogState{}, false}, {struct{ p *int }{}, false}, {"", false}, {[]int{}, false},
	} {
		if got := plainValue(reflect.TypeOf(c.s)); got != c.want {
			t.Errorf("plainValue(%T) = %v", c.s, got)
		}
	}
}
