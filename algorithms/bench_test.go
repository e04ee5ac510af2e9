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

// BenchmarkAppendExplain explains, into one reused buffer, decisions of
// each of benchPolicies (about half admitted, half rejected or delayed):
// what `ratelab run --format table` and `json` do for every record.
func BenchmarkAppendExplain(b *testing.B) {
	for _, p := range benchPolicies {
		b.Run(string(p.Algorithm), func(b *testing.B) {
			ds := benchDecisions(b, p, 64)
			var buf []byte
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				buf = ds[i%len(ds)].AppendExplain(buf[:0])
				i++
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}

// benchDecisions are n decisions of one key at twice p's pace.
func benchDecisions(b *testing.B, p Policy, n int) []Decision {
	l := mustNew(b, p)
	step := unit(p) / 2
	ds := make([]Decision, n)
	for i := range ds {
		ds[i] = l.Decide(time.Duration(i+1)*step, "client-1", 1)
	}
	return ds
}

// benchLayers are the layers of BenchmarkStack's stacks, the first n of
// them: a bucket per key, a fixed window over all keys, GCRA per key and a
// sliding counter over all keys, each refusing some of the traffic.
var benchLayers = []Layer{
	{Name: "bucket", Policy: Policy{Algorithm: TokenBucket, Capacity: 10, Rate: Rate{100, sec}}},
	{Name: "total", Policy: Policy{Algorithm: FixedWindow, Limit: 1500, Window: sec}, AllKeys: true},
	{Name: "gcra", Policy: Policy{Algorithm: GCRA, Burst: 5, Rate: Rate{120, sec}}},
	{Name: "all", Policy: Policy{Algorithm: SlidingCounter, Limit: 1800, Window: sec}, AllKeys: true},
}

// benchStackKeys are the keys BenchmarkStack's requests take in turn, 2000
// requests a second in all: each key at twice its bucket's pace.
var benchStackKeys = func() []string {
	keys := make([]string, 10)
	for i := range keys {
		keys[i] = fmt.Sprintf("client-%d", i)
	}
	return keys
}()

// BenchmarkStack decides with stacks of 1, 2 and 4 of benchLayers
// ("stack"), and with the same layers' own limiters deciding every request
// one after the other ("layers": the sum of the layers' own decisions, what
// a stack should cost at most 1.2 times).
func BenchmarkStack(b *testing.B) {
	for _, n := range []int{1, 2, 4} {
		layers := benchLayers[:n]
		if n == 1 {
			layers = []Layer{{Name: "all", Policy: benchLayers[0].Policy, AllKeys: true}} // a lane `across: all`
		}
		b.Run(fmt.Sprintf("stack-%d", n), func(b *testing.B) {
			s, err := NewStack(layers, NewKeys())
			if err != nil {
				b.Fatal(err)
			}
			var d Decision
			benchStackTraffic(b, func(now time.Duration, key Key) {
				s.DecideInto(&d, now, key, 1)
			}, s.(*stack).ids)
		})
		b.Run(fmt.Sprintf("layers-%d", n), func(b *testing.B) {
			ks := NewKeys()
			all := ks.Key(AllKeysKey)
			lims := make([]Limiter, n)
			for i, l := range layers {
				lims[i] = mustNewWithKeys(b, l.Policy, ks)
			}
			var d Decision
			benchStackTraffic(b, func(now time.Duration, key Key) {
				for i, lim := range lims {
					k := key
					if layers[i].AllKeys {
						k = all
					}
					lim.DecideInto(&d, now, k, 1)
				}
			}, ks)
		})
	}
}

// benchStackTraffic runs decide on benchStackKeys in turn, 2000 a second.
func benchStackTraffic(b *testing.B, decide func(now time.Duration, key Key), ks *Keys) {
	keys := make([]Key, len(benchStackKeys))
	for i, k := range benchStackKeys {
		keys[i] = ks.Key(k)
	}
	var now time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		now += sec / 2000
		decide(now, keys[i%len(keys)])
		i++
	}
}

func mustNewWithKeys(tb testing.TB, p Policy, ks *Keys) Limiter {
	tb.Helper()
	l, err := NewWithKeys(p, ks)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// BenchmarkNginxZoneClone clones a zone holding 100,000 keys and decides
// one request on the original, as a lab's checkpoint does between two
// stretches of traffic: what a clone costs when one key changed.
func BenchmarkNginxZoneClone(b *testing.B) {
	const keys = 100_000
	ks := NewKeys()
	p := Policy{Algorithm: NginxLimitReq, Rate: Rate{10, sec}, Burst: 5, Zone: 16 << 20}
	if NginxZoneKeys(p.Zone) < keys {
		b.Fatalf("a zone of %d bytes holds fewer than %d keys", p.Zone, keys)
	}
	z := mustNewWithKeys(b, p, ks)
	ids := make([]Key, keys)
	for i := range ids {
		ids[i] = ks.Key(fmt.Sprintf("k%d", i))
		z.DecideKey(time.Duration(i)*time.Microsecond, ids[i], 1)
	}
	now := time.Duration(keys) * time.Microsecond
	var clone Limiter
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		clone = z.Clone()
		now += time.Millisecond
		z.DecideKey(now, ids[i*7919%keys], 1)
		i++
	}
	if clone.Policy() != p {
		b.Fatal("the clone's policy differs")
	}
}
