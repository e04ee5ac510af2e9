package algorithms

import (
	"fmt"
	"math"
)

// FloatParts writes a finite double as two whole numbers, f = mant ×
// 2^exp: mant is math.Frexp's fraction × 2^53, so 2^52 ≤ |mant| < 2^53
// (a whole number a double, and Lua, hold exactly), exp its exponent − 53;
// 0 is 0 × 2^0. Every finite double has exactly one such pair, and
// mant × 2^exp (math.Ldexp, Lua's math.ldexp) is the double again, bit for
// bit: the float lanes' states keep their doubles so in a store that keeps
// whole numbers (package redisstore).
func FloatParts(f float64) (mant, exp int64) {
	if f == 0 {
		return 0, 0
	}
	frac, e := math.Frexp(f)
	return int64(frac * (1 << 53)), int64(e) - 53
}

// FromFloatParts is the double mant × 2^exp, or why (mant, exp) is not a
// pair FloatParts writes.
func FromFloatParts(mant, exp int64) (float64, error) {
	if mant == 0 && exp == 0 {
		return 0, nil
	}
	if m := max(mant, -mant); m < 1<<52 || m >= 1<<53 || exp < -1074-53 || exp > 1024-53 {
		return 0, fmt.Errorf("%d × 2^%d is not a double's mantissa × 2^exponent", mant, exp)
	}
	f := math.Ldexp(float64(mant), int(exp))
	if m, e := FloatParts(f); m != mant || e != exp {
		return 0, fmt.Errorf("%d × 2^%d is not a double's mantissa × 2^exponent", mant, exp)
	}
	return f, nil
}
