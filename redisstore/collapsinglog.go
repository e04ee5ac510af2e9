package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.CollapsingLog, &script{file: "collapsing-log.lua",
		args: func(p algorithms.Policy) []int64 { return []int64{p.Limit, int64(p.Window)} },
		bounds: func(p algorithms.Policy) []quantity {
			// The members' cost still counting is at most the limit; a
			// request's cost beside it at most the limit too (a costlier
			// one is refused before any sum). The counts of admissions
			// grow by one a request.
			return []quantity{product("twice the limit", 2, p.Limit)}
		},
		caches: []string{"_sum"},
	})
}
