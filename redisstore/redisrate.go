package redisstore

import "ratelab/algorithms"

// redis_rate's AllowN is a GCRA: the lane runs gcra.lua with its rate and
// burst (redis_rate's own script computes in double seconds; ratelab's
// decides exactly, as the lane in memory does).
func init() {
	register(algorithms.RedisRate, &script{file: "gcra.lua", args: gcraArgs, bounds: gcraBounds})
}
