package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	s := &script{file: "guava.lua", libs: []string{"wide.lua"},
		args: func(p algorithms.Policy) []int64 {
			interval, maxPermits := algorithms.GuavaDoubles(p)
			im, ie := algorithms.FloatParts(interval)
			mm, me := algorithms.FloatParts(maxPermits)
			try := int64(0)
			if p.Algorithm == algorithms.GuavaTry {
				try = 1
			}
			return []int64{algorithms.MaxCount, im, ie, mm, me, int64(p.Timeout / time.Microsecond), try}
		},
		// nextFree and the waits are kept as pairs (whole seconds, µs) in
		// the script, exact to 2^63; what stays a plain number is a time,
		// or the stopwatch's µs plus the timeout.
		bounds: func(p algorithms.Policy) []quantity {
			return []quantity{product("the timeout in ns", int64(p.Timeout))}
		},
	}
	register(algorithms.Guava, s)
	register(algorithms.GuavaTry, s)
}
