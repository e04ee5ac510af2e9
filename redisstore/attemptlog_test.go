package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	extraPolicies[algorithms.AttemptLog] = []algorithms.Policy{
		{Algorithm: algorithms.AttemptLog, Limit: 1, Window: 700 * time.Millisecond},
		{Algorithm: algorithms.AttemptLog, Limit: 7, Window: time.Second},
		{Algorithm: algorithms.AttemptLog, Limit: 3, Window: 700*time.Millisecond + 3},
		{Algorithm: algorithms.AttemptLog, Limit: 120, Window: time.Minute},
	}
}
