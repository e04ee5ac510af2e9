package algorithms

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// floatStatePolicies are the float lanes' policies the state tests run:
// odd rates, tiny and larger sizes, timeouts.
var floatStatePolicies = []Policy{
	{Algorithm: FloatTokenBucket, Capacity: 1, Rate: Rate{10, sec}},
	{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}},
	{Algorithm: FloatTokenBucket, Capacity: 50, Rate: Rate{3, 700 * ms}},
	{Algorithm: Guava, Rate: Rate{5, sec}},
	{Algorithm: Guava, Rate: Rate{3, 700 * ms}},
	{Algorithm: GuavaTry, Rate: Rate{7, sec}},
	{Algorithm: GuavaTry, Rate: Rate{1, sec}, Timeout: 1999},
	{Algorithm: GuavaTry, Rate: Rate{100, sec}, Timeout: 5 * ms},
}

func TestFloatParts(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.1, 1.0 / 3, 1<<52 + 0.5, 1<<53 + 2, 0.9999999999999998,
		math.SmallestNonzeroFloat64, 3 * math.SmallestNonzeroFloat64, 0x1p-1022, math.MaxFloat64, -math.MaxFloat64, 1e-300, 1e300} {
		m, e := FloatParts(f)
		if max(m, -m) >= 1<<53 {
			t.Errorf("%g: mantissa %d past 2^53", f, m)
		}
		back, err := FromFloatParts(m, e)
		if err != nil || math.Float64bits(back) != math.Float64bits(f) {
			t.Errorf("%g → %d × 2^%d → %g, %v", f, m, e, back, err)
		}
	}
	for _, bad := range [][2]int64{{0, 1}, {1, 0}, {1<<52 - 1, 0}, {1 << 53, 0}, {1 << 52, 972}, {1 << 52, -2000}, {1<<52 + 1, -1126}} {
		if f, err := FromFloatParts(bad[0], bad[1]); err == nil {
			t.Errorf("%d × 2^%d read as %g, want an error", bad[0], bad[1], f)
		}
	}
}

// TestFloatLaneStates: after random traffic (late requests, costs past the
// size), every key's state encodes, decodes and encodes again alike, and a
// limiter given those states decides the next request as the original.
func TestFloatLaneStates(t *testing.T) {
	for i, p := range floatStatePolicies {
		t.Run(p.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 11))
			ks := NewKeys()
			orig, err := NewWithKeys(p, ks)
			if err != nil {
				t.Fatal(err)
			}
			names := []string{"a", "b", "c"}
			h := max(p.Horizon(), ms)
			at := time.Duration(0)
			for n := range 600 {
				at += time.Duration(r.Int64N(int64(h)/4 + 1))
				now := at
				if r.IntN(15) == 0 {
					now = max(0, at-time.Duration(r.Int64N(int64(h)/2+1)))
				}
				cost := int64(1)
				if r.IntN(6) == 0 {
					cost = 1 + r.Int64N(p.MaxCost()+1)
				}
				k := ks.Key(names[r.IntN(len(names))])
				// A copy made from the states alone decides alike.
				copied, err := NewWithKeys(p, ks)
				if err != nil {
					t.Fatal(err)
				}
				for _, name := range names {
					kk := ks.Key(name)
					st, ok := orig.(StateCodec).ExportKey(kk)
					if !ok {
						continue
					}
					if err := copied.(StateCodec).ImportKey(kk, st); err != nil {
						t.Fatalf("request %d: key %s: %v (state %v)", n, name, err, st)
					}
					again, _ := copied.(StateCodec).ExportKey(kk)
					if !slices.Equal(again.Fields, st.Fields) || !slices.Equal(again.Log, st.Log) {
						t.Fatalf("request %d: key %s: %v read back as %v", n, name, st, again)
					}
				}
				want := orig.DecideKey(now, k, cost)
				got := copied.DecideKey(now, k, cost)
				if got.Explain() != want.Explain() || got.Outcome != want.Outcome || got.Delay != want.Delay || got.RetryAfter != want.RetryAfter {
					t.Fatalf("request %d: after import %q, want %q", n, got.Explain(), want.Explain())
				}
			}
		})
	}
}

// TestFloatLaneStatesRejected: impossible states are refused.
func TestFloatLaneStatesRejected(t *testing.T) {
	one, _ := FloatParts(1)
	half, halfE := FloatParts(0.5)
	big, bigE := FloatParts(1e9)
	tests := []struct {
		p  Policy
		st []int64
	}{
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{big, bigE, 0, 0}},      // past capacity
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{-half, halfE, 0, 0}},   // negative
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{one, 0, 0, 0}},         // not a pair FloatParts writes
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{half, halfE, -1, 0}},   // time before 0
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{half, halfE, 0, 4e9}},  // exact past capacity
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{half, halfE, 0, -2e9}}, // exact below −capacity/2
		{Policy{Algorithm: Guava, Rate: Rate{5, sec}}, []int64{0, 0, 0, 1e6, half, halfE}},                    // µs not below 1e6
		{Policy{Algorithm: Guava, Rate: Rate{5, sec}}, []int64{0, 0, 9223372036854, 775808, half, halfE}},     // past 2^63 − 1
		{Policy{Algorithm: Guava, Rate: Rate{5, sec}}, []int64{0, 0, -1, 0, half, halfE}},                     // negative
		{Policy{Algorithm: Guava, Rate: Rate{5, sec}}, []int64{5, 4, 0, 0, half, halfE}},                      // last before start
		{Policy{Algorithm: GuavaTry, Rate: Rate{5, sec}}, []int64{0, 0, 0, 0, big, bigE}},                     // more than a second stored
		{Policy{Algorithm: GuavaTry, Rate: Rate{5, sec}}, []int64{0, 0, 0, 0, -half, halfE}},                  // negative stored
	}
	for _, tt := range tests {
		ks := NewKeys()
		l, err := NewWithKeys(tt.p, ks)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.(StateCodec).ImportKey(ks.Key("k"), State{Fields: tt.st}); err == nil {
			t.Errorf("%s: state %v accepted", tt.p, tt.st)
		}
	}
	// The largest next free, saturated, is a state.
	ks := NewKeys()
	l, _ := NewWithKeys(Policy{Algorithm: Guava, Rate: Rate{5, sec}}, ks)
	if err := l.(StateCodec).ImportKey(ks.Key("k"), State{Fields: []int64{0, 0, 9223372036854, 775807, 0, 0}}); err != nil {
		t.Error(err)
	}
}
