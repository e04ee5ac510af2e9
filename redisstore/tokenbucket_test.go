package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	extraPolicies[algorithms.TokenBucket] = []algorithms.Policy{
		{Algorithm: algorithms.TokenBucket, Capacity: 3, Rate: algorithms.Rate{N: 7, Per: time.Second}, StartsEmpty: true},
		{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 3, Per: 700 * time.Millisecond}},
	}
}
