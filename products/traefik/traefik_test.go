package traefik

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

func reserve(n int64, per time.Duration, burst int64, maxWait time.Duration) algorithms.Policy {
	return algorithms.Policy{Algorithm: algorithms.XTimeRateReserve, Rate: algorithms.Rate{N: n, Per: per}, Burst: burst, MaxWait: maxWait}
}

// Traefik's documented examples, in each way its configuration is given.
func TestRead(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      algorithms.Policy
		called    string
	}{
		{"file YAML", "http:\n  middlewares:\n    test-ratelimit:\n      rateLimit:\n        average: 100\n        burst: 50\n", reserve(100, time.Second, 50, 5*time.Millisecond), "test-ratelimit"},
		{"TOML", "[http.middlewares]\n  [http.middlewares.test-ratelimit.rateLimit]\n    average = 100\n    burst = 50\n", reserve(100, time.Second, 50, 5*time.Millisecond), "test-ratelimit"},
		{"labels", `labels:
  - "traefik.http.middlewares.test-ratelimit.ratelimit.average=100"
  - "traefik.http.middlewares.test-ratelimit.ratelimit.burst=50"`, reserve(100, time.Second, 50, 5*time.Millisecond), "test-ratelimit"},
		{"Kubernetes", "apiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata:\n  name: test-ratelimit\nspec:\n  rateLimit:\n    average: 6\n    period: 1m\n", reserve(6, time.Minute, 1, 500*time.Millisecond), "test-ratelimit"},
		{"a rate of 2.5", "rateLimit: {average: 5, period: 2s, burst: 3}", reserve(5, 2*time.Second, 3, 250*time.Millisecond), "ratelimit"},
		{"a period in seconds", "rateLimit: {average: 30, period: 60}", reserve(30, time.Minute, 1, 500*time.Millisecond), "ratelimit"},
	} {
		fs, err := Read(c.src)
		if err != nil || len(fs) != 1 {
			t.Errorf("%s: %+v %v", c.name, fs, err)
			continue
		}
		if fs[0].Policy != c.want || fs[0].Var != c.called {
			t.Errorf("%s: %v %q, want %v %q", c.name, fs[0].Policy, fs[0].Var, c.want, c.called)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"a: b", "no rateLimit middleware"},
		{"rateLimit: {burst: 5}", "Traefik limits nothing when average is 0"},
		{"rateLimit: {average: 5, period: -1s}", "negative value not valid for period"},
		{"rateLimit: {average: 5, period: soon}", `"soon" is not a duration`},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

// Traefik's maxDelay: half the interval, on the rate's whole part; 0.5s
// below one a second (traefik#8330: average 6, period 1m is one every 10s).
func TestMaxDelay(t *testing.T) {
	for rtl, want := range map[float64]time.Duration{100: 5 * time.Millisecond, 2.5: 250 * time.Millisecond, 1: 500 * time.Millisecond, 0.1: 500 * time.Millisecond, 3: 166666666} {
		if got := MaxDelay(rtl); got != want {
			t.Errorf("%v: %v, want %v", rtl, got, want)
		}
	}
}

func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for range 200 {
		c := Config{Average: 1 + r.Int64N(500), Period: []time.Duration{time.Second, time.Minute, 10 * time.Second, 1500 * time.Millisecond}[r.IntN(4)], Burst: 1 + r.Int64N(100)}
		p, _, err := c.Lane()
		if err != nil {
			continue
		}
		text, err := Write("mw", p)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil || len(fs) != 1 || fs[0].Policy != p {
			t.Fatalf("%v: %+v %v\n%s", p, fs, err, text)
		}
	}
}
