package algorithms

import (
	"bytes"
	"encoding/binary"
	"time"
)

// Times is how an explanation writes its times and durations
// (Decision.AppendExplainTimes). Every form comes from the same explain
// function: only the writing of each time differs.
type Times uint8

const (
	// ExactTimes writes every nanosecond ("60.099166666s"): the command
	// line's text, whose equations compute to the nanosecond.
	ExactTimes Times = iota
	// ScreenTimes writes times as the explorer's screen writes them
	// (AppendScreenSeconds): to the millisecond, "≈60.099s", so that an
	// explanation agrees with the clock above it; with more decimals, for
	// every time of the explanation, where two of its times a microsecond
	// or more apart would otherwise read the same ("1s − ≈0.9997s", not
	// "1s − ≈1s"). It is TimesAt(3).
	ScreenTimes
)

// TimesAt is the form that writes an explanation's times as AppendSecondsAt
// does at the given decimals (3 to 9; fewer are 3, more 9), or at more,
// for every time of the explanation, where two of its times a microsecond
// or more apart would otherwise read the same (as ScreenTimes does from 3).
// TimesAt(9) is ExactTimes: a screen whose instants need every digit
// writes its explanations as the command line does.
func TimesAt(decimals int) Times {
	if decimals >= 9 {
		return ExactTimes
	}
	return Times(max(decimals, 3) - 2)
}

// least is the fewest decimals form t (not ExactTimes) writes its times
// with.
func (t Times) least() int { return int(t) + 2 }

// A time mark is timeMark, the time's nanoseconds (8 bytes, little endian)
// and a byte of flags. A zero byte is never in an explanation's text (it is
// UTF-8 words and numbers), so the marks are found with no doubt.
const (
	timeMark    = 0
	timeMarkLen = 10
	// markNear flags a time that is itself the nearest nanosecond of a
	// fraction of one (instantSeconds' "≈").
	markNear = 1
)

// appendTimeMark is not inlined into Times.seconds, which the command
// line's exact path calls for every time it writes.
//
//go:noinline
func appendTimeMark(b []byte, d time.Duration, near bool) []byte {
	b = binary.LittleEndian.AppendUint64(append(b, timeMark), uint64(d))
	if near {
		return append(b, markNear)
	}
	return append(b, 0)
}

// maxMarks bounds the times an explanation's decimals are chosen over; one
// with more (a stack of many layers) is written with every nanosecond.
const maxMarks = 64

// rewriteTimes replaces the time marks of b[start:] with their text, with
// the fewest decimals, from least, at which no two of its times read the
// same (collide). It appends the text after b's end, then moves it down to
// start: a reused buffer that has grown once allocates nothing.
func rewriteTimes(b []byte, start, least int) []byte {
	tail := b[start:]
	var ts [maxMarks]time.Duration
	var near [maxMarks]bool
	n := 0
	for i := 0; ; {
		j := bytes.IndexByte(tail[i:], timeMark)
		if j < 0 {
			break
		}
		i += j
		if n < maxMarks {
			ts[n] = time.Duration(binary.LittleEndian.Uint64(tail[i+1:]))
			near[n] = tail[i+9]&markNear != 0
		}
		n++
		i += timeMarkLen
	}
	if n == 0 {
		return b
	}
	decimals := 9
	if n <= maxMarks {
		decimals = least
		for decimals < 9 && collide(ts[:n], near[:n], decimals) {
			decimals++
		}
	}
	end := len(b)
	for i := start; i < end; {
		j := bytes.IndexByte(b[i:end], timeMark)
		if j < 0 {
			b = append(b, b[i:end]...)
			break
		}
		b = append(b, b[i:i+j]...)
		i += j
		d := time.Duration(binary.LittleEndian.Uint64(b[i+1:]))
		b = appendRoundSeconds(b, d, b[i+9]&markNear != 0, decimals)
		i += timeMarkLen
	}
	return b[:start+copy(b[start:], b[end:])]
}

// collide reports whether two times of ts a microsecond or more apart read
// the same at the given decimals. Times closer than that are one to a
// learner: the nanosecond a division rounds up (a retry of 0.333333334s
// beside a T of ≈0.333333333s) must not make a whole text exact.
func collide(ts []time.Duration, near []bool, decimals int) bool {
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			apart := ts[i] - ts[j]
			if apart < 0 {
				apart = -apart
			}
			if apart >= time.Microsecond && shownAs(ts[i], near[i], decimals) == shownAs(ts[j], near[j], decimals) {
				return true
			}
		}
	}
	return false
}

// unitAt is the nanoseconds of the last of the given decimals of a second.
func unitAt(decimals int) time.Duration { return time.Duration(pow10[9-min(decimals, 9)]) }

// decimalsFor is the decimals d is written at, at the given ones: those
// for a millisecond or more; under one, at least those of its three first
// significant digits ("≈0.000833s", not "0.000833333s" nor "≈0.001s"), so
// that a duration under a millisecond reads with the digits it needs
// (never "≈0s"), and two a microsecond or more apart never read the same.
func decimalsFor(d time.Duration, decimals int) int {
	if d < 0 {
		d = -d // math.MinInt64 stays negative: written whole, below
	}
	switch {
	case d >= time.Millisecond:
		return decimals
	case d >= 100*time.Microsecond:
		return max(decimals, 6)
	case d >= 10*time.Microsecond:
		return max(decimals, 7)
	case d >= time.Microsecond:
		return max(decimals, 8)
	}
	return 9
}

// shownAs is the value appendRoundSeconds writes for d: d itself when it
// is written exactly, else d rounded to its decimals (decimalsFor).
func shownAs(d time.Duration, near bool, decimals int) time.Duration {
	if exactAt(d, near, decimals) {
		return d
	}
	return d.Round(unitAt(decimalsFor(d, decimals)))
}

// exactAt reports whether d is written with every digit at the given
// decimals: it has no more than decimalsFor gives it, or it is under a
// second and a whole number of microseconds (a step of 1.5ms reads
// "0.0015s", 0.5ms "0.0005s").
func exactAt(d time.Duration, near bool, decimals int) bool {
	if near {
		return false
	}
	small := d > -time.Second && d < time.Second
	return d%unitAt(decimalsFor(d, decimals)) == 0 || small && d%time.Microsecond == 0
}

// AppendSecondsAt appends a time or a duration d at the given decimals (3
// to 9): exactly when it has no more, or it is under a second and a whole
// number of microseconds ("0.0015s"); else "≈" and d rounded to them,
// halves away from zero ("≈60.0992s" at 4); under a millisecond, to its
// three first significant digits if the decimals hold fewer
// ("≈0.000833s" at 3, and "0.000000001s": a nanosecond still shows). The
// explorer writes a screen's every time at one number of decimals so; its
// explanations in TimesAt the same.
func AppendSecondsAt(b []byte, d time.Duration, decimals int) []byte {
	return appendRoundSeconds(b, d, false, decimals)
}

// SecondsAt is the value AppendSecondsAt writes for d at the decimals:
// two times read the same exactly when their SecondsAt are equal.
func SecondsAt(d time.Duration, decimals int) time.Duration {
	return shownAs(d, false, decimals)
}

// AppendQuantitySecondsAt appends a duration held as a Quantity of
// nanoseconds (GCRA's T at 1200/s, 833,333⅓ns) as AppendSecondsAt does at
// the decimals: a whole number of nanoseconds as it writes one, any other
// as its nearest (halves up), never exact ("≈0.000833s"; "≈0.0000003s" at
// 1000/3 ns).
func AppendQuantitySecondsAt(b []byte, q Quantity, decimals int) []byte {
	if q.Den <= 0 { // stands for 0
		return AppendSecondsAt(b, 0, decimals)
	}
	ns, rem := q.Num/q.Den, q.Num%q.Den // Num ≥ 0
	if rem == 0 {
		return AppendSecondsAt(b, time.Duration(ns), decimals)
	}
	return appendRoundSeconds(b, time.Duration(nearest(ns, rem, q.Den)), true, decimals)
}

// appendRoundSeconds is AppendSecondsAt, with near marking d as the
// nearest nanosecond of a fraction of one, which is never exact.
func appendRoundSeconds(b []byte, d time.Duration, near bool, decimals int) []byte {
	if exactAt(d, near, decimals) {
		return AppendSeconds(b, d)
	}
	return AppendSeconds(append(b, "≈"...), d.Round(unitAt(decimalsFor(d, decimals)))) // shownAs, exactAt known false
}

// AppendScreenSeconds appends d as the explorer's screen writes a time or a
// duration: exactly when it is a whole number of milliseconds ("59.9s",
// "0.25s"), or under a second and a whole number of microseconds
// ("0.0015s"); under a millisecond to its three first significant digits
// ("≈0.000833s", "0.000000001s": a nanosecond still shows); else to the
// millisecond with "≈" ("≈59.999s"), since the nine decimals of
// AppendSeconds do not fit a lane. An explanation in ScreenTimes writes
// its times so too.
func AppendScreenSeconds(b []byte, d time.Duration) []byte {
	return AppendSecondsAt(b, d, 3)
}

// AppendExplainTimes is AppendExplain with its times written in form t:
// AppendExplain(b) is AppendExplainTimes(b, ExactTimes), byte for byte. It
// allocates nothing unless b must grow (for another form, by the text's
// length once more while its times are written).
func (d Decision) AppendExplainTimes(b []byte, t Times) []byte {
	d.times = t
	if t == ExactTimes {
		return d.AppendExplain(b)
	}
	start := len(b)
	return rewriteTimes(d.AppendExplain(b), start, t.least())
}
