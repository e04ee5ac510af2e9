package scenarios

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

func TestNominal(t *testing.T) {
	c := Client{Retry: Backoff, Base: 100 * time.Millisecond, Cap: 10 * time.Second, Factor: 2}
	for n, want := range map[int]time.Duration{
		1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond,
		7: 6400 * time.Millisecond, 8: 10 * time.Second, 100: 10 * time.Second,
	} {
		if got := c.Nominal(n); got != want {
			t.Errorf("Nominal(%d) = %v, want %v", n, got, want)
		}
	}
	// Factor 1: the base every time.
	one := Client{Retry: Backoff, Base: time.Second, Cap: MaxTime, Factor: 1}
	if got := one.Nominal(100); got != time.Second {
		t.Errorf("factor 1: Nominal(100) = %v, want 1s", got)
	}
	// base × factor^(n−1) far past 2^63 saturates at the cap instead of
	// wrapping round to a small or negative wait.
	for _, big := range []Client{
		{Retry: Backoff, Base: MaxTime / 2, Cap: MaxTime, Factor: 16},
		{Retry: Backoff, Base: math.MaxInt64 / 4, Cap: math.MaxInt64, Factor: 16},
		{Retry: Backoff, Base: 1 << 40, Cap: math.MaxInt64, Factor: 16},
	} {
		for _, n := range []int{7, 17, 100} {
			if got := big.Nominal(n); got != big.Cap {
				t.Errorf("base %d, cap %v: Nominal(%d) = %v, want the cap", big.Base, big.Cap, n, got)
			}
		}
	}
	// A base just under the cap doubles past it: the cap.
	near := Client{Retry: Backoff, Base: 3 * time.Second, Cap: 5 * time.Second, Factor: 2}
	if got := near.Nominal(2); got != 5*time.Second {
		t.Errorf("Nominal(2) = %v, want the cap 5s", got)
	}
}

func TestBackoffJitter(t *testing.T) {
	none := Client{Retry: Backoff, Base: time.Second, Cap: time.Minute, Factor: 2}
	full, equal := none, none
	full.Jitter, equal.Jitter = FullJitter, EqualJitter
	for n := 1; n <= 8; n++ {
		w := none.Nominal(n)
		// The extreme draws reach the ends of the ranges.
		if got := full.Backoff(n, 0); got != 0 {
			t.Errorf("full, draw 0: %v, want 0", got)
		}
		if got := full.Backoff(n, math.MaxUint64); got != w {
			t.Errorf("full, the largest draw: %v, want W = %v", got, w)
		}
		if got := equal.Backoff(n, 0); got != w/2 {
			t.Errorf("equal, draw 0: %v, want W/2 = %v", got, w/2)
		}
		if got := equal.Backoff(n, math.MaxUint64); got != w {
			t.Errorf("equal, the largest draw: %v, want W = %v", got, w)
		}
		for rank := range 200 {
			draw := JitterDraw(7, 1, time.Second, rank, n)
			if got := none.Backoff(n, draw); got != w {
				t.Errorf("no jitter: %v, want W = %v", got, w)
			}
			if got := full.Backoff(n, draw); got < 0 || got > w {
				t.Errorf("full jitter %v outside [0, %v]", got, w)
			}
			if got := equal.Backoff(n, draw); got < w/2 || got > w {
				t.Errorf("equal jitter %v outside [%v, %v]", got, w/2, w)
			}
		}
	}
	// An odd nominal wait: equal jitter's halves are ⌊W/2⌋ and W − ⌊W/2⌋.
	odd := Client{Retry: Backoff, Base: 3, Cap: 3, Factor: 2, Jitter: EqualJitter}
	if lo, hi := odd.Backoff(1, 0), odd.Backoff(1, math.MaxUint64); lo != 1 || hi != 3 {
		t.Errorf("W = 3ns: equal jitter from %v to %v, want 1ns to 3ns", lo, hi)
	}
}

// TestJitterSaltIsJitterDraw: a draw finished from its request's salt is
// SplitMix64 chained over the five numbers from the seed (docs/format.md),
// bit for bit, on edge values and at random: the model salts a request
// once and finishes each attempt's draw from it.
func TestJitterSaltIsJitterDraw(t *testing.T) {
	type args struct {
		seed  uint64
		c     int
		first time.Duration
		rank  int
		n     int
	}
	cases := []args{
		{0, 0, 0, 0, 1},
		{1, 0, time.Second, 0, 1},
		{1, 3, time.Second, 7, 2},
		{^uint64(0), 254, MaxTime, 1 << 30, 255},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		cases = append(cases, args{r.Uint64(), r.IntN(256), time.Duration(r.Int64N(int64(MaxTime))), r.IntN(1 << 20), 1 + r.IntN(255)})
	}
	for _, a := range cases {
		want := a.seed
		for _, v := range [...]uint64{uint64(a.c), uint64(a.first), uint64(a.rank), uint64(a.n)} {
			want = splitmix(want ^ v)
		}
		if got := JitterDraw(a.seed, a.c, a.first, a.rank, a.n); got != want {
			t.Fatalf("%+v: JitterDraw %#x, want %#x", a, got, want)
		}
		if got := JitterOfAttempt(JitterSalt(a.seed, a.c, a.first, a.rank), a.n); got != want {
			t.Fatalf("%+v: salted %#x, want %#x", a, got, want)
		}
	}
}

func TestJitterDraw(t *testing.T) {
	base := JitterDraw(1, 0, time.Second, 0, 1)
	if JitterDraw(1, 0, time.Second, 0, 1) != base {
		t.Error("the same five numbers draw differently")
	}
	// Each of the five numbers changes the draw.
	for i, other := range []uint64{
		JitterDraw(2, 0, time.Second, 0, 1),
		JitterDraw(1, 1, time.Second, 0, 1),
		JitterDraw(1, 0, time.Second+1, 0, 1),
		JitterDraw(1, 0, time.Second, 1, 1),
		JitterDraw(1, 0, time.Second, 0, 2),
	} {
		if other == base {
			t.Errorf("changing number %d leaves the draw as it was", i)
		}
	}
	// SplitMix64 chained from the seed, as docs/format.md describes it.
	want := uint64(1)
	for _, v := range []uint64{0, uint64(time.Second), 0, 1} {
		want = splitmix(want ^ v)
	}
	if base != want {
		t.Errorf("JitterDraw = %#x, want %#x", base, want)
	}
	// SplitMix64's first output from state 0 is well known.
	if got := splitmix(0); got != 0xe220a8397b1dcdaf {
		t.Errorf("splitmix(0) = %#x, want 0xe220a8397b1dcdaf", got)
	}
}

func TestNextTry(t *testing.T) {
	refused := func(at, retryAfter time.Duration) *algorithms.Decision {
		return &algorithms.Decision{At: at, Outcome: algorithms.Rejected, RetryAfter: retryAfter}
	}
	s := time.Second
	ms := time.Millisecond
	backoff := Client{Retry: Backoff, Attempts: 5, Base: 100 * ms, Cap: s, Factor: 2}
	tests := []struct {
		name   string
		c      Client
		n      int
		first  time.Duration
		d      *algorithms.Decision
		draw   uint64
		at     time.Duration
		ending Ending
	}{
		{"give-up", Client{Retry: GiveUp, Attempts: 1}, 1, 0, refused(0, s), 0, 0, GaveUpRule},
		{"at once", Client{Retry: AtOnce, Attempts: 3}, 1, 0, refused(2*s, s), 0, 2 * s, TryAgain},
		{"at once, last attempt", Client{Retry: AtOnce, Attempts: 3}, 3, 0, refused(2*s, s), 0, 0, AttemptsUsed},
		{"retry-after rounds up", Client{Retry: AfterRetryAfter, Attempts: 3}, 1, 0, refused(200*ms, 800*ms), 0, 1200 * ms, TryAgain},
		{"retry-after of whole seconds", Client{Retry: AfterRetryAfter, Attempts: 3}, 1, 0, refused(s, 2*s), 0, 3 * s, TryAgain},
		{"retry-after just past a second", Client{Retry: AfterRetryAfter, Attempts: 3}, 1, 0, refused(0, s+1), 0, 2 * s, TryAgain},
		{"retry-after 0 waits a second", Client{Retry: AfterRetryAfter, Attempts: 3}, 1, 0, refused(5*s, 0), 0, 6 * s, TryAgain},
		{"backoff, first wait", backoff, 1, 0, refused(s, 10*ms), 0, s + 100*ms, TryAgain},
		{"backoff, third wait", backoff, 3, 0, refused(s, 10*ms), 0, s + 400*ms, TryAgain},
		{"backoff, capped", backoff, 4, 0, refused(s, 10*ms), 0, s + 800*ms, TryAgain},
		{"backoff, attempts used", backoff, 5, 0, refused(s, 10*ms), 0, 0, AttemptsUsed},
		{"never fits", Client{Retry: AtOnce, Attempts: 3}, 1, 0, refused(s, algorithms.Never), 0, 0, NeverFits},
		{"never fits, retry-after", Client{Retry: AfterRetryAfter, Attempts: 3}, 1, 0, refused(s, algorithms.Never), 0, 0, NeverFits},
		// The deadline counts from the first attempt; a retry due exactly
		// at it is still sent.
		{"deadline, in time", Client{Retry: AfterRetryAfter, Attempts: 5, Deadline: 2 * s}, 2, s, refused(2*s, 500*ms), 0, 3 * s, TryAgain},
		{"deadline, cut", Client{Retry: AfterRetryAfter, Attempts: 5, Deadline: 2 * s}, 2, s, refused(2*s+1, 500*ms), 0, 0, PastDeadline},
		{"attempts before the deadline", Client{Retry: AtOnce, Attempts: 2, Deadline: s}, 2, 0, refused(0, s), 0, 0, AttemptsUsed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, ending := tt.c.NextTry(tt.n, tt.first, tt.d, tt.draw)
			if ending != tt.ending || ending == TryAgain && at != tt.at {
				t.Errorf("NextTry = %v, %s; want %v, %s", at, ending, tt.at, tt.ending)
			}
		})
	}
	// A wait too long to add to the time is cut at MaxTime, not wrapped.
	huge := Client{Retry: Backoff, Attempts: 3, Base: math.MaxInt64, Cap: math.MaxInt64, Factor: 2}
	if at, ending := huge.NextTry(1, 0, refused(s, s), 0); ending != TryAgain || at != s+MaxTime {
		t.Errorf("a huge backoff: %v, %s; want %v", at, ending, s+MaxTime)
	}
	// With full jitter the retry comes somewhere in [refusal, refusal + W].
	jit := backoff
	jit.Jitter = FullJitter
	for rank := range 100 {
		at, ending := jit.NextTry(2, 0, refused(s, 10*ms), JitterDraw(3, 0, 0, rank, 2))
		if ending != TryAgain || at < s || at > s+200*ms {
			t.Errorf("full jitter after attempt 2: %v, %s; want within [1s, 1.2s]", at, ending)
		}
	}
}

// TestStepWaitIsTheJitter checks a backoff's Step against the jitters'
// formulas worked out in full (math/big): Wait(draw) is the nominal wait
// W with none, ⌊draw × (W+1) / 2^64⌋ with full, ⌊W/2⌋ + ⌊draw ×
// (W−⌊W/2⌋+1) / 2^64⌋ with equal, for the extreme draws and waits too.
func TestStepWaitIsTheJitter(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	pick := func(draw uint64, w time.Duration) int64 { // ⌊draw × (w+1) / 2^64⌋
		span := new(big.Int).Add(big.NewInt(int64(w)), big.NewInt(1))
		p := new(big.Int).Mul(new(big.Int).SetUint64(draw), span)
		return p.Rsh(p, 64).Int64()
	}
	waits := []time.Duration{0, 1, 2, 3, time.Second, MaxTime}
	for range 200 {
		waits = append(waits, time.Duration(r.Int64N(int64(MaxTime))))
	}
	for _, w := range waits {
		for _, draw := range []uint64{0, 1, 1 << 63, math.MaxUint64, r.Uint64(), r.Uint64()} {
			for _, jitter := range []Jitter{NoJitter, FullJitter, EqualJitter} {
				c := Client{Retry: Backoff, Attempts: 2, Base: w, Cap: w, Factor: 2, Jitter: jitter}
				want := int64(w)
				switch jitter {
				case FullJitter:
					want = pick(draw, w)
				case EqualJitter:
					want = int64(w/2) + pick(draw, w-w/2)
				}
				if got := c.Step(1).Wait(draw); int64(got) != want {
					t.Fatalf("%s jitter, wait %v, draw %#x: %v, want %v", jitter, w, draw, got, time.Duration(want))
				}
			}
		}
	}
}

func TestClientRule(t *testing.T) {
	for _, tt := range []struct {
		c    Client
		want string
	}{
		{Client{Retry: GiveUp, Attempts: 1}, "gives up when refused"},
		{Client{Retry: AtOnce, Attempts: 5}, "retries at once, 5 attempts"},
		{Client{Retry: AfterRetryAfter, Attempts: 3, Deadline: 2 * time.Second}, "retries after Retry-After, 3 attempts, deadline 2s"},
		{Client{Retry: Backoff, Attempts: 6, Base: 100 * time.Millisecond, Cap: 10 * time.Second, Factor: 2, Jitter: FullJitter, Deadline: 2 * time.Second, Cancel: true},
			"backs off 100ms×2 up to 10s, full jitter, 6 attempts, deadline 2s (cancels)"},
	} {
		if got := tt.c.Rule(); got != tt.want {
			t.Errorf("Rule() = %q, want %q", got, tt.want)
		}
	}
	for e, want := range map[Ending]string{TryAgain: "tries again", AttemptsUsed: "gives up (attempts used)", PastDeadline: "gives up (past its deadline)"} {
		if got := e.String(); got != want {
			t.Errorf("Ending %d says %q, want %q", e, got, want)
		}
	}
}
