package fit

import (
	"time"

	"ratelab/algorithms"
)

// family is how fit reads one algorithm's requirement off the tracks of one
// key (see keyTracks) and writes it as a policy.
type family struct {
	alg      algorithms.Algorithm
	axis     Axis
	sizeName string
	// takes reports whether the algorithm can take rate r (ByRate only):
	// nginx takes a rate per second or per minute, redis-cell a whole
	// number of seconds as its period.
	takes func(r algorithms.Rate) bool
	// policy is the algorithm's policy of the given size at rate r or
	// window w.
	policy func(r algorithms.Rate, w time.Duration, size int64) algorithms.Policy
	// need is what key k alone needs at grid point i: the smallest size
	// refusing nothing, and for a shaper the longest wait then; ok is false
	// when no size keeps the arithmetic within its bounds.
	need func(k *keyTracks, g *grid, i int) (size int64, wait time.Duration, ok bool)
	// float says the algorithm decides in floating point (a library's own
	// arithmetic), so that need is the exact integer answer it is closest
	// to, not its own: every point of its frontier is then confirmed by
	// the real limiter, and searched by real runs where they differ.
	float bool
}

// families are the algorithms fit supports, by name.
var families = map[algorithms.Algorithm]family{
	algorithms.TokenBucket: {
		alg: algorithms.TokenBucket, axis: ByRate, sizeName: "capacity", takes: anyRate,
		policy: func(r algorithms.Rate, _ time.Duration, size int64) algorithms.Policy {
			return algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: size, Rate: r}
		},
		need: bucketNeed,
	},
	algorithms.GCRA: {
		alg: algorithms.GCRA, axis: ByRate, sizeName: "burst", takes: anyRate,
		policy: func(r algorithms.Rate, _ time.Duration, size int64) algorithms.Policy {
			return algorithms.Policy{Algorithm: algorithms.GCRA, Burst: size, Rate: r}
		},
		need: bucketNeed, // GCRA decides exactly as a token bucket of capacity burst
	},
	algorithms.LeakyBucket: {
		alg: algorithms.LeakyBucket, axis: ByRate, sizeName: "queue", takes: anyRate,
		policy: func(r algorithms.Rate, _ time.Duration, size int64) algorithms.Policy {
			return algorithms.Policy{Algorithm: algorithms.LeakyBucket, Queue: size, Rate: r}
		},
		need: func(k *keyTracks, g *grid, i int) (int64, time.Duration, bool) {
			t := &k.buckets[i]
			if t.over() {
				return 0, 0, false
			}
			// queue + 1 units may be in flight: one in the pipe.
			size := max(1, ceilDiv(t.maxBacklog, int64(g.rates[i].Per))-1)
			return size, time.Duration(ceilDiv(t.maxPre, g.rates[i].N)), true
		},
	},
	algorithms.FixedWindow: {
		alg: algorithms.FixedWindow, axis: ByWindow, sizeName: "limit",
		policy: func(_ algorithms.Rate, w time.Duration, size int64) algorithms.Policy {
			return algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: size, Window: w}
		},
		need: func(k *keyTracks, _ *grid, i int) (int64, time.Duration, bool) {
			return k.windows[i].maxCount, 0, true
		},
	},
	algorithms.SlidingLog: {
		alg: algorithms.SlidingLog, axis: ByWindow, sizeName: "limit",
		policy: func(_ algorithms.Rate, w time.Duration, size int64) algorithms.Policy {
			return algorithms.Policy{Algorithm: algorithms.SlidingLog, Limit: size, Window: w}
		},
		need: func(k *keyTracks, _ *grid, i int) (int64, time.Duration, bool) {
			return k.log.tails[i].max, 0, true
		},
	},
	algorithms.SlidingCounter: {
		alg: algorithms.SlidingCounter, axis: ByWindow, sizeName: "limit",
		policy: func(_ algorithms.Rate, w time.Duration, size int64) algorithms.Policy {
			return algorithms.Policy{Algorithm: algorithms.SlidingCounter, Limit: size, Window: w}
		},
		need: func(k *keyTracks, _ *grid, i int) (int64, time.Duration, bool) {
			return k.windows[i].maxEstimate, 0, true
		},
	},
	algorithms.NginxLimitReq: {
		alg: algorithms.NginxLimitReq, axis: ByRate, sizeName: "burst",
		takes: func(r algorithms.Rate) bool { return r.Per == time.Second || r.Per == time.Minute },
		policy: func(r algorithms.Rate, _ time.Duration, size int64) algorithms.Policy {
			return algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Burst: size, Rate: r}
		},
		need: func(k *keyTracks, g *grid, i int) (int64, time.Duration, bool) {
			t := &k.nginx[i]
			if t.over() {
				return 0, 0, false
			}
			// Without nodelay, an admitted request waits excess × 1000 /
			// rate ms, truncated: the largest excess waits longest.
			wait := time.Duration(t.maxExcess*1000/g.nginxRate[i]) * time.Millisecond
			return ceilDiv(t.maxExcess, 1000), wait, true
		},
	},
	algorithms.RedisCell: {
		alg: algorithms.RedisCell, axis: ByRate, sizeName: "max_burst",
		takes: func(r algorithms.Rate) bool {
			return r.Per%time.Second == 0 && r.N <= int64(r.Per) // period in whole seconds, T ≥ 1ns
		},
		policy: func(r algorithms.Rate, _ time.Duration, size int64) algorithms.Policy {
			return algorithms.Policy{Algorithm: algorithms.RedisCell, MaxBurst: size, CountPerPeriod: r.N, Period: r.Per}
		},
		need: func(k *keyTracks, g *grid, i int) (int64, time.Duration, bool) {
			t := &k.cells.at[i]
			if t.over() {
				return 0, 0, false
			}
			return max(0, ceilDiv(t.maxBacklog, g.cellInterval[i])-1), 0, true
		},
	},
	algorithms.XTimeRate: {
		alg: algorithms.XTimeRate, axis: ByRate, sizeName: "burst", takes: anyRate,
		policy: func(r algorithms.Rate, _ time.Duration, size int64) algorithms.Policy {
			return algorithms.Policy{Algorithm: algorithms.XTimeRate, Burst: size, Rate: r}
		},
		// The library's bucket starts full and refills at N/Per, as the
		// exact token bucket does, but in float64 seconds and tokens: at a
		// rounding edge it may need a token more or less, which the real
		// limiter's runs find.
		need:  bucketNeed,
		float: true,
	},
}

func anyRate(algorithms.Rate) bool { return true }

// bucketNeed is the token bucket's capacity and GCRA's burst: ⌈max backlog
// / Per⌉ (see bucketTrack).
func bucketNeed(k *keyTracks, g *grid, i int) (int64, time.Duration, bool) {
	t := &k.buckets[i]
	if t.over() {
		return 0, 0, false
	}
	return ceilDiv(t.maxBacklog, int64(g.rates[i].Per)), 0, true
}
