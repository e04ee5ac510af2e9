package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	extraPolicies[algorithms.SlidingLog] = []algorithms.Policy{
		{Algorithm: algorithms.SlidingLog, Limit: 1, Window: 700 * time.Millisecond},
		{Algorithm: algorithms.SlidingLog, Limit: 7, Window: time.Second},
		{Algorithm: algorithms.SlidingLog, Limit: 3, Window: 700*time.Millisecond + 3},
		{Algorithm: algorithms.SlidingLog, Limit: 120, Window: time.Minute},
	}
}
