package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.TokenBucket, &script{file: "token-bucket.lua",
		args: func(p algorithms.Policy) []int64 {
			per := int64(p.Rate.Per)
			initial := p.Capacity * per
			if p.StartsEmpty {
				initial = 0
			}
			return []int64{p.Capacity, p.Rate.N, per, initial}
		},
		bounds: func(p algorithms.Policy) []quantity {
			return []quantity{sum("capacity × rate period in ns, plus the rate's N",
				product("", p.Capacity, int64(p.Rate.Per)), product("", p.Rate.N))}
		},
	})
}
