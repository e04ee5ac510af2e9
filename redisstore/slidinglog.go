package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.SlidingLog, &script{file: "sliding-log.lua",
		args: func(p algorithms.Policy) []int64 { return []int64{p.Limit, int64(p.Window)} },
		bounds: func(p algorithms.Policy) []quantity {
			// The cost still counting is at most the limit; a request's
			// cost beside it at most the limit too (a costlier one is
			// refused before any sum).
			return []quantity{product("twice the limit", 2, p.Limit)}
		},
		caches: []string{"_sum"},
	})
}
