package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.EnvoyLocal, &script{file: "envoy-local.lua",
		args: func(p algorithms.Policy) []int64 {
			timer := int64(0)
			if p.Timer {
				timer = 1
			}
			return []int64{p.MaxTokens, p.TokensPerFill, int64(p.FillInterval), timer}
		},
		bounds: func(p algorithms.Policy) []quantity {
			if p.Timer {
				return []quantity{sum("max_tokens plus tokens_per_fill", product("", p.MaxTokens), product("", p.TokensPerFill))}
			}
			return []quantity{sum("max_tokens × fill_interval in ns, plus tokens_per_fill",
				product("", p.MaxTokens, int64(p.FillInterval)), product("", p.TokensPerFill))}
		},
		// The token bucket's, and with timer the timer bucket's.
		forms: []algorithms.StateForm{
			algorithms.Policy{Algorithm: algorithms.EnvoyLocal}.StateForm(),
			algorithms.Policy{Algorithm: algorithms.EnvoyLocal, Timer: true}.StateForm(),
		},
	})
}
