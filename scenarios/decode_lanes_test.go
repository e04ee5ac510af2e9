package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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
		{"dry run on one zone of two", "{name: s, policies: [{name: a, algorithm: nginx-limit-req, rate: 1r/s, burst: 2, dry_run: true}, {name: b, algorithm: nginx-limit-req, rate: 9r/s, burst: 5}]}",
			"x.yaml:3:102: limiters[0].policies[1]: dry_run applies to all of a stack's policies"},
		{"a zone beside a window", "{name: s, policies: [{algorithm: fixed-window, limit: 3, window: 1s}, {algorithm: nginx-limit-req, rate: 1r/s, burst: 2, nodelay: true, zone: 32k}]}",
			"limiters[0].policies[1]: a zone or dry_run stacks only with nginx-limit-req policies"},
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

// configCases are "10 a second, burst 5" in each product's words (where
// it can say burst 5), and the lane in ratelab's words it reads as.
var configCases = []struct{ product, text, lane string }{
	{"nginx", "limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s; limit_req zone=one burst=5 nodelay;", "algorithm: nginx-limit-req, rate: 10r/s, burst: 5, nodelay: true, zone: 10m"},
	{"x-time-rate", "limiter := rate.NewLimiter(10, 5)", "algorithm: x-time-rate, burst: 5, rate: 10/s"},
	{"redis-cell", "CL.THROTTLE user123 5 10 1", "algorithm: redis-cell, max_burst: 5, count_per_period: 10, period: 1s"},
	{"guava", "RateLimiter limiter = RateLimiter.create(10.0);", "algorithm: guava, rate: 10/s"},
	{"redis-rate", "limiter.Allow(ctx, key, redis_rate.Limit{Rate: 10, Burst: 5, Period: time.Second})", "algorithm: redis-rate, burst: 5, rate: 10/s"},
	{"envoy", "token_bucket: {max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s}", "algorithm: envoy-local, max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s, across: all"},
	{"traefik", "rateLimit: {average: 10, burst: 5}", "algorithm: x-time-rate-reserve, burst: 5, rate: 10/s, max_wait: 50ms"},
	{"kong", "config.second=10", "algorithm: fixed-window, limit: 10, window: 1s"},
	{"aws", "throttle: {rateLimit: 10, burstLimit: 5}", "algorithm: token-bucket, capacity: 5, rate: 10/s"},
	{"bucket4j", "Bandwidth.builder().capacity(5).refillGreedy(10, Duration.ofSeconds(1)).build()", "algorithm: token-bucket, capacity: 5, rate: 10/s"},
	{"spring", "redis-rate-limiter.replenishRate: 10\nredis-rate-limiter.burstCapacity: 5\n", "algorithm: envoy-local, max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s, timer: true"},
	{"express", "const limiter = rateLimit({ windowMs: 1000, limit: 10 })", "algorithm: first-hit-window, limit: 10, window: 1s"},
	{"resilience4j", "RateLimiterConfig.custom().limitForPeriod(10).limitRefreshPeriod(Duration.ofSeconds(1)).timeoutDuration(Duration.ofSeconds(0)).build()", "algorithm: resilience4j, limit_for_period: 10, limit_refresh_period: 1s"},
}

// configLane is a lane of a product's config, the text a quoted scalar.
func configLane(name, product, text string) string {
	return fmt.Sprintf("  - {name: %s, config: {product: %s, text: %s}}\n", name, product, quote(text))
}

// Each product's configuration reads as the lane import makes of it: the
// same policies as the lane written in ratelab's words, the config kept.
func TestConfigLanesRead(t *testing.T) {
	for _, c := range configCases {
		t.Run(c.product, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(stackedHead+configLane("it", c.product, c.text)+"  - {name: twin, "+c.lane+"}\ntraffic:\n  - {at: 0s}\n"))
			if err != nil {
				t.Fatal(err)
			}
			it, twin := s.Lanes[0], s.Lanes[1]
			if it.Config == nil || it.Config.Product != c.product || it.Config.Text != c.text || it.Config.From != "" {
				t.Errorf("config %+v", it.Config)
			}
			if it.Policy != twin.Policy || len(it.Stack) != len(twin.Stack) || len(it.Stack) == 1 && !it.Stack[0].AllKeys {
				t.Errorf("read as %+v, want %+v", it, twin)
			}
			if !slices.Equal(s.ConfigNotes(), notesOf(s.Lanes)) || !strings.HasSuffix(s.About, configNotes(s.Lanes)) {
				t.Errorf("notes %q, about %q", s.ConfigNotes(), s.About)
			}
		})
	}
}

const nginxPlaces = `limit_req_zone $binary_remote_addr zone=perip:10m rate=10r/s;
server {
    location /login { limit_req zone=perip burst=5 nodelay; }
    location /v1/ { limit_req zone=perip burst=20; }
}
`

// A text of several lanes is one of them, named by from as import names
// it; a stack of zones is the lane's stack; gateways and across go
// beside a config as beside any lane of one policy.
func TestConfigLanesChooseAndCombine(t *testing.T) {
	s, err := Parse("x.yaml", []byte(stackedHead+`  - name: v1
    config:
      product: nginx
      from: v1
      text: |
`+indent(nginxPlaces, "        ")+`  - name: two
    config:
      product: nginx
      text: |
        limit_req_zone $binary_remote_addr zone=perip:10m rate=10r/s;
        limit_req_zone $server_name zone=perserver:1m rate=100r/s;
        limit_req zone=perip burst=5 nodelay;
        limit_req zone=perserver burst=10 nodelay;
`+configLane("cell", "redis-cell", "CL.THROTTLE user 5 10 1")[:len(configLane("cell", "redis-cell", "CL.THROTTLE user 5 10 1"))-2]+`, gateways: 2, route: random}
`+configLane("all", "aws", "throttle: {rateLimit: 10, burstLimit: 5}")[:len(configLane("all", "aws", "throttle: {rateLimit: 10, burstLimit: 5}"))-2]+`, across: all}
traffic:
  - {at: 0s}
`))
	if err != nil {
		t.Fatal(err)
	}
	v1, two, cell, all := s.Lanes[0], s.Lanes[1], s.Lanes[2], s.Lanes[3]
	if v1.Config.From != "v1" || v1.Policy.Burst != 20 || v1.Policy.NoDelay || v1.Stack != nil {
		t.Errorf("v1 %+v", v1)
	}
	if len(two.Stack) != 2 || two.Stack[0].Name != "perip" || two.Stack[0].AllKeys || !two.Stack[1].AllKeys || two.Stack[1].Policy.Rate.N != 100 {
		t.Errorf("two %+v", two.Stack)
	}
	if cell.Fleet.Gateways != 2 || cell.Policy.Algorithm != algorithms.RedisCell {
		t.Errorf("cell %+v", cell)
	}
	if len(all.Stack) != 1 || !all.Stack[0].AllKeys || all.Policy.Algorithm != algorithms.TokenBucket {
		t.Errorf("all %+v", all)
	}
	if !strings.Contains(s.About, "Note on lane v1 (nginx): zone perip is spent in login too") {
		t.Errorf("about %q", s.About)
	}
}

// indent puts prefix before each line of text.
func indent(text, prefix string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		b.WriteString(prefix + line)
	}
	return b.String()
}

func TestConfigLaneErrors(t *testing.T) {
	block := func(text string) string {
		return "  - name: e\n    config:\n      product: nginx\n      text: |\n" + indent(text, "        ")
	}
	for _, c := range []struct{ name, lanes, want string }{
		{"unknown product", configLane("e", "haproxy", "x"), `x.yaml:3:33: limiters[0].config.product: want one of nginx, x-time-rate, redis-cell, guava, redis-rate, envoy, traefik, kong, aws, bucket4j, spring, express, resilience4j, got "haproxy"`},
		{"no product", "  - {name: e, config: {text: x}}\n", "x.yaml:3:23: limiters[0].config: missing product: want one of nginx"},
		{"no text", "  - {name: e, config: {product: kong}}\n", "missing text: want the configuration's text, as the product reads it"},
		{"not a mapping", "  - {name: e, config: nginx}\n", "limiters[0].config: want a product's configuration such as {product: nginx"},
		{"unknown field", "  - {name: e, config: {product: kong, text: config.second=1, form: x}}\n", `unknown field "form"`},
		{"nginx refuses", configLane("e", "nginx", "limit_req_zone $binary_remote_addr zone=one:10m rate=10r/x; limit_req zone=one;"), `x.yaml:3:46: limiters[0].config.text: nginx limit_req refuses this configuration: invalid rate "rate=10r/x"`},
		{"a block's line", block("limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s;\nlimit_req zone=one burst=-5;\n"), `x.yaml:8:9: limiters[0].config.text: nginx limit_req refuses this configuration: invalid burst value "burst=-5"`},
		{"a quoted text's line", configLane("e", "redis-cell", "# per user\nCL.THROTTLE user 4 10"), "redis-cell refuses this configuration at its line 2: CL.THROTTLE user 4 10: ERR wrong number of arguments"},
		{"a refusal without a line", configLane("e", "aws", "throttle: {rateLimit: x, burstLimit: 5}"), "x.yaml:3:44: limiters[0].config.text: API Gateway throttling refuses this configuration: rate limit x is not a number"},
		{"nothing to read", configLane("e", "kong", "plugins: []"), "Kong rate-limiting refuses this configuration: no rate-limiting plugin"},
		{"no limit in force", configLane("e", "nginx", "http { server { } }"), "nginx limit_req reads no limit here: no server or location has a limit_req in force"},
		{"several places", block(nginxPlaces), "x.yaml:5:7: limiters[0].config: missing from: want which of the 2 lanes the text makes lane e is, one of login (server 1 location /login (stdin:3)); v1 (server 1 location /v1/ (stdin:4))"},
		{"no such place", "  - {name: e, config: {product: x-time-rate, from: b, text: \"a := rate.NewLimiter(1, 1)\"}}\n", `limiters[0].config.from: the text makes no lane "b": want one of a (a, line 1)`},
		{"algorithm beside config", "  - {name: e, algorithm: gcra, config: {product: kong, text: config.second=1}}\n", "x.yaml:3:15: limiters[0].algorithm: a lane written with config takes its policies from the configuration: algorithm cannot go with it"},
		{"parameters beside config", "  - {name: e, burst: 3, config: {product: kong, text: config.second=1}}\n", "burst cannot go with it"},
		{"policies and config", "  - {name: e, policies: [], config: {product: kong, text: config.second=1}}\n", "a lane is written either with policies or with a product's config, not both"},
		{"across key for Envoy", "  - {name: e, across: key, config: {product: envoy, text: \"token_bucket: {max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s}\"}}\n", "across: key cannot go with this envoy configuration: its limit is one for every request it sees"},
		{"gateways for Envoy", "  - {name: e, gateways: 2, config: {product: envoy, text: \"token_bucket: {max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s}\"}}\n", "gateways cannot go with this envoy configuration"},
		{"gateways beside a stack", "  - {name: e, gateways: 2, config: {product: kong, text: \"config.second=10\\nconfig.minute=100\"}}\n", "this kong configuration applies 2 policies together, each counting whose requests it says: gateways cannot go with it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(stackedHead+c.lanes+"traffic:\n  - {at: 0s}\n"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// A config lane is written back as its config, and reads back the same:
// its policies, fields beside it, and the about without its notes twice.
func TestConfigLanesRoundTrip(t *testing.T) {
	var lanes strings.Builder
	for i, c := range configCases {
		if i < 6 {
			lanes.WriteString(configLane(c.product, c.product, c.text))
		}
	}
	lanes.WriteString("  - name: v1\n    config:\n      product: nginx\n      from: v1\n      text: |\n" + indent(nginxPlaces, "        "))
	lanes.WriteString(configLane("kong", "kong", "config.second=10\nconfig.minute=100"))
	s, err := Parse("x.yaml", []byte("title: t\nabout: Each product.\n"+strings.TrimPrefix(stackedHead, "title: t\n")+lanes.String()+"traffic:\n  - {at: 0s, count: 9}\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Marshal(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  - name: \"v1\"\n    config:\n      product: \"nginx\"\n      from: \"v1\"\n      text: |\n        limit_req_zone", "about: |\n  Each product.\nstep:", "  - name: \"kong\"\n    config:\n      product: \"kong\"\n      text: \"config.second=10\\nconfig.minute=100\"\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the file lacks %q:\n%s", want, out)
		}
	}
	back := roundTrip(t, s, nil)
	if !reflect.DeepEqual(normalise(back), normalise(s)) {
		t.Errorf("read back as\n%+v\nwas\n%+v", back.Lanes, s.Lanes)
	}
	// A lane changed after it was read is written as its policies.
	s.Lanes[0].Policy.Burst = 9
	if back := roundTrip(t, s, nil); back.Lanes[0].Config != nil || back.Lanes[0].Policy.Burst != 9 || strings.Contains(back.About, "lane nginx (nginx)") || !strings.Contains(back.About, "lane v1 (nginx)") {
		t.Errorf("changed lane read back as %+v, about %q", back.Lanes[0], back.About)
	}
}

// FuzzConfigLane gives the products' readers arbitrary texts through a
// config lane: each is read or refused with an error, and one read is
// written back as its config and reads back the same.
func FuzzConfigLane(f *testing.F) {
	for _, c := range configCases {
		f.Add(c.product, c.text)
	}
	f.Add("nginx", nginxPlaces)
	f.Fuzz(func(t *testing.T, product, text string) {
		if !utf8.ValidString(text) {
			t.Skip("a YAML file is text")
		}
		s, err := Parse("x.yaml", []byte(stackedHead+configLane("it", product, text)+"traffic:\n  - {at: 0s}\n"))
		if err != nil {
			return
		}
		if s.Lanes[0].Config == nil || s.Lanes[0].Config.Text != text {
			t.Fatalf("config %+v", s.Lanes[0].Config)
		}
		if back := roundTrip(t, s, nil); !reflect.DeepEqual(normalise(back), normalise(s)) {
			t.Fatalf("read back as %+v, was %+v", back.Lanes, s.Lanes)
		}
	})
}
