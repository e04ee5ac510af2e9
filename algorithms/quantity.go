package algorithms

import (
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Quantity is an exact non-negative rational Num/Den, used to show balances and
// estimates such as 5.5 tokens or 80 requests. Den is positive; a Quantity
// with Den ≤ 0, such as the zero Quantity, stands for 0. It is for display:
// every decision is taken on the integers it was made from.
type Quantity struct {
	Num, Den int64
}

// Float64 approximates q for drawing gauges; never use it to decide.
func (q Quantity) Float64() float64 {
	if q.Den <= 0 {
		return 0
	}
	return float64(q.Num) / float64(q.Den)
}

// Floor is the whole part of q.
func (q Quantity) Floor() int64 {
	if q.Den <= 0 {
		return 0
	}
	return floorDiv(q.Num, q.Den)
}

// String writes q as a decimal with at most three places: "5.5", "10",
// "0.333" for 1/3 (rounded half up; use Exact to tell).
func (q Quantity) String() string {
	if q.Den <= 0 {
		return "0"
	}
	return formatMilli(q.Num, q.Den)
}

// Exact reports whether String shows q without rounding: whether q is a
// whole number of thousandths.
func (q Quantity) Exact() bool {
	if q.Den <= 0 {
		return true // shown as "0", like the zero Quantity
	}
	num := uint64(q.Num)
	if q.Num < 0 {
		num = -num
	}
	return exactMilli(num, q.Den)
}

// formatMilli writes num/den rounded half away from zero to three decimals,
// trailing zeros trimmed. den must be positive.
func formatMilli(num, den int64) string {
	if num < 0 {
		s := formatMilliU(-uint64(num), den)
		if s == "0" {
			return s
		}
		return "-" + s
	}
	return formatMilliU(uint64(num), den)
}

// formatMilliU is formatMilli for a non-negative num held in a uint64, which
// may exceed math.MaxInt64.
func formatMilliU(num uint64, den int64) string {
	whole, rem := num/uint64(den), num%uint64(den)
	// (rem × 1000 + ⌊den/2⌋) / den in 128 bits: exact for any den, and the
	// quotient is at most 1000.
	hi, lo := bits.Mul64(rem, 1000)
	lo, carry := bits.Add64(lo, uint64(den)/2, 0)
	milli, _ := bits.Div64(hi+carry, lo, uint64(den))
	if milli == 1000 {
		whole, milli = whole+1, 0
	}
	s := strconv.FormatUint(whole, 10)
	if milli != 0 {
		s += "." + strings.TrimRight(strconv.FormatUint(1000+milli, 10)[1:], "0")
	}
	return s
}

// exactMilli reports whether num/den (den > 0) is a whole number of thousandths.
func exactMilli(num uint64, den int64) bool {
	// (num mod den) × 1000 may exceed 64 bits when den > 2^53: take it in 128.
	hi, lo := bits.Mul64(num%uint64(den), 1000)
	return bits.Rem64(hi, lo, uint64(den)) == 0
}

// exactish writes num/den (num ≥ 0, den > 0) as a decimal, prefixed with
// "≈" when it had to round.
func exactish(num, den int64) string { return exactishU(uint64(num), den) }

// exactishU is exactish for a numerator that may exceed math.MaxInt64.
func exactishU(num uint64, den int64) string {
	if exactMilli(num, den) {
		return formatMilliU(num, den)
	}
	return "≈" + formatMilliU(num, den)
}

// FormatSeconds writes d as seconds with up to nine decimals and no trailing
// zeros: 250ms is "0.25s", 1ns is "0.000000001s", 2m is "120s". It is exact.
func FormatSeconds(d time.Duration) string {
	neg := d < 0
	u := uint64(d)
	if neg {
		u = -u // also right for math.MinInt64
	}
	whole, frac := u/uint64(time.Second), u%uint64(time.Second)
	s := strconv.FormatUint(whole, 10)
	if frac != 0 {
		s += "." + strings.TrimRight(strconv.FormatUint(1e9+frac, 10)[1:], "0")
	}
	if neg {
		s = "-" + s
	}
	return s + "s"
}

// RetryAfterHeader is the value of the HTTP Retry-After header for a wait of
// d: whole seconds, rounded up, so a client that waits that long will fit.
// A wait of zero or less is 0; Never is reported as -1 (send no header).
func RetryAfterHeader(d time.Duration) int64 {
	if d == Never {
		return -1
	}
	if d <= 0 {
		return 0
	}
	return ceilDiv(int64(d), int64(time.Second))
}

// FormatDuration writes d as a scenario file would: "100ms" below a second,
// whole hours as "2h", else exact seconds with no trailing zeros, "60s" or
// "59.9s" (never Go's "1m0s").
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return d.String()
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	}
	return FormatSeconds(d)
}
