package resilience4j

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

func r4j(limit int64, refresh, timeout time.Duration) algorithms.Policy {
	return algorithms.Policy{Algorithm: algorithms.Resilience4j, LimitForPeriod: limit, LimitRefreshPeriod: refresh, TimeoutDuration: timeout}
}

// resilience4j's documented examples, in Java and in Spring Boot's YAML,
// and its defaults.
func TestRead(t *testing.T) {
	for _, c := range []struct {
		name, src, called string
		want              algorithms.Policy
		note              string
	}{
		{"Java", "RateLimiterConfig config = RateLimiterConfig.custom()\n  .limitRefreshPeriod(Duration.ofMillis(1))\n  .limitForPeriod(10)\n  .timeoutDuration(Duration.ofMillis(25))\n  .build();", "resilience4j", r4j(10, time.Millisecond, 25*time.Millisecond), ""},
		{"YAML", "resilience4j.ratelimiter:\n  instances:\n    backendA:\n      limitForPeriod: 10\n      limitRefreshPeriod: 1s\n      timeoutDuration: 0\n", "backendA", r4j(10, time.Second, 0), ""},
		{"defaults", "RateLimiterConfig.custom().limitForPeriod(5).build()", "resilience4j", r4j(5, 500*time.Nanosecond, 5*time.Second), "timeoutDuration is not set"},
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
	if _, err := Read("x: 1"); err == nil || !strings.Contains(err.Error(), "no RateLimiterConfig") {
		t.Errorf("%v", err)
	}
}

func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for range 100 {
		p := r4j(1+r.Int64N(100), time.Duration(1+r.Int64N(1e10)), time.Duration(r.Int64N(1e10)))
		if p.Validate() != nil {
			continue
		}
		text, err := Write("api", p)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil || len(fs) != 1 || fs[0].Policy != p {
			t.Fatalf("%v: %+v %v\n%s", p, fs, err, text)
		}
	}
}
