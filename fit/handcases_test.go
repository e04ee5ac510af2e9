package fit

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

const (
	ms = time.Millisecond
	s  = time.Second
)

func req(at time.Duration, cost int64) scenarios.Request {
	return scenarios.Request{At: at, Key: "k", Cost: cost}
}

// burstThenOne: costs 3 and 2 at 0, then 4 at 1s.
var burstThenOne = []scenarios.Request{req(0, 3), req(0, 2), req(s, 4)}

func TestHandComputed(t *testing.T) {
	perS := func(n int64) algorithms.Rate { return algorithms.Rate{N: n, Per: s} }
	cases := []struct {
		name     string
		reqs     []scenarios.Request
		alg      algorithms.Algorithm
		rate     algorithms.Rate
		window   time.Duration
		size     int64
		wait     time.Duration
		smallest bool // size is the smallest valid size: no size − 1 to refuse
	}{
		// Backlog in units of 1/N ns at 2/s (Per = 1e9, N = 2): 3e9 after
		// the first, 5e9 after the second, then 5e9 − 1e9 × 2 + 4e9 = 7e9.
		// Capacity ⌈7e9 / 1e9⌉ = 7.
		{name: "token bucket", reqs: burstThenOne, alg: algorithms.TokenBucket, rate: perS(2), size: 7},
		// GCRA decides as a token bucket of capacity burst: the same 7.
		{name: "gcra", reqs: burstThenOne, alg: algorithms.GCRA, rate: perS(2), size: 7},
		// Leaky bucket: queue 7 − 1 = 6 (one in the pipe). Delays: the
		// second waits 3 × 0.5s = 1.5s; the third comes at 1s to a pipe
		// free at 2.5s: 1.5s too. ⌈max(3e9, 5e9 − 2e9) / N⌉ ns = 1.5s.
		{name: "leaky bucket", reqs: burstThenOne, alg: algorithms.LeakyBucket, rate: perS(2), size: 6, wait: 1500 * ms},
		// nginx 2r/s is 2000 thousandths: excess 2000 for the first (cost
		// 3: 2 more), 3000 + 1000 = 4000 for the second, then after 1000ms
		// 4000 − 2000 × 1000 / 1000 + 1000 + 3000 = 6000: burst 6. Its
		// wait without nodelay: 6000 × 1000 / 2000 = 3000ms.
		{name: "nginx", reqs: burstThenOne, alg: algorithms.NginxLimitReq, rate: perS(2), size: 6, wait: 3 * s},
		// redis-cell 2 per 1s: T = 5e8 ns. Backlog 1.5e9, 2.5e9, then
		// 2.5e9 − 1e9 + 2e9 = 3.5e9: max_burst ⌈3.5e9 / 5e8⌉ − 1 = 6.
		{name: "redis-cell", reqs: burstThenOne, alg: algorithms.RedisCell, rate: perS(2), size: 6},
		// x/time/rate at 2/s starts full at b tokens: b − 3 − 2 ≥ 0 at 0;
		// at 1s min(b, b − 5 + 2) − 4 ≥ 0: b ≥ 7, as the token bucket's.
		{name: "x/time/rate", reqs: burstThenOne, alg: algorithms.XTimeRate, rate: perS(2), size: 7},
		// Windows of 1s: [0, 1s) holds 3 + 2, [1s, 2s) holds 4.
		{name: "fixed window", reqs: burstThenOne, alg: algorithms.FixedWindow, window: s, size: 5},
		// (−1s, 0] holds 5; (0, 1s] holds 4 alone: the ones at 0 have left.
		{name: "sliding log", reqs: burstThenOne, alg: algorithms.SlidingLog, window: s, size: 5},
		// At 1s the previous window's 5 weighs fully (elapsed 0): 0 + 4 + 5.
		{name: "sliding counter", reqs: burstThenOne, alg: algorithms.SlidingCounter, window: s, size: 9},

		// 3/s: T = 1/3 s, Per/N not a whole ns. Units of 1/3 ns: 1e9, then
		// 1e9 − 1e8 × 3 + 1e9 = 1.7e9, then 1.7e9 − 3e8 + 1e9 = 2.4e9:
		// capacity ⌈2.4⌉ = 3.
		{name: "token bucket, a third of a second", reqs: []scenarios.Request{req(0, 1), req(100*ms, 1), req(200*ms, 1)},
			alg: algorithms.TokenBucket, rate: perS(3), size: 3},
		// 1/s, a token back exactly when the second comes: backlog 1e9,
		// then 1e9 − 1e9 + 1e9 = 1e9. Capacity 1, the smallest.
		{name: "token bucket, refilled exactly", reqs: []scenarios.Request{req(0, 1), req(s, 1)},
			alg: algorithms.TokenBucket, rate: perS(1), size: 1, smallest: true},
		// One nanosecond early: 1e9 − (1e9 − 1) + 1e9 = 1e9 + 1: capacity 2.
		{name: "token bucket, a nanosecond early", reqs: []scenarios.Request{req(0, 1), req(s-1, 1)},
			alg: algorithms.TokenBucket, rate: perS(1), size: 2},
		// The leaky bucket's queue is at least 1, even when nothing waits.
		{name: "leaky bucket, nothing waits", reqs: []scenarios.Request{req(0, 1), req(s, 1)},
			alg: algorithms.LeakyBucket, rate: perS(1), size: 1, smallest: true},
		// nginx 30r/m is 500 thousandths; after 1999ms it drains 500 × 1999
		// / 1000 = 999 (truncated): excess 0 − 999 + 1000 = 1, burst 1.
		{name: "nginx truncates", reqs: []scenarios.Request{req(0, 1), req(1999*ms, 1)},
			alg: algorithms.NginxLimitReq, rate: algorithms.Rate{N: 30, Per: time.Minute}, size: 1, wait: 2 * ms},
		// After 2000ms it drains 1000: excess 0, burst 0, the smallest.
		{name: "nginx drained", reqs: []scenarios.Request{req(0, 1), req(2000*ms, 1)},
			alg: algorithms.NginxLimitReq, rate: algorithms.Rate{N: 30, Per: time.Minute}, size: 0, smallest: true},
		// nginx's clock is whole milliseconds: 1999.9ms is 1999.
		{name: "nginx milliseconds", reqs: []scenarios.Request{req(0, 1), req(2000*ms-1, 1)},
			alg: algorithms.NginxLimitReq, rate: algorithms.Rate{N: 30, Per: time.Minute}, size: 1, wait: 2 * ms},
		// redis-cell 3 per 1s: T = 333,333,333 ns (truncated). The second
		// comes 1ns before the first has drained: backlog 1 + T, max_burst 1.
		{name: "redis-cell truncates", reqs: []scenarios.Request{req(0, 1), req(333_333_332, 1)},
			alg: algorithms.RedisCell, rate: perS(3), size: 1},
		{name: "redis-cell drained", reqs: []scenarios.Request{req(0, 1), req(333_333_333, 1)},
			alg: algorithms.RedisCell, rate: perS(3), size: 0, smallest: true},
		// Windows are aligned to t = 0: 1s − 1ns and 1s are in two windows.
		{name: "fixed window edge", reqs: []scenarios.Request{req(s-1, 2), req(s, 2)},
			alg: algorithms.FixedWindow, window: s, size: 2},
		// An admission at t counts while t > now − W: at 1s one at 0 has left,
		{name: "sliding log edge", reqs: []scenarios.Request{req(0, 2), req(s, 2)},
			alg: algorithms.SlidingLog, window: s, size: 2},
		// and at 1s − 1ns it has not.
		{name: "sliding log inside", reqs: []scenarios.Request{req(0, 2), req(s-1, 2)},
			alg: algorithms.SlidingLog, window: s, size: 4},
		// 4 at 0.9s, then 2 at 1.3s: elapsed 0.3s, the previous window
		// weighs 4 × 0.7 = 2.8, rounded up to 3: 0 + 2 + 3 = 5.
		{name: "sliding counter weighs", reqs: []scenarios.Request{req(900*ms, 4), req(1300*ms, 2)},
			alg: algorithms.SlidingCounter, window: s, size: 5},
		// At 1.5s it weighs 4 × 0.5 = 2 exactly: 0 + 2 + 2 = 4, the first's own 4.
		{name: "sliding counter exact half", reqs: []scenarios.Request{req(900*ms, 4), req(1500*ms, 2)},
			alg: algorithms.SlidingCounter, window: s, size: 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Algorithms: []algorithms.Algorithm{c.alg}, Confirm: ConfirmAll}
			if c.window > 0 {
				o.Windows = []time.Duration{c.window}
			} else {
				o.Rates = []algorithms.Rate{c.rate}
			}
			res, err := Fit(Requests(c.reqs), o)
			if err != nil {
				t.Fatal(err)
			}
			p := pointAt(t, res, c.alg, c.rate, c.window)
			if !p.Feasible || p.Size != c.size || p.LongestWait != c.wait {
				t.Fatalf("size %d, longest wait %s (feasible %v, %s); want %d, %s", p.Size, p.LongestWait, p.Feasible, p.Why, c.size, c.wait)
			}
			cf := p.Confirmation
			if !cf.Ran || !cf.Confirmed || cf.Searched || cf.Refused != 0 || cf.SmallerValid == c.smallest || (!c.smallest && cf.SmallerRefused == 0) {
				t.Fatalf("confirmation %+v", cf)
			}
			if c.wait > 0 && cf.LongestWait != c.wait {
				t.Fatalf("the real shaper's longest wait is %s, want %s", cf.LongestWait, c.wait)
			}
		})
	}
}
