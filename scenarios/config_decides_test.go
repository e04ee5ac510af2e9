package scenarios_test

import (
	"fmt"
	"strconv"
	"testing"

	"ratelab/model"
	"ratelab/scenarios"
)

// A lane written in a product's words decides every request as the lane
// written in ratelab's words that import reads it as: bursts, a steady
// stream above the rate and idle gaps, from two clients.
func TestConfigLaneDecidesAsItsAlgorithmLane(t *testing.T) {
	for _, c := range []struct{ product, text, lane string }{
		{"nginx", "limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s;\nlimit_req zone=one burst=5;\n", "algorithm: nginx-limit-req, rate: 10r/s, burst: 5"},
		{"redis-cell", "CL.THROTTLE user123 5 10 1", "algorithm: redis-cell, max_burst: 5, count_per_period: 10, period: 1s"},
		{"guava", "RateLimiter limiter = RateLimiter.create(10.0);\nif (limiter.tryAcquire()) { serve(); }", "algorithm: guava-try, rate: 10/s"},
		{"envoy", "token_bucket: {max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s}", "algorithm: envoy-local, max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s, across: all"},
		{"traefik", "rateLimit: {average: 10, burst: 5}", "algorithm: x-time-rate-reserve, burst: 5, rate: 10/s, max_wait: 50ms"},
		{"kong", "config.second=10\nconfig.minute=100", "policies: [{name: second, algorithm: fixed-window, limit: 10, window: 1s}, {name: minute, algorithm: fixed-window, limit: 100, window: 1m}]"},
		{"spring", "redis-rate-limiter.replenishRate: 10\nredis-rate-limiter.burstCapacity: 5", "algorithm: envoy-local, max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s, timer: true"},
		{"express", "rateLimit({ windowMs: 1000, limit: 10 })", "algorithm: first-hit-window, limit: 10, window: 1s"},
		{"resilience4j", "resilience4j.ratelimiter:\n  instances:\n    backendA:\n      limitForPeriod: 10\n      limitRefreshPeriod: 1s\n      timeoutDuration: 100ms\n", "algorithm: resilience4j, limit_for_period: 10, limit_refresh_period: 1s, timeout_duration: 100ms"},
	} {
		t.Run(c.product, func(t *testing.T) {
			file := fmt.Sprintf(`title: t
limiters:
  - {name: config, config: {product: %s, text: %s}}
  - {name: words, %s}
traffic:
  - {at: 0s, count: 14, key: a}
  - {at: 0s, count: 3, key: b}
  - {every: 70ms, from: 1.5s, until: 6s, key: a}
  - {at: 9s, count: 12, key: a}
`, c.product, strconv.Quote(c.text), c.lane)
			s, err := scenarios.Parse("x.yaml", []byte(file))
			if err != nil {
				t.Fatal(err)
			}
			cmp, err := model.Compare(s, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Requests < 90 || cmp.Differ() != 0 {
				t.Errorf("%d of %d requests decided otherwise (first at %s)", cmp.Differ(), cmp.Requests, cmp.First)
			}
		})
	}
}
