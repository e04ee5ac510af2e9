package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.ResettingWindow, &script{file: "resetting-window.lua",
		args: func(p algorithms.Policy) []int64 { return []int64{p.Limit, int64(p.Window)} },
		// Every number is a time, which Check bounds, or the count, which
		// grows by each attempt's cost while the key lives: the script
		// fails the store, naming it, if it would reach 2^53 (the memory
		// limiter saturates it at 2^62).
		bounds: func(algorithms.Policy) []quantity { return nil },
	})
}
