package algorithms

import (
	"math"
	"testing"
	"time"
	"unsafe"
)

// A stack's record gives back every layer's numbers exactly, whatever
// they are: times near and far from the request, counts, a float's bits,
// the extremes of int64, a wait that never ends.
func TestStackRecordRoundTrip(t *testing.T) {
	f := func(x float64) int64 { return int64(math.Float64bits(x)) }
	for _, c := range []struct {
		at       time.Duration
		verdicts []Decision
	}{
		{0, []Decision{{}, {}}},
		{0, []Decision{{v: [4]int64{1, -1, math.MaxInt64, math.MinInt64}, RetryAfter: 1, Outcome: Rejected}, {RetryAfter: Never, Outcome: Rejected}}},
		{1<<62 - 1, []Decision{
			{v: [4]int64{1<<62 - 1, 1<<62 - 2, 0, -(1 << 62)}},
			{v: [4]int64{f(10), f(-0.5), f(math.NaN()), f(math.Inf(-1))}, RetryAfter: 1 << 62, Outcome: Rejected},
			{v: [4]int64{math.MinInt64, math.MaxInt64, 1 << 62, 1<<62 + 1}},
			{v: [4]int64{255, 256, 1 << 48, 1 << 56}, RetryAfter: 1<<56 - 1, Outcome: Rejected},
		}},
		{2500500000, []Decision{
			{v: [4]int64{0, 10000000, 1000000000, 2500500000}},
			{v: [4]int64{2000000000, 500, 2500500000, 0}, RetryAfter: 3 * time.Millisecond, Outcome: Rejected},
			{v: [4]int64{2498833333, 40, 2500500000, 0}},
		}},
	} {
		var buf [stackRecordMax]byte
		n := stackRecord(&buf, c.at, c.verdicts)
		if n > stackRecordMax-8 {
			t.Fatalf("at %v: a record of %d bytes, beyond %d", c.at, n, stackRecordMax-8)
		}
		info := &stackInfo{layers: make([]Layer, len(c.verdicts)), explains: make([]func([]byte, Decision) []byte, len(c.verdicts))}
		d := Decision{At: c.at}
		r := newStackReader(buf[:n], len(c.verdicts))
		for i, want := range c.verdicts {
			got := info.layer(i, &r, &d)
			if got.v != want.v || got.RetryAfter != want.RetryAfter || got.Outcome != want.Outcome {
				t.Errorf("at %v, layer %d: read %v, %v, %v; wrote %v, %v, %v", c.at, i, got.v, got.RetryAfter, got.Outcome, want.v, want.RetryAfter, want.Outcome)
			}
		}
		if r.n != n {
			t.Errorf("at %v: read %d bytes of %d", c.at, r.n, n)
		}
	}
}

// A record that fits in its decision takes no room of its own: rec lies
// in what would be the padding after Outcome.
func TestStackRecordFillsPadding(t *testing.T) {
	var d Decision
	if off := unsafe.Offsetof(d.At); off != unsafe.Offsetof(d.rec)+unsafe.Sizeof(d.rec) {
		t.Errorf("At at byte %d: rec (bytes %d to %d) no longer fills Outcome's padding", off, unsafe.Offsetof(d.rec), unsafe.Offsetof(d.rec)+unsafe.Sizeof(d.rec))
	}
}

// Every algorithm's description explains its limiters' decisions word for
// word as the decisions themselves do: a stack explains its layers with
// the description's.
func TestDescriptionsExplainAsDecisions(t *testing.T) {
	for _, a := range Algorithms {
		desc := Describe(a)
		for _, p := range describedPolicies(a) {
			for i, d := range explainTrace(t, mustNew(t, p)) {
				if d.RetryAfter == Never {
					continue // AppendExplain words it itself
				}
				if got, want := string(desc.explain(nil, d)), string(d.explain(nil, d)); got != want {
					t.Fatalf("%s decision %d: the description says\n%s\nthe decision\n%s", p, i, got, want)
				}
			}
		}
	}
}
