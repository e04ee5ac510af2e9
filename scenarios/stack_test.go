package scenarios

import (
	"slices"
	"strings"
	"testing"
)

const stackedHead = "title: t\nlimiters:\n"

func TestStackedLanesRead(t *testing.T) {
	s, err := Parse("x.yaml", []byte(stackedHead+`  - name: capped
    policies:
      - {name: account, algorithm: token-bucket, capacity: 3, rate: 1/s}
      - {name: total, algorithm: fixed-window, limit: 5, window: 1s, across: all}
  - {name: global, algorithm: sliding-log, limit: 5, window: 1s, across: all}
  - {name: plain, algorithm: gcra, burst: 2, rate: 1/s, across: key}
traffic:
  - {at: 0s, cost: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	capped, global, plain := s.Lanes[0], s.Lanes[1], s.Lanes[2]
	if len(capped.Stack) != 2 || capped.Stack[0].Name != "account" || capped.Stack[0].AllKeys || !capped.Stack[1].AllKeys || capped.Policy != capped.Stack[0].Policy {
		t.Errorf("capped: %+v", capped)
	}
	if len(global.Stack) != 1 || !global.Stack[0].AllKeys || global.Stack[0].Name != "sliding-log" {
		t.Errorf("global: %+v", global)
	}
	if plain.Stack != nil {
		t.Errorf("across: key made a stack: %+v", plain)
	}
	// The duration reaches the longest horizon of any policy.
	if s.Duration != capped.Horizon() || capped.Horizon() != capped.Stack[0].Policy.Horizon() {
		t.Errorf("duration %v, horizons %v", s.Duration, capped.Horizon())
	}
	back := roundTrip(t, s, nil)
	for i := range s.Lanes {
		if !slices.Equal(back.Lanes[i].Stack, s.Lanes[i].Stack) || back.Lanes[i].Policy != s.Lanes[i].Policy {
			t.Errorf("lane %d read back as %+v, was %+v", i, back.Lanes[i], s.Lanes[i])
		}
	}
}

func TestStackedLaneErrors(t *testing.T) {
	for _, c := range []struct{ name, lane, want string }{
		{"one policy", "{name: s, policies: [{algorithm: gcra, burst: 2, rate: 1/s}]}", "want 2 to 4 policies, got 1"},
		{"five policies", "{name: s, policies: [" + strings.Repeat("{algorithm: gcra, burst: 2, rate: 1/s}, ", 4) + "{algorithm: gcra, burst: 2, rate: 1/s}]}", "want 2 to 4 policies, got 5"},
		{"algorithm beside policies", "{name: s, algorithm: gcra, policies: [{algorithm: gcra, burst: 2, rate: 1/s}, {algorithm: gcra, burst: 3, rate: 1/s}]}", "a lane with policies takes only name and policies: algorithm belongs to one of its policies"},
		{"gateways beside policies", "{name: s, gateways: 2, policies: [{algorithm: gcra, burst: 2, rate: 1/s}, {algorithm: gcra, burst: 3, rate: 1/s}]}", "gateways belongs to one of its policies"},
		{"same names", "{name: s, policies: [{algorithm: gcra, burst: 2, rate: 1/s}, {algorithm: gcra, burst: 3, rate: 1/s}]}", "two policies of lane s are called gcra: give each a name"},
		{"a shaper", "{name: s, policies: [{algorithm: gcra, burst: 2, rate: 1/s}, {algorithm: leaky-bucket, queue: 3, rate: 1/s}]}", "leaky-bucket delays requests; each of a lane's policies must admit or refuse at once"},
		{"bad across", "{name: s, algorithm: gcra, burst: 2, rate: 1/s, across: every}", `want key (one allowance per key) or all (one for every key together), got "every"`},
		{"across all on a shaper", "{name: s, algorithm: leaky-bucket, queue: 2, rate: 1/s, across: all}", "across: all needs a policy that admits or refuses at once; leaky-bucket delays requests"},
		{"across all with gateways", "{name: s, algorithm: gcra, burst: 2, rate: 1/s, gateways: 2, across: all}", "across: all cannot go with gateways"},
		{"a bad policy", "{name: s, policies: [{algorithm: gcra, burst: 2, rate: 1/s}, {algorithm: gcra, rate: 1/s}]}", "gcra needs burst"},
		{"a stray field in a policy", "{name: s, policies: [{algorithm: gcra, burst: 2, rate: 1/s, gateways: 2}, {algorithm: fixed-window, limit: 3, window: 1s}]}", `unknown field "gateways"`},
	} {
		_, err := Parse("x.yaml", []byte(stackedHead+"  - "+c.lane+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestACostOverAnyPolicyIsRefused(t *testing.T) {
	_, err := Parse("x.yaml", []byte(stackedHead+"  - {name: s, policies: [{algorithm: gcra, burst: 9, rate: 1/s}, {name: small, algorithm: fixed-window, limit: 3, window: 1s}]}\ntraffic:\n  - {at: 0s, cost: 4}\n"))
	if err == nil || !strings.Contains(err.Error(), "cost 4 can never fit lane s") {
		t.Errorf("%v", err)
	}
}
