package algorithms

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The mistake lanes: each is checked on worked examples against the rule
// the lesson warns about, and by properties against its exact twin.

var mistakes = []Algorithm{FloatTokenBucket, WholeTokenBucket, AttemptLog, CollapsingLog, ResettingWindow}

func init() {
	benchPolicies = append(benchPolicies,
		Policy{Algorithm: FloatTokenBucket, Capacity: 100, Rate: Rate{100, sec}},
		Policy{Algorithm: WholeTokenBucket, Capacity: 100, Rate: Rate{100, sec}},
		Policy{Algorithm: AttemptLog, Limit: 100, Window: sec},
		Policy{Algorithm: CollapsingLog, Limit: 100, Window: sec},
		Policy{Algorithm: ResettingWindow, Limit: 100, Window: sec},
	)
}

// floatDriftTrace is the float-drift lesson's traffic: capacity 1 at 10/s,
// a request at 0, then one every 10ms up to 300ms.
func floatDriftTrace() []req {
	reqs := []req{{0, 1}}
	for at := 10 * ms; at <= 300*ms; at += 10 * ms {
		reqs = append(reqs, req{at, 1})
	}
	return reqs
}

// TestFloatBucketFirstMisfiresAt300ms: the lesson's admit(), in float64
// with now = ns / 1e9, admits at 100ms and 200ms as exact arithmetic does
// and first decides otherwise at 300ms, holding 0.9999999999999998 tokens.
// (Adding 0.1 ten times gives 0.9999999999999999, but admit() does not add
// 0.1: it multiplies (now − updated) × rate, and the first shortfall comes
// at 300ms.)
func TestFloatBucketFirstMisfiresAt300ms(t *testing.T) {
	p := Policy{Capacity: 1, Rate: Rate{10, sec}}
	fp, ep := p, p
	fp.Algorithm, ep.Algorithm = FloatTokenBucket, TokenBucket
	reqs := floatDriftTrace()
	fl, ex := run(mustNew(t, fp), reqs), run(mustNew(t, ep), reqs)
	first := time.Duration(-1)
	for i := range reqs {
		if fl[i].Outcome != ex[i].Outcome {
			first = reqs[i].at
			break
		}
	}
	if first != 300*ms {
		t.Fatalf("the float lane first differs at %v, want 300ms", first)
	}
	d := fl[len(fl)-1]
	want := "in float64: available = min(1, 0.8999999999999997 + (0.3 − 0.29) × 10) = 0.9999999999999998 < cost 1 → rejected; exact arithmetic on the same history holds the whole 1: float64 rounding, not time, rejected it; retry after 0.000000001s (when this float64 arithmetic first admits it)"
	if d.Outcome != Rejected || d.RetryAfter != 1 || d.Explain() != want {
		t.Errorf("at 300ms: %v retry %v\n got  %s\n want %s", d.Outcome, d.RetryAfter, d.Explain(), want)
	}
	for _, at := range []time.Duration{100 * ms, 200 * ms} {
		if d := fl[at/(10*ms)]; d.Outcome != Allowed {
			t.Errorf("at %v: %s", at, d.Explain())
		}
	}
	l := mustNew(t, fp)
	run(l, reqs)
	s := l.Snapshot(300*ms, "k").(FloatTokenBucketSnapshot)
	if s.Tokens != 0.9999999999999998 || s.Exact != (Quantity{1e9, 1e9}) {
		t.Errorf("snapshot at 300ms: %+v", s)
	}
	// One nanosecond later the float refill reaches 1 (a balance of
	// 0.9999999999999998 + 1e-8 rounds to 1).
	if d := l.Decide(300*ms+1, "k", 1); d.Outcome != Allowed {
		t.Errorf("at 300ms + 1ns: %s", d.Explain())
	}
}

// TestMistakeWorkedExamples plays each mistake's worked example and checks
// every decision, wait and explanation.
func TestMistakeWorkedExamples(t *testing.T) {
	tests := []struct {
		name  string
		p     Policy
		steps []step
	}{
		{
			// The lesson's trace: a bucket emptied at 0 holds half a token
			// at 0.25s, rejects, and names a further 0.25s; float64 agrees
			// here, every number being exact in binary.
			name: "float bucket: the lesson's half token at 0.25s",
			p:    Policy{Algorithm: FloatTokenBucket, Capacity: 10, Rate: Rate{2, sec}},
			steps: []step{
				{at: 0, cost: 10, want: Allowed, explain: "in float64: available = min(10, 10 + (0 − 0) × 2) = 10 ≥ cost 10 → allowed; 0 left"},
				{at: 250 * ms, cost: 1, want: Rejected, retry: 250 * ms,
					explain: "in float64: available = min(10, 0 + (0.25 − 0) × 2) = 0.5 < cost 1 → rejected; retry after 0.25s (when this float64 arithmetic first admits it)"},
				{at: 500 * ms, cost: 1, want: Allowed},
				{at: 600 * ms, cost: 11, want: Rejected, retry: Never},
			},
		},
		{
			// Polled every 0.3s at 2/s: each request earns 0.6 token, drops
			// it, and the bucket never refills; a wait of 0.5s earns one.
			name: "whole-token bucket: polling faster than a token drops every fraction",
			p:    Policy{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{2, sec}},
			steps: []step{
				{at: 0, cost: 3, want: Allowed, explain: "tokens = min(3, 3 + ⌊0s × 2/s⌋) = 3 ≥ cost 3 → allowed; 0 left"},
				{at: 300 * ms, cost: 1, want: Rejected, retry: 500 * ms,
					explain: "tokens = min(3, 0 + ⌊0.3s × 2/s⌋) = 0 (0.3s × 2/s = 0.6 earned; 0.6 of it dropped as the clock moves on) < cost 1 → rejected; retry after (1 − 0) / 2/s = 0.5s, rounded up to the ns — a request sooner earns only a fraction, which it drops"},
				{at: 600 * ms, cost: 1, want: Rejected, retry: 500 * ms},
				{at: 900 * ms, cost: 1, want: Rejected, retry: 500 * ms},
				{at: 1500 * ms, cost: 1, want: Allowed,
					explain: "tokens = min(3, 0 + ⌊0.6s × 2/s⌋) = 1 (0.6s × 2/s = 1.2 earned; 0.2 of it dropped as the clock moves on) ≥ cost 1 → allowed; 0 left"},
				{at: 2000 * ms, cost: 1, want: Allowed},
				{at: 10 * sec, cost: 4, want: Rejected, retry: Never},
			},
		},
		{
			// Limit 3 per 10s: the rejected attempt at 3s is logged, so at
			// 10s the log still holds three attempts though only two
			// admissions remain, and the request is refused; the exact log
			// would admit it.
			name: "attempt log: a rejected attempt counts against the next",
			p:    Policy{Algorithm: AttemptLog, Limit: 3, Window: 10 * sec},
			steps: []step{
				{at: 0, cost: 1, want: Allowed},
				{at: sec, cost: 1, want: Allowed},
				{at: 2 * sec, cost: 1, want: Allowed, explain: "attempts in (-8s, 2s] = 2 (2 of them admitted); 2 + cost 1 = 3 ≤ limit 3 → allowed; logged"},
				{at: 3 * sec, cost: 1, want: Rejected, retry: 8 * sec,
					explain: "attempts in (-7s, 3s] = 3 (3 of them admitted); 3 + cost 1 = 4 > limit 3 → rejected, and logged all the same: it now counts against the next try; retry after 8s, when the attempts up to 1s have expired — each retry sooner is logged and pushes this further"},
				{at: 10 * sec, cost: 1, want: Rejected, retry: 2 * sec,
					explain: "attempts in (0s, 10s] = 3 (2 of them admitted); 3 + cost 1 = 4 > limit 3 → rejected, and logged all the same: it now counts against the next try; retry after 2s, when the attempts up to 2s have expired — each retry sooner is logged and pushes this further"},
				{at: 12 * sec, cost: 1, want: Allowed},
				{at: 12 * sec, cost: 4, want: Rejected, retry: Never},
				{at: 13 * sec, cost: 1, want: Allowed}, // the cost-4 attempt was never logged
			},
		},
		{
			// Limit 3 per 1s, member = the millisecond: four requests at 0
			// and one at 0.5ms share member 0 and all pass; two more
			// milliseconds fill the set.
			name: "collapsing log: admissions in one millisecond are one member",
			p:    Policy{Algorithm: CollapsingLog, Limit: 3, Window: sec},
			steps: []step{
				{at: 0, cost: 1, want: Allowed, explain: "0 members in (-1s, 0s], counting 0; 0 + cost 1 = 1 ≤ limit 3 → allowed; member 0s added (any more admissions in that millisecond will collapse into it)"},
				{at: 0, cost: 1, want: Allowed, explain: "1 member in (-1s, 0s], counting 1; 1 + cost 1 = 2 ≤ limit 3 → allowed; member 0s is already in the set, so this admission adds nothing: it is never counted"},
				{at: 0, cost: 1, want: Allowed},
				{at: 0, cost: 1, want: Allowed},
				{at: 500 * time.Microsecond, cost: 1, want: Allowed},
				{at: ms, cost: 1, want: Allowed},
				{at: 2 * ms, cost: 1, want: Allowed},
				{at: 3 * ms, cost: 1, want: Rejected, retry: 997 * ms,
					explain: "3 members in (-0.997s, 0.003s], counting 3; 3 + cost 1 = 4 > limit 3 → rejected; retry after 0.997s, when the members up to 0s have expired"},
				{at: sec, cost: 1, want: Allowed},
			},
		},
		{
			// Limit 3, expiry 10s reset by every attempt: the attempts at 3s
			// and 12s keep the key alive until 22s, though a clock window
			// of 10s would have restarted at 10s.
			name: "resetting window: every attempt pushes the expiry",
			p:    Policy{Algorithm: ResettingWindow, Limit: 3, Window: 10 * sec},
			steps: []step{
				{at: 0, cost: 1, want: Allowed, explain: "no key (none yet, or none since an attempt 10s ago or more): count starts at 0; count 0 + cost 1 = 1 ≤ limit 3 → allowed; expiry reset to 0s + 10s = 10s"},
				{at: sec, cost: 1, want: Allowed},
				{at: 2 * sec, cost: 1, want: Allowed},
				{at: 3 * sec, cost: 1, want: Rejected, retry: 10 * sec},
				{at: 12 * sec, cost: 1, want: Rejected, retry: 10 * sec,
					explain: "key alive since 0s, expiring at 13s; count 4 + cost 1 = 5 > limit 3 → rejected, counted all the same; expiry reset to 12s + 10s = 22s; retry after 10s — only a pause of a whole 10s with no attempt clears it: each retry sooner counts and resets the expiry again"},
				{at: 22*sec - 1, cost: 4, want: Rejected, retry: Never},
				{at: 22 * sec, cost: 1, want: Allowed},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, tc.p)
			for i, s := range tc.steps {
				d := l.Decide(s.at, "k", s.cost)
				if d.Outcome != s.want || d.Delay != s.delay || d.RetryAfter != s.retry {
					t.Fatalf("step %d at %v cost %d: %v delay %v retry %v, want %v delay %v retry %v: %s",
						i, s.at, s.cost, d.Outcome, d.Delay, d.RetryAfter, s.want, s.delay, s.retry, d.Explain())
				}
				if s.explain != "" && d.Explain() != s.explain {
					t.Errorf("step %d at %v:\n got  %s\n want %s", i, s.at, d.Explain(), s.explain)
				}
				if err := checkDecision(tc.p, req{s.at, s.cost}, d); err != nil {
					t.Errorf("step %d: %v", i, err)
				}
			}
		})
	}
}

// TestMistakesRetryExact: every finite RetryAfter of a mistake lane is the
// shortest wait after which that lane, mistake and all, admits the same
// request if nothing else came — on random traces, late requests included.
func TestMistakesRetryExact(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 7))
	for _, alg := range mistakes {
		t.Run(string(alg), func(t *testing.T) {
			for range shortened(150) {
				p := randPolicy(r, alg)
				reqs := randTrace(r, p, 120, true)
				if err := checkRetryExact(p, reqs); err != nil {
					t.Fatalf("%v: %v", p, err)
				}
				l := mustNew(t, p)
				for _, rq := range reqs {
					if err := checkDecision(p, rq, l.Decide(rq.at, "k", rq.cost)); err != nil {
						t.Fatalf("%v: %v", p, err)
					}
				}
			}
		})
	}
}

// twin is p with its algorithm replaced and its parameters kept.
func twin(p Policy, alg Algorithm) Policy {
	p.Algorithm = alg
	return p
}

// TestMistakesAgainstTheirTwins checks on random traces what follows from
// each mistake's rule:
//   - attempt-log: its window counts every attempt, so whatever it admits
//     the sliding log admits too (request by request, on the same trace);
//   - resetting-window: its count runs since a run of attempts began, each
//     less than a window after the one before, so it holds every attempt of
//     the last window: whatever it admits the attempt log admits too, and
//     it never admits more than limit in any window;
//   - whole-token-bucket: it earns at most what the exact bucket earns, so
//     an exact bucket fed only its admissions admits every one of them;
//   - collapsing-log: on traces with no two requests in one millisecond,
//     at whole milliseconds, it decides exactly as the sliding log;
//   - resetting-window: with unit costs at multiples of the window, it
//     decides exactly as the fixed window.
func TestMistakesAgainstTheirTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 11))
	subset := func(p Policy, reqs []req, small, big Algorithm) error {
		a, b := run(mustNew(t, twin(p, small)), reqs), run(mustNew(t, twin(p, big)), reqs)
		for i := range reqs {
			if a[i].Outcome == Allowed && b[i].Outcome != Allowed {
				return fmt.Errorf("request %d at %v cost %d: %s admits (%s), %s does not (%s)",
					i, reqs[i].at, reqs[i].cost, small, a[i].Explain(), big, b[i].Explain())
			}
		}
		return nil
	}
	for range 300 {
		p := randPolicy(r, AttemptLog)
		reqs := randTrace(r, p, 150, false)
		if err := subset(p, reqs, AttemptLog, SlidingLog); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if err := subset(p, reqs, ResettingWindow, AttemptLog); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		rp := twin(p, ResettingWindow)
		if err := checkLogBound(rp, reqs, run(mustNew(t, rp), reqs)); err != nil {
			t.Fatalf("%v: %v", rp, err)
		}

		// Collapsing log: distinct whole milliseconds, in order.
		ms0 := reqs[:0:0]
		var at time.Duration
		for _, rq := range reqs {
			at += time.Duration(1+r.Int64N(int64(max(p.Window/ms, 2)))) * ms
			ms0 = append(ms0, req{at, rq.cost})
		}
		c, s := run(mustNew(t, twin(p, CollapsingLog)), ms0), run(mustNew(t, twin(p, SlidingLog)), ms0)
		for i := range ms0 {
			if c[i].Outcome != s[i].Outcome || c[i].RetryAfter != s[i].RetryAfter {
				t.Fatalf("%v request %d at %v: collapsing %s, sliding %s", p, i, ms0[i].at, c[i].Explain(), s[i].Explain())
			}
		}
	}
	// Resetting window: with unit costs and every request at a multiple of
	// the window, each instant begins a fresh key and a fresh clock window,
	// and counting attempts or admissions rejects the same requests.
	for range 300 {
		p := randPolicy(r, ResettingWindow)
		var reqs []req
		var k int64
		for range 100 {
			k += r.Int64N(3)
			if k*int64(p.Window) >= 1<<62 {
				break
			}
			reqs = append(reqs, req{time.Duration(k) * p.Window, 1})
		}
		a, b := run(mustNew(t, p), reqs), run(mustNew(t, twin(p, FixedWindow)), reqs)
		for i := range reqs {
			if a[i].Outcome != b[i].Outcome {
				t.Fatalf("%v request %d at %v: resetting %s, fixed %s", p, i, reqs[i].at, a[i].Explain(), b[i].Explain())
			}
		}
	}
	for range 300 {
		p := randPolicy(r, WholeTokenBucket)
		reqs := randTrace(r, p, 150, false)
		ds := run(mustNew(t, p), reqs)
		exact := mustNew(t, twin(p, TokenBucket))
		for _, a := range admitted(reqs, ds) {
			if d := exact.Decide(a.at, "k", a.cost); d.Outcome != Allowed {
				t.Fatalf("%v: the whole-token bucket admitted %v cost %d, more than the exact bucket's refill: %s", p, a.at, a.cost, d.Explain())
			}
		}
	}
}

// TestMistakesShowTheDifference: on the lessons' kind of traffic each
// mistake admits a different number than its exact twin, in the direction
// its why text says.
func TestMistakesShowTheDifference(t *testing.T) {
	count := func(p Policy, reqs []req) (n int) {
		for _, d := range run(mustNew(t, p), reqs) {
			if d.Outcome == Allowed {
				n++
			}
		}
		return n
	}
	every := func(from, until, gap time.Duration) (out []req) {
		for at := from; at < until; at += gap {
			out = append(out, req{at, 1})
		}
		return out
	}
	burst := func(at time.Duration, n int) (out []req) {
		for range n {
			out = append(out, req{at, 1})
		}
		return out
	}
	tests := []struct {
		name          string
		p             Policy
		twin          Algorithm
		reqs          []req
		mistake, want int
	}{
		// Capacity 1 at 10/s, one request every 10ms: the float lane loses
		// the admission at 300ms.
		{"float", Policy{Algorithm: FloatTokenBucket, Capacity: 1, Rate: Rate{10, sec}}, TokenBucket, floatDriftTrace(), 3, 4},
		// Capacity 3 at 2/s polled every 300ms for 6s: the exact bucket
		// earns 0.6 a poll and admits about 2 in 3 polls; the whole-token
		// bucket only its first 3.
		{"whole", Policy{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{2, sec}}, TokenBucket, every(0, 6*sec, 300*ms), 3, 14},
		// Limit 3 per 10s, a request every second for a minute: the log of
		// admissions lets 3 through each 10s, the log of attempts only the
		// first 3.
		{"attempts", Policy{Algorithm: AttemptLog, Limit: 3, Window: 10 * sec}, SlidingLog, every(0, 60*sec, sec), 3, 18},
		// Limit 3 per second, 10 requests in one millisecond: the
		// collapsing log admits all.
		{"collapsing", Policy{Algorithm: CollapsingLog, Limit: 3, Window: sec}, SlidingLog, burst(0, 10), 10, 3},
		// Limit 3 per 10s, every second for a minute: the resetting window
		// never closes.
		{"resetting", Policy{Algorithm: ResettingWindow, Limit: 3, Window: 10 * sec}, FixedWindow, every(0, 60*sec, sec), 3, 18},
	}
	for _, tc := range tests {
		if d := Describe(tc.p.Algorithm); d.Twin != tc.twin {
			t.Errorf("%s: the description's twin is %s, want %s", tc.p.Algorithm, d.Twin, tc.twin)
		}
		got, want := count(tc.p, tc.reqs), count(twin(tc.p, tc.twin), tc.reqs)
		if got != tc.mistake || want != tc.want {
			t.Errorf("%s: the mistake admits %d, its twin %s %d; want %d and %d", tc.name, got, tc.twin, want, tc.mistake, tc.want)
		}
	}
}

// TestMistakesSayWhatIsWrong: every mistake's rejections name its mistake.
func TestMistakesSayWhatIsWrong(t *testing.T) {
	words := map[Algorithm]string{
		FloatTokenBucket: "float64",
		WholeTokenBucket: "drop",
		AttemptLog:       "logged all the same",
		CollapsingLog:    "members",
		ResettingWindow:  "resets the expiry",
	}
	r := rand.New(rand.NewPCG(47, 1))
	for _, alg := range mistakes {
		if Describe(alg).Family != Mistake {
			t.Errorf("%s is not in the Mistake family", alg)
		}
		p := randPolicy(r, alg)
		l := mustNew(t, p)
		for _, rq := range randTrace(r, p, 200, false) {
			d := l.Decide(rq.at, "k", rq.cost)
			if d.Outcome == Rejected && d.RetryAfter != Never && !strings.Contains(d.Explain(), words[alg]) {
				t.Errorf("%s: %q does not say %q", alg, d.Explain(), words[alg])
			}
		}
	}
}
