package algorithms

import (
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestAgainstXTimeRate compares the token bucket with golang.org/x/time/rate
// on random traces: rate.NewLimiter(N/Per per second, capacity) and AllowN
// at time.Unix(0, 0) + now.
//
// x/time/rate keeps a float64 balance and, when it falls short, computes
// the wait as time.Duration((short / limit) × 1e9), which truncates; AllowN
// admits iff that wait is 0. So it disagrees with the exact bucket only at
// the threshold, in three ways, measured by the exact shortfall (cost −
// balance, in tokens × Per; a nanosecond of refill is N of these units):
//
//   - "sub-ns": 0 < shortfall < N: the exact wait is a fraction of a
//     nanosecond, which x/time/rate truncates to 0 and admits; we reject
//     with RetryAfter 1ns.
//   - "1ns edge": N ≤ shortfall ≤ N + tol: the exact wait is a whole
//     nanosecond (or a hair more), but float rounding puts it just under
//     1ns, and x/time/rate admits.
//   - "float": shortfall ≤ 0 with −shortfall ≤ tol: the exact balance
//     covers the cost with nothing or almost nothing to spare, float
//     rounding leaves x/time/rate at least a nanosecond's refill short, and
//     it rejects.
//
// tol is 1e-12 token per unit of capacity: far above float64's error over
// a trace, far below a token. Any other disagreement fails. After a
// tolerated one the two balances differ by a whole cost, so both limiters
// restart from full. A quarter of the buckets start empty, x/time/rate's
// then drained of its capacity at the first request.
func TestAgainstXTimeRate(t *testing.T) {
	r := rand.New(rand.NewPCG(2015, 11))
	epoch := time.Unix(0, 0)
	var decisions, subNs, edge, float int
	for range 400 {
		n := []int64{1, 2, 3, 7, 10, 30, 1000}[r.IntN(7)]
		per := []time.Duration{100 * ms, sec, 3 * sec, time.Minute, time.Hour}[r.IntN(5)]
		capacity := 1 + r.Int64N(20)
		// A quarter start empty: x/time/rate's limiter is then drained of
		// its capacity at the key's first request.
		p := Policy{Algorithm: TokenBucket, Capacity: capacity, Rate: Rate{n, per}, StartsEmpty: r.IntN(4) == 0}
		fresh := true
		limit := rate.Limit(float64(n) / per.Seconds())
		ours, theirs := mustNew(t, p), rate.NewLimiter(limit, int(capacity))
		// Steps on coarse grids land exactly on thresholds, where float
		// rounding decides.
		step := []time.Duration{ms, 10 * ms, per / time.Duration(n), time.Duration(r.Int64N(int64(per/time.Duration(n)) + 1))}[r.IntN(4)]
		// Tolerated float error, in tokens × Per: 1e-12 token per unit of
		// capacity, far above float64's error over a trace, far below a
		// token.
		tol := capacity*int64(per)/1e12 + 1
		var now time.Duration
		for range 300 {
			now += step * time.Duration(r.IntN(3))
			cost := int64(1)
			if r.IntN(5) == 0 {
				cost = 1 + r.Int64N(capacity+1)
			}
			if fresh && p.StartsEmpty {
				theirs.AllowN(epoch.Add(now), int(capacity))
			}
			fresh = false
			before := ours.Snapshot(now, "k").(TokenBucketSnapshot).Available.Num
			d := ours.Decide(now, "k", cost)
			ok := theirs.AllowN(epoch.Add(now), int(cost))
			decisions++
			if ok == (d.Outcome == Allowed) {
				continue
			}
			short := cost*int64(per) - before // exact shortfall, tokens × Per
			switch {
			case ok && short > 0 && short < n:
				subNs++
				t.Logf("sub-ns: %v at %v cost %d: exact balance %s, short by %d/%d token (%.3g ns of refill); x/time/rate admits, we wait %v",
					p, now, cost, exactish(before, int64(per)), short, int64(per), float64(short)/float64(n), d.RetryAfter)
			case ok && short >= n && short <= n+tol:
				edge++
				t.Logf("1ns edge: %v at %v cost %d: exact balance %s, short by %d/%d token (%.6g ns of refill); x/time/rate admits, we wait %v",
					p, now, cost, exactish(before, int64(per)), short, int64(per), float64(short)/float64(n), d.RetryAfter)
			case !ok && short <= 0 && -short <= tol:
				float++
				t.Logf("float: %v at %v cost %d: exact balance %s covers the cost with %d/%d token to spare; x/time/rate (%.17g tokens) rejects",
					p, now, cost, exactish(before, int64(per)), -short, int64(per), theirs.TokensAt(epoch.Add(now)))
			default:
				t.Fatalf("%v at %v cost %d: x/time/rate says %v, we say %s (exact balance %s, x/time/rate %.17g)",
					p, now, cost, ok, d.Explain(), exactish(before, int64(per)), theirs.TokensAt(epoch.Add(now)))
			}
			ours, theirs, fresh = mustNew(t, p), rate.NewLimiter(limit, int(capacity)), true
		}
	}
	t.Logf("%d decisions: %d sub-ns truncations, %d at the 1ns edge, %d float rejections; all else equal", decisions, subNs, edge, float)
	// The traces are seeded; they are built to reach thresholds, and do.
	if subNs+edge+float == 0 {
		t.Errorf("no tie at all in %d decisions: the traces no longer reach thresholds", decisions)
	}
}
