package scenarios

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestClientErrors: every way a clients list or an item's client can be
// wrong is refused with a message that names the field and says what to
// write instead.
func TestClientErrors(t *testing.T) {
	const gateways = "title: t\nlimiters:\n  - {name: b, algorithm: leaky-bucket, queue: 3, rate: 1/s}\n" +
		"  - {name: g, algorithm: token-bucket, capacity: 3, rate: 1/s, gateways: 2}\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"missing attempts", oneLane + "clients:\n  - {name: a, retry: at-once}\n",
			"x.yaml:5:5: clients[0]: missing attempts: want the most attempts of one request, the first included (2 to 100)"},
		{"one attempt with a retry rule", oneLane + "clients:\n  - {name: a, retry: at-once, attempts: 1}\n",
			"x.yaml:5:41: clients[0].attempts: a client that retries makes 2 to 100 attempts, the first included, not 1"},
		{"attempts above the bound", oneLane + "clients:\n  - {name: a, retry: backoff, base: 1s, attempts: 101}\n",
			"x.yaml:5:51: clients[0].attempts: want a whole number from 1 to 100, got 101"},
		{"attempts with give-up", oneLane + "clients:\n  - {name: a, retry: give-up, attempts: 3}\n",
			"x.yaml:5:41: clients[0].attempts: a client that gives up makes 1 attempt, not 3: say how it retries with retry: at-once, retry-after or backoff"},
		// retry left out is give-up, so attempts beyond 1 are refused too.
		{"attempts without a rule", oneLane + "clients:\n  - {name: a, attempts: 3}\n",
			"x.yaml:5:25: clients[0].attempts: a client that gives up makes 1 attempt, not 3: say how it retries with retry: at-once, retry-after or backoff"},
		{"base on at-once", oneLane + "clients:\n  - {name: a, retry: at-once, attempts: 3, base: 1s}\n",
			"x.yaml:5:44: clients[0].base: base belongs to retry: backoff"},
		{"cap on retry-after", oneLane + "clients:\n  - {name: a, retry: retry-after, attempts: 3, cap: 1s}\n",
			"x.yaml:5:48: clients[0].cap: cap belongs to retry: backoff"},
		{"jitter on retry-after", oneLane + "clients:\n  - {name: a, retry: retry-after, attempts: 3, jitter: full}\n",
			"x.yaml:5:48: clients[0].jitter: jitter belongs to retry: backoff"},
		{"factor on give-up", oneLane + "clients:\n  - {name: a, retry: give-up, factor: 2}\n",
			"x.yaml:5:31: clients[0].factor: factor belongs to retry: backoff"},
		{"backoff without base", oneLane + "clients:\n  - {name: a, retry: backoff, attempts: 3}\n",
			"x.yaml:5:5: clients[0]: missing base: want the first wait, such as 100ms"},
		{"zero base", oneLane + "clients:\n  - {name: a, retry: backoff, attempts: 3, base: 0s}\n",
			`x.yaml:5:50: clients[0].base: want a positive Go duration such as 60s, got "0s"`},
		{"cap below base", oneLane + "clients:\n  - {name: a, retry: backoff, attempts: 3, base: 2s, cap: 1s}\n",
			"x.yaml:5:59: clients[0].cap: the cap 1s is shorter than the base 2s"},
		{"factor 0", oneLane + "clients:\n  - {name: a, retry: backoff, attempts: 3, base: 1s, factor: 0}\n",
			"x.yaml:5:62: clients[0].factor: want a whole number from 1 to 16, got 0"},
		{"factor 17", oneLane + "clients:\n  - {name: a, retry: backoff, attempts: 3, base: 1s, factor: 17}\n",
			"x.yaml:5:62: clients[0].factor: want a whole number from 1 to 16, got 17"},
		{"unknown jitter", oneLane + "clients:\n  - {name: a, retry: backoff, attempts: 3, base: 1s, jitter: half}\n",
			`x.yaml:5:62: clients[0].jitter: want one of none, full, equal, got "half"`},
		{"unknown retry", oneLane + "clients:\n  - {name: a, retry: later, attempts: 3}\n",
			`x.yaml:5:22: clients[0].retry: want one of give-up, at-once, retry-after, backoff, got "later"`},
		{"zero deadline", oneLane + "clients:\n  - {name: a, deadline: 0s}\n",
			`x.yaml:5:25: clients[0].deadline: want a positive Go duration such as 60s, got "0s"`},
		{"cancel without deadline", oneLane + "clients:\n  - {name: a, cancel: true}\n",
			"x.yaml:5:15: clients[0].cancel: cancel needs a deadline: only a caller that stops waiting gives its slot back"},
		{"cancel not a flag", oneLane + "clients:\n  - {name: a, deadline: 1s, cancel: yes}\n",
			`x.yaml:5:37: clients[0].cancel: want true or false, got "yes"`},
		{"cancel with a lane of gateways", gateways + "clients:\n  - {name: a, deadline: 1s, cancel: true}\n",
			"x.yaml:6:5: clients[0]: client \"a\" cancels, which lane g of gateways cannot do: its gateways' states are not one to give a slot back to"},
		{"duplicate name", oneLane + "clients:\n  - {name: a}\n  - {name: a}\n",
			`x.yaml:6:12: clients[1].name: client "a" is already defined on line 5`},
		{"missing name", oneLane + "clients:\n  - {retry: at-once, attempts: 2}\n",
			"x.yaml:5:5: clients[0]: missing name: want the client's name"},
		{"blank name", oneLane + "clients:\n  - {name: \"\"}\n",
			"x.yaml:5:12: clients[0].name: want the client's name, got blank text"},
		{"unknown client", oneLane + "clients:\n  - {name: a}\n  - {name: c}\ntraffic:\n  - {at: 1s, client: b}\n",
			`x.yaml:8:22: traffic[0].client: no client is called "b"; the clients are a and c`},
		{"unknown client, one client", oneLane + "clients:\n  - {name: a}\ntraffic:\n  - {at: 1s, client: b}\n",
			`x.yaml:7:22: traffic[0].client: no client is called "b"; the clients are a`},
		{"client without a clients list", oneLane + "traffic:\n  - {at: 1s, client: b}\n",
			`x.yaml:5:22: traffic[0].client: no client is called "b": the file has no clients list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(tt.yaml))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got: %v\nwant: %s", err, tt.want)
			}
			if s != nil {
				t.Error("Parse returned a scenario beside the error")
			}
		})
	}
	// A lane of gateways is fine beside a client that does not cancel.
	if _, err := Parse("x.yaml", []byte(gateways+"clients:\n  - {name: a, deadline: 1s}\n")); err != nil {
		t.Errorf("a deadline without cancel beside gateways: %v", err)
	}
}

// TestClientDefaults: what a client left unsaid reads as.
func TestClientDefaults(t *testing.T) {
	s, err := Parse("x.yaml", []byte(oneLane+"clients:\n  - {name: quiet}\n  - {name: slow, retry: backoff, base: 100ms, attempts: 3}\n"+
		"traffic:\n  - {at: 1s}\n  - {at: 1s, client: slow}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Client{
		{Name: "quiet", Retry: GiveUp, Attempts: 1, Line: 5},
		{Name: "slow", Retry: Backoff, Attempts: 3, Base: 100 * time.Millisecond, Cap: MaxTime, Factor: 2, Jitter: NoJitter, Line: 6},
	}
	if !reflect.DeepEqual(s.Clients, want) {
		t.Errorf("clients %+v, want %+v", s.Clients, want)
	}
	if s.Traffic[0].Client != 0 || s.Traffic[1].Client != 2 {
		t.Errorf("items' clients %d and %d, want 0 (none) and 2 (slow)", s.Traffic[0].Client, s.Traffic[1].Client)
	}
	var got []int
	for r := range s.Requests() {
		got = append(got, r.Client)
	}
	if !reflect.DeepEqual(got, []int{0, 2}) {
		t.Errorf("requests' clients %v, want [0 2]", got)
	}
}

// TestClientsRoundTrip: a scenario with clients of every kind is written
// and read back to the same clients, and every item keeps its client.
func TestClientsRoundTrip(t *testing.T) {
	src := `title: clients
limiters:
  - {name: shaper, algorithm: leaky-bucket, queue: 4, rate: 2/s}
clients:
  - {name: quiet}
  - {name: eager, retry: at-once, attempts: 10}
  - {name: obedient, retry: retry-after, attempts: 4, deadline: 30s}
  - {name: plain, retry: backoff, base: 100ms, attempts: 5}
  - {name: full, retry: backoff, base: 250ms, cap: 4s, factor: 3, jitter: full, attempts: 100}
  - {name: equal, retry: backoff, base: 1s, cap: 1s, factor: 1, jitter: equal, attempts: 2, deadline: 1500ms, cancel: true}
  - {name: hasty, retry: give-up, deadline: 1s, cancel: false}
traffic:
  - {at: 0s, count: 3, client: eager}
  - {every: 1s, until: 5s, key: k, client: full}
  - {at: 2s}
  - {poisson: 2/s, until: 4s, client: hasty}
  - {every: 1s, until: 3s, accounts: 2, client: equal}
  - {at: 3s, client: quiet}
  - {at: 3s, client: obedient}
  - {at: 3s, client: plain}
`
	s, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	back := roundTrip(t, s, nil)
	data, _ := Marshal(s, nil) // for the messages
	noLines := func(cs []Client) []Client {
		cs = append([]Client(nil), cs...)
		for i := range cs {
			cs[i].Line = 0
		}
		return cs
	}
	if got, want := noLines(back.Clients), noLines(s.Clients); !reflect.DeepEqual(got, want) {
		t.Errorf("clients read back\n got %+v\nwant %+v\n%s", got, want, data)
	}
	if len(back.Traffic) != len(s.Traffic) {
		t.Fatalf("%d items read back, want %d\n%s", len(back.Traffic), len(s.Traffic), data)
	}
	for i := range s.Traffic {
		if back.Traffic[i].Client != s.Traffic[i].Client {
			t.Errorf("item %d: client %d read back, want %d", i, back.Traffic[i].Client, s.Traffic[i].Client)
		}
	}
	whole := func(s *Scenario) *Scenario {
		c := normalise(s)
		c.Clients = noLines(c.Clients)
		return c
	}
	if !reflect.DeepEqual(whole(back), whole(s)) {
		t.Errorf("the scenario does not read back the same\n%s", data)
	}
	// What a file may leave out is left out: give-up, cancel: false.
	for _, unsaid := range []string{"give-up", "cancel: false"} {
		if strings.Contains(string(data), unsaid) {
			t.Errorf("%q is written out\n%s", unsaid, data)
		}
	}
}

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
	// SplitMix64 chained from the seed, as FORMAT.md describes it.
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

func TestAnExpectationOfClientCountsAlone(t *testing.T) {
	s, err := Parse("x.yaml", []byte("title: t\nlimiters: [{name: b, algorithm: gcra, burst: 1, rate: 1/s}]\nclients: [{name: c, retry: at-once, attempts: 2}]\ntraffic: [{at: 0s, count: 2, client: c}]\nexpect: [{lane: b, served: 1}, {lane: b, retries: 1}, {lane: b, abandoned: 1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Expect) != 3 || *s.Expect[0].Served != 1 || *s.Expect[1].Retries != 1 || *s.Expect[2].Abandoned != 1 {
		t.Errorf("%+v", s.Expect)
	}
}
