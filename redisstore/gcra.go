package redisstore

import "ratelab/algorithms"

// gcraArgs are gcra.lua's: burst, the rate's n and its period in ns.
func gcraArgs(p algorithms.Policy) []int64 { return []int64{p.Burst, p.Rate.N, int64(p.Rate.Per)} }

// gcraBounds: the script computes (burst − cost) × per and cost × per, at
// most burst × per, in units of 1/n ns.
func gcraBounds(p algorithms.Policy) []quantity {
	return []quantity{product("burst × rate period in ns", p.Burst, int64(p.Rate.Per))}
}

func init() {
	register(algorithms.GCRA, &script{file: "gcra.lua", args: gcraArgs, bounds: gcraBounds})
}
