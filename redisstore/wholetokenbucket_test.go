package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	extraPolicies[algorithms.WholeTokenBucket] = []algorithms.Policy{
		{Algorithm: algorithms.WholeTokenBucket, Capacity: 3, Rate: algorithms.Rate{N: 7, Per: time.Second}},
		{Algorithm: algorithms.WholeTokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 3, Per: 700 * time.Millisecond}},
		{Algorithm: algorithms.WholeTokenBucket, Capacity: 1, Rate: algorithms.Rate{N: 1, Per: time.Minute}},
		{Algorithm: algorithms.WholeTokenBucket, Capacity: 40, Rate: algorithms.Rate{N: 1000, Per: 7 * time.Millisecond}},
	}
}
