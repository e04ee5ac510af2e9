package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	fw := func(limit int64, window time.Duration) algorithms.Policy {
		return algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: limit, Window: window}
	}
	extraPolicies[algorithms.FixedWindow] = []algorithms.Policy{
		fw(7, time.Second),
		fw(3, 700*time.Millisecond),
		fw(1, 3),                    // a window of 3ns: every request rolls
		fw(2, time.Millisecond),     // tiny
		fw(1000, 24*time.Hour),      // large
		fw(1<<40, time.Millisecond), // the largest limit
	}
}
