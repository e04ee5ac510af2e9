package algorithms

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// benchPolicies are run by BenchmarkDecide. Requests come twice as fast as
// each policy's pace, so about half are admitted and the state stays busy.
var benchPolicies = []Policy{
	{Algorithm: FixedWindow, Limit: 100, Window: sec},
	{Algorithm: SlidingLog, Limit: 100, Window: sec},
	{Algorithm: SlidingCounter, Limit: 100, Window: sec},
	{Algorithm: TokenBucket, Capacity: 100, Rate: Rate{100, sec}},
	{Algorithm: GCRA, Burst: 100, Rate: Rate{100, sec}},
	{Algorithm: LeakyBucket, Queue: 100, Rate: Rate{100, sec}},
}

// benchSteady decides one key's requests at twice p's pace.
func benchSteady(b *testing.B, p Policy) {
	l := mustNew(b, p)
	step := unit(p) / 2
	var now time.Duration
	var admitted int
	b.ReportAllocs()
	for b.Loop() {
		now += step
		if l.Decide(now, "client-1", 1).Outcome.Admitted() {
			admitted++
		}
	}
	if admitted == 0 {
		b.Fatal("nothing admitted")
	}
}

func BenchmarkDecide(b *testing.B) {
	for _, p := range benchPolicies {
		b.Run(string(p.Algorithm), func(b *testing.B) { benchSteady(b, p) })
	}
}

// BenchmarkTokenBucket and BenchmarkXTimeRateAllowN run the same trace:
// capacity 10 at 100/s, a request every 5ms, so every other one is admitted.
func BenchmarkTokenBucket(b *testing.B) {
	l := mustNew(b, Policy{Algorithm: TokenBucket, Capacity: 10, Rate: Rate{100, sec}})
	var now time.Duration
	var admitted int
	b.ReportAllocs()
	for b.Loop() {
		now += 5 * ms
		if l.Decide(now, "client-1", 1).Outcome == Allowed {
			admitted++
		}
	}
	if admitted == 0 {
		b.Fatal("nothing admitted")
	}
}

func BenchmarkXTimeRateAllowN(b *testing.B) {
	l := rate.NewLimiter(100, 10)
	epoch := time.Unix(0, 0)
	var now time.Duration
	var admitted int
	b.ReportAllocs()
	for b.Loop() {
		now += 5 * ms
		if l.AllowN(epoch.Add(now), 1) {
			admitted++
		}
	}
	if admitted == 0 {
		b.Fatal("nothing admitted")
	}
}

// BenchmarkExplain measures the on-demand formatting a Decision defers.
func BenchmarkExplain(b *testing.B) {
	l := mustNew(b, Policy{Algorithm: TokenBucket, Capacity: 10, Rate: Rate{2, sec}})
	l.Decide(0, "k", 10)
	d := l.Decide(250*ms, "k", 1)
	b.ReportAllocs()
	for b.Loop() {
		_ = d.Explain()
	}
}

// BenchmarkTokenBucketManyKeys spreads the same load over 1000 keys in
// turn, so every decision looks its key up in the map.
func BenchmarkTokenBucketManyKeys(b *testing.B) {
	l := mustNew(b, Policy{Algorithm: TokenBucket, Capacity: 10, Rate: Rate{100, sec}})
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("client-%d", i)
	}
	var now time.Duration
	var i, admitted int
	b.ReportAllocs()
	for b.Loop() {
		now += 5 * time.Microsecond
		if l.Decide(now, keys[i], 1).Outcome == Allowed {
			admitted++
		}
		if i++; i == len(keys) {
			i = 0
		}
	}
	if admitted == 0 {
		b.Fatal("nothing admitted")
	}
}

// BenchmarkSubWindows runs a sliding counter of 100 per second in 10 and in
// 1000 sub-windows, one key, for many windows: steady, requests at twice
// the pace, about half admitted; bursts, the limit's worth at once every
// two windows and a request every sub-window between, almost all rejected
// while the admitted burst has yet to slide out. A decision should cost
// about the same whatever the number of sub-windows.
func BenchmarkSubWindows(b *testing.B) {
	for _, n := range []int64{10, 1000} {
		p := Policy{Algorithm: SlidingCounter, Limit: 100, Window: sec, SubWindows: n}
		s := p.Window / time.Duration(n)
		b.Run(fmt.Sprintf("steady/n=%d", n), func(b *testing.B) { benchSteady(b, p) })
		b.Run(fmt.Sprintf("bursts/n=%d", n), func(b *testing.B) {
			l := mustNew(b, p)
			var now time.Duration
			var i, rejected int
			b.ReportAllocs()
			for b.Loop() {
				cost := int64(1)
				if i%int(2*n) == 0 {
					cost = p.Limit
				}
				if l.Decide(now, "client-1", cost).Outcome == Rejected {
					rejected++
				}
				i++
				now += s
			}
			if rejected == 0 && b.N > int(2*n) {
				b.Fatal("nothing rejected")
			}
		})
	}
}

// BenchmarkLeakyBucket decides on one key of a leaky bucket whose interval
// is not a whole number of nanoseconds (7/s: 142,857,142 6⁄7 ns):
// steady, a request at twice the pace, half of them queued; bursts, the
// queue's worth at one instant, then a request every interval while it
// drains; irregular, gaps drawn around the pace and costs of 1 to 3, so
// that few requests in a row step alike; checkpoints, steady with a clone
// taken every 2048 decisions, as the lab's checkpoints are. Decisions per
// second and allocations should not depend on how the queue is kept.
func BenchmarkLeakyBucket(b *testing.B) {
	p := Policy{Algorithm: LeakyBucket, Queue: 1000, Rate: Rate{7, sec}}
	u := unit(p)
	gaps := make([]time.Duration, 4096)
	costs := make([]int64, len(gaps))
	x := uint64(1)
	for i := range gaps {
		x = x*6364136223846793005 + 1442695040888963407 // a fixed draw, the same for every run
		gaps[i] = time.Duration(x>>33) % (2 * u)
		costs[i] = 1 + int64(x>>20)%3
	}
	run := func(b *testing.B, next func(i int) (time.Duration, int64), cloneEvery int) {
		l := mustNew(b, p)
		ks := NewKeys()
		k := ks.Key("client-1")
		var now time.Duration
		var admitted, i int
		var d Decision
		b.ReportAllocs()
		for b.Loop() {
			gap, cost := next(i)
			now += gap
			if l.DecideInto(&d, now, k, cost); d.Outcome.Admitted() {
				admitted++
			}
			if i++; cloneEvery > 0 && i%cloneEvery == 0 {
				l.Clone()
			}
		}
		if admitted == 0 {
			b.Fatal("nothing admitted")
		}
	}
	steady := func(int) (time.Duration, int64) { return u / 2, 1 }
	b.Run("steady", func(b *testing.B) { run(b, steady, 0) })
	b.Run("bursts", func(b *testing.B) {
		run(b, func(i int) (time.Duration, int64) {
			if i%2000 < int(p.Queue) {
				return 0, 1
			}
			return u, 1
		}, 0)
	})
	b.Run("irregular", func(b *testing.B) {
		run(b, func(i int) (time.Duration, int64) { return gaps[i%len(gaps)], costs[i%len(gaps)] }, 0)
	})
	b.Run("checkpoints", func(b *testing.B) { run(b, steady, 2048) })
}
