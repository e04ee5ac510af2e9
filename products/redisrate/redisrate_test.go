package redisrate

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

func TestRead(t *testing.T) {
	rr := func(rate, burst int64, per time.Duration) algorithms.Policy {
		return algorithms.Policy{Algorithm: algorithms.RedisRate, Burst: burst, Rate: algorithms.Rate{N: rate, Per: per}}
	}
	src := `res, err := limiter.Allow(ctx, "project:123", redis_rate.PerSecond(10))
perMin := redis_rate.PerMinute(120)
custom := redis_rate.Limit{Rate: 10, Burst: 20, Period: 2 * time.Second}
pos := redis_rate.Limit{5, 1, time.Minute}
`
	fs, err := Read(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []algorithms.Policy{rr(10, 10, time.Second), rr(120, 120, time.Minute), rr(10, 20, 2*time.Second), rr(5, 1, time.Minute)}
	if len(fs) != len(want) {
		t.Fatalf("%d found: %+v", len(fs), fs)
	}
	for i := range fs {
		if fs[i].Policy != want[i] {
			t.Errorf("%d: %v, want %v", i, fs[i].Policy, want[i])
		}
	}
	if fs[1].Var != "perMin" || fs[2].Var != "custom" || !strings.Contains(strings.Join(fs[2].Notes, ""), "burst 20 beside rate 10") {
		t.Errorf("%+v %+v", fs[1], fs[2])
	}
	for _, c := range []struct{ src, want string }{
		{"x", "no redis_rate.PerSecond"},
		{"redis_rate.Limit{Rate: 10, Period: time.Second}", "no Burst"},
		{"redis_rate.PerSecond(1.5)", "3/2 is not a whole number"},
		{"redis_rate.Limit{Rate: 0, Burst: 1, Period: time.Second}", "rate 0/s: N and D must be positive"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		p := algorithms.Policy{Algorithm: algorithms.RedisRate, Burst: 1 + r.Int64N(50),
			Rate: algorithms.Rate{N: 1 + r.Int64N(100), Per: []time.Duration{time.Second, time.Minute, time.Hour, 1500 * time.Millisecond}[r.IntN(4)]}}
		if r.IntN(2) == 0 {
			p.Burst = p.Rate.N
		}
		if p.Validate() != nil {
			continue
		}
		text, err := Write("l", p)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil || len(fs) != 1 || fs[0].Policy != p {
			t.Fatalf("%v: %+v %v\n%s", p, fs, err, text)
		}
	}
}
