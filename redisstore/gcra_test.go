package redisstore

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestGCRACheck: a burst × period past 2^53 is refused by name, though the
// horizon (that over N) is short.
func TestGCRACheck(t *testing.T) {
	for _, a := range []algorithms.Algorithm{algorithms.GCRA, algorithms.RedisRate} {
		p := algorithms.Policy{Algorithm: a, Burst: 1_000_000, Rate: algorithms.Rate{N: 1_000_000, Per: 10 * time.Second}}
		if err := Check(p, time.Minute); err == nil || !strings.Contains(err.Error(), "burst × rate period in ns") {
			t.Errorf("%s: Check says %v", p, err)
		}
		p.Rate.Per = time.Second
		if err := Check(p, time.Minute); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
