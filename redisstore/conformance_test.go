package redisstore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// testPolicies are, for every algorithm with a script, each once: the
// edges of its arithmetic and its examples (its Description's Edges and
// Examples) and every policy of the canned lessons. The edges come first
// and the examples last, so that a policy keeps its place (and its trace)
// when the others change. A policy that keeps a bounded number of keys
// (nginx's zone) is left out: a store refuses it (TestNginxZoneRefused).
func testPolicies(t *testing.T) map[algorithms.Algorithm][]algorithms.Policy {
	t.Helper()
	out := map[algorithms.Algorithm][]algorithms.Policy{}
	seen := map[string]bool{}
	add := func(p algorithms.Policy) {
		if Supports(p.Algorithm) && p.MaxKeys() == 0 && !seen[p.String()] {
			seen[p.String()] = true
			out[p.Algorithm] = append(out[p.Algorithm], p)
		}
	}
	for _, a := range algorithms.Algorithms {
		for _, p := range algorithms.Describe(a).Edges {
			if err := p.Validate(); err != nil {
				t.Fatalf("edge %s: %v", p, err)
			}
			add(p)
		}
	}
	for _, info := range scenarios.List() {
		s, err := scenarios.Canned(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range s.Lanes {
			add(l.Policy)
		}
	}
	for _, a := range algorithms.Algorithms {
		for _, e := range algorithms.Describe(a).Examples {
			add(e.Policy)
		}
	}
	return out
}

// sampled reports whether the suites that run every test policy run the
// i-th of an algorithm's n: every one, or under short() its first (an edge
// of its arithmetic) and its last (an example, or a lesson's policy).
func sampled(i, n int) bool { return !short() || i == 0 || i == n-1 }

// request is one request of a trace.
type request struct {
	at   time.Duration
	key  string
	cost int64
}

// randomTrace is n requests for p: several keys, costs mostly 1 and now
// and then beyond the policy's size, gaps from none to past its horizon,
// and a few late ones (before their key's latest).
func randomTrace(r *rand.Rand, p algorithms.Policy, n int) []request {
	keys := []string{"alice", "bob", "carol"}
	h := max(p.Horizon(), time.Millisecond)
	var out []request
	at := time.Duration(0)
	for range n {
		switch x := r.IntN(20); {
		case x < 8:
			at += time.Duration(r.Int64N(int64(h)/8 + 1))
		case x < 10:
			at += time.Duration(r.Int64N(int64(h)*2 + 1))
		}
		t := at
		if r.IntN(25) == 0 {
			t = max(0, at-time.Duration(r.Int64N(int64(h)/4+1)))
		}
		cost := int64(1)
		if r.IntN(6) == 0 {
			cost = 1 + r.Int64N(max(2, p.MaxCost()+1))
		}
		out = append(out, request{t, keys[r.IntN(len(keys))], cost})
	}
	return out
}

// replay decides trace on a memory limiter and on one in Redis, failing
// at the first decision (verdict or why) or state that differs. Halfway,
// the server's scripts are flushed: the next calls load them again.
// before, if given, runs before each request i of key k.
func replay(t *testing.T, st *Store, lane string, p algorithms.Policy, trace []request,
	before ...func(i int, k algorithms.Key, mem algorithms.Limiter, red *Limiter)) {
	t.Helper()
	until := trace[len(trace)-1].at + 1
	for _, r := range trace {
		until = max(until, r.at+1)
	}
	ks := algorithms.NewKeys()
	mem, err := algorithms.NewWithKeys(p, ks)
	if err != nil {
		t.Fatal(err)
	}
	lim, err := st.Maker(lane, until)(p, ks)
	if err != nil {
		t.Fatal(err)
	}
	red := lim.(*Limiter)
	for i, r := range trace {
		if i == len(trace)/2 {
			st.flushScripts(t)
		}
		k := ks.Key(r.key)
		for _, f := range before {
			f(i, k, mem, red)
		}
		want := mem.DecideKey(r.at, k, r.cost)
		got := red.DecideKey(r.at, k, r.cost)
		if err := st.Err(); err != nil {
			t.Fatalf("%s: request %d (%s at %s cost %d): %v", p, i, r.key, algorithms.FormatSeconds(r.at), r.cost, err)
		}
		if got.Explain() != want.Explain() {
			t.Fatalf("%s: request %d: why %q, want %q", p, i, got.Explain(), want.Explain())
		}
		held, found, err := red.read(k)
		if err != nil {
			t.Fatal(err)
		}
		mine, ok := mem.(algorithms.StateCodec).ExportKey(k)
		if found != ok || !sameState(held, mine) {
			t.Fatalf("%s: after request %d (%s at %s cost %d): Redis holds %v, memory %v",
				p, i, r.key, algorithms.FormatSeconds(r.at), r.cost, held, mine)
		}
	}
	clearedBy(t, st, lane, p, ks, mem)
}

// clearedBy checks that ClearLane deletes the lane's hashes after a run,
// one a key with a state in memory: every field the script wrote is one
// a lane's hash may hold (laneField), or ClearLane would refuse them.
func clearedBy(t *testing.T, st *Store, lane string, p algorithms.Policy, ks *algorithms.Keys, mem algorithms.Limiter) {
	t.Helper()
	want := 0
	for k := range ks.All {
		if _, ok := mem.(algorithms.StateCodec).ExportKey(k); ok {
			want++
		}
	}
	if n, err := st.ClearLane(lane); err != nil || n != want {
		t.Fatalf("%s: ClearLane after the run: %d hashes deleted, %v; want %d", p, n, err, want)
	}
}

// TestConformance: every canned policy with a script, on random traffic,
// decides in Redis exactly as in memory, its state the same after every
// request, on every server the test has. Each policy's run is a lesson of
// its own (see lessons).
func TestConformance(t *testing.T) {
	policies := testPolicies(t)
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			var ls []lesson
			for _, a := range algorithms.Algorithms {
				if !Supports(a) {
					continue
				}
				if len(policies[a]) == 0 {
					t.Errorf("%s has a script but no policy to test it with", a)
				}
				for i, p := range policies[a] {
					if !sampled(i, len(policies[a])) {
						continue
					}
					r := rand.New(rand.NewPCG(uint64(i), 7))
					trace := randomTrace(r, p, traceLength(p, 400))
					ls = append(ls, lesson{fmt.Sprintf("%s-%d", a, i), func(t *testing.T, st *Store) {
						replay(t, st, fmt.Sprintf("conf-%s-%d", a, i), p, trace)
					}})
				}
			}
			lessons(t, srv, ls)
		})
	}
}

// TestConformancePipelined: the same traces with the calls sent 64 at a
// time, the scripts flushed from the server halfway (queued calls then
// answer NOSCRIPT and are made again), every reply checked and the final
// states equal.
func TestConformancePipelined(t *testing.T) {
	policies := testPolicies(t)
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			var ls []lesson
			for _, a := range algorithms.Algorithms {
				for i, p := range policies[a] {
					if !sampled(i, len(policies[a])) {
						continue
					}
					trace := randomTrace(rand.New(rand.NewPCG(uint64(i), 11)), p, traceLength(p, 300))
					ls = append(ls, lesson{fmt.Sprintf("%s-%d", a, i), func(t *testing.T, st *Store) {
						pipelined(t, st, fmt.Sprintf("pipe-%s-%d", a, i), p, trace)
					}})
				}
			}
			lessons(t, srv, ls)
		})
	}
}

// pipelined decides trace on a memory limiter and on one in Redis whose
// calls are sent 64 at a time, the scripts flushed from the server
// halfway, and compares the final states.
func pipelined(t *testing.T, st *Store, lane string, p algorithms.Policy, trace []request) {
	st.Pipeline(64)
	ks := algorithms.NewKeys()
	mem, _ := algorithms.NewWithKeys(p, ks)
	lim, err := st.Maker(lane, trace[len(trace)-1].at+time.Hour)(p, ks)
	if err != nil {
		t.Fatal(err)
	}
	for j, r := range trace {
		if j == len(trace)/2 {
			st.flushScripts(t)
		}
		mem.DecideKey(r.at, ks.Key(r.key), r.cost)
		lim.DecideKey(r.at, ks.Key(r.key), r.cost)
	}
	if err := st.Flush(); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	for _, name := range []string{"alice", "bob", "carol"} {
		k := ks.Key(name)
		held, found, err := lim.(*Limiter).read(k)
		mine, ok := mem.(algorithms.StateCodec).ExportKey(k)
		if err != nil || found != ok || !sameState(held, mine) {
			t.Fatalf("%s, key %s: Redis holds %v (%v), memory %v", p, name, held, err, mine)
		}
	}
	clearedBy(t, st, lane, p, ks, mem)
}

// TestALessonTimingOutLeaksNothing: of the lessons a test runs one after
// the other (lessons), one whose server stops answering mid-call fails
// alone: the next runs on a store that works, in a key space of its own.
func TestALessonTimingOutLeaksNothing(t *testing.T) {
	if short() {
		t.Skip("the frozen lesson waits out the call timeout, " + Timeout.String() + ": run without -short")
	}
	var proxies []*freezer // the servers' own, latest last
	srv := server{name: "freezable", fresh: func(t *testing.T) string {
		f := newFreezer(t, miniredis.RunT(t).Addr())
		proxies = append(proxies, f)
		return "redis://" + f.ln.Addr().String() + "/0"
	}}
	srv.url = srv.fresh(t)
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 3, Rate: algorithms.Rate{N: 1, Per: time.Second}}
	lessons(t, srv, []lesson{
		{"times-out", func(t *testing.T, st *Store) {
			lim, err := st.Maker("bucket", time.Minute)(p, algorithms.NewKeys())
			if err != nil {
				t.Fatal(err)
			}
			lim.Decide(0, "k", 1)
			proxies[len(proxies)-1].freeze()
			lim.Decide(time.Millisecond, "k", 1)
			if err := st.Err(); err == nil || !strings.Contains(err.Error(), "did not answer") {
				t.Errorf("the frozen lesson's store: %v", err)
			}
		}},
		{"next", func(t *testing.T, st *Store) {
			ks := algorithms.NewKeys()
			lim, err := st.Maker("bucket", time.Minute)(p, ks)
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				lim.Decide(0, "k", 1)
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			if held, ok := lim.(algorithms.StateCodec).ExportKey(ks.Key("k")); !ok || held.Fields[0] != 0 || st.Err() != nil {
				t.Errorf("after 3 requests of a bucket of 3, Redis holds %v (%v)", held, st.Err())
			}
		}},
	})
}
