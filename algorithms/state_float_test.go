package algorithms

import (
	"math"
	"testing"
)

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

// TestFloatLaneStatesRejected: impossible states are refused.
func TestFloatLaneStatesRejected(t *testing.T) {
	one, _ := FloatParts(1)
	half, halfE := FloatParts(0.5)
	big, bigE := FloatParts(1e9)
	tests := []struct {
		p  Policy
		st []int64
	}{
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{big, bigE, 0, 0}},         // past capacity
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{-half, halfE, 0, 0}},      // negative
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{one, 0, 0, 0}},            // not a pair FloatParts writes
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{half, halfE, -1, 0}},      // time before 0
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{half, halfE, 0, 4e9}},     // exact past capacity
		{Policy{Algorithm: FloatTokenBucket, Capacity: 3, Rate: Rate{7, sec}}, []int64{half, halfE, 0, -2e9}},    // exact below −capacity/2
		{Policy{Algorithm: Guava, Rate: Rate{5, sec}}, []int64{0, 0, 0, 1e6, half, halfE}},                       // µs not below 1e6
		{Policy{Algorithm: Guava, Rate: Rate{5, sec}}, []int64{0, 0, 9223372036854, 775808, half, halfE}},        // past 2^63 − 1
		{Policy{Algorithm: Guava, Rate: Rate{5, sec}}, []int64{0, 0, -1, 0, half, halfE}},                        // negative
		{Policy{Algorithm: Guava, Rate: Rate{5, sec}}, []int64{5, 4, 0, 0, half, halfE}},                         // last before start
		{Policy{Algorithm: GuavaTry, Rate: Rate{5, sec}}, []int64{0, 0, 0, 0, big, bigE}},                        // more than a second stored
		{Policy{Algorithm: GuavaTry, Rate: Rate{5, sec}}, []int64{0, 0, 0, 0, -half, halfE}},                     // negative stored
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 4 * sec}, []int64{0, 0, 0, 0, big, bigE}},    // more than maxPermits (8) stored
		{Policy{Algorithm: GuavaWarmup, Rate: Rate{2, sec}, Warmup: 4 * sec}, []int64{0, 0, 0, 0, -half, halfE}}, // negative stored
	}
	for _, tt := range tests {
		if _, _, err := importState(t, tt.p, State{Fields: tt.st}); err == nil {
			t.Errorf("%s: state %v accepted", tt.p, tt.st)
		}
	}
	// The largest next free, saturated, is a state.
	checkImport(t, Policy{Algorithm: Guava, Rate: Rate{5, sec}}, State{Fields: []int64{0, 0, 9223372036854, 775807, 0, 0}}, "")
}
