package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.AttemptLog, &script{file: "attempt-log.lua",
		args: func(p algorithms.Policy) []int64 { return []int64{p.Limit, int64(p.Window)} },
		bounds: func(p algorithms.Policy) []quantity {
			// The attempts' cost has no bound (every retry adds to it):
			// the script keeps only the newest run of attempts costing
			// at most the limit (_cut, _suf), and no sum it makes passes
			// twice the limit.
			return []quantity{product("twice the limit", 2, p.Limit)}
		},
		caches: []string{"_cut", "_suf"},
	})
}
