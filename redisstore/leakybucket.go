package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.LeakyBucket, &script{file: "leaky-bucket.lua",
		args: func(p algorithms.Policy) []int64 {
			return []int64{p.Queue, p.Rate.N, int64(p.Rate.Per)}
		},
		// The longest step on the grid is (queue + 1) × I, in 1/N ns; a
		// fraction below N is added to it.
		bounds: func(p algorithms.Policy) []quantity {
			return []quantity{sum("(queue + 1) × rate period in ns, plus the rate's N",
				product("", p.Queue+1, int64(p.Rate.Per)), product("", p.Rate.N))}
		},
	})
}
