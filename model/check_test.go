package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// checkBruteForce is what Check answers, computed the slow way: every
// expectation looks at every request, and the peak is brute force over the
// selected admissions' releases. It returns every expectation's "got".
func checkBruteForce(t *testing.T, s *scenarios.Scenario) []string {
	t.Helper()
	var recs []Record
	if _, err := Run(s, Options{}, func(r Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	var gots []string
	for i := range s.Expect {
		e := &s.Expect[i]
		var o Tally
		var rel []passing
		var mismatch *Record
		for _, r := range recs {
			if s.Lanes[r.Lane].Name != e.Lane || !e.Selects(r.Request) {
				continue
			}
			o.add(r.Decision.Outcome)
			if r.Decision.Outcome.Admitted() {
				rel = append(rel, passing{at: r.Request.At + r.Decision.Delay, cost: r.Request.Cost})
			}
			if e.Outcome != nil && r.Decision.Outcome != *e.Outcome && mismatch == nil {
				mismatch = &r
			}
		}
		var got []string
		for _, c := range []struct {
			name string
			want *int64
			got  int
		}{{"allowed", e.Allowed, o.Allowed}, {"admitted", e.Admitted, o.Allowed + o.Delayed}, {"delayed", e.Delayed, o.Delayed}, {"rejected", e.Rejected, o.Rejected}} {
			if c.want != nil {
				got = append(got, fmt.Sprintf("%s %d", c.name, c.got))
			}
		}
		if e.Peak != nil {
			peak, at := bruteForcePeak(rel, e.PeakWindow)
			got = append(got, fmt.Sprintf("peak %d per %s (window ending %s)", peak, algorithms.FormatDuration(e.PeakWindow), algorithms.FormatSeconds(at)))
		}
		if e.Outcome != nil {
			switch {
			case o.Total() == 0:
				got = append(got, "no request selected")
			case mismatch != nil:
				got = append(got, fmt.Sprintf("the request at %s (key %s) was %s: %s", algorithms.FormatSeconds(mismatch.Request.At),
					mismatch.Request.Key, mismatch.Decision.Outcome, mismatch.Decision.Explain()))
			default:
				got = append(got, fmt.Sprintf("all %d %s", o.Total(), *e.Outcome))
			}
		}
		gots = append(gots, strings.Join(got, ", "))
	}
	return gots
}

// bruteForcePeak is the largest total cost with release time in (t − w, t]
// over every t, by trying every release as the window's end.
func bruteForcePeak(xs []passing, w time.Duration) (peak int64, at time.Duration) {
	for _, end := range xs {
		var sum int64
		for _, x := range xs {
			if x.at > end.at-w && x.at <= end.at {
				sum += x.cost
			}
		}
		if sum > peak || (sum == peak && end.at < at) {
			peak, at = sum, end.at
		}
	}
	return peak, at
}

// trafficShape bounds writeRandomTraffic's items: times in ms.
type trafficShape struct {
	items, maxCost              int
	burstAt, burstCount, spread int    // a burst: at < burstAt, 1 to burstCount requests over < spread
	every                       [2]int // a periodic item's step, in [every[0], every[1])
	from, span                  int    // its from < from, until from + 1 to span later
	singleAt                    int    // a single request: at < singleAt
}

// writeRandomTraffic writes a traffic list of sh.items random items —
// bursts, periodic items and single requests on keys a, b and c, of costs 1
// to sh.maxCost (single requests cost 1) — as the random check scenarios
// use.
func writeRandomTraffic(b *strings.Builder, rng *rand.Rand, sh trafficShape) {
	ms := func(lo, hi int) string { return fmt.Sprintf("%dms", lo+rng.IntN(hi-lo)) }
	b.WriteString("traffic:\n")
	keys := []string{"a", "b", "c"}
	for range sh.items {
		key, cost := keys[rng.IntN(3)], 1+rng.IntN(sh.maxCost)
		switch rng.IntN(3) {
		case 0:
			fmt.Fprintf(b, "  - {at: %s, count: %d, spread: %s, key: %s, cost: %d}\n", ms(0, sh.burstAt), 1+rng.IntN(sh.burstCount), ms(0, sh.spread), key, cost)
		case 1:
			from := rng.IntN(sh.from)
			fmt.Fprintf(b, "  - {every: %s, from: %dms, until: %dms, key: %s, cost: %d}\n", ms(sh.every[0], sh.every[1]), from, from+1+rng.IntN(sh.span), key, cost)
		default:
			fmt.Fprintf(b, "  - {at: %s, key: %s}\n", ms(0, sh.singleAt), key)
		}
	}
}

// randomCheckScenario is a small scenario of every kind of lane and
// traffic, with n random expectations that all fail (each asserts a count
// of −1 beside what it measures), so that Check reports what it measured
// for every one of them.
func randomCheckScenario(t *testing.T, rng *rand.Rand, n int) *scenarios.Scenario {
	t.Helper()
	ms := func(lo, hi int) string { return fmt.Sprintf("%dms", lo+rng.IntN(hi-lo)) }
	var b strings.Builder
	b.WriteString("title: t\nduration: 3s\nlimiters:\n")
	b.WriteString("  - {name: fixed, algorithm: fixed-window, limit: " + fmt.Sprint(3+rng.IntN(6)) + ", window: " + ms(50, 400) + "}\n")
	b.WriteString("  - {name: log, algorithm: sliding-log, limit: " + fmt.Sprint(3+rng.IntN(6)) + ", window: " + ms(50, 400) + "}\n")
	b.WriteString("  - {name: bucket, algorithm: token-bucket, capacity: " + fmt.Sprint(3+rng.IntN(4)) + ", rate: " + fmt.Sprint(5+rng.IntN(30)) + "/s}\n")
	b.WriteString("  - {name: shaper, algorithm: leaky-bucket, queue: " + fmt.Sprint(2+rng.IntN(5)) + ", rate: " + fmt.Sprint(5+rng.IntN(30)) + "/s}\n")
	writeRandomTraffic(&b, rng, trafficShape{items: 1 + rng.IntN(5), maxCost: 3, burstAt: 2500, burstCount: 20, spread: 300,
		every: [2]int{5, 60}, from: 1500, span: 1500, singleAt: 2900})
	s := parse(t, b.String())
	lanes := []string{"fixed", "log", "bucket", "shaper"}
	minus := int64(-1)
	var ats []time.Duration
	for r := range s.Requests() {
		ats = append(ats, r.At)
	}
	// near is a random time, or often one where a request arrives, or a
	// nanosecond either side of one: the boundaries that matter.
	near := func() time.Duration {
		if len(ats) == 0 || rng.IntN(3) == 0 {
			return time.Duration(rng.IntN(3000)) * time.Millisecond
		}
		return max(0, ats[rng.IntN(len(ats))]+time.Duration(rng.IntN(3)-1))
	}
	for range n {
		e := scenarios.Expectation{Lane: lanes[rng.IntN(len(lanes))], Admitted: &minus}
		if k := rng.IntN(5); k < 4 {
			e.Key = []string{"", "a", "b", "d"}[k] // d sends no request
		}
		switch rng.IntN(4) {
		case 0: // the whole run
			e.Until = s.Duration
		case 1: // an instant
			at := near()
			e.From, e.Until, e.Instant = at, at+1, true
		default:
			e.From, e.Until = near(), near()
			if e.From > e.Until {
				e.From, e.Until = e.Until, e.From
			}
			e.Until = min(e.Until+1, s.Duration)
		}
		if rng.IntN(2) == 0 {
			peak := int64(-1)
			e.Peak = &peak
			e.PeakWindow = []time.Duration{1, time.Millisecond, 50 * time.Millisecond, 333 * time.Millisecond, time.Second, 8784 * time.Hour}[rng.IntN(6)]
			if rng.IntN(2) == 0 { // the gap between two requests, give or take 1ns
				if d := near() - near() + time.Duration(rng.IntN(3)-1); d > 0 {
					e.PeakWindow = d
				}
			}
		}
		if rng.IntN(2) == 0 {
			o := algorithms.Outcome(rng.IntN(3))
			e.Outcome = &o
		}
		if rng.IntN(3) == 0 {
			a := int64(-1)
			e.Rejected = &a
		}
		s.Expect = append(s.Expect, e)
	}
	return s
}

// TestCheckMatchesBruteForce compares every expectation's measures (counts,
// peak and its window, the first request with another outcome) with a
// brute force over random scenarios; many expectations share a lane, key
// and window with different ranges, or are identical.
func TestCheckMatchesBruteForce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 2))
	for trial := range rounds(300, 100) {
		s := randomCheckScenario(t, rng, 1+rng.IntN(40))
		// Some identical expectations, sharing a tracker or a group.
		for _, i := range []int{rng.IntN(len(s.Expect)), rng.IntN(len(s.Expect))} {
			s.Expect = append(s.Expect, s.Expect[i])
		}
		want := checkBruteForce(t, s)
		failures, err := Check(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(failures) != len(s.Expect) {
			t.Fatalf("trial %d: %d failures for %d expectations that all fail", trial, len(failures), len(s.Expect))
		}
		for i, f := range failures {
			if f.Got != want[i] {
				t.Fatalf("trial %d, expectation %d (%s):\n got %s\nwant %s", trial, i, s.Expect[i].String(), f.Got, want[i])
			}
		}
	}
}

func TestCheckReportsWhatFailed(t *testing.T) {
	s := parse(t, `title: t
duration: 10s
limiters:
  - {name: fixed, algorithm: fixed-window, limit: 2, window: 1s}
traffic:
  - {at: 0s, count: 3}
  - {at: 1s, count: 1}
expect:
  - {lane: fixed, until: 1s, admitted: 2, rejected: 1}
  - {lane: fixed, until: 1s, admitted: 3, why: "wrong on purpose"}
  - {lane: fixed, at: 1s, outcome: rejected}
  - {lane: fixed, peak: 3, peak_window: 2s}
  - {lane: fixed, at: 5s, outcome: allowed}
`)
	got := checkErrors(t, s)
	want := []string{
		"expected fixed until 1s: admitted 3; got admitted 2 (wrong on purpose)",
		"got the request at 1s (key default) was allowed: window [1s, 2s): count 0 + cost 1 = 1 ≤ limit 2 → allowed",
		"no request selected",
	}
	if len(got) != len(want) {
		t.Fatalf("failures:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) || !strings.HasPrefix(got[i], "test.yaml:") {
			t.Errorf("failure %d:\n got %s\nwant it to contain %q", i, got[i], want[i])
		}
	}
}

// checkErrors runs Check on s and returns its failures as they print.
func checkErrors(t *testing.T, s *scenarios.Scenario) []string {
	t.Helper()
	failures, err := Check(s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range failures {
		got = append(got, f.Error())
	}
	return got
}

// BenchmarkCheckYearPeaks: 50 peak expectations with a year's window on
// one lane over the same 2,000,000 requests, 25 identical (one tracker)
// and 25 over nested ranges (one group), beside run on the same scenario.
func BenchmarkCheckYearPeaks(b *testing.B) {
	var e strings.Builder
	e.WriteString("expect:\n")
	for range 25 {
		e.WriteString("  - {lane: b1, peak: 2000000, peak_window: 8784h}\n")
	}
	for i := range 25 {
		fmt.Fprintf(&e, "  - {lane: b1, from: %dh, until: %dh, peak: 1, peak_window: 8784h}\n", i*10, 800-i*10)
	}
	s := yearWindow(b, 2_000_000, "regular", e.String())
	b.Run("run", func(b *testing.B) {
		reportPeakHeap(b, func() {
			if _, err := Run(s, Options{}, nil); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("check", func(b *testing.B) {
		reportPeakHeap(b, func() {
			if _, err := Check(s); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// manyExpectations is 100,000 requests (two keys, every 20ms and 30ms) on
// six lanes with n random expectations: counts over ranges, outcomes at
// instants, and peaks over ranges with three windows, by key or not.
func manyExpectations(b testing.TB, n int) *scenarios.Scenario {
	s, err := scenarios.Parse("many.yaml", []byte(`title: many expectations
duration: 1250s
limiters:
  - {name: f, algorithm: fixed-window, limit: 120, window: 60s}
  - {name: l, algorithm: sliding-log, limit: 120, window: 60s}
  - {name: c, algorithm: sliding-counter, limit: 120, window: 60s}
  - {name: b, algorithm: token-bucket, capacity: 10, rate: 2/s}
  - {name: g, algorithm: gcra, burst: 10, rate: 2/s}
  - {name: s, algorithm: leaky-bucket, queue: 10, rate: 2/s}
traffic:
  - {every: 20ms, until: 1200s, key: a}
  - {every: 30ms, until: 1200s, key: b}
`))
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	lanes := []string{"f", "l", "c", "b", "g", "s"}
	for i := range n {
		e := scenarios.Expectation{Lane: lanes[rng.IntN(6)], Key: []string{"", "a", "b"}[rng.IntN(3)]}
		from := time.Duration(rng.IntN(1190)) * time.Second
		e.From, e.Until = from, from+time.Duration(1+rng.IntN(10))*time.Second
		v := int64(0)
		switch i % 3 {
		case 0:
			e.Admitted = &v
		case 1:
			o := algorithms.Allowed
			e.From = time.Duration(rng.IntN(60000)) * 20 * time.Millisecond
			e.Until, e.Instant, e.Outcome = e.From+1, true, &o
		default:
			e.Peak, e.PeakWindow = &v, []time.Duration{time.Second, 10 * time.Second, time.Minute}[rng.IntN(3)]
		}
		s.Expect = append(s.Expect, e)
	}
	return s
}

// holdAll rewrites s's expectations to hold: each asserts what it
// measures (an outcome that does not hold becomes a count).
func holdAll(b testing.TB, s *scenarios.Scenario) {
	c, err := newChecker(s)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.run(s, nil); err != nil {
		b.Fatal(err)
	}
	for i := range c.exps {
		x := &c.exps[i]
		e := &s.Expect[i]
		if e.Outcome != nil && (x.mismatch != nil || x.outcomes.Total() == 0) {
			e.Outcome = nil
		}
		admitted := int64(x.outcomes.Allowed + x.outcomes.Delayed)
		e.Admitted = &admitted
		if e.Peak != nil {
			peak, _ := x.peak()
			e.Peak = &peak
		}
	}
}

// BenchmarkCheckManyExpectations: check against run on 100,000 requests
// with 30,000 expectations (the case: 48.8s against 0.68s), all
// failing (each failure's message written, an explanation for an outcome)
// or all holding.
func BenchmarkCheckManyExpectations(b *testing.B) {
	s := manyExpectations(b, 30_000)
	b.Run("run", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := Run(s, Options{}, nil); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("check-failing", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := Check(s); err != nil {
				b.Fatal(err)
			}
		})
	})
	holding := manyExpectations(b, 30_000)
	holdAll(b, holding)
	b.Run("check-holding", func(b *testing.B) {
		loopCPU(b, func() {
			f, err := Check(holding)
			if err != nil || len(f) > 0 {
				b.Fatal(err, len(f))
			}
		})
	})
}

// leakyPeaks is 100,000 requests (one every 10ms for 1000s) on one leaky
// bucket that delays most of them (queue 50 at 90/s: a delay of up to
// 0.56s), with n peak expectations of a 1s window, each from its own
// From to the end.
func leakyPeaks(b testing.TB, n int) *scenarios.Scenario {
	var y strings.Builder
	y.WriteString(`title: leaky peaks
duration: 1001s
limiters:
  - {name: s, algorithm: leaky-bucket, queue: 50, rate: 90/s}
traffic:
  - {every: 10ms, until: 1000s}
expect:
`)
	for i := range n {
		fmt.Fprintf(&y, "  - {lane: s, from: %s, until: 1001s, peak: 0, peak_window: 1s}\n", algorithms.FormatDuration(time.Duration(i)*1000*time.Second/time.Duration(n)))
	}
	s, err := scenarios.Parse("leaky.yaml", []byte(y.String()))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkCheckLeakyPeaks: check against run on a lane that delays, with
// 3,000 peak expectations that differ in From (the issue asks check ≤ 2 ×
// run whatever the number of expectations). A tracker per expectation fed
// its whole range took 12.1s (run 11ms); the group for the middle windows
// and trackers over the edges alone take about 16ms, run 9ms.
// (`go test -run XXX -bench CheckLeakyPeaks -benchtime 10x ./model`)
func BenchmarkCheckLeakyPeaks(b *testing.B) {
	s := leakyPeaks(b, 3000)
	b.Run("run", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := Run(s, Options{}, nil); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("check", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := Check(s); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// TestCheckRetryAfterAndWait: retry_after and wait hold when every
// selected rejection tells its client that, and fail, saying which
// rejection and what it said, when one does not or none is selected.
func TestCheckRetryAfterAndWait(t *testing.T) {
	const head = `title: t
limiters:
  - {name: b, algorithm: token-bucket, capacity: 1, rate: 4/s}
traffic:
  - {at: 0s, count: 2}
  - {at: 100ms}
duration: 2s
expect:
`
	checkEach(t, head, []checkCase{
		{"  - {lane: b, at: 0s, retry_after: 1, wait: 250ms}\n", ""},
		{"  - {lane: b, at: 100ms, wait: 150ms}\n", ""},
		{"  - {lane: b, until: 1s, retry_after: 1}\n", ""},
		{"  - {lane: b, at: 0s, wait: 200ms}\n", "the rejection at 0s (key default) had Retry-After 1, wait 250ms"},
		{"  - {lane: b, until: 1s, wait: 250ms}\n", "the rejection at 0.1s (key default) had Retry-After 1, wait 150ms"},
		{"  - {lane: b, at: 0s, retry_after: 0}\n", "the rejection at 0s (key default) had Retry-After 1, wait 250ms"},
		{"  - {lane: b, from: 1s, retry_after: 1}\n", "no rejection selected"},
	})
}

// TestCheckLatencyPercentiles: latency_p50/p95/p99 hold when the served
// requests' latencies have them, and a failure says what they were.
func TestCheckLatencyPercentiles(t *testing.T) {
	const head = `title: t
limiters:
  - {name: q, algorithm: leaky-bucket, queue: 3, rate: 1/s}
traffic:
  - {at: 0s, count: 3}
duration: 10s
expect:
`
	checkEach(t, head, []checkCase{
		{"  - {lane: q, latency_p50: 1s, latency_p95: 2s, latency_p99: 2s}\n", ""},
		{"  - {lane: q, latency_p50: 2s}\n", "latency p50 1s, p95 2s, p99 2s of 3 served"},
		{"  - {lane: q, from: 5s, latency_p99: 0s}\n", "no served request selected"},
	})
}

// checkCase is one expectation line added to a scenario's head, and the
// failure Check reports for it ("" when it holds).
type checkCase struct{ expect, got string }

// checkEach checks head with each case's expectation alone.
func checkEach(t *testing.T, head string, cases []checkCase) {
	t.Helper()
	for _, c := range cases {
		s, err := scenarios.Parse("t.yaml", []byte(head+c.expect))
		if err != nil {
			t.Fatal(err)
		}
		failures, err := Check(s)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(failures) > 0 {
			got = failures[0].Got
		}
		if got != c.got {
			t.Errorf("%s: got %q, want %q", strings.TrimSpace(c.expect), got, c.got)
		}
	}
}

// TestCheckStateBytes: state_per_key holds when the most bytes a selected
// key's state took after a selected request is that, state_total when the
// selected keys' states add up to that at the selection's last instant;
// a failure says what they were.
func TestCheckStateBytes(t *testing.T) {
	// A sliding log keeps 56 bytes a key and 24 an entry inside its window.
	const head = `title: t
limiters:
  - {name: log, algorithm: sliding-log, limit: 50, window: 1s}
traffic:
  - {at: 0s, count: 60, key: a}
  - {at: 0.5s, key: b}
  - {at: 0.5s, key: a}
  - {at: 2.5s, key: a}
duration: 5s
expect:
`
	checkEach(t, head, []checkCase{
		{"  - {lane: log, state_per_key: 1256}\n", ""}, // a's 50 entries
		{"  - {lane: log, key: b, state_per_key: 80}\n", ""},
		// a's first request from 0.5s is refused, its state as large as ever.
		{"  - {lane: log, from: 0.5s, state_per_key: 1256}\n", ""},
		{"  - {lane: log, from: 1s, state_per_key: 80}\n", ""}, // a's 50 entries left at 1s
		{"  - {lane: log, at: 0s, state_per_key: 1256, state_total: 1256}\n", ""},
		{"  - {lane: log, until: 1s, state_total: 1336}\n", ""},
		{"  - {lane: log, at: 2s, state_total: 112}\n", ""}, // no request at 2s; both keys empty
		{"  - {lane: log, key: b, until: 0.5s, state_total: 0}\n", ""},
		{"  - {lane: log, state_per_key: 80}\n", "state per key 1256 bytes (1.2 KiB)"},
		{"  - {lane: log, from: 3s, state_per_key: 56}\n", "no request selected"},
		{"  - {lane: log, state_total: 0}\n", "state total 112 bytes of 2 keys at 4.999999999s"},
		{"  - {lane: log, until: 0.5s, state_total: 0}\n", "state total 1256 bytes (1.2 KiB) of 1 key at 0.499999999s"},
		{"  - {lane: log, key: a, at: 2.5s, state_total: 56}\n", "state total 80 bytes at 2.5s"},
		{"  - {lane: log, until: 1s, admitted: 51, state_per_key: 80}\n", "admitted 51, state per key 1256 bytes (1.2 KiB)"},
	})
}

// TestCheckStateTotalBeforeRetries: a retry due at until is not in the
// state at until − 1ns, even in the first lane, which decides its retries
// before any other lane's. An attempt log keeps every refused retry, so
// each retry adds an entry of 24 bytes.
func TestCheckStateTotalBeforeRetries(t *testing.T) {
	const head = `title: t
limiters:
  - {name: tries, algorithm: attempt-log, limit: 1, window: 1h}
  - {name: bucket, algorithm: token-bucket, capacity: 1, rate: 1/h}
clients:
  - {name: c, retry: backoff, base: 1s, factor: 1, attempts: 5}
traffic:
  - {at: 0s, count: 2, client: c}
duration: 10s
expect:
`
	measure := func(expect string) string {
		s, err := scenarios.Parse("t.yaml", []byte(head+expect))
		if err != nil {
			t.Fatal(err)
		}
		failures, err := Check(s)
		if err != nil || len(failures) != 1 {
			t.Fatalf("failures %v, %v", failures, err)
		}
		return failures[0].Got
	}
	for _, c := range []struct{ expect, got string }{
		{"  - {lane: tries, until: 2s, state_total: 0}\n", "state total 208 bytes of 1 key at 1.999999999s"},
		{"  - {lane: tries, at: 2s, state_total: 0}\n", "state total 232 bytes of 1 key at 2s"},
		{"  - {lane: tries, state_per_key: 0}\n", "state per key 280 bytes"},
	} {
		if got := measure(c.expect); got != c.got {
			t.Errorf("%s: got %q, want %q", strings.TrimSpace(c.expect), got, c.got)
		}
	}
}

// TestCheckStatePerKeyIsRunsStateKey: over every key and the whole axis,
// state_per_key is what Run measures as Stats.KeyBytes (run's summary's
// state/key), on every lane of every canned lesson.
func TestCheckStatePerKeyIsRunsStateKey(t *testing.T) {
	for _, info := range scenarios.List() {
		s, err := scenarios.Canned(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		stats, err := Run(s, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Expect = s.Expect[:0]
		for i, l := range s.Lanes {
			s.Expect = append(s.Expect, scenarios.Expectation{Lane: l.Name, Until: s.Duration, StatePerKey: &stats[i].KeyBytes})
		}
		failures, err := Check(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range failures {
			t.Errorf("%s: Run measured state/key %d; check: %s", info.Name, *f.Expectation.StatePerKey, f.Got)
		}
	}
}
