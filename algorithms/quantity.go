package algorithms

import (
	"math/bits"
	"strconv"
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
func formatMilliU(num uint64, den int64) string { return string(appendMilliU(nil, num, den)) }

// appendMilliU appends formatMilliU(num, den) to b.
func appendMilliU(b []byte, num uint64, den int64) []byte {
	whole, rem := num/uint64(den), num%uint64(den)
	// (rem × 1000 + ⌊den/2⌋) / den in 128 bits: exact for any den, and the
	// quotient is at most 1000.
	hi, lo := bits.Mul64(rem, 1000)
	lo, carry := bits.Add64(lo, uint64(den)/2, 0)
	milli, _ := bits.Div64(hi+carry, lo, uint64(den))
	if milli == 1000 {
		whole, milli = whole+1, 0
	}
	b = strconv.AppendUint(b, whole, 10)
	if milli != 0 {
		b = appendFraction(b, milli, 3)
	}
	return b
}

// appendFraction appends "." and frac (0 < frac < 10^digits, digits ≤ 9)
// as digits decimals, trailing zeros trimmed.
func appendFraction(b []byte, frac uint64, digits int) []byte {
	n := len(b)
	b = strconv.AppendUint(b, pow10[digits]+frac, 10) // "1" and the digits
	b[n] = '.'
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	return b
}

// pow10 are the powers of ten appendFraction pads with.
var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

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
func exactishU(num uint64, den int64) string { return string(appendExactish(nil, num, den)) }

// appendExactish appends exactishU(num, den) to b.
func appendExactish(b []byte, num uint64, den int64) []byte {
	if !exactMilli(num, den) {
		b = append(b, "≈"...)
	}
	return appendMilliU(b, num, den)
}

// FormatSeconds writes d as seconds with up to nine decimals and no trailing
// zeros: 250ms is "0.25s", 1ns is "0.000000001s", 2m is "120s". It is exact.
func FormatSeconds(d time.Duration) string { return string(AppendSeconds(nil, d)) }

// AppendSeconds appends FormatSeconds(d) to b, allocating only if b must grow.
func AppendSeconds(b []byte, d time.Duration) []byte { return ExactTimes.seconds(b, d) }

// seconds appends a time or duration of an explanation in form t: for
// ExactTimes as FormatSeconds writes it; for ScreenTimes a mark that
// AppendExplainTimes replaces once the whole explanation is written, when
// the decimals it needs are known. One function for both, so that the
// command line's exact path makes no more calls than it did before the
// screen's form.
func (t Times) seconds(b []byte, d time.Duration) []byte {
	if t == ExactTimes {
		u := uint64(d)
		if d < 0 {
			b = append(b, '-')
			u = -u // also right for math.MinInt64
		}
		whole, frac := u/uint64(time.Second), u%uint64(time.Second)
		b = strconv.AppendUint(b, whole, 10)
		if frac != 0 {
			b = appendFraction(b, frac, 9)
		}
		return append(b, 's')
	}
	return appendTimeMark(b, d, false)
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
func FormatDuration(d time.Duration) string { return string(AppendDuration(nil, d)) }

// AppendDuration appends FormatDuration(d) to b.
func AppendDuration(b []byte, d time.Duration) []byte {
	switch {
	case d == 0:
		return append(b, "0s"...)
	case d < 0:
		return append(b, d.String()...) // no policy's duration: only for completeness
	case d < time.Second:
		return appendSubsecond(b, d)
	case d%time.Hour == 0:
		return append(strconv.AppendInt(b, int64(d/time.Hour), 10), 'h')
	}
	return AppendSeconds(b, d)
}

// appendSubsecond appends d (0 < d < 1s) as time.Duration.String does: the
// largest of ns, µs and ms below d, with a fraction when needed ("1.5ms").
func appendSubsecond(b []byte, d time.Duration) []byte {
	u := uint64(d)
	switch {
	case u < uint64(time.Microsecond):
		return append(strconv.AppendUint(b, u, 10), "ns"...)
	case u < uint64(time.Millisecond):
		return appendUnit(b, u, 1e3, 3, "µs")
	}
	return appendUnit(b, u, 1e6, 6, "ms")
}

// appendUnit appends u/per with its fraction (digits decimals, trailing
// zeros trimmed) and the unit's name.
func appendUnit(b []byte, u, per uint64, digits int, name string) []byte {
	b = strconv.AppendUint(b, u/per, 10)
	if frac := u % per; frac != 0 {
		b = appendFraction(b, frac, digits)
	}
	return append(b, name...)
}
