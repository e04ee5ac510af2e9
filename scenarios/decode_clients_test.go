package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"
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
		{"cancel with an nginx zone", "title: t\nlimiters:\n  - {name: z, algorithm: nginx-limit-req, rate: 1/s, burst: 2, zone: 32k}\nclients:\n  - {name: a, deadline: 1s, cancel: true}\n",
			"x.yaml:5:5: clients[0]: client \"a\" cancels, which lane z cannot do: its zone may have freed another key to make room for the request, and giving the slot back would not bring that key back"},
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

func TestAnExpectationOfClientCountsAlone(t *testing.T) {
	s, err := Parse("x.yaml", []byte("title: t\nlimiters: [{name: b, algorithm: gcra, burst: 1, rate: 1/s}]\nclients: [{name: c, retry: at-once, attempts: 2}]\ntraffic: [{at: 0s, count: 2, client: c}]\nexpect: [{lane: b, served: 1}, {lane: b, retries: 1}, {lane: b, abandoned: 1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Expect) != 3 || *s.Expect[0].Served != 1 || *s.Expect[1].Retries != 1 || *s.Expect[2].Abandoned != 1 {
		t.Errorf("%+v", s.Expect)
	}
}
