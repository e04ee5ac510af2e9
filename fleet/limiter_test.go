package fleet

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

const sec = time.Second

type req struct {
	at   time.Duration
	key  string
	cost int64
}

// trace is n requests on a few keys, bursts and gaps around p's pace.
func trace(r *rand.Rand, n int) []req {
	var at time.Duration
	out := make([]req, n)
	for i := range out {
		switch r.IntN(4) {
		case 0: // same instant
		case 1:
			at += time.Duration(r.Int64N(int64(100 * time.Millisecond)))
		default:
			at += time.Duration(r.Int64N(int64(2 * sec)))
		}
		out[i] = req{at, []string{"a", "b", "c"}[r.IntN(3)], 1 + r.Int64N(2)}
	}
	return out
}

var policies = []algorithms.Policy{
	{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 2, Per: sec}},
	{Algorithm: algorithms.FixedWindow, Limit: 12, Window: 10 * sec},
	{Algorithm: algorithms.SlidingLog, Limit: 8, Window: 5 * sec},
	{Algorithm: algorithms.GCRA, Burst: 5, Rate: algorithms.Rate{N: 3, Per: sec}},
	{Algorithm: algorithms.LeakyBucket, Queue: 6, Rate: algorithms.Rate{N: 4, Per: sec}},
}

func plain(t *testing.T, p algorithms.Policy) algorithms.Limiter {
	t.Helper()
	l, err := algorithms.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func lane(t *testing.T, p algorithms.Policy, c Config) *Limiter {
	t.Helper()
	l, err := New(p, c, algorithms.NewKeys())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func same(a, b algorithms.Decision) bool {
	return a.Outcome == b.Outcome && a.Delay == b.Delay && a.RetryAfter == b.RetryAfter
}

// TestSharedAndSingleArePlain: one gateway with any store, and a shared
// store whatever the gateways and the route, decide as the plain limiter,
// and never go beyond it.
func TestSharedAndSingleArePlain(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	for _, p := range policies {
		for _, c := range []Config{
			{Gateways: 1, Store: Local}, {Gateways: 1, Store: Split}, {Gateways: 1, Store: Shared},
			{Gateways: 4, Store: Shared}, {Gateways: 3, Store: Shared, Route: ByKey}, {Gateways: 5, Store: Shared, Route: Random, Seed: 7},
		} {
			want, got := plain(t, p), lane(t, p, c)
			for i, q := range trace(r, 300) {
				w, g := want.Decide(q.at, q.key, q.cost), got.Decide(q.at, q.key, q.cost)
				if !same(w, g) || g.Beyond != 0 || g.Explain() != w.Explain() {
					t.Fatalf("%v %+v request %d: %v, plain %v (beyond %d)", p, c, i, g.Outcome, w.Outcome, g.Beyond)
				}
			}
		}
	}
}

// TestLocalIsNPlainLimiters: local gateways decide as n plain limiters,
// each fed the requests routed to it; Beyond adds up to the lane's
// admissions less the yardstick's.
func TestLocalIsNPlainLimiters(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	for _, p := range policies {
		for _, route := range Routes {
			const n = 3
			c := Config{Gateways: n, Store: Local, Route: route, Seed: 42}
			l := lane(t, p, c)
			each := []algorithms.Limiter{plain(t, p), plain(t, p), plain(t, p)}
			yard := plain(t, p)
			var beyond, admitted, yardAdmitted int
			for i, q := range trace(r, 400) {
				d := l.Decide(q.at, q.key, q.cost)
				w := each[d.Gateway].Decide(q.at, q.key, q.cost)
				if !same(d, w) {
					t.Fatalf("%v %s request %d on gateway %d: %v, its own limiter %v", p, route, i, d.Gateway, d.Outcome, w.Outcome)
				}
				beyond += int(d.Beyond)
				if d.Outcome.Admitted() {
					admitted++
				}
				if yard.Decide(q.at, q.key, q.cost).Outcome.Admitted() {
					yardAdmitted++
				}
			}
			if beyond != admitted-yardAdmitted {
				t.Errorf("%v %s: Beyond adds up to %d, admitted %d − yardstick %d", p, route, beyond, admitted, yardAdmitted)
			}
		}
	}
}

// TestRoutes: round-robin cycles, by-key keeps a key on one gateway, and
// random repeats for a seed, differs for another, and reaches every
// gateway.
func TestRoutes(t *testing.T) {
	p := policies[0]
	rr := lane(t, p, Config{Gateways: 3, Route: RoundRobin})
	for i := range 7 {
		if g := rr.Decide(0, "k", 1).Gateway; int(g) != i%3 {
			t.Fatalf("round-robin request %d went to %d", i, g)
		}
	}
	bk := lane(t, p, Config{Gateways: 4, Route: ByKey})
	seen := map[string]uint16{}
	for i := range 60 {
		k := fmt.Sprintf("k%d", i%9)
		g := bk.Decide(time.Duration(i)*sec, k, 1).Gateway
		if was, ok := seen[k]; ok && was != g {
			t.Fatalf("by-key moved %s from %d to %d", k, was, g)
		}
		seen[k] = g
	}
	draw := func(seed uint64) (gs []uint16) {
		l := lane(t, p, Config{Gateways: 4, Route: Random, Seed: seed})
		for range 40 {
			gs = append(gs, l.Decide(0, "k", 1).Gateway)
		}
		return gs
	}
	a, b, c := draw(1), draw(1), draw(2)
	if fmt.Sprint(a) != fmt.Sprint(b) || fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("random: seed 1 %v and %v, seed 2 %v", a, b, c)
	}
	hit := map[uint16]bool{}
	for _, g := range a {
		hit[g] = true
	}
	if len(hit) != 4 {
		t.Errorf("random reached %d of 4 gateways in 40 requests", len(hit))
	}
}

// TestSplitShares: split gateways each enforce the share SplitPolicy gives;
// under even routing of one key a lane of 4 splits of a bucket of 10 at
// 2/s (shares of 3 at 30/min) admits 3 + 3 + 3 + 3 = 12 at once (each share rounded up), and
// under by-key routing the one key's gateway admits only its share of 3.
func TestSplitShares(t *testing.T) {
	p := policies[0]
	share := algorithms.SplitPolicy(p, 4)
	if share.Capacity != 3 || share.Rate != (algorithms.Rate{N: 30, Per: time.Minute}) {
		t.Fatalf("share %v", share)
	}
	count := func(c Config) (n int) {
		l := lane(t, p, c)
		for range 20 {
			if l.Decide(0, "hot", 1).Outcome.Admitted() {
				n++
			}
		}
		return n
	}
	if even, skew := count(Config{Gateways: 4, Store: Split}), count(Config{Gateways: 4, Store: Split, Route: ByKey}); even != 12 || skew != 3 {
		t.Errorf("split: even routing admits %d (want 12), one hot key by key %d (want 3)", even, skew)
	}
	if got := algorithms.SplitPolicy(algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Rate: algorithms.Rate{N: 2, Per: sec}, Burst: 10}, 4); got.Rate != (algorithms.Rate{N: 30, Per: time.Minute}) || got.Burst != 3 {
		t.Errorf("nginx 2r/s burst 10 over 4: %v, want 30r/m burst 3", got)
	}
	if err := (Config{Gateways: 7, Store: Split}).Validate(algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Rate: algorithms.Rate{N: 1, Per: sec}}); err == nil {
		t.Errorf("nginx 1r/s split 7 ways (1/7s) has no rate nginx can write, yet is valid")
	}
}

// TestCloneRoutesOn: two clones made at one point decide and route alike
// from there, whatever the original does meanwhile, for every store, with
// outages, expiry and skew: a clone shares nothing it changes.
func TestCloneRoutesOn(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	configs := []Config{
		{Gateways: 3, Route: Random, Seed: 5},
		{Gateways: 3, Store: Synced, SyncEvery: 700 * time.Millisecond, ExpireIdle: 900 * time.Millisecond},
		{Gateways: 2, Store: Racy, Latency: 40 * time.Millisecond, Skew: []time.Duration{0, -30 * time.Millisecond}},
		{Gateways: 2, Store: Shared, ExpireIdle: 1500 * time.Millisecond, Fallback: algorithms.FallbackLocalCap,
			Outages: []Outage{{From: 20 * sec, Until: 30 * sec, LoseState: true}, {From: 60 * sec, Until: 80 * sec}}},
	}
	for _, p := range policies {
		for _, c := range configs {
			l := lane(t, p, c)
			reqs := trace(r, 200)
			for _, q := range reqs[:100] {
				l.Decide(q.at, q.key, q.cost)
			}
			a, b := l.Clone(), l.Clone()
			// The original goes its own way: nothing it does may reach
			// the clones.
			for _, q := range trace(r, 100) {
				l.Decide(reqs[99].at+q.at, q.key, q.cost)
			}
			for i, q := range reqs[100:] {
				x, y := a.Decide(q.at, q.key, q.cost), b.Decide(q.at, q.key, q.cost)
				if !same(x, y) || x.Gateway != y.Gateway || x.Beyond != y.Beyond || x.Forgot != y.Forgot || x.Fallback != y.Fallback {
					t.Fatalf("%v %+v request %d: two clones disagree: %v on %d, %v on %d", p, c, i, x.Outcome, x.Gateway, y.Outcome, y.Gateway)
				}
			}
		}
	}
}

// TestNoAllocations: routing and the yardstick cost no allocation a
// decision once the keys are known.
func TestNoAllocations(t *testing.T) {
	for _, route := range Routes {
		l := lane(t, policies[0], Config{Gateways: 4, Route: route, Seed: 3})
		var now time.Duration
		var d algorithms.Decision
		key := l.ids.Key("k")
		decide := func() { now += 300 * time.Millisecond; l.DecideInto(&d, now, key, 1) }
		for range 100 {
			decide()
		}
		if n := testing.AllocsPerRun(1000, decide); n != 0 {
			t.Errorf("%s: %v allocations a decision", route, n)
		}
	}
}

// TestClockSkew: a shared store whose gateways' clocks are off decides as
// the plain limiter fed each request at its gateway's reading; a request
// read earlier than the key's latest update is decided as at that update.
func TestClockSkew(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 1, Rate: algorithms.Rate{N: 1, Per: sec}}
	l := lane(t, p, Config{Gateways: 2, Store: Shared, Skew: []time.Duration{0, -400 * time.Millisecond}})
	want := plain(t, p)
	for i, at := range []time.Duration{0, sec, 1300 * time.Millisecond, 2 * sec, 2200 * time.Millisecond, 3 * sec} {
		d := l.Decide(at, "k", 1)
		seen := at
		if d.Gateway == 1 {
			seen = max(at-400*time.Millisecond, 0)
		}
		if w := want.Decide(seen, "k", 1); !same(d, w) {
			t.Fatalf("request %d at %v on gateway %d: %v, plain at %v: %v", i, at, d.Gateway, d.Outcome, seen, w.Outcome)
		}
	}
	late := lane(t, p, Config{Gateways: 2, Store: Shared, Skew: []time.Duration{0, -400 * time.Millisecond}})
	late.Decide(sec, "k", 1)                        // gateway 1 at 1s: the key's latest update
	d := late.Decide(1200*time.Millisecond, "k", 1) // gateway 2 reads 0.8s
	if !strings.Contains(d.Explain(), "arrived at 0.8s, before this key's latest request: decided as at 1s") {
		t.Errorf("the clamp is not told: %s", d.Explain())
	}
	if err := (Config{Gateways: 3, Skew: []time.Duration{0, sec}}).Validate(p); err == nil {
		t.Errorf("2 offsets for 3 gateways is valid")
	}
}

// TestBelowThePolicy: a lane that refuses what the yardstick admits says
// so, −1 a decision: one hot key routed to one split gateway gets 3 of a
// bucket of 10, and the other 7 the policy grants are refused.
func TestBelowThePolicy(t *testing.T) {
	l := lane(t, policies[0], Config{Gateways: 4, Store: Split, Route: ByKey})
	below := 0
	for range 12 {
		if d := l.Decide(0, "hot", 1); d.Beyond == -1 {
			below++
		} else if d.Beyond != 0 {
			t.Fatalf("beyond %d", d.Beyond)
		}
	}
	if below != 7 {
		t.Errorf("%d decisions below the policy, want 7", below)
	}
}
