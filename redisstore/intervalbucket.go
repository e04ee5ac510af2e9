package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.IntervalBucket, &script{file: "interval-bucket.lua",
		args: func(p algorithms.Policy) []int64 {
			initial := p.Capacity
			if p.StartsEmpty {
				initial = 0
			}
			return []int64{p.Capacity, p.TokensPerFill, int64(p.FillInterval), initial}
		},
		// Whole tokens: the balance and a fill stay within capacity plus
		// tokens_per_fill; the fill instants are times.
		bounds: func(p algorithms.Policy) []quantity {
			return []quantity{sum("capacity plus tokens_per_fill", product("", p.Capacity), product("", p.TokensPerFill))}
		},
	})
}
