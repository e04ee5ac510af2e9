package algorithms

import (
	"cmp"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

func init() {
	benchPolicies = append(benchPolicies,
		Policy{Algorithm: Guava, Rate: Rate{100, sec}},
		Policy{Algorithm: GuavaTry, Rate: Rate{100, sec}, Timeout: 5 * ms},
	)
}

// TestGuavaExamples are worked examples from Guava's source:
// SmoothRateLimiter.java (SmoothBursty: maxPermits = 1.0 × permitsPerSecond,
// storedPermits starting at 0.0; reserveEarliestAvailable returns the old
// nextFreeTicketMicros and pushes it by (long)(freshPermits ×
// stableIntervalMicros); resync) and RateLimiter.java (acquire,
// tryAcquire's canAcquire: queryEarliestAvailable − timeout ≤ now; the class
// doc's acquire(1000) example, the 1qps T0…T3 example in create, and
// "bursts of up to permitsPerSecond permits will be allowed" after idling).
func TestGuavaExamples(t *testing.T) {
	type step = shortStep
	us := time.Microsecond
	tests := []struct {
		name  string
		p     Policy
		steps []step
	}{
		{"starts empty: the first is free, the next waits one interval each",
			Policy{Algorithm: Guava, Rate: Rate{1, sec}},
			[]step{{0, 1, Allowed, 0, 0}, {0, 1, Delayed, sec, 0}, {0, 1, Delayed, 2 * sec, 0}, {500 * ms, 1, Delayed, 2500 * ms, 0}}},
		{"an expensive acquire is granted at once; the next caller pays for it",
			Policy{Algorithm: Guava, Rate: Rate{1, sec}},
			[]step{{0, 100, Allowed, 0, 0}, {0, 1, Delayed, 100 * sec, 0}, {100 * sec, 1, Delayed, sec, 0}}},
		{"1qps, T0 at 0, T1 at 1.05s, T2 at 2s, T3 at 3s: the stored 0.05 permit spares T2 and T3 a wait",
			Policy{Algorithm: Guava, Rate: Rate{1, sec}},
			[]step{{0, 1, Allowed, 0, 0}, {1050 * ms, 1, Allowed, 0, 0}, {2 * sec, 1, Allowed, 0, 0}, {3 * sec, 1, Allowed, 0, 0}, {3 * sec, 1, Delayed, sec, 0}}},
		{"after idling it stores one second of permits: 5/s lets 5 + 1 through at once",
			Policy{Algorithm: Guava, Rate: Rate{5, sec}},
			[]step{
				{0, 1, Allowed, 0, 0}, // nextFree 0.2s
				{10 * sec, 1, Allowed, 0, 0}, {10 * sec, 1, Allowed, 0, 0}, {10 * sec, 1, Allowed, 0, 0},
				{10 * sec, 1, Allowed, 0, 0}, {10 * sec, 1, Allowed, 0, 0}, // 5 stored spent
				{10 * sec, 1, Allowed, 0, 0},         // nextFree is now: free, and pushes it 0.2s
				{10 * sec, 1, Delayed, 200 * ms, 0},  // pays for it
				{10 * sec, 3, Delayed, 400 * ms, 0},  // waits the same whatever it asks
				{10 * sec, 1, Delayed, 1000 * ms, 0}, // pays for the 3
			}},
		{"stored permits are spent before fresh ones: acquire(3) then acquire(10) after idling, 5/s",
			Policy{Algorithm: Guava, Rate: Rate{5, sec}},
			[]step{{0, 1, Allowed, 0, 0}, {10 * sec, 3, Allowed, 0, 0}, {10 * sec, 10, Allowed, 0, 0}, {10 * sec, 1, Delayed, 1600 * ms, 0}}},
		{"3/s: the interval 333333.33µs is truncated to whole µs when pushed",
			Policy{Algorithm: Guava, Rate: Rate{3, sec}},
			[]step{{0, 1, Allowed, 0, 0}, {0, 1, Delayed, 333333 * us, 0}, {0, 1, Delayed, 666666 * us, 0}}},
		{"the stopwatch reads whole µs: 1ns before next free it still waits a whole µs",
			Policy{Algorithm: Guava, Rate: Rate{1, sec}},
			[]step{{0, 1, Allowed, 0, 0}, {sec - 1, 1, Delayed, us, 0}}},
		{"the key's RateLimiter is made at its first request, at 0.7s",
			Policy{Algorithm: Guava, Rate: Rate{1, sec}},
			[]step{{700 * ms, 1, Allowed, 0, 0}, {1200 * ms, 1, Delayed, 500 * ms, 0}}},
		{"tryAcquire(1): refused until next free, changing nothing",
			Policy{Algorithm: GuavaTry, Rate: Rate{1, sec}},
			[]step{{0, 1, Allowed, 0, 0}, {0, 1, Rejected, 0, sec}, {500 * ms, 1, Rejected, 0, 500 * ms}, {sec, 1, Allowed, 0, 0}, {sec, 1, Rejected, 0, sec}}},
		{"tryAcquire pays later too: 10 permits granted at once, then 10s refused",
			Policy{Algorithm: GuavaTry, Rate: Rate{1, sec}},
			[]step{{0, 10, Allowed, 0, 0}, {5 * sec, 1, Rejected, 0, 5 * sec}, {10 * sec, 1, Allowed, 0, 0}}},
		{"tryAcquire with timeout 0.5s waits up to it",
			Policy{Algorithm: GuavaTry, Rate: Rate{1, sec}, Timeout: 500 * ms},
			[]step{{0, 1, Allowed, 0, 0}, {0, 1, Rejected, 0, 500 * ms}, {500 * ms, 1, Delayed, 500 * ms, 0}, {500 * ms, 1, Rejected, 0, sec}}},
		{"the timeout is whole µs: 1999ns is 1µs",
			Policy{Algorithm: GuavaTry, Rate: Rate{1, sec}, Timeout: 1999},
			[]step{{0, 1, Allowed, 0, 0}, {sec - 2*us, 1, Rejected, 0, us}, {sec - us, 1, Delayed, us, 0}}},
		{"a late request is decided at the key's latest time, its wait counted from arrival",
			Policy{Algorithm: GuavaTry, Rate: Rate{1, sec}},
			[]step{{sec, 1, Allowed, 0, 0}, {500 * ms, 1, Rejected, 0, 1500 * ms}}},
		{"a cost above 2^40 never fits",
			Policy{Algorithm: Guava, Rate: Rate{1, sec}},
			[]step{{0, MaxCount + 1, Rejected, 0, Never}, {0, MaxCount, Allowed, 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { playShortSteps(t, tt.p, tt.steps) })
	}
}

// TestGuavaExplain: the why text walks Guava's steps with its numbers.
func TestGuavaExplain(t *testing.T) {
	l := mustNew(t, Policy{Algorithm: Guava, Rate: Rate{5, sec}})
	l.Decide(0, "k", 1)
	got := l.Decide(10*sec, "k", 7).Explain()
	want := "now 10000000µs on the key's stopwatch (started at 0s), next free 200000µs; idle since it: stored = min(5, 0 + 9800000 / 200000) = 5 (doubles); it waits max(10000000 − 10000000, 0) = 0 → allowed at once, whatever it costs; acquire(7): 5 stored + 2 fresh × 200000µs, cast to a long; next free 10400000µs (10.4s): the next caller pays"
	if got != want {
		t.Errorf("explanation:\n got  %s\n want %s", got, want)
	}
	got = l.Decide(10*sec, "k", 1).Explain()
	want = "now 10000000µs on the key's stopwatch (started at 0s), next free 10400000µs; stored 0 (a double); it waits max(10400000 − 10000000, 0) = 400000µs → delayed 0.4s (paying for the caller before it); acquire(1): 0 stored + 1 fresh × 200000µs, cast to a long; next free 10600000µs (10.6s)"
	if got != want {
		t.Errorf("explanation:\n got  %s\n want %s", got, want)
	}
	tr := mustNew(t, Policy{Algorithm: GuavaTry, Rate: Rate{1, sec}})
	tr.Decide(0, "k", 1)
	got = tr.Decide(250*ms, "k", 1).Explain()
	want = "now 250000µs on the key's stopwatch (started at 0s), next free 1000000µs: 1000000 − timeout 0µs > now 250000 → rejected by tryAcquire, nothing changes; retry after 0.75s"
	if got != want {
		t.Errorf("explanation:\n got  %s\n want %s", got, want)
	}
}

// TestGuavaPaysLater: on random traces, acquire admits everything, and
// what it releases is paid for afterwards: in any stretch [a, b] of release
// times the permits released, the last request's excepted, are at most one
// second's stored permits + (b − a) × rate (plus a µs of truncation per
// request, and float slack).
func TestGuavaPaysLater(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	for range 300 {
		p := randPolicy(r, Guava)
		pps := float64(p.Rate.N) / p.Rate.Per.Seconds()
		l := mustNew(t, p)
		var rel []req
		for _, q := range randTrace(r, p, 80, false) {
			q.cost = min(q.cost, 50)
			d := l.Decide(q.at, "k", q.cost)
			if !d.Outcome.Admitted() {
				t.Fatalf("%v: acquire refused %v: %s", p, q, d.Explain())
			}
			rel = append(rel, req{q.at + d.Delay, q.cost})
		}
		// The µs clock may release a request a fraction of a µs before
		// one that called earlier: look at them in release order.
		slices.SortStableFunc(rel, func(a, b req) int { return cmp.Compare(a.at, b.at) })
		for i := range rel {
			var sum int64
			for j := i; j < len(rel); j++ {
				span := (rel[j].at - rel[i].at).Seconds()
				bound := pps + span*pps + float64(j-i+1)*(1e-6*pps) + 1e-9*(pps+span*pps) + 1e-9
				if float64(sum) > bound {
					t.Fatalf("%v: %d permits released in [%v, %v] before the last one, more than %g", p, sum, rel[i].at, rel[j].at, bound)
				}
				sum += rel[j].cost
			}
		}
	}
}

// TestGuavaTry: tryAcquire with a timeout longer than any wait decides as
// acquire; with any timeout it never waits longer than the timeout (from the
// key's latest time); a refusal changes nothing; and its RetryAfter is
// exact on the microsecond clock: admitted then, refused 1ns earlier.
func TestGuavaTry(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 2))
	for range 200 {
		p := randPolicy(r, GuavaTry)
		reqs := randTrace(r, p, 100, false)
		for i := range reqs {
			reqs[i].cost = min(reqs[i].cost, 20)
		}
		if err := checkRetryExact(p, reqs); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		l := mustNew(t, p)
		for _, q := range reqs {
			before := l.Snapshot(q.at, "k")
			d := l.Decide(q.at, "k", q.cost)
			if d.Outcome == Delayed && d.Delay > p.Timeout {
				t.Fatalf("%v: waits %v > timeout: %s", p, d.Delay, d.Explain())
			}
			if d.Outcome == Rejected {
				if after := l.Snapshot(q.at, "k"); !reflect.DeepEqual(before, after) {
					t.Fatalf("%v: a refusal changed the state:\n%+v\n%+v", p, before, after)
				}
			}
		}
		long := p
		long.Timeout = 8784 * time.Hour
		acq := Policy{Algorithm: Guava, Rate: p.Rate}
		a, b := mustNew(t, long), mustNew(t, acq)
		for _, q := range reqs {
			if x, y := a.Decide(q.at, "k", q.cost), b.Decide(q.at, "k", q.cost); x.Outcome != y.Outcome || x.Delay != y.Delay {
				t.Fatalf("%v: tryAcquire with a year's timeout %s; acquire %s", p, x.Explain(), y.Explain())
			}
		}
	}
}

// TestGuavaJavaArithmetic: Java's (long) cast of a double and
// LongMath.saturatedAdd.
func TestGuavaJavaArithmetic(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		want int64
	}{{1.9, 1}, {-1.9, -1}, {math.NaN(), 0}, {1e300, math.MaxInt64}, {-1e300, math.MinInt64}, {333333.333, 333333}} {
		if got := javaLong(tt.f); got != tt.want {
			t.Errorf("javaLong(%v) = %d, want %d", tt.f, got, tt.want)
		}
	}
	for _, tt := range []struct{ a, b, want int64 }{
		{1, 2, 3}, {math.MaxInt64, 1, math.MaxInt64}, {math.MinInt64, -1, math.MinInt64}, {math.MaxInt64, -1, math.MaxInt64 - 1},
	} {
		if got := saturatedAdd(tt.a, tt.b); got != tt.want {
			t.Errorf("saturatedAdd(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	// A huge acquire at a slow rate saturates next free: every later
	// caller waits beyond any time the lab reaches.
	l := mustNew(t, Policy{Algorithm: Guava, Rate: Rate{1, time.Hour}})
	l.Decide(0, "k", MaxCount)
	if d := l.Decide(sec, "k", 1); d.Outcome != Delayed || d.Delay < 1<<61 {
		t.Errorf("after 2^40 permits at 1/h: %v delay %v", d.Outcome, d.Delay)
	}
}
