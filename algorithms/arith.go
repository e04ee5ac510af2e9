package algorithms

import (
	"math/bits"
	"time"
)

// maxScaled bounds every product the limiters keep (a capacity times a rate's
// period, a limit times a window): 2^62 leaves room to add two of them.
const maxScaled = 1 << 62

// MaxCount bounds limits, capacities, bursts, queues and costs: 2^40.
const MaxCount = 1 << 40

// mulFits reports whether a*b (both non-negative) fits in maxScaled.
func mulFits(a, b int64) bool {
	if a < 0 || b < 0 {
		return false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return hi == 0 && lo <= maxScaled
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// floorDiv is ⌊a/b⌋ for b > 0 and any a.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// instant is an exact point in time, ns + frac/den nanoseconds, where den is
// the owning policy's Rate.N and 0 ≤ frac < den. GCRA's theoretical arrival
// time and the leaky bucket's next free slot live on this grid because an
// emission interval Per/N is rarely a whole number of nanoseconds.
type instant struct {
	ns, frac int64
}

// add returns t + d/den nanoseconds, for d ≥ 0.
func (t instant) add(d, den int64) instant {
	t.ns += d / den
	t.frac += d % den
	if t.frac >= den {
		t.ns++
		t.frac -= den
	}
	return t
}

// sub returns t − d/den nanoseconds, for d ≥ 0.
func (t instant) sub(d, den int64) instant {
	t.ns -= d / den
	t.frac -= d % den
	if t.frac < 0 {
		t.ns--
		t.frac += den
	}
	return t
}

// before reports whether t < u.
func (t instant) before(u instant) bool {
	return t.ns < u.ns || (t.ns == u.ns && t.frac < u.frac)
}

// max2 is the later of two instants.
func max2(a, b instant) instant {
	if a.before(b) {
		return b
	}
	return a
}

// ceil rounds t up to a whole nanosecond.
func (t instant) ceil() int64 {
	if t.frac > 0 {
		return t.ns + 1
	}
	return t.ns
}

// minus returns t − u as an exact (ns, frac) difference; t ≥ u.
func (t instant) minus(u instant, den int64) instant {
	return instant{ns: t.ns - u.ns, frac: t.frac}.sub(u.frac, den)
}

// at is the instant of a whole nanosecond.
func at(ns time.Duration) instant { return instant{ns: int64(ns)} }

// scaled is t in units of 1/den ns, for an instant known to be small (a
// difference bounded by a policy's size × period, so at most 2^62 units).
func (t instant) scaled(den int64) int64 { return t.ns*den + t.frac }

// instantSeconds writes t as seconds: exactly when t is a whole nanosecond,
// else "≈" and the nearest nanosecond (halves rounded up).
func instantSeconds(t instant, den int64) string {
	return string(appendInstantSeconds(nil, t, den, ExactTimes))
}

// appendInstantSeconds appends instantSeconds(t, den) to b, or in the form
// tf (Times: ScreenTimes rounds it further, still with its "≈").
func appendInstantSeconds(b []byte, t instant, den int64, tf Times) []byte {
	if t.frac == 0 {
		return tf.seconds(b, time.Duration(t.ns))
	}
	ns := nearest(t.ns, t.frac, den)
	if tf != ExactTimes {
		return appendTimeMark(b, time.Duration(ns), true)
	}
	return AppendSeconds(append(b, "≈"...), time.Duration(ns))
}

// nearest is whole + rem/den (0 ≤ rem < den) to the nearest whole, halves
// rounded up: the nearest nanosecond a time or a duration is written as
// when it falls between two.
func nearest(whole, rem, den int64) int64 {
	if rem >= den-rem { // 2 × rem ≥ den, without overflow
		whole++
	}
	return whole
}

// gridSeconds writes units/den nanoseconds (units ≥ 0) as seconds, like
// instantSeconds.
func gridSeconds(units, den int64) string {
	return instantSeconds(instant{}.add(units, den), den)
}
