package redisstore

import "ratelab/algorithms"

func init() {
	register(algorithms.NginxLimitReq, &script{file: "nginx-limit-req.lua",
		args: func(p algorithms.Policy) []int64 {
			delay := p.Delay
			if p.NoDelay {
				delay = -1
			}
			return []int64{algorithms.NginxRateMilli(p.Rate), p.Burst, delay}
		},
		bounds: func(p algorithms.Policy) []quantity {
			// rate × the elapsed ms (cut at the drain time), the need × 1000
			// of a rejection and the excess × 1000 of a delay are each at
			// most (burst + 1) × 10^6 plus the rate.
			return []quantity{sum("(burst + 1) × 10^6 plus the rate in thousandths of a request a second",
				product("", p.Burst+1, 1000*1000), product("", algorithms.NginxRateMilli(p.Rate)))}
		},
	})
}
