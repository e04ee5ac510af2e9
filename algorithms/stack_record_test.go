package algorithms

import (
	"math"
	"testing"
	"time"
	"unsafe"
)

// A stack's record gives back every number exactly, whatever it is:
// times near and far from the request, counts, a float's bits, the
// extremes of int64, a wait that never ends (its complement), as many as
// four layers' worth.
func TestStackRecordRoundTrip(t *testing.T) {
	f := func(x float64) int64 { return int64(math.Float64bits(x)) }
	for _, c := range []struct {
		at   time.Duration
		nums []int64
	}{
		{0, nil},
		{0, []int64{0}},
		{0, []int64{1, -1, math.MaxInt64, math.MinInt64, 1, ^int64(Never), 0}},
		{1<<62 - 1, []int64{
			1<<62 - 1, 1<<62 - 2, 0, -(1 << 62), 0,
			f(10), f(-0.5), f(math.NaN()), f(math.Inf(-1)), ^int64(1 << 62),
			math.MinInt64, math.MaxInt64, 1 << 62, 1<<62 + 1, 0,
			255, 256, 1 << 48, 1 << 56, ^int64(1<<56 - 1),
		}},
		{2500500000, []int64{0, 10000000, 1000000000, 2500500000, 0, 2000000000, 500, 2500500000, 0, ^int64(3 * time.Millisecond), 2498833333, 40, 2500500000}},
	} {
		var buf [stackRecordMax]byte
		for i := range buf {
			buf[i] = 0xff // what a reused record held: stackRecord must clear it
		}
		n := stackRecord(&buf, c.at, c.nums)
		if n > stackRecordMax-8 {
			t.Fatalf("at %v: a record of %d bytes, beyond %d", c.at, n, stackRecordMax-8)
		}
		r := newStackReader(buf[:n], c.at, len(c.nums))
		for i, want := range c.nums {
			if got := r.next(); got != want {
				t.Errorf("at %v, number %d: read %d, wrote %d", c.at, i, got, want)
			}
		}
		if r.n != n {
			t.Errorf("at %v: read %d bytes of %d", c.at, r.n, n)
		}
		for i := n; i < stackInline; i++ {
			if buf[i] != 0 {
				t.Fatalf("at %v: byte %d past the record's %d is %d, not 0", c.at, i, n, buf[i])
			}
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
