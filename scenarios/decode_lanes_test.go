package scenarios

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/fleet"
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
		{"a delaying nginx zone beside a window", "{name: s, policies: [{algorithm: fixed-window, limit: 3, window: 1s}, {algorithm: nginx-limit-req, rate: 1r/s, burst: 2}]}", "this policy delays requests, which only a stack of nginx-limit-req policies may"},
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

// TestNginxZonesStack: delaying nginx policies stack, as several limit_req
// in one location do, and one over all keys may delay too; they read back
// as written.
func TestNginxZonesStack(t *testing.T) {
	src := stackedHead + `  - {name: zones, policies: [{name: per-ip, algorithm: nginx-limit-req, rate: 2r/s, burst: 5}, {name: server, algorithm: nginx-limit-req, rate: 10r/s, burst: 20, delay: 4, across: all}]}
  - {name: total, algorithm: nginx-limit-req, rate: 30r/m, burst: 3, across: all}
`
	s, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Lanes[0].Stack) != 2 || !s.Lanes[0].Stack[1].AllKeys || len(s.Lanes[1].Stack) != 1 || !s.Lanes[1].Stack[0].AllKeys {
		t.Fatalf("lanes read as %+v", s.Lanes)
	}
	back := roundTrip(t, s, nil)
	for i := range s.Lanes {
		if !slices.Equal(back.Lanes[i].Stack, s.Lanes[i].Stack) {
			t.Errorf("lane %d read back as %+v, was %+v", i, back.Lanes[i].Stack, s.Lanes[i].Stack)
		}
	}
}

func TestACostOverAnyPolicyIsRefused(t *testing.T) {
	_, err := Parse("x.yaml", []byte(stackedHead+"  - {name: s, policies: [{algorithm: gcra, burst: 9, rate: 1/s}, {name: small, algorithm: fixed-window, limit: 3, window: 1s}]}\ntraffic:\n  - {at: 0s, cost: 4}\n"))
	if err == nil || !strings.Contains(err.Error(), "cost 4 can never fit lane s") {
		t.Errorf("%v", err)
	}
}

// TestGatewaysFields: a lane's gateways, route and store and the scenario's
// seed are read, written back, and refused when wrong.
func TestGatewaysFields(t *testing.T) {
	src := `title: t
seed: 7
limiters:
  - {name: one, algorithm: token-bucket, capacity: 10, rate: 2/s}
  - {name: four, algorithm: token-bucket, capacity: 10, rate: 2/s, gateways: 4, route: random, store: split}
  - {name: race, algorithm: sliding-log, limit: 5, window: 1s, gateways: 2, store: racy, store_latency: 30ms}
  - {name: sync, algorithm: fixed-window, limit: 5, window: 1s, gateways: 3, store: synced, sync_every: 250ms}
  - {name: down, algorithm: gcra, burst: 3, rate: 1/s, store: shared, outages: [{from: 1s, until: 2s}, {from: 4s, until: 6s, lose_state: true}], fallback: local-cap}
  - {name: skew, algorithm: token-bucket, capacity: 3, rate: 1/s, gateways: 3, store: shared, expire_idle: 2s, clock_skew: [0s, 40ms, -25ms]}
traffic:
  - {at: 0s}
`
	s, err := Parse("g.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := fleet.Config{Gateways: 4, Route: fleet.Random, Store: fleet.Split, Seed: 7}
	race := fleet.Config{Gateways: 2, Store: fleet.Racy, Latency: 30 * time.Millisecond, Seed: 7}
	sync := fleet.Config{Gateways: 3, Store: fleet.Synced, SyncEvery: 250 * time.Millisecond, Seed: 7}
	if s.Seed != 7 || !s.Lanes[0].Fleet.Plain() || !reflect.DeepEqual(s.Lanes[1].Fleet, want) || !reflect.DeepEqual(s.Lanes[2].Fleet, race) || !reflect.DeepEqual(s.Lanes[3].Fleet, sync) {
		t.Fatalf("seed %d, lanes %+v", s.Seed, s.Lanes)
	}
	down := s.Lanes[4].Fleet
	if down.Plain() || down.Fallback != algorithms.FallbackLocalCap || len(down.Outages) != 2 || !down.Outages[1].LoseState || down.Outages[0].Until != 2*time.Second {
		t.Errorf("outages read as %+v", down)
	}
	if sk := s.Lanes[5].Fleet; sk.ExpireIdle != 2*time.Second || !reflect.DeepEqual(sk.Skew, []time.Duration{0, 40 * time.Millisecond, -25 * time.Millisecond}) {
		t.Errorf("expiry and skew read as %+v", sk)
	}
	if back := roundTrip(t, s, nil); back.Seed != 7 || !reflect.DeepEqual(back.Lanes, s.Lanes) {
		t.Errorf("read back %+v seed %d", back.Lanes, back.Seed)
	}
	for _, c := range []struct{ lane, want string }{
		{"gateways: 0", "want a whole number from 1 to 64"},
		{"gateways: 65", "want a whole number from 1 to 64"},
		{"gateways: 2, route: sticky", "want one of round-robin, by-key, random"},
		{"gateways: 2, store: redis", "want one of local, split, shared, racy, synced"},
		{"gateways: 2, store: synced", "missing sync_every"},
		{"gateways: 2, sync_every: 1s", "sync_every belongs to store: synced"},
		{"gateways: 2, store: local, store_latency: 5ms", "store_latency belongs to store: racy"},
		{"route: by-key", "route needs gateways: 2 or more"},
		{"gateways: 2, clock_skew: [0s]", "clock_skew has 1 offsets for 2 gateways"},
		{"gateways: 2, clock_skew: [0s, 5]", "a number needs a unit"},
		{"expire_idle: -1s", "want a positive Go duration"},
		{"gateways: 2, store: shared, outages: [{from: 5s, until: 3s}], fallback: open", "want from < until"},
		{"gateways: 2, store: local, outages: [{from: 1s, until: 3s}], fallback: open", "outages need a shared store"},
		{"gateways: 2, store: shared, outages: [{from: 1s, until: 3s}]", "outages need a fallback"},
		{"gateways: 2, store: shared, fallback: closed", "without outages decides nothing"},
		{"gateways: 2, store: shared, outages: [{from: 1s, until: 3s}], fallback: sideways", "want one of open, closed, local-cap"},
		{"gateways: 7, store: split, algorithm: nginx-limit-req, rate: 1r/s", "split over 7 gateways"},
	} {
		lane := "{name: l, algorithm: token-bucket, capacity: 10, rate: 2/s, " + c.lane + "}"
		if strings.Contains(c.lane, "algorithm:") {
			lane = "{name: l, " + c.lane + "}"
		}
		_, err := Parse("g.yaml", []byte("title: t\nlimiters:\n  - "+lane+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.lane, err, c.want)
		}
	}
}

// TestEveryAlgorithmInTheFormat writes a lane of every described algorithm,
// with values made from its parameters' kinds alone, and reads it back: the
// format knows an algorithm from its description, with no table of its own.
// A missing parameter is reported with the description's words.
func TestEveryAlgorithmInTheFormat(t *testing.T) {
	for _, a := range algorithms.Algorithms {
		p := algorithms.Policy{Algorithm: a}
		var fields []string
		for _, q := range algorithms.Describe(a).Params {
			switch q.Kind {
			case algorithms.Count:
				n := int64(3)
				switch q.Name {
				case "sub_windows":
					n = 2 // it must divide the window, 2s
				case "status":
					n = 429 // an HTTP status
				}
				*q.CountOf(&p) = n
				fields = append(fields, q.Name+": "+strconv.FormatInt(n, 10))
			case algorithms.Duration:
				*q.DurationOf(&p) = 2 * time.Second
				fields = append(fields, q.Name+": 2s")
			case algorithms.RateKind:
				*q.RateOf(&p) = algorithms.Rate{N: 2, Per: time.Second}
				fields = append(fields, q.Name+": 2/s")
			case algorithms.Flag:
				*q.FlagOf(&p) = true
				fields = append(fields, q.Name+": true")
			case algorithms.Bytes:
				*q.CountOf(&p) = 64 << 10
				fields = append(fields, q.Name+": 64k")
			}
		}
		if p.Validate() != nil {
			// A flag may exclude a count (nginx's nodelay and delay=): try
			// the flags left out.
			for i, q := range algorithms.Describe(a).Params {
				if q.Kind == algorithms.Flag {
					*q.FlagOf(&p) = false
					fields[i] = q.Name + ": false"
				}
			}
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: the values 3, 2s, 2/s and true (or false) make no valid policy (%v): choose ones that do for it here", a, err)
			continue
		}
		s := &Scenario{Title: "t", Step: time.Second, Duration: time.Minute, Lanes: []Lane{{Name: "lane", Policy: p}}}
		back := roundTrip(t, s, nil)
		if !reflect.DeepEqual(back.Lanes, s.Lanes) {
			t.Errorf("%s: read back %+v, want %+v", a, back.Lanes, s.Lanes)
		}
		// Each parameter left out is asked for in its description's words.
		for i, q := range algorithms.Describe(a).Params {
			if q.Optional {
				continue // left out is its zero
			}
			rest := append(append([]string{}, fields[:i]...), fields[i+1:]...)
			src := "title: t\nlimiters:\n  - {name: lane, algorithm: " + string(a) + ", " + strings.Join(rest, ", ") + "}\n"
			_, err := Parse("x.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), string(a)+" needs "+q.Name+", "+q.Want) {
				t.Errorf("%s without %s: %v", a, q.Name, err)
			}
		}
	}
}
