package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.FixedWindow, &script{file: "fixed-window.lua",
		args: func(p algorithms.Policy) []int64 { return []int64{p.Limit, int64(p.Window)} },
		// Counts stay at most limit + cost ≤ 2^41 and every other number
		// is a time, which Check bounds.
		bounds: func(algorithms.Policy) []quantity { return nil },
	})
}
