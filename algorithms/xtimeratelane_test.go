package algorithms

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func init() {
	benchPolicies = append(benchPolicies,
		Policy{Algorithm: XTimeRate, Burst: 100, Rate: Rate{100, sec}},
		Policy{Algorithm: XTimeRateReserve, Burst: 100, Rate: Rate{100, sec}},
		Policy{Algorithm: XTimeRateReserve, Burst: 100, Rate: Rate{100, sec}, MaxWait: 50 * ms},
	)
}

// xrateRef is the library driven separately for one key: AllowN (or
// ReserveN) on a limiter of its own, and for what a reservation would say,
// a fresh limiter replaying every request the key's limiter took (a refused
// request changes nothing, so the state is a function of those alone).
type xrateRef struct {
	limit rate.Limit
	burst int
	lim   *rate.Limiter
	taken []struct {
		t time.Time
		n int
	}
	last time.Duration
}

func newXRateRef(p Policy) *xrateRef {
	limit := rate.Limit(float64(p.Rate.N) / p.Rate.Per.Seconds())
	return &xrateRef{limit: limit, burst: int(p.Burst), lim: rate.NewLimiter(limit, int(p.Burst))}
}

// replay is a fresh limiter that took what the key's took.
func (r *xrateRef) replay() *rate.Limiter {
	l := rate.NewLimiter(r.limit, r.burst)
	for _, q := range r.taken {
		if !l.ReserveN(q.t, q.n).OK() {
			panic("replay refused a request the limiter took")
		}
	}
	return l
}

func (r *xrateRef) took(t time.Time, n int) {
	r.taken = append(r.taken, struct {
		t time.Time
		n int
	}{t, n})
}

// decide is what the library says of a request of cost n at now for p:
// outcome, delay and retry after, counted from now. Times are clamped to
// the key's latest, as ratelab's contract says.
func (r *xrateRef) decide(p Policy, now time.Duration, n int) (Outcome, time.Duration, time.Duration) {
	eff := max(now, r.last)
	r.last = eff
	t, arrived := xtimerateEpoch.Add(eff), xtimerateEpoch.Add(now)
	if int64(n) > p.Burst {
		if p.Algorithm == XTimeRate && r.lim.AllowN(t, n) || p.Algorithm == XTimeRateReserve && r.lim.ReserveN(t, n).OK() {
			panic("the library took n > burst")
		}
		return Rejected, 0, Never
	}
	switch {
	case p.Algorithm == XTimeRate:
		if r.lim.AllowN(t, n) {
			r.took(t, n)
			return Allowed, 0, 0
		}
		return Rejected, 0, r.replay().ReserveN(t, n).DelayFrom(arrived)
	case p.MaxWait == 0:
		res := r.lim.ReserveN(t, n)
		r.took(t, n)
		if d := res.DelayFrom(arrived); d > 0 {
			return Delayed, d, 0
		}
		return Allowed, 0, 0
	}
	// WaitN's deadline: reserveN refuses a wait beyond it, changing
	// nothing. Only WaitN reaches it, on the wall clock; a fresh replay
	// asks the same question.
	try := r.replay()
	res := try.ReserveN(t, n)
	if w := res.DelayFrom(t); w > p.MaxWait {
		return Rejected, 0, w - p.MaxWait + eff - now
	}
	r.lim = try
	r.took(t, n)
	if d := res.DelayFrom(arrived); d > 0 {
		return Delayed, d, 0
	}
	return Allowed, 0, 0
}

// TestXTimeRateIsTheLibrary: both lanes decide as golang.org/x/time/rate
// driven separately, decision for decision, on random traces over several
// keys, with costs up to burst + 1, bursts including 0, late requests, and
// max_wait or none; and the balance a snapshot shows is the library's
// TokensAt.
func TestXTimeRateIsTheLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(2015, 16))
	keys := []string{"a", "b", "c"}
	counts := map[Outcome]int{}
	for trace := range 300 {
		alg := []Algorithm{XTimeRate, XTimeRateReserve}[trace%2]
		p := randPolicy(r, alg)
		if trace%10 == 0 {
			p.Burst = 0
		}
		if alg == XTimeRateReserve && r.IntN(2) == 0 {
			p.MaxWait = unit(p) * time.Duration(1+r.IntN(5))
		}
		l := mustNew(t, p)
		refs := map[string]*xrateRef{}
		for _, k := range keys {
			refs[k] = newXRateRef(p)
		}
		for i, q := range randTrace(r, p, 200, true) {
			key := keys[r.IntN(len(keys))]
			d := l.Decide(q.at, key, q.cost)
			o, delay, retry := refs[key].decide(p, q.at, int(q.cost))
			counts[o]++
			if d.Outcome != o || d.Delay != delay || d.RetryAfter != retry {
				t.Fatalf("%v, request %d (%v cost %d key %s): %v delay %v retry %v; the library: %v delay %v retry %v\n%s",
					p, i, q.at, q.cost, key, d.Outcome, d.Delay, d.RetryAfter, o, delay, retry, d.Explain())
			}
			if err := checkXTimeRateDecision(p, d); err != nil {
				t.Fatalf("%v, request %d: %v", p, i, err)
			}
			s := l.Snapshot(q.at, key).(XTimeRateSnapshot)
			if want := refs[key].lim.TokensAt(xtimerateEpoch.Add(s.Now)); s.Tokens != want {
				t.Fatalf("%v, request %d: snapshot tokens %v, the library %v", p, i, s.Tokens, want)
			}
		}
	}
	t.Logf("outcomes: %v", counts)
	if counts[Allowed] == 0 || counts[Delayed] == 0 || counts[Rejected] == 0 {
		t.Errorf("the traces did not reach every outcome: %v", counts)
	}
}

// checkXTimeRateDecision: what holds of every decision of these lanes.
func checkXTimeRateDecision(p Policy, d Decision) error {
	switch {
	case d.Delay < 0 || d.RetryAfter < 0:
		return fmt.Errorf("negative wait: %+v", d)
	case d.Outcome == Rejected && d.RetryAfter < 1:
		return fmt.Errorf("rejected with retry %v: %s", d.RetryAfter, d.Explain())
	case d.Outcome == Rejected && (d.RetryAfter == Never) != (d.Cost > p.Burst):
		return fmt.Errorf("cost %d, burst %d, retry %v", d.Cost, p.Burst, d.RetryAfter)
	case d.Outcome == Delayed && (p.Algorithm != XTimeRateReserve || d.Delay < 1):
		return fmt.Errorf("delayed %v by %s", d.Delay, p.Algorithm)
	case d.Outcome == Allowed && (d.Delay != 0 || d.RetryAfter != 0):
		return fmt.Errorf("allowed with delay %v retry %v", d.Delay, d.RetryAfter)
	case d.Outcome == Rejected && p.Algorithm == XTimeRateReserve && p.MaxWait == 0 && d.RetryAfter != Never:
		return fmt.Errorf("ReserveN without max_wait refused %d ≤ burst: %s", d.Cost, d.Explain())
	}
	if ex := d.Explain(); !strings.Contains(ex, "→ "+d.Outcome.String()) && !strings.Contains(ex, "→ granted") {
		return fmt.Errorf("explanation %q does not say %s", ex, d.Outcome)
	}
	return nil
}

// TestXTimeRateExamples are worked examples from rate.go: NewLimiter starts
// full (tokens: float64(b)); AllowN is reserveN(t, n, 0).ok; ReserveN is
// reserveN(t, n, InfDuration), which takes n ≤ burst whatever the balance
// and waits durationFromTokens(−tokens); ReserveN's doc: "OK() returns
// false if n exceeds the Limiter's burst size"; Burst's doc: "A zero Burst
// allows no events"; WaitN's doc: it fails if "the expected wait time
// exceeds the Context's Deadline" (reserveN's maxFutureReserve).
func TestXTimeRateExamples(t *testing.T) {
	type step = shortStep
	tests := []struct {
		name  string
		p     Policy
		steps []step
	}{
		{"AllowN: starts full, refills 1/s, n > burst never",
			Policy{Algorithm: XTimeRate, Burst: 2, Rate: Rate{1, sec}},
			[]step{
				{0, 2, Allowed, 0, 0},
				{0, 1, Rejected, 0, sec},                   // a reservation would wait 1s
				{500 * ms, 1, Rejected, 0, 500 * ms},       // 0.5 token: 0.5s short
				{sec, 1, Allowed, 0, 0},                    // 1 token
				{sec, 3, Rejected, 0, Never},               // n > burst
				{3 * sec, 2, Allowed, 0, 0},                // full again at 3s
				{3*sec + 250*ms, 1, Rejected, 0, 750 * ms}, // 0.25 token
				{2 * sec, 1, Rejected, 0, 2 * sec},         // late: decided at 3.25s, 0.75s short, counted from 2s
			}},
		{"AllowN: burst 0 admits nothing",
			Policy{Algorithm: XTimeRate, Rate: Rate{1000, sec}},
			[]step{{0, 1, Rejected, 0, Never}, {time.Hour, 1, Rejected, 0, Never}}},
		{"ReserveN: into debt, each waits behind the last",
			Policy{Algorithm: XTimeRateReserve, Burst: 1, Rate: Rate{1, sec}},
			[]step{
				{0, 1, Allowed, 0, 0},
				{0, 1, Delayed, sec, 0},              // tokens −1
				{0, 1, Delayed, 2 * sec, 0},          // tokens −2
				{500 * ms, 1, Delayed, 2500 * ms, 0}, // −1.5 − 1 = −2.5
				{500 * ms, 2, Rejected, 0, Never},    // n > burst: not OK
				{10 * sec, 1, Allowed, 0, 0},         // paid off and full again
				{10 * sec, 1, Delayed, sec, 0},       // −1
				{9 * sec, 1, Delayed, 3 * sec, 0},    // late: decided at 10s, waits 2s more, 3s after arrival
			}},
		{"ReserveN with max_wait 1.5s: refused beyond it, changing nothing",
			Policy{Algorithm: XTimeRateReserve, Burst: 1, Rate: Rate{1, sec}, MaxWait: 1500 * ms},
			[]step{
				{0, 1, Allowed, 0, 0},
				{0, 1, Delayed, sec, 0},              // waits 1s ≤ 1.5s
				{0, 1, Rejected, 0, 500 * ms},        // would wait 2s > 1.5s
				{0, 1, Rejected, 0, 500 * ms},        // nothing changed by the refusal
				{500 * ms, 1, Delayed, 1500 * ms, 0}, // −0.5 − 1: waits 1.5s, the limit
				{500 * ms, 1, Rejected, 0, sec},      // would wait 2.5s
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { playShortSteps(t, tt.p, tt.steps) })
	}
}

// TestXTimeRateExplain: the why text names the library's call and its
// float64 numbers.
func TestXTimeRateExplain(t *testing.T) {
	l := mustNew(t, Policy{Algorithm: XTimeRate, Burst: 1, Rate: Rate{10, sec}})
	l.Decide(0, "k", 1)
	got := l.Decide(30*ms, "k", 1).Explain()
	want := "TokensAt(0.03s) = 0.3 (float64, at 10/s up to burst 1) < n 1 → rejected by AllowN, nothing taken; a reservation on a copy would wait (1 − 0.3) / 10/s = 0.07s (truncated to the ns): retry after 0.07s"
	if got != want {
		t.Errorf("explanation:\n got  %s\n want %s", got, want)
	}
	r := mustNew(t, Policy{Algorithm: XTimeRateReserve, Burst: 1, Rate: Rate{2, sec}, MaxWait: sec})
	r.Decide(0, "k", 1)
	r.Decide(0, "k", 1)
	r.Decide(0, "k", 1)
	got = r.Decide(0, "k", 1).Explain()
	want = "TokensAt(0s) = -2 (float64, at 2/s up to burst 1) < n 1: the reservation would wait (1 + 2) / 2/s = 1.5s > max_wait 1s → rejected, nothing reserved; retry after 1.5s − 1s = 0.5s"
	if got != want {
		t.Errorf("explanation:\n got  %s\n want %s", got, want)
	}
}

// TestXTimeRateRetryAfter: a rejection's RetryAfter is the reservation's
// delay, truncated to the ns: the exact wait lies in [RetryAfter,
// RetryAfter + 1ns). So the same request is admitted at At + RetryAfter + 1ns
// and rejected at At + RetryAfter − 2ns, always; at the two nanoseconds
// between, the library's float rounding decides (a shortfall of about one
// nanosecond's refill computes as a hair under or over it), and those are
// counted, not failed: they are x/time/rate's own 1ns edge (see
// TestAgainstXTimeRate).
func TestXTimeRateRetryAfter(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var checked, late, early int
	for range 200 {
		p := randPolicy(r, XTimeRate)
		l := mustNew(t, p)
		for _, q := range randTrace(r, p, 100, false) {
			d := l.Decide(q.at, "k", q.cost)
			if d.Outcome != Rejected || d.RetryAfter == Never || d.RetryAfter >= 1<<62-q.at {
				continue
			}
			checked++
			retry := func(after time.Duration) bool { return l.Clone().Decide(q.at+after, "k", q.cost).Outcome.Admitted() }
			if !retry(d.RetryAfter + 1) {
				t.Fatalf("%v at %v: %s; still rejected 1ns after the retry", p, q.at, d.Explain())
			}
			if d.RetryAfter > 2 && retry(d.RetryAfter-2) {
				t.Fatalf("%v at %v: %s; admitted 2ns before the retry", p, q.at, d.Explain())
			}
			if !retry(d.RetryAfter) {
				late++
			}
			if d.RetryAfter > 1 && retry(d.RetryAfter-1) {
				early++
			}
		}
	}
	t.Logf("%d rejections: at the retry %d still rejected, 1ns before it %d already admitted", checked, late, early)
	if checked < 1000 {
		t.Errorf("only %d rejections checked", checked)
	}
}

// TestXTimeRateReserveSpacing: what ReserveN admits is released no faster
// than a bucket of burst tokens at the rate allows: in any stretch of
// release times [a, b], at most burst + (b − a) × rate (less a little, for
// float rounding), the release being At + Delay.
func TestXTimeRateReserveSpacing(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for range 200 {
		p := randPolicy(r, XTimeRateReserve)
		if p.Burst == 0 {
			p.Burst = 3
		}
		l := mustNew(t, p)
		var reqs []req
		var ds []Decision
		for _, q := range randTrace(r, p, 100, false) {
			d := l.Decide(q.at, "k", q.cost)
			if d.Outcome.Admitted() {
				reqs = append(reqs, req{q.at + d.Delay, q.cost})
				ds = append(ds, Decision{Outcome: Allowed})
			}
		}
		// Allow a nanosecond's refill per release for the library's
		// truncation of each wait.
		loose := p
		loose.Burst += int64(len(reqs))*p.Rate.N/int64(p.Rate.Per) + 1
		if err := checkRateBound(loose, reqs, ds); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		for i := 1; i < len(reqs); i++ {
			if reqs[i].at < reqs[i-1].at {
				t.Fatalf("%v: released out of order: %v after %v", p, reqs[i].at, reqs[i-1].at)
			}
		}
	}
}

// TestXTimeRateExplainBalance: the balance an explanation says is left is
// the library's own TokensAt just after the decision.
func TestXTimeRateExplainBalance(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for range 100 {
		alg := []Algorithm{XTimeRate, XTimeRateReserve}[r.IntN(2)]
		p := randPolicy(r, alg)
		l := mustNew(t, p)
		for _, q := range randTrace(r, p, 50, false) {
			d := l.Decide(q.at, "k", q.cost)
			if d.RetryAfter == Never {
				continue
			}
			after := math.Float64frombits(uint64(d.v[3]))
			if got := l.Snapshot(q.at, "k").(XTimeRateSnapshot).Tokens; got != after {
				t.Fatalf("%v: the explanation's balance %v, TokensAt %v: %s", p, after, got, d.Explain())
			}
		}
	}
}

// TestXTimeRateClonesOfClones: each key's *rate.Limiter is copied when a
// clone first changes it, so clones of clones, deciding in turn, each decide
// and show every key as a limiter fed only their own history would; and the
// limiters are counted in Memory.
func TestXTimeRateClonesOfClones(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 21))
	for _, p := range []Policy{
		{Algorithm: XTimeRate, Burst: 3, Rate: Rate{300, sec}},
		{Algorithm: XTimeRateReserve, Burst: 3, Rate: Rate{300, sec}, MaxWait: 5 * ms},
	} {
		type line struct {
			lim  Limiter
			hist []sharing
		}
		var at time.Duration
		lines := []*line{{lim: mustNew(t, p)}}
		steps := 400
		if testing.Short() {
			steps = 200 // each step replays every line's history: a quarter of the time
		}
		for step := range steps {
			l := lines[r.IntN(len(lines))]
			if r.IntN(10) == 0 {
				lines = append(lines, &line{lim: l.lim.Clone(), hist: append([]sharing(nil), l.hist...)})
				continue
			}
			at += time.Duration(r.Int64N(int64(2 * ms)))
			q := sharing{max(at, lastAt(l.hist)), fmt.Sprintf("k%d", r.IntN(20)), 1 + r.Int64N(3)}
			l.lim.Decide(q.at, q.key, q.cost)
			l.hist = append(l.hist, q)
			for i, o := range lines {
				ref := mustNew(t, p)
				for _, h := range o.hist {
					ref.Decide(h.at, h.key, h.cost)
				}
				for _, key := range []string{"k0", "k7", "k19", q.key} {
					if got, want := o.lim.Snapshot(q.at, key), ref.Snapshot(q.at, key); got != want {
						t.Fatalf("%v step %d, line %d key %s: %+v, want %+v", p, step, i, key, got, want)
					}
				}
			}
		}
		if m := lines[0].lim.Memory(); m.State < 20*xtimeratePair {
			t.Errorf("%v: 20 keys' limiters in %d bytes of state", p, m.State)
		}
	}
}

func lastAt(h []sharing) time.Duration {
	if len(h) == 0 {
		return 0
	}
	return h[len(h)-1].at
}
