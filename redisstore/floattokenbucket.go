package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.FloatTokenBucket, &script{file: "float-token-bucket.lua", libs: []string{"wide.lua"},
		args: func(p algorithms.Policy) []int64 {
			return []int64{p.Capacity, p.Rate.N, int64(p.Rate.Per)}
		},
		bounds: func(p algorithms.Policy) []quantity {
			// The exact balance reaches from −full/2 to full: a refill's
			// gap is at most 3/2 full, plus n.
			return []quantity{sum("3/2 × capacity × rate period in ns, plus the rate's N",
				product("", p.Capacity, int64(p.Rate.Per)), product("", p.Capacity*int64(p.Rate.Per)/2), product("", p.Rate.N))}
		},
	})
}
