package spring

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

func timer(max, perFill int64) algorithms.Policy {
	return algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: max, TokensPerFill: perFill, FillInterval: time.Second, Timer: true}
}

// Spring Cloud Gateway's documented example, and its other spellings.
func TestRead(t *testing.T) {
	documented := `spring:
  cloud:
    gateway:
      routes:
      - id: requestratelimiter_route
        uri: https://example.org
        filters:
        - name: RequestRateLimiter
          args:
            redis-rate-limiter.replenishRate: 10
            redis-rate-limiter.burstCapacity: 20
            redis-rate-limiter.requestedTokens: 1
`
	for _, c := range []struct {
		name, src, called string
		want              algorithms.Policy
		note              string
	}{
		{"documented", documented, "requestratelimiter_route", timer(20, 10), ""},
		{"relaxed and nested", "filters:\n- name: RequestRateLimiter\n  args:\n    redis-rate-limiter:\n      replenish-rate: 5\n      burst-capacity: 5\n      requested-tokens: 3\n", "spring", timer(5, 5), "requestedTokens 3"},
		{"Java", "@Bean\nRedisRateLimiter redisRateLimiter() {\n  return new RedisRateLimiter(10, 20, 1);\n}", "spring", timer(20, 10), ""},
		{"under half", "RedisRateLimiter limiter = new RedisRateLimiter(10, 4);", "limiter", timer(4, 10), "the script's ttl, ⌊2 × 4 / 10⌋, is 0"},
	} {
		fs, err := Read(c.src)
		if err != nil || len(fs) != 1 {
			t.Errorf("%s: %+v %v", c.name, fs, err)
			continue
		}
		if fs[0].Policy != c.want || fs[0].Var != c.called {
			t.Errorf("%s: %v %q, want %v %q", c.name, fs[0].Policy, fs[0].Var, c.want, c.called)
		}
		if notes := strings.Join(fs[0].Notes, "; "); !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q lack %q", c.name, notes, c.note)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"a: b", "no RedisRateLimiter"},
		{"args: {redis-rate-limiter.replenishRate: 0, redis-rate-limiter.burstCapacity: 5}", "replenishRate must be at least 1"},
		{"new RedisRateLimiter(10)", "takes replenishRate, burstCapacity"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for range 100 {
		p := timer(1+r.Int64N(1000), 1+r.Int64N(100))
		text, err := Write("route", p)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil || len(fs) != 1 || fs[0].Policy != p || fs[0].Var != "route" {
			t.Fatalf("%v: %+v %v\n%s", p, fs, err, text)
		}
	}
}

func TestNearest(t *testing.T) {
	got, _, err := Nearest(algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 20, Rate: algorithms.Rate{N: 600, Per: time.Minute}})
	if err != nil || got != timer(20, 10) {
		t.Errorf("%v %v", got, err)
	}
	if _, _, err := Nearest(algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 2, Rate: algorithms.Rate{N: 1, Per: time.Minute}}); err == nil || !strings.Contains(err.Error(), "below one a second") {
		t.Errorf("1/min: %v", err)
	}
}
