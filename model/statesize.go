package model

import (
	"strconv"
)

// KeyStateBytes is the size of lane's state for key at the clock, in bytes:
// the fixed part every key has, plus what the key must still keep at Now
// (a sliding log's admissions inside its window, a leaky bucket's waiting
// requests, a sub-window counter's counts). See algorithms.Limiter.KeyBytes
// for exactly what is counted. A key never seen is measured in its initial
// state.
func (l *Lab) KeyStateBytes(lane int, key string) int64 {
	return l.clock.limiter(lane).KeyBytes(l.clock.now, l.clock.key(key))
}

// FormatBytes writes a size for people: "48 B", "2.4 KiB", "281.3 KiB",
// "1.2 MiB" (1 KiB = 1024 B), with one decimal from a KiB on.
func FormatBytes(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1024*1024:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + " MiB"
}
