package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.FirstHitWindow, &script{file: "first-hit-window.lua",
		args: func(p algorithms.Policy) []int64 { return []int64{p.Limit, int64(p.Window)} },
		// Every number is a time, which Check bounds, or the count, which
		// grows by each request's cost within a window: the script fails
		// the store, naming it, if it would reach 2^53 (the memory limiter
		// saturates it at 2^62).
		bounds: func(algorithms.Policy) []quantity { return nil },
	})
}
