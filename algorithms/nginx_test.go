package algorithms

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

func init() {
	// nginx takes rates per second or per minute only, and delay= or
	// nodelay, not both.
	policyFixups[NginxLimitReq] = func(r *rand.Rand, p *Policy) {
		p.Rate.Per = []time.Duration{time.Second, time.Minute}[r.IntN(2)]
		p.Status = []int64{0, 429, 503, 599}[r.IntN(4)]
		// A dry run lets every request through, which the properties of a
		// limiter (a cost above MaxCost refused, admissions bounded) do
		// not hold for: TestNginxDryRun holds it to the same policy
		// without it.
		p.DryRun = false
		if p.NoDelay && p.Delay > 0 {
			if r.IntN(2) == 0 {
				p.NoDelay = false
			} else {
				p.Delay = 0
			}
		}
	}
	benchPolicies = append(benchPolicies,
		Policy{Algorithm: NginxLimitReq, Burst: 100, Rate: Rate{100, sec}},
		Policy{Algorithm: NginxLimitReq, Burst: 100, Delay: 50, Rate: Rate{100, sec}},
		Policy{Algorithm: NginxLimitReq, Burst: 100, NoDelay: true, Rate: Rate{6000, time.Minute}},
	)
}

func nginxPolicy(rate Rate, burst, delay int64, nodelay bool) Policy {
	return Policy{Algorithm: NginxLimitReq, Rate: rate, Burst: burst, Delay: delay, NoDelay: nodelay}
}

// nginxBurst is count requests of cost 1 at one instant, expected to be
// admitted with the given delays (0: allowed) and then rejected with retry.
func nginxBurst(at time.Duration, delays []time.Duration, rejected int, retry time.Duration) []step {
	var steps []step
	for _, d := range delays {
		s := step{at: at, cost: 1, want: Allowed}
		if d > 0 {
			s.want, s.delay = Delayed, d
		}
		steps = append(steps, s)
	}
	for range rejected {
		steps = append(steps, step{at: at, cost: 1, want: Rejected, retry: retry})
	}
	return steps
}

// msSteps are delays of whole milliseconds.
func msSteps(ms ...int64) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Millisecond
	}
	return out
}

// TestNginxWorkedExamples: examples derived from nginx's
// src/http/modules/ngx_http_limit_req_module.c (nginx/nginx at 3f6f7824):
// ngx_http_limit_req_zone (rate=2r/s is kept as 2000 thousandths a second,
// 30r/m as 30 × 1000 / 60 = 500, 1r/m as 16), ngx_http_limit_req
// (burst and delay × 1000, nodelay an infinite delay, burst 0 if left out),
// ngx_http_limit_req_lookup (a new node gets excess 0; otherwise excess =
// excess − rate × ms / 1000 + 1000, 0 if negative, rejected iff > burst,
// stored with last = now only when admitted) and
// ngx_http_limit_req_account (delay = (excess − delay) × 1000 / rate ms).
func TestNginxWorkedExamples(t *testing.T) {
	rate2 := Rate{2, sec}
	tests := []struct {
		name  string
		p     Policy
		steps []step
	}{
		{
			name: "burst=10 admits 11 at one instant: the first at once, ten delayed 0.5s apart, the 12th rejected",
			p:    nginxPolicy(rate2, 10, 0, false),
			steps: nginxBurst(0, msSteps(0, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000), 2,
				500*ms),
		},
		{
			name:  "burst=10 nodelay admits 11 at once",
			p:     nginxPolicy(rate2, 10, 0, true),
			steps: nginxBurst(0, make([]time.Duration, 11), 1, 500*ms),
		},
		{
			name:  "burst=10 delay=5: excess 0 to 5.000 at once, 6.000 to 10.000 delayed",
			p:     nginxPolicy(rate2, 10, 5, false),
			steps: nginxBurst(0, msSteps(0, 0, 0, 0, 0, 0, 500, 1000, 1500, 2000, 2500), 1, 500*ms),
		},
		{
			name: "burst=0 (left out) admits 1 at one instant, then one per 0.5s",
			p:    nginxPolicy(rate2, 0, 0, false),
			steps: []step{
				{at: 0, cost: 1, want: Allowed,
					explain: "no node yet at 0 ms: nginx makes one with excess 0.000 ≤ burst 0 → allowed at once: excess ≤ delay 0 (nginx ngx_http_limit_req_module.c)"},
				{at: 0, cost: 1, want: Rejected, retry: 500 * ms,
					explain: "same ms as the node (0 ms): excess = 0.000 + 1.000 = 1.000 > burst 0 → rejected with 503 and no Retry-After, the node left as it was; it would fit from 500 ms, after 0.5s (nginx ngx_http_limit_req_module.c)"},
				{at: 499 * ms, cost: 1, want: Rejected, retry: ms,
					explain: "499 ms since the node's 0 ms: excess = 0.000 − 2.000×499/1000 (0.998) + 1.000 = 0.002 > burst 0 → rejected with 503 and no Retry-After, the node left as it was; it would fit from 500 ms, after 0.001s (nginx ngx_http_limit_req_module.c)"},
				{at: 500 * ms, cost: 1, want: Allowed},
				{at: 500 * ms, cost: 2, want: Rejected, retry: Never,
					explain: "cost 2 > burst 0 + 1 → rejected; this request can never fit"},
			},
		},
		{
			name: "the clock is whole milliseconds: 499.000001ms apart counts as 500",
			p:    nginxPolicy(rate2, 0, 0, false),
			steps: []step{
				{at: ms - 1, cost: 1, want: Allowed},   // nginx's 0 ms
				{at: 500 * ms, cost: 1, want: Allowed}, // 500 ms: 500 ms later by nginx's clock
				{at: 1000*ms - 1, cost: 1, want: Rejected, retry: 1},
			},
		},
		{
			name: "a partly drained node: excess 10.000 at 0, 7.500 + 1 at 1.25s, delayed 4.25s",
			p:    nginxPolicy(rate2, 10, 0, false),
			steps: append(nginxBurst(0, msSteps(0, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000), 0, 0),
				step{at: 1250 * ms, cost: 1, want: Delayed, delay: 4250 * ms,
					explain: "1250 ms since the node's 0 ms: excess = 10.000 − 2.000×1250/1000 (2.500) + 1.000 = 8.500 ≤ burst 10 → delayed (8.500 − delay 0) × 1000 / 2.000 = 4250 ms (nginx ngx_http_limit_req_module.c)"}),
		},
		{
			name: "a drained node clamps at 0: after 10s idle, 11 at once again",
			p:    nginxPolicy(rate2, 10, 0, true),
			steps: append(nginxBurst(0, make([]time.Duration, 11), 0, 0),
				append([]step{{at: 10 * sec, cost: 1, want: Allowed,
					explain: "10000 ms since the node's 0 ms: excess = 10.000 − 2.000×10000/1000 (20.000) + 1.000 < 0, so 0.000 = 0.000 ≤ burst 10 → allowed at once (nodelay) (nginx ngx_http_limit_req_module.c)"}},
					nginxBurst(10*sec, make([]time.Duration, 10), 1, 500*ms)...)...),
		},
		{
			name: "30r/m is 500 thousandths a second: requests 1ms apart drain 500 × 1 / 1000 = 0, so the 12th waits 10ms longer than exact",
			p:    nginxPolicy(Rate{30, time.Minute}, 10, 0, true),
			steps: []step{
				{at: 0, cost: 1, want: Allowed}, {at: 1 * ms, cost: 1, want: Allowed}, {at: 2 * ms, cost: 1, want: Allowed},
				{at: 3 * ms, cost: 1, want: Allowed}, {at: 4 * ms, cost: 1, want: Allowed}, {at: 5 * ms, cost: 1, want: Allowed},
				{at: 6 * ms, cost: 1, want: Allowed}, {at: 7 * ms, cost: 1, want: Allowed}, {at: 8 * ms, cost: 1, want: Allowed},
				{at: 9 * ms, cost: 1, want: Allowed},
				{at: 10 * ms, cost: 1, want: Allowed,
					explain: "1 ms since the node's 9 ms: excess = 9.000 − 0.500×1/1000 (0.000) + 1.000 = 10.000 ≤ burst 10 → allowed at once (nodelay) (nginx ngx_http_limit_req_module.c)"},
				// An exact token bucket of 11 at 0.5/s would admit from
				// 2000ms: 11 − 10 × 0.0005 drained… nginx drained nothing.
				{at: 2000 * ms, cost: 1, want: Rejected, retry: 10 * ms,
					explain: "1990 ms since the node's 10 ms: excess = 10.000 − 0.500×1990/1000 (0.995) + 1.000 = 10.005 > burst 10 → rejected with 503 and no Retry-After, the node left as it was; it would fit from 2010 ms, after 0.01s (nginx ngx_http_limit_req_module.c)"},
				{at: 2010*ms - 1, cost: 1, want: Rejected, retry: 1},
				{at: 2010 * ms, cost: 1, want: Allowed},
			},
		},
		{
			name: "1r/m is 16 thousandths a second: 60s drains only 0.960, so burst 0 admits one per 62.5s",
			p:    nginxPolicy(Rate{1, time.Minute}, 0, 0, false),
			steps: []step{
				{at: 0, cost: 1, want: Allowed},
				{at: 60 * sec, cost: 1, want: Rejected, retry: 2500 * ms,
					explain: "60000 ms since the node's 0 ms: excess = 0.000 − 0.016×60000/1000 (0.960) + 1.000 = 0.040 > burst 0 → rejected with 503 and no Retry-After, the node left as it was; it would fit from 62500 ms, after 2.5s (nginx ngx_http_limit_req_module.c)"},
				{at: 62500 * ms, cost: 1, want: Allowed},
			},
		},
		{
			name: "the delay is truncated to whole ms: 3r/s delays the second request 333ms, and one 333ms later not at all",
			p:    nginxPolicy(Rate{3, sec}, 5, 0, false),
			steps: []step{
				{at: 0, cost: 1, want: Allowed},
				{at: 0, cost: 1, want: Delayed, delay: 333 * ms,
					explain: "same ms as the node (0 ms): excess = 0.000 + 1.000 = 1.000 ≤ burst 5 → delayed (1.000 − delay 0) × 1000 / 3.000 = 333 ms (nginx ngx_http_limit_req_module.c)"},
				// 3000 × 333 / 1000 = 999: excess 1.000 − 0.999 + 1 = 1.001,
				// delayed 1 × 1000 / 3000 = 0.333 → 333 ms.
				{at: 333 * ms, cost: 1, want: Delayed, delay: 333 * ms},
				{at: 1000 * ms, cost: 1, want: Allowed,
					explain: "667 ms since the node's 333 ms: excess = 1.001 − 3.000×667/1000 (2.001) + 1.000 = 0.000 ≤ burst 5 → allowed at once: excess ≤ delay 0 (nginx ngx_http_limit_req_module.c)"},
				{at: 1333 * ms, cost: 1, want: Allowed,
					explain: "333 ms since the node's 1000 ms: excess = 0.000 − 3.000×333/1000 (0.999) + 1.000 = 0.001 ≤ burst 5 → allowed: (0.001 − delay 0) × 1000 / 3.000 truncates to 0 ms (nginx ngx_http_limit_req_module.c)"},
			},
		},
		{
			name: "cost c is charged as c requests in one millisecond (ratelab's generalisation)",
			p:    nginxPolicy(rate2, 10, 0, false),
			steps: []step{
				{at: 0, cost: 12, want: Rejected, retry: Never,
					explain: "cost 12 > burst 10 + 1 → rejected; this request can never fit"},
				{at: 0, cost: 11, want: Delayed, delay: 5 * sec,
					explain: "no node yet at 0 ms: nginx makes one with excess 0.000, + (11 − 1) × 1.000 = 10.000 ≤ burst 10 → delayed (10.000 − delay 0) × 1000 / 2.000 = 5000 ms (nginx ngx_http_limit_req_module.c)"},
				{at: sec, cost: 3, want: Rejected, retry: 500 * ms,
					explain: "1000 ms since the node's 0 ms: excess = 10.000 − 2.000×1000/1000 (2.000) + 1.000, + (3 − 1) × 1.000 = 11.000 > burst 10 → rejected with 503 and no Retry-After, the node left as it was; it would fit from 1500 ms, after 0.5s (nginx ngx_http_limit_req_module.c)"},
				{at: sec, cost: 2, want: Delayed, delay: 5 * sec},
			},
		},
		{
			name: "a late request is decided at the key's latest time",
			p:    nginxPolicy(rate2, 0, 0, false),
			steps: []step{
				{at: sec, cost: 1, want: Allowed},
				{at: 200 * ms, cost: 1, want: Rejected, retry: 1300 * ms,
					explain: "arrived at 0.2s, before this key's latest request: decided as at 1s; same ms as the node (1000 ms): excess = 0.000 + 1.000 = 1.000 > burst 0 → rejected with 503 and no Retry-After, the node left as it was; it would fit from 1500 ms, after 0.5s, 1.3s after arrival (nginx ngx_http_limit_req_module.c)"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { playSteps(t, tt.p, tt.steps) })
	}
}

func TestNginxSnapshot(t *testing.T) {
	p := nginxPolicy(Rate{2, sec}, 10, 0, false)
	l := mustNew(t, p)
	base := NginxLimitReqSnapshot{Rate: p.Rate, RateMilli: 2000, Burst: 10}
	want := base
	want.Now = 5 * sec
	if got := l.Snapshot(5*sec, "k"); !reflect.DeepEqual(got, want) {
		t.Errorf("unseen key:\n got  %+v\n want %+v", got, want)
	}
	for range 11 {
		l.Decide(0, "k", 1)
	}
	// At 1.25s: 10.000 − 2.500 = 7.500 left; a request would find 8.500
	// and wait (8.500 − 0) × 1000 / 2000 = 4250 ms.
	want = base
	want.Now, want.Node, want.Excess, want.Left, want.Next, want.NextDelay = 1250*ms+999_999, true, 10000, 7500, 8500, 4250*ms
	if got := l.Snapshot(1250*ms+999_999, "k"); !reflect.DeepEqual(got, want) {
		t.Errorf("at 1.250999999s (nginx's 1250 ms):\n got  %+v\n want %+v", got, want)
	}
	// A full node rejects the next request: no delay shown.
	if got := l.Snapshot(0, "k").(NginxLimitReqSnapshot); got.Next != 11000 || got.NextDelay != 0 || got.Left != 10000 {
		t.Errorf("at 0: %+v", got)
	}
	// Drained past 0, Left is 0 and Next is 0 (the clamp).
	if got := l.Snapshot(6*sec, "k").(NginxLimitReqSnapshot); got.Left != 0 || got.Next != 0 {
		t.Errorf("at 6s: %+v", got)
	}
}

func TestNginxValidate(t *testing.T) {
	tests := []struct {
		p       Policy
		wantErr string
	}{
		{nginxPolicy(Rate{2, sec}, 0, 0, false), ""},
		{nginxPolicy(Rate{30, time.Minute}, 10, 5, false), ""},
		{nginxPolicy(Rate{30, time.Minute}, 10, 0, true), ""},
		{nginxPolicy(Rate{30, time.Minute}, 3, 10, false), ""}, // delay ≥ burst: never delays, as nginx allows
		{nginxPolicy(Rate{2, time.Hour}, 10, 0, false), "per second or per minute only"},
		{nginxPolicy(Rate{1, 500 * ms}, 10, 0, false), "per second or per minute only"},
		{nginxPolicy(Rate{2, sec}, 10, 5, true), "nginx keeps whichever is written last"},
		{nginxPolicy(Rate{2, sec}, -1, 0, false), "burst -1 must not be negative"},
		{nginxPolicy(Rate{2, sec}, 1<<40+1, 0, false), "burst 1099511627777 is too large"},
		{nginxPolicy(Rate{1, time.Minute}, 1<<40, 0, false), "takes too long to drain"},
		{nginxPolicy(Rate{2, sec}, 1<<40, 0, false), "takes too long to drain"},
		{nginxPolicy(Rate{1 << 31, sec}, 1<<40, 0, false), ""},
		{Policy{Algorithm: NginxLimitReq, Burst: 3}, "nginx-limit-req needs rate"},
		{Policy{Algorithm: NginxLimitReq, Rate: Rate{2, sec}, Capacity: 3}, "takes no capacity"},
		{Policy{Algorithm: GCRA, Burst: 3, Rate: Rate{2, sec}, NoDelay: true}, "gcra takes no nodelay"},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%v: Validate() = %v, want %q", tt.p, err, tt.wantErr)
		}
	}
}

func TestNginxDescription(t *testing.T) {
	tests := []struct {
		p        Policy
		line     string
		words    string
		maxCost  int64
		horizon  time.Duration
		maxDelay time.Duration
	}{
		{nginxPolicy(Rate{2, sec}, 10, 0, false), "nginx-limit-req rate=2r/s burst=10",
			"nginx limit_req: 2r/s, burst 10: admits 11 in one instant, passes the first now and holds the rest back to the rate; 503 beyond", 11, 5500 * ms, 5 * sec},
		{nginxPolicy(Rate{2, sec}, 10, 0, true), "nginx-limit-req rate=2r/s burst=10 nodelay",
			"nginx limit_req: 2r/s, burst 10 nodelay: admits 11 in one instant, all passed now; 503 beyond", 11, 5500 * ms, 0},
		{nginxPolicy(Rate{2, sec}, 10, 5, false), "nginx-limit-req rate=2r/s burst=10 delay=5",
			"nginx limit_req: 2r/s, burst 10 delay=5: admits 11 in one instant, passes the first 6 now and holds the rest back to the rate; 503 beyond", 11, 5500 * ms, 2500 * ms},
		{nginxPolicy(Rate{30, time.Minute}, 0, 0, false), "nginx-limit-req rate=30r/m",
			"nginx limit_req: 30r/m, burst 0: admits 1 in one instant; 503 beyond", 1, 2 * sec, 0},
		// 1r/m: 16 thousandths a second; 1000 drains in ⌈1e6/16⌉ = 62500 ms.
		{nginxPolicy(Rate{1, time.Minute}, 0, 0, false), "nginx-limit-req rate=1r/m", "", 1, 62500 * ms, 0},
		// 3r/s: (5000 × 1000) / 3000 = 1666 ms, truncated; 6000 drains in 2000 ms.
		{nginxPolicy(Rate{3, sec}, 5, 0, false), "nginx-limit-req rate=3r/s burst=5", "", 6, 2 * sec, 1666 * ms},
	}
	for _, tt := range tests {
		d := Describe(NginxLimitReq)
		if got := tt.p.String(); got != tt.line {
			t.Errorf("String() = %q, want %q", got, tt.line)
		}
		if got := d.Words(tt.p); tt.words != "" && got != tt.words {
			t.Errorf("Words() = %q, want %q", got, tt.words)
		}
		if got := tt.p.MaxCost(); got != tt.maxCost {
			t.Errorf("%v MaxCost() = %d, want %d", tt.p, got, tt.maxCost)
		}
		if got := tt.p.Horizon(); got != tt.horizon {
			t.Errorf("%v Horizon() = %v, want %v", tt.p, got, tt.horizon)
		}
		if got := tt.p.MaxDelay(); got != tt.maxDelay {
			t.Errorf("%v MaxDelay() = %v, want %v", tt.p, got, tt.maxDelay)
		}
	}
	if d := Describe(NginxLimitReq); d.RejectStatus() != 503 || d.Family != Library {
		t.Errorf("status %d, family %v", d.RejectStatus(), d.Family)
	}
}

// wholeMs is a trace of whole milliseconds, times never going back.
func wholeMs(r *rand.Rand, p Policy, n int) []req {
	reqs := randTrace(r, p, n, false)
	for i := range reqs {
		reqs[i].at = reqs[i].at / ms * ms
	}
	return reqs
}

// TestNginxProperties checks, on random policies and traces, what the rule
// implies: a fresh key admits burst + 1 at one instant and no more; so does
// any key idle for the horizon; a rejection changes nothing; every
// RetryAfter is exact (at it the same request is admitted, 1ns earlier it
// is not); delays never exceed MaxDelay, and none happen with nodelay or
// excess at most delay; and the admitted cost in any span of nginx's clock
// [a, b] ms is at most burst + 1 + rate × (b − a), as nginx's truncation
// only ever drains less.
func TestNginxProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 3))
	for range 300 {
		p := randPolicy(r, NginxLimitReq)
		rateMilli := NginxRateMilli(p.Rate)
		back := r.IntN(4) == 0
		reqs := randTrace(r, p, 120, back)
		if err := checkRetryExact(p, reqs); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		l := mustNew(t, p)
		var adm []req
		for i, rq := range reqs {
			before := l.Snapshot(rq.at, "k")
			d := l.Decide(rq.at, "k", rq.cost)
			switch d.Outcome {
			case Rejected:
				after := l.Snapshot(rq.at, "k")
				if !reflect.DeepEqual(before, after) {
					t.Fatalf("%v request %d: a rejection changed the node:\n before %+v\n after  %+v", p, i, before, after)
				}
				if d.RetryAfter <= 0 || d.Delay != 0 {
					t.Fatalf("%v request %d: %+v", p, i, d)
				}
			case Delayed:
				if d.Delay <= 0 || d.Delay > p.MaxDelay() || d.Delay%ms != 0 || p.NoDelay || p.Delay >= p.Burst {
					t.Fatalf("%v request %d: delayed %v (MaxDelay %v): %s", p, i, d.Delay, p.MaxDelay(), d.Explain())
				}
			}
			if want := "→ " + d.Outcome.String(); !strings.Contains(d.Explain(), want) {
				t.Fatalf("%v: explanation %q lacks %q", p, d.Explain(), want)
			}
			if d.Outcome.Admitted() {
				adm = append(adm, req{effTimes(reqs[:i+1])[i], d.Cost})
			}
		}
		for i := range adm {
			var sum int64
			for j := i; j < len(adm); j++ {
				sum += adm[j].cost
				span := msOf(adm[j].at) - msOf(adm[i].at)
				// sum × 1000 ≤ (burst + 1) × 1000 + rate × span / 1000 × … kept
				// exact: sum × 1e6 ≤ (burst + 1) × 1e6 + rate × span.
				if !mul128(sum, 1e6).le(mul128(p.Burst+1, 1e6).add(mul128(rateMilli, span))) {
					t.Fatalf("%v: admitted %d in %d ms from %v", p, sum, span, adm[i].at)
				}
			}
		}
		// Idle for the horizon, the key is as new: burst + 1 at once.
		last := effTimes(reqs)[len(reqs)-1]
		at := last + p.Horizon()
		if d := l.Decide(at, "k", p.Burst+1); !d.Outcome.Admitted() {
			t.Fatalf("%v: after the horizon, burst + 1 rejected: %s", p, d.Explain())
		}
		if d := l.Decide(at, "k", 1); d.Outcome != Rejected {
			t.Fatalf("%v: burst + 2 at one instant: %s", p, d.Explain())
		}
		fresh := mustNew(t, p)
		for k := int64(0); k <= p.Burst; k++ {
			if d := fresh.Decide(at, "new", 1); !d.Outcome.Admitted() {
				t.Fatalf("%v: request %d of burst %d + 1 rejected: %s", p, k+1, p.Burst, d.Explain())
			}
		}
		if d := fresh.Decide(at, "new", 1); d.Outcome != Rejected {
			t.Fatalf("%v: burst + 2 at one instant: %s", p, d.Explain())
		}
	}
}

// TestNginxIsABucketOfBurstPlusOne: with a rate per second and requests at
// whole milliseconds, nginx's arithmetic is exact (rate × ms / 1000 = N ×
// ms thousandths), and limit_req decides as the textbook would: with
// nodelay, as a token bucket of capacity burst + 1 at N/s (its excess is
// the bucket's deficit less the request being served); without it and
// with delay 0, for requests of cost 1 and N dividing 1000 (so that every
// delay is whole ms), as a leaky bucket of queue burst at N/s, delay for
// delay.
func TestNginxIsABucketOfBurstPlusOne(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var counts [3]int
	defer func() {
		if counts[Allowed] == 0 || counts[Delayed] == 0 || counts[Rejected] == 0 {
			t.Errorf("outcomes allowed/delayed/rejected = %v: traces too tame", counts)
		}
		t.Logf("outcomes allowed/delayed/rejected = %v", counts)
	}()
	for range 300 {
		n := []int64{1, 2, 4, 5, 10, 20, 25, 100, 1000}[r.IntN(9)]
		burst := []int64{0, 1, 2, 5, 10, r.Int64N(30)}[r.IntN(6)]
		nodelay := r.IntN(2) == 0
		p := nginxPolicy(Rate{n, sec}, burst, 0, nodelay)
		var twin Policy
		if nodelay {
			twin = Policy{Algorithm: TokenBucket, Capacity: burst + 1, Rate: p.Rate}
		} else if burst > 0 {
			twin = Policy{Algorithm: LeakyBucket, Queue: burst, Rate: p.Rate}
		} else {
			continue // a leaky bucket needs a queue; burst 0 never delays
		}
		reqs := wholeMs(r, p, 150)
		if !nodelay {
			for i := range reqs {
				reqs[i].cost = 1
			}
		}
		a, b := mustNew(t, p), mustNew(t, twin)
		for i, rq := range reqs {
			got, want := a.Decide(rq.at, "k", rq.cost), b.Decide(rq.at, "k", rq.cost)
			counts[got.Outcome]++
			if got.Outcome != want.Outcome || got.Delay != want.Delay {
				t.Fatalf("%v vs %v, request %d (%v, cost %d): %v delay %v, want %v delay %v\n%s\n%s",
					p, twin, i, rq.at, rq.cost, got.Outcome, got.Delay, want.Outcome, want.Delay, got.Explain(), want.Explain())
			}
		}
	}
}

// TestNginxCostIsRequestsInOneMillisecond: ratelab's generalisation. A
// request of cost c is decided as c requests of cost 1 in the same
// millisecond would be by nginx: admitted iff all c would be, leaving the
// node as they would, delayed as the last of them; rejected iff one of
// them would be, leaving the node untouched.
func TestNginxCostIsRequestsInOneMillisecond(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 2))
	for range 300 {
		p := randPolicy(r, NginxLimitReq)
		a, b := mustNew(t, p), mustNew(t, p)
		for i, rq := range randTrace(r, p, 120, false) {
			if rq.cost > p.MaxCost() {
				continue
			}
			got := a.Decide(rq.at, "k", rq.cost)
			units := b.Clone()
			var last Decision
			all := true
			for range rq.cost {
				if last = units.Decide(rq.at, "k", 1); last.Outcome == Rejected {
					all = false
					break
				}
			}
			switch {
			case got.Outcome.Admitted() != all:
				t.Fatalf("%v request %d (cost %d at %v): %s; as %d requests, all admitted: %v", p, i, rq.cost, rq.at, got.Explain(), rq.cost, all)
			case all && got.Delay != last.Delay:
				t.Fatalf("%v request %d: delay %v, the last of %d requests %v", p, i, got.Delay, rq.cost, last.Delay)
			case all:
				b = units
			}
			if sa, sb := a.Snapshot(rq.at, "k"), b.Snapshot(rq.at, "k"); !reflect.DeepEqual(sa, sb) {
				t.Fatalf("%v request %d: node %+v, as requests of cost 1 %+v", p, i, sa, sb)
			}
		}
	}
}
