package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.WholeTokenBucket, &script{file: "whole-token-bucket.lua",
		args: func(p algorithms.Policy) []int64 {
			return []int64{p.Capacity, p.Rate.N, int64(p.Rate.Per)}
		},
		bounds: func(p algorithms.Policy) []quantity {
			return []quantity{sum("capacity × rate period in ns, plus the rate's N",
				product("", p.Capacity, int64(p.Rate.Per)), product("", p.Rate.N))}
		},
	})
}
