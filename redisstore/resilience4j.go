package redisstore

import "ratelab/algorithms"

// resilience4j keeps its limiter in the JVM, not in Redis: the script
// decides as AtomicRateLimiter does, so that --store keeps every lane's
// state in Redis with the same decisions.
func init() {
	register(algorithms.Resilience4j, &script{file: "resilience4j.lua",
		args: func(p algorithms.Policy) []int64 {
			return []int64{p.LimitForPeriod, int64(p.LimitRefreshPeriod), int64(p.TimeoutDuration)}
		},
		// Every number is a time, which Check bounds, or permissions, a
		// Java int (Validate keeps them within ±2^31).
		bounds: func(algorithms.Policy) []quantity { return nil },
	})
}
