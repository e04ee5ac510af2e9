package bucket

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// A bucket's Size and Rate are what the policy admits: Size from rest at
// once, then Rate for as long as requests keep coming. Each case is run
// with the real limiter, a request every millisecond for ten of the
// policy's intervals, and must admit Size + Rate × the time exactly (the
// lumpy refills) or within one (the continuous ones).
func TestBucketIsWhatTheLimiterAdmits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p       algorithms.Policy
		size, n int64 // the Bucket expected: Size, and Rate.N per the policy's Per
		lumps   bool  // a line says the refill comes in lumps
	}{
		{"envoy continuous", algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: 5, TokensPerFill: 10, FillInterval: time.Second}, 5, 10, false},
		// Spring's "burstCapacity 5, replenishRate 10": a fill of 10 into
		// a bucket of 5 adds 5.
		{"envoy timer, fill above max", algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: 5, TokensPerFill: 10, FillInterval: time.Second, Timer: true}, 5, 5, true},
		{"envoy timer", algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: 10, TokensPerFill: 2, FillInterval: time.Second, Timer: true}, 10, 2, true},
		{"interval, fill above capacity", algorithms.Policy{Algorithm: algorithms.IntervalBucket, Capacity: 3, TokensPerFill: 7, FillInterval: time.Second}, 3, 3, true},
		{"interval", algorithms.Policy{Algorithm: algorithms.IntervalBucket, Capacity: 10, TokensPerFill: 2, FillInterval: time.Second}, 10, 2, true},
		{"token bucket", algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 4, Rate: algorithms.Rate{N: 3, Per: time.Second}}, 4, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, differs, err := Of(tc.p, "P")
			if err != nil {
				t.Fatal(err)
			}
			if b.Size != tc.size || b.Rate.N != tc.n {
				t.Fatalf("bucket %+v, want size %d and %d per %s", b, tc.size, tc.n, b.Rate.Per)
			}
			if got := strings.Contains(strings.Join(differs, "\n"), "lumps"); got != tc.lumps {
				t.Errorf("a line on lumps: %v, want %v (%q)", got, tc.lumps, differs)
			}
			lim, err := algorithms.New(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			key := algorithms.NewKeys().Key("")
			span := 10 * b.Rate.Per
			var admitted int64
			var d algorithms.Decision
			for at := time.Duration(0); at < span; at += time.Millisecond {
				if lim.DecideInto(&d, at, key, 1); d.Outcome == algorithms.Allowed {
					admitted++
				}
			}
			// The lumps come at Per, 2 × Per … 9 × Per within the span.
			want := b.Size + 9*b.Rate.N
			if !tc.lumps {
				want = b.Size + 10*b.Rate.N
			}
			if admitted < want-1 || admitted > want || tc.lumps && admitted != want {
				t.Errorf("the limiter admitted %d in %s, the bucket says %d", admitted, span, want)
			}
		})
	}
}
