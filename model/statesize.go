package model

import (
	"strconv"
	"time"

	"ratelab/fleet"
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

// ExpiredAt is when lane's store dropped key's state for being idle past
// its expiry, if it has by the clock and no request touched the key since:
// its state is then a new key's, as Snapshot shows it. ok is false for a
// lane that expires nothing.
func (l *Lab) ExpiredAt(lane int, key string) (at time.Duration, ok bool) {
	if f, is := l.clock.limiter(lane).(*fleet.Limiter); is {
		return f.ExpiredAt(l.clock.now, key)
	}
	return 0, false
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
