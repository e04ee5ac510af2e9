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

func BenchmarkDecide(b *testing.B) {
	for _, p := range benchPolicies {
		b.Run(string(p.Algorithm), func(b *testing.B) {
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
		})
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
		b.Run(fmt.Sprintf("steady/n=%d", n), func(b *testing.B) {
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
		})
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
