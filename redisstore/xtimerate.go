package redisstore

import "ratelab/algorithms"

func init() {
	s := &script{file: "x-time-rate.lua", libs: []string{"wide.lua"},
		args: func(p algorithms.Policy) []int64 {
			reserve := int64(0)
			if p.Algorithm == algorithms.XTimeRateReserve {
				reserve = 1
			}
			return []int64{p.Burst, p.Rate.N, int64(p.Rate.Per), int64(p.MaxWait), reserve}
		},
		// The waits are kept as pairs (whole seconds, µs) in the script,
		// exact to 2^63; what stays a plain number is a time, the rate's
		// N and its period (the float rate is made of them).
		bounds: func(p algorithms.Policy) []quantity {
			return []quantity{product("the rate's N", p.Rate.N), product("the rate's period in ns", int64(p.Rate.Per))}
		},
	}
	register(algorithms.XTimeRate, s)
	register(algorithms.XTimeRateReserve, s)
}
