package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	extraPolicies[algorithms.FloatTokenBucket] = []algorithms.Policy{
		{Algorithm: algorithms.FloatTokenBucket, Capacity: 1, Rate: algorithms.Rate{N: 10, Per: time.Second}},
		{Algorithm: algorithms.FloatTokenBucket, Capacity: 3, Rate: algorithms.Rate{N: 7, Per: time.Second}},
		{Algorithm: algorithms.FloatTokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 3, Per: 700 * time.Millisecond}},
		{Algorithm: algorithms.FloatTokenBucket, Capacity: 1000, Rate: algorithms.Rate{N: 333, Per: time.Minute}},
	}
}
