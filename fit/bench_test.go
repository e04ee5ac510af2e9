package fit

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/scenarios"
)

// generated is a Source of n requests of one key made afresh on each pass,
// never held: about 10,000 a second on average, in bursts (a tenth of
// the gaps are zero) and lulls, costs 1 to 3.
func generated(n int, seed uint64) Source {
	return func(yield func(scenarios.Request) bool) error {
		rng := rand.New(rand.NewPCG(seed, 1))
		var at time.Duration
		for range n {
			switch r := rng.IntN(100); {
			case r < 10:
			case r < 11:
				at += time.Duration(rng.Int64N(int64(50 * time.Millisecond)))
			default:
				at += time.Duration(rng.Int64N(int64(200 * time.Microsecond)))
			}
			cost := int64(1)
			if rng.IntN(20) == 0 {
				cost += rng.Int64N(3)
			}
			if !yield(scenarios.Request{At: at, Key: "k", Cost: cost}) {
				return nil
			}
		}
		return nil
	}
}

// BenchmarkFit1M fits every default algorithm to a generated 1M-request
// trace of one key, confirming the knees: three passes over the source.
func BenchmarkFit1M(b *testing.B) {
	src := generated(1_000_000, 1)
	for b.Loop() {
		if _, err := Fit(src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/request")
}

// BenchmarkSourcePass is one pass over the same source, read and nothing
// done: what of BenchmarkFit1M is the source's.
func BenchmarkSourcePass1M(b *testing.B) {
	src := generated(1_000_000, 1)
	for b.Loop() {
		_ = src(func(scenarios.Request) bool { return true })
	}
}

// BenchmarkFit10M is the 10-million-request fit, for measuring its time
// and memory (go test -c, then run it under /usr/bin/time -v).
func BenchmarkFit10M(b *testing.B) {
	src := generated(10_000_000, 1)
	for b.Loop() {
		if _, err := Fit(src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
