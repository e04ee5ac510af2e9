package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	extraPolicies[algorithms.EnvoyLocal] = []algorithms.Policy{
		{Algorithm: algorithms.EnvoyLocal, MaxTokens: 5, TokensPerFill: 3, FillInterval: 700 * time.Millisecond},
		{Algorithm: algorithms.EnvoyLocal, MaxTokens: 5, TokensPerFill: 3, FillInterval: 700 * time.Millisecond, Timer: true},
		{Algorithm: algorithms.EnvoyLocal, MaxTokens: 1, TokensPerFill: 1, FillInterval: 50 * time.Millisecond},
		{Algorithm: algorithms.EnvoyLocal, MaxTokens: 1, TokensPerFill: 1, FillInterval: 50 * time.Millisecond, Timer: true},
		{Algorithm: algorithms.EnvoyLocal, MaxTokens: 3, TokensPerFill: 7, FillInterval: time.Second},
		{Algorithm: algorithms.EnvoyLocal, MaxTokens: 40, TokensPerFill: 7, FillInterval: time.Minute, Timer: true},
	}
}
