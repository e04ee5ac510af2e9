package ui

import (
	"time"

	"ratelab/algorithms"
)

func init() {
	pictureCases = append(pictureCases,
		pictureCase{algorithms.IntervalBucket, "{name: lumps, algorithm: interval-bucket, capacity: 10, tokens_per_fill: 2, fill_interval: 1s}", 1500 * time.Millisecond, "next +2"},
		pictureCase{algorithms.EnvoyLocal, "{name: envoy, algorithm: envoy-local, max_tokens: 10, tokens_per_fill: 2, fill_interval: 1s}", 1500 * time.Millisecond, "max_tokens"},
		pictureCase{algorithms.EnvoyLocal, "{name: envoy, algorithm: envoy-local, max_tokens: 10, tokens_per_fill: 2, fill_interval: 1s, timer: true}", 1500 * time.Millisecond, "fill timer"},
		pictureCase{algorithms.RedisCell, "{name: cell, algorithm: redis-cell, max_burst: 9, count_per_period: 2, period: 1s}", 1500 * time.Millisecond, "DVT"},
		pictureCase{algorithms.RedisRate, "{name: rrate, algorithm: redis-rate, rate: 2/s, burst: 10}", 1500 * time.Millisecond, "burst_offset"},
	)
}

func init() {
	type lesson = struct {
		name string
		at   time.Duration
	}
	moreLessons = append(moreLessons,
		// The fill at 7s: 5 more on top of the burst at 6.9s.
		lesson{"lumpy-refill", 7 * time.Second},
		// The request at 0.25s: half a token in both buckets.
		lesson{"empty-start", 250 * time.Millisecond},
	)
}
