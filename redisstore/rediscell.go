package redisstore

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	register(algorithms.RedisCell, &script{file: "redis-cell.lua",
		args: func(p algorithms.Policy) []int64 {
			return []int64{p.MaxBurst, p.CountPerPeriod, int64(p.Period)}
		},
		bounds: func(p algorithms.Policy) []quantity {
			t := int64(p.Period / time.Duration(p.CountPerPeriod))
			return []quantity{
				product("the period in ns", int64(p.Period)),
				product("(max_burst + 1) × the emission interval in ns", p.MaxBurst+1, t),
			}
		},
	})
}
