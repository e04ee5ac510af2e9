package algorithms

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestXTimeRateLimiterBuilt: the public API puts a Limiter in any state
// of tokens ≤ burst, debts of every size down to the smallest subnormal
// included, bit for bit.
func TestXTimeRateLimiterBuilt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	values := []float64{0, 1, 10, 0.1, 1.0 / 3, 9.999999999999998, -0.1, -1, -0.5, -0.49999999999999994, -1e-9, -1e-300,
		-math.SmallestNonzeroFloat64, -3 * math.SmallestNonzeroFloat64, -0x1p-1022, -0x1.fffffffffffffp-1023,
		-1.0000000000000002, -0.9999999999999999, -123456.789, -(1 << 40) - 0.5, -(1 << 53), -(1<<53 + 2), -0x1p61, -1e18}
	for range 3000 {
		switch r.IntN(4) {
		case 0:
			values = append(values, 10*r.Float64())
		case 1:
			values = append(values, -r.Float64()*math.Pow(2, float64(r.IntN(80)-40)))
		case 2:
			values = append(values, -math.Ldexp(r.Float64(), -r.IntN(1080)))
		default:
			values = append(values, -math.Float64frombits(r.Uint64()>>2)) // any magnitude up to 2^-?..2^511
		}
	}
	limit := rate.Limit(7 / 0.7)
	for _, v := range values {
		if v < -(1<<62) || math.IsNaN(v) || v == 0 && math.Signbit(v) {
			continue
		}
		last := xtimerateEpoch.Add(time.Duration(r.Int64N(1 << 50)))
		var lim rate.Limiter
		if err := xtimerateLimiter(&lim, limit, 10, v, last); err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		if lim.Limit() != limit || lim.Burst() != 10 {
			t.Fatalf("%v: limit %v burst %d", v, lim.Limit(), lim.Burst())
		}
		// last is last: a second later, a second's tokens are added.
		want := min(10, v+1*float64(limit))
		if got := lim.TokensAt(last.Add(time.Second)); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%v: a second after last, %v, want %v", v, got, want)
		}
	}
}

// TestXTimeRateStatesRejected: impossible states are refused.
func TestXTimeRateStatesRejected(t *testing.T) {
	parts := func(f float64) (int64, int64) { return FloatParts(f) }
	one, oneE := parts(1)
	eleven, elevenE := parts(11)
	tiny, tinyE := parts(-1e-12)
	small, smallE := parts(-0.5)
	deep, deepE := parts(-100)
	huge, hugeE := parts(-0x1p63)
	allow := Policy{Algorithm: XTimeRate, Burst: 10, Rate: Rate{5, sec}}
	reserve := Policy{Algorithm: XTimeRateReserve, Burst: 10, Rate: Rate{5, sec}}
	capped := Policy{Algorithm: XTimeRateReserve, Burst: 10, Rate: Rate{5, sec}, MaxWait: sec}
	tests := []struct {
		p  Policy
		st []int64
		ok bool
	}{
		{allow, []int64{one, oneE, 0, 5}, true},
		{allow, []int64{eleven, elevenE, 0, 0}, false}, // past the burst
		{allow, []int64{one, oneE, -1, 0}, false},      // before 0
		{allow, []int64{one, oneE, 5, 4}, false},       // last after latest
		{allow, []int64{one, 0, 0, 0}, false},          // not FloatParts'
		{allow, []int64{tiny, tinyE, 0, 0}, true},      // a shortfall under 1ns
		{allow, []int64{small, smallE, 0, 0}, false},   // AllowN leaves no such shortfall
		{reserve, []int64{deep, deepE, 0, 0}, true},
		{reserve, []int64{huge, hugeE, 0, 0}, false}, // past 2^62
		{capped, []int64{small, smallE, 0, 0}, true}, // 0.1s
		{capped, []int64{deep, deepE, 0, 0}, false},  // 20s > max_wait
	}
	for _, tt := range tests {
		if _, _, err := importState(t, tt.p, State{Fields: tt.st}); (err == nil) != tt.ok {
			t.Errorf("%s: state %v: %v, want ok %v", tt.p, tt.st, err, tt.ok)
		}
	}
}
