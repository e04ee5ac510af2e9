package rediscell

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

func TestRead(t *testing.T) {
	cell := func(burst, count, period int64) algorithms.Policy {
		return algorithms.Policy{Algorithm: algorithms.RedisCell, MaxBurst: burst, CountPerPeriod: count, Period: time.Duration(period) * time.Second}
	}
	for _, c := range []struct {
		src, key string
		want     algorithms.Policy
		note     string
	}{
		{"127.0.0.1:6379> CL.THROTTLE user123 15 30 60", "user123", cell(15, 30, 60), ""},
		{"CL.THROTTLE user123 15 30 60 1", "user123", cell(15, 30, 60), ""},
		{`redis.call("cl.throttle", key, 4, 10, 1)`, "key", cell(4, 10, 1), "the key key: each request's key"},
		{`client.Do(ctx, "CL.THROTTLE", "ip:"+ip, 0, 1, 2, 3)`, "ip:+ip", cell(0, 1, 2), "quantity 3"},
		{"CL.THROTTLE 42 1 2 3", "42", cell(1, 2, 3), ""},
	} {
		fs, err := Read(c.src)
		if err != nil || len(fs) != 1 {
			t.Errorf("%q: %v %v", c.src, fs, err)
			continue
		}
		if fs[0].Policy != c.want || fs[0].Var != c.key {
			t.Errorf("%q: %v key %q, want %v key %q", c.src, fs[0].Policy, fs[0].Var, c.want, c.key)
		}
		if notes := strings.Join(fs[0].Notes, "; "); !strings.Contains(notes, c.note) || c.note == "" && notes != "" {
			t.Errorf("%q: notes %q, want %q", c.src, notes, c.note)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"GET x", "no CL.THROTTLE command"},
		{"CL.THROTTLE k 1 2", "wrong number of arguments"},
		{"CL.THROTTLE k 1 x 3", "ERR value is not an integer"},
		{"CL.THROTTLE k 1 0 3", "count_per_period"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

// What Write writes, Read reads back to the same policy.
func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		p := algorithms.Policy{Algorithm: algorithms.RedisCell, MaxBurst: r.Int64N(100), CountPerPeriod: 1 + r.Int64N(1000), Period: time.Duration(1+r.Int64N(3600)) * time.Second}
		text, err := Write("lane", p)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil || len(fs) != 1 || fs[0].Policy != p || fs[0].Var != "lane:{client}" {
			t.Fatalf("%v: %v %v\n%s", p, fs, err, text)
		}
	}
}

func TestNearest(t *testing.T) {
	for _, c := range []struct {
		p      algorithms.Policy
		want   algorithms.Policy
		differ string
	}{
		{algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 2, Per: time.Second}},
			algorithms.Policy{Algorithm: algorithms.RedisCell, MaxBurst: 9, CountPerPeriod: 2, Period: time.Second}, ""},
		{algorithms.Policy{Algorithm: algorithms.GCRA, Burst: 3, Rate: algorithms.Rate{N: 2, Per: 3 * time.Second}},
			algorithms.Policy{Algorithm: algorithms.RedisCell, MaxBurst: 2, CountPerPeriod: 2, Period: 3 * time.Second}, ""},
		{algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 1, Rate: algorithms.Rate{N: 1, Per: 7 * time.Millisecond}},
			algorithms.Policy{Algorithm: algorithms.RedisCell, CountPerPeriod: 1000, Period: 7 * time.Second}, ""},
		{algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 1, Rate: algorithms.Rate{N: 1, Per: 7777777 * time.Nanosecond}},
			algorithms.Policy{Algorithm: algorithms.RedisCell, CountPerPeriod: 462857, Period: 3600 * time.Second}, "462857 per 3600s"},
	} {
		got, differs, err := Nearest(c.p)
		if err != nil || got != c.want {
			t.Errorf("%v: %v %v, want %v", c.p, got, err, c.want)
		}
		if all := strings.Join(differs, "; "); !strings.Contains(all, c.differ) || c.differ == "" && all != "" {
			t.Errorf("%v: differs %q, want %q", c.p, all, c.differ)
		}
	}
}
