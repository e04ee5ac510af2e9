package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.AttemptLog, &script{file: "attempt-log.lua",
		args: func(p algorithms.Policy) []int64 { return []int64{p.Limit, int64(p.Window)} },
		bounds: func(p algorithms.Policy) []quantity {
			// The script's sums of costs stop at twice the limit: the
			// attempts' cost, unbounded, is summed only while it is
			// within the limit.
			return []quantity{product("twice the limit", 2, p.Limit)}
		},
	})
}
