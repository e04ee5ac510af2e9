package guava

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/products/snippet"
)

func TestRead(t *testing.T) {
	sec := time.Second
	for _, c := range []struct {
		src  string
		want algorithms.Policy
		note string
	}{
		{"RateLimiter limiter = RateLimiter.create(5.0);\nlimiter.acquire();", algorithms.Policy{Algorithm: algorithms.Guava, Rate: algorithms.Rate{N: 5, Per: sec}}, ""},
		{"final RateLimiter rl = RateLimiter.create(0.5d);", algorithms.Policy{Algorithm: algorithms.Guava, Rate: algorithms.Rate{N: 1, Per: 2 * sec}}, ""},
		{"RateLimiter r = RateLimiter.create(2);\nif (r.tryAcquire()) {}", algorithms.Policy{Algorithm: algorithms.GuavaTry, Rate: algorithms.Rate{N: 2, Per: sec}}, "tryAcquire"},
		{"RateLimiter r = RateLimiter.create(10.0);\nr.tryAcquire(1, 500, TimeUnit.MILLISECONDS);", algorithms.Policy{Algorithm: algorithms.GuavaTry, Rate: algorithms.Rate{N: 10, Per: sec}, Timeout: 500 * time.Millisecond}, "tryAcquire"},
		{"RateLimiter r = RateLimiter.create(10.0);\nr.tryAcquire(Duration.ofMillis(250));", algorithms.Policy{Algorithm: algorithms.GuavaTry, Rate: algorithms.Rate{N: 10, Per: sec}, Timeout: 250 * time.Millisecond}, "tryAcquire"},
		{"RateLimiter r = RateLimiter.create(2.0, 3, TimeUnit.SECONDS);", algorithms.Policy{Algorithm: algorithms.GuavaWarmup, Rate: algorithms.Rate{N: 2, Per: sec}, Warmup: 3 * sec}, ""},
		{"RateLimiter r = RateLimiter.create(5, Duration.ofMillis(1500));", algorithms.Policy{Algorithm: algorithms.GuavaWarmup, Rate: algorithms.Rate{N: 5, Per: sec}, Warmup: 1500 * time.Millisecond}, ""},
	} {
		fs, err := Read(c.src)
		if err != nil || len(fs) != 1 {
			t.Errorf("%q: %v %v", c.src, fs, err)
			continue
		}
		if fs[0].Policy != c.want {
			t.Errorf("%q: %v, want %v", c.src, fs[0].Policy, c.want)
		}
		if notes := strings.Join(fs[0].Notes, "; "); !strings.Contains(notes, c.note) || c.note == "" && notes != "" {
			t.Errorf("%q: notes %q, want %q", c.src, notes, c.note)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"new Object()", "no RateLimiter.create"},
		{"RateLimiter.create(0.0)", "rate must be positive"},
		{"RateLimiter.create(2.0, -1, TimeUnit.SECONDS)", "warmupPeriod must not be negative"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

// Java folds a double expression with rounding at each step; the lane's
// double is checked against it.
func TestJavaDoubles(t *testing.T) {
	fs, err := Read("RateLimiter.create(0.1 + 0.2)")
	if err != nil {
		t.Fatal(err)
	}
	// 0.1 + 0.2 is 0.30000000000000004 in Java; the lane's exact 3/10 is 0.3.
	if fs[0].Policy.Rate != (algorithms.Rate{N: 3, Per: 10 * time.Second}) || len(fs[0].Notes) != 1 || !strings.Contains(fs[0].Notes[0], "0.30000000000000004") {
		t.Errorf("%v %q", fs[0].Policy, fs[0].Notes)
	}
}

// What Write writes, Read reads back to the same lane with no note on its
// double.
func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		p := algorithms.Policy{Algorithm: algorithms.Guava, Rate: algorithms.Rate{N: 1 + r.Int64N(1000), Per: []time.Duration{time.Second, time.Minute, 7 * time.Millisecond, time.Duration(1 + r.Int64N(1e10))}[r.IntN(4)]}}
		switch r.IntN(3) {
		case 0:
			p.Algorithm, p.Timeout = algorithms.GuavaTry, time.Duration(r.Int64N(2e9))
		case 1:
			p.Algorithm, p.Warmup = algorithms.GuavaWarmup, time.Duration(1e3+r.Int64N(1e10))
		}
		if p.Validate() != nil {
			continue
		}
		text, err := Write("l", p)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil {
			t.Fatalf("%v: %v\n%s", p, err, text)
		}
		want := p
		want.Rate = snippet.Canonical(p.Rate)
		if fs[0].Policy != want {
			t.Fatalf("%v read back as %v\n%s", p, fs[0].Policy, text)
		}
		for _, n := range fs[0].Notes {
			if !strings.HasPrefix(n, "the code asks tryAcquire") {
				t.Errorf("%v: note %q\n%s", p, n, text)
			}
		}
	}
}
