package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	s := &script{file: "guava.lua", libs: []string{"wide.lua"},
		args: func(p algorithms.Policy) []int64 {
			interval, maxPermits := algorithms.GuavaDoubles(p)
			threshold, slope, coolDown, maxCost := algorithms.GuavaWarmupDoubles(p)
			im, ie := algorithms.FloatParts(interval)
			mm, me := algorithms.FloatParts(maxPermits)
			tm, te := algorithms.FloatParts(threshold)
			sm, se := algorithms.FloatParts(slope)
			cm, ce := algorithms.FloatParts(coolDown)
			try, warm := int64(0), int64(0)
			switch p.Algorithm {
			case algorithms.GuavaTry:
				try = 1
			case algorithms.GuavaWarmup:
				warm = 1
			}
			return []int64{maxCost, im, ie, mm, me, int64(p.Timeout / time.Microsecond), try,
				warm, tm, te, sm, se, cm, ce}
		},
		// nextFree and the waits are kept as pairs (whole seconds, µs) in
		// the script, exact to 2^63; what stays a plain number is a time,
		// or the stopwatch's µs plus the timeout, or the µs stored permits
		// cost the warm-up lane (at most 1.5 × its warm-up period, which
		// is at most 2^62 ns: below 2^53 µs).
		bounds: func(p algorithms.Policy) []quantity {
			return []quantity{product("the timeout in ns", int64(p.Timeout))}
		},
	}
	register(algorithms.Guava, s)
	register(algorithms.GuavaTry, s)
	register(algorithms.GuavaWarmup, s)
}
