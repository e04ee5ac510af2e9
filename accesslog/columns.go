package accesslog

import (
	"fmt"
	"time"
)

// readTime reads the time value raw of the key or column key, written as
// unit says (columns.unit), into nanoseconds. *res, when 0, is set to the
// resolution this first value shows: an epoch count's unit, or an RFC 3339
// time's fraction (none: a second; up to 3 digits: a millisecond; up to 6:
// a microsecond; more: a nanosecond).
func readTime(raw []byte, key string, unit int64, res *time.Duration) (int64, error) {
	switch unit {
	case unitRFC3339:
		t, frac, ok := parseRFC3339(raw)
		if !ok {
			return 0, fmt.Errorf("%s %s is not an RFC 3339 time", key, quoteValue(raw))
		}
		setResolution(res, fracResolution(frac))
		return t, nil
	case 0:
		if _, _, ok := splitDecimal(raw); ok {
			t, used, ok := parseEpoch(raw, 0)
			if !ok {
				return 0, fmt.Errorf("%s %s is too large for a time", key, quoteValue(raw))
			}
			setResolution(res, time.Duration(used))
			return t, nil
		}
		t, frac, ok := parseRFC3339(raw)
		if !ok {
			return 0, fmt.Errorf("%s %s is neither an RFC 3339 time nor a number", key, quoteValue(raw))
		}
		setResolution(res, fracResolution(frac))
		return t, nil
	}
	t, _, ok := parseEpoch(raw, unit)
	if !ok {
		return 0, fmt.Errorf("%s %s is not a number of %s", key, quoteValue(raw), unitNames[unit])
	}
	return t, nil
}

var unitNames = map[int64]string{unitSecond: "seconds", unitMillisecond: "milliseconds", unitMicrosecond: "microseconds", unitNanosecond: "nanoseconds"}

func setResolution(res *time.Duration, d time.Duration) {
	if *res == 0 {
		*res = d
	}
}

// fracResolution is the step of an RFC 3339 time with frac fraction digits.
func fracResolution(frac int) time.Duration {
	switch {
	case frac == 0:
		return time.Second
	case frac <= 3:
		return time.Millisecond
	case frac <= 6:
		return time.Microsecond
	}
	return time.Nanosecond
}

// statusValue reads a JSON or CSV status: one to three digits.
func statusValue(raw []byte) (int, error) {
	n, ok := parseStatus(raw)
	if !ok {
		return 0, fmt.Errorf("status %s is not a number", quoteValue(raw))
	}
	return n, nil
}
