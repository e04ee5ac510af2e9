package algorithms

import (
	"strconv"
	"strings"
	"time"
)

// appendf appends format to b with each verb replaced by the next argument,
// as fmt.Appendf would for the few verbs and types the explanations use,
// but without allocating: the arguments do not escape, so neither the
// argument slice nor the values boxed into it reach the heap.
//
// The verbs are %d and %s, both meaning "the argument's text": an int64,
// int, uint64 or time.Duration in decimal (as %d), a string as it is, a
// Rate as Rate.String, and the argument types below (secs, flt, exactN,
// instSecs, lateArg, retryArg, milli, pluralArg, estTerms, shortfall) as
// their append methods say. "%%" is not supported; an argument of another type appends
// "%!(BADTYPE)" and a verb without an argument "%!(MISSING)", so a mistake
// shows in the text (and in the goldens) instead of panicking.
func appendf(b []byte, t Times, format string, args ...any) []byte {
	for _, a := range args {
		i := verbAt(format)
		if i < 0 {
			break
		}
		b = append(b, format[:i]...)
		format = format[i+2:]
		b = appendArg(b, a, t)
	}
	if i := verbAt(format); i >= 0 {
		b = append(b, format[:i]...)
		return append(b, "%!(MISSING)"...)
	}
	return append(b, format...)
}

// verbAt is the index of format's first verb ("%" and one letter), or -1.
func verbAt(format string) int {
	if i := strings.IndexByte(format, '%'); i >= 0 && i+1 < len(format) {
		return i
	}
	return -1
}

// appendArg appends one argument's text (see appendf), its times in form t.
// It switches on concrete types only: a call through an interface would
// make its argument escape.
func appendArg(b []byte, a any, t Times) []byte {
	switch v := a.(type) {
	case string:
		return append(b, v...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case uint64:
		return strconv.AppendUint(b, v, 10)
	case time.Duration:
		return strconv.AppendInt(b, int64(v), 10)
	case flt:
		return AppendFloat(b, float64(v))
	case Rate:
		return v.appendTo(b)
	case secs:
		return t.seconds(b, time.Duration(v))
	case exactN:
		return v.appendTo(b)
	case instSecs:
		return v.appendTo(b, t)
	case lateArg:
		return v.appendTo(b)
	case retryArg:
		return v.appendTo(b)
	case milli:
		return AppendNginxMilli(b, int64(v))
	case pluralArg:
		return v.appendTo(b)
	case estTerms:
		return v.appendTo(b)
	case shortfall:
		return v.appendTo(b)
	}
	return append(b, "%!(BADTYPE)"...)
}

// flt is a float64 written as FormatFloat writes it.
type flt float64

// secs is a time or duration written as FormatSeconds writes it, or in
// the form appendf is given (Times).
type secs time.Duration

// exactN is num/den written as exactish writes it.
type exactN struct {
	num uint64
	den int64
}

// exact is num/den (num ≥ 0, den > 0) for appendf, as exactish writes it.
func exact(num, den int64) exactN { return exactN{uint64(num), den} }

func (e exactN) appendTo(b []byte) []byte { return appendExactish(b, e.num, e.den) }

// instSecs is an instant in units of 1/den ns written as instantSeconds
// writes it.
type instSecs struct {
	t   instant
	den int64
}

func (s instSecs) appendTo(b []byte, t Times) []byte { return appendInstantSeconds(b, s.t, s.den, t) }

// gridSecs is units/den nanoseconds for appendf, as gridSeconds writes it.
func gridSecs(units, den int64) instSecs { return instSecs{instant{}.add(units, den), den} }

// milli is nginx's thousandths written as NginxMilli writes them.
type milli int64

// pluralArg is "1 member" or "3 members" (see plural).
type pluralArg struct {
	n    int64
	word string
}

func (p pluralArg) appendTo(b []byte) []byte {
	b = strconv.AppendInt(b, p.n, 10)
	b = append(b, ' ')
	b = append(b, p.word...)
	if p.n != 1 {
		b = append(b, 's')
	}
	return b
}

// appendInt appends n in decimal.
func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }
