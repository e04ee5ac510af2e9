package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	extraPolicies[algorithms.RedisCell] = []algorithms.Policy{
		// max_burst left out: 0, one at a time.
		{Algorithm: algorithms.RedisCell, CountPerPeriod: 7, Period: time.Second},
		// T = 2s/3 truncated to 666666666 ns.
		{Algorithm: algorithms.RedisCell, MaxBurst: 4, CountPerPeriod: 3, Period: 2 * time.Second},
		{Algorithm: algorithms.RedisCell, MaxBurst: 50, CountPerPeriod: 1000, Period: 60 * time.Second},
	}
}
