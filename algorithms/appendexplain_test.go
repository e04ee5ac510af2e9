package algorithms

import (
	"reflect"
	"testing"
	"time"
)

// Explaining into a reused buffer allocates nothing, for every example and
// edge policy of every algorithm, for stacks of one policy, and for stacks
// of several (whose one record was made when they decided); and Explain is
// the same text.
func TestAppendExplainAllocatesNothing(t *testing.T) {
	var ds []Decision
	for _, a := range Algorithms {
		d := Describe(a)
		ps := append([]Policy(nil), d.Edges...)
		for _, e := range d.Examples {
			ps = append(ps, e.Policy)
		}
		for _, p := range ps {
			ds = append(ds, explainTrace(t, mustNew(t, p))...)
			if p.MaxDelay() == 0 {
				ds = append(ds, explainTrace(t, mustStack(t, Layer{Name: "all", Policy: p, AllKeys: true}))...)
				ds = append(ds, explainTrace(t, mustStack(t, Layer{Name: "each", Policy: p},
					Layer{Name: "total", Policy: Policy{Algorithm: FixedWindow, Limit: 3, Window: sec}, AllKeys: true}))...)
			}
		}
	}
	var buf []byte
	for _, d := range ds {
		buf = d.AppendExplain(buf[:0])
		if got := d.Explain(); got != string(buf) {
			t.Fatalf("Explain %q, AppendExplain %q", got, buf)
		}
	}
	i := 0
	if allocs := testing.AllocsPerRun(len(ds), func() {
		buf = ds[i%len(ds)].AppendExplain(buf[:0])
		i++
	}); allocs != 0 {
		t.Errorf("%.2f allocations an explanation", allocs)
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

// A stack of one policy (a lane `across: all`) decides without allocating;
// a stack of several allocates its explanation's func a decision, holding
// its layers' verdicts, and nothing to put states back when they are plain
// values.
func TestStackAllocations(t *testing.T) {
	for _, c := range []struct {
		layers []Layer
		want   float64
	}{
		{[]Layer{{Name: "all", Policy: benchLayers[0].Policy, AllKeys: true}}, 0},
		{benchLayers[:2], 1},
		{benchLayers, 1},
	} {
		s := mustStack(t, c.layers...)
		ks := s.(*stack).ids
		keys := []Key{ks.Key("a"), ks.Key("b"), ks.Key("c")}
		var d Decision
		var now time.Duration
		i := 0
		decide := func() {
			now += ms
			s.DecideInto(&d, now, keys[i%len(keys)], 1)
			i++
		}
		for range 1000 {
			decide()
		}
		if allocs := testing.AllocsPerRun(2000, decide); allocs != c.want {
			t.Errorf("%d layers: %.2f allocations a decision, want %v", len(c.layers), allocs, c.want)
		}
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
