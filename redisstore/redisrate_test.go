package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	extraPolicies[algorithms.RedisRate] = []algorithms.Policy{
		{Algorithm: algorithms.RedisRate, Burst: 1, Rate: algorithms.Rate{N: 7, Per: time.Second}},
		{Algorithm: algorithms.RedisRate, Burst: 3, Rate: algorithms.Rate{N: 3, Per: 700 * time.Millisecond}},
		{Algorithm: algorithms.RedisRate, Burst: 100, Rate: algorithms.Rate{N: 100, Per: time.Minute}},
	}
}
