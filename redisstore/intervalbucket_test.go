package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	extraPolicies[algorithms.IntervalBucket] = []algorithms.Policy{
		{Algorithm: algorithms.IntervalBucket, Capacity: 5, TokensPerFill: 2, FillInterval: 700 * time.Millisecond},
		{Algorithm: algorithms.IntervalBucket, Capacity: 5, TokensPerFill: 2, FillInterval: 700 * time.Millisecond, StartsEmpty: true},
		{Algorithm: algorithms.IntervalBucket, Capacity: 1, TokensPerFill: 1, FillInterval: 7},
		{Algorithm: algorithms.IntervalBucket, Capacity: 3, TokensPerFill: 7, FillInterval: time.Second, StartsEmpty: true},
		{Algorithm: algorithms.IntervalBucket, Capacity: 40, TokensPerFill: 3, FillInterval: time.Minute},
	}
}
