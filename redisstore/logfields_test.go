package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// logAlgorithms are the algorithms whose state has a log (in one of the
// forms their script writes), which the hash keeps one field per item (see
// lua/prelude.lua).
func logAlgorithms() []algorithms.Algorithm {
	var out []algorithms.Algorithm
	for _, a := range algorithms.Algorithms {
		if s := scripts[a]; s != nil && slices.ContainsFunc(s.forms, func(f algorithms.StateForm) bool { return f.Log != "" }) {
			out = append(out, a)
		}
	}
	return out
}

// TestLogPlainWrites: random traffic as in TestConformance, but now and
// then a key's state is written back with a plain write (DEL, HSET of the
// fields and items, no caches), as a racy gateway's write or a restore
// after a rewind does: the next script call recomputes its caches from
// the items, and decides exactly as in memory.
func TestLogPlainWrites(t *testing.T) {
	policies := testPolicies(t)
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			var ls []lesson
			for _, a := range logAlgorithms() {
				for i, p := range policies[a] {
					if !sampled(i, len(policies[a])) {
						continue
					}
					r := rand.New(rand.NewPCG(uint64(i), 11))
					trace := randomTrace(r, p, traceLength(p, 300))
					ls = append(ls, lesson{fmt.Sprintf("%s-%d", a, i), func(t *testing.T, st *Store) {
						replay(t, st, fmt.Sprintf("plain-%s-%d", a, i), p, trace, writeBack(t, r))
					}})
				}
			}
			lessons(t, srv, ls)
		})
	}
}

// writeBack is a replay hook writing, one request in five, the key's state
// in memory into its hash with a plain write.
func writeBack(t *testing.T, r *rand.Rand) func(int, algorithms.Key, algorithms.Limiter, *Limiter) {
	return func(_ int, k algorithms.Key, mem algorithms.Limiter, red *Limiter) {
		if r.IntN(5) != 0 {
			return
		}
		if mine, ok := mem.(algorithms.StateCodec).ExportKey(k); ok {
			if err := red.write(k, mine); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestLogFieldsHash: a plain write lays the log out as the scripts do,
// items from seq 0, and a read takes the items from head to next, ignoring
// the scripts' caches; a missing item or a malformed one is an error.
func TestLogFieldsHash(t *testing.T) {
	st := open(t, servers(t)[0])
	p := algorithms.Policy{Algorithm: algorithms.SlidingLog, Limit: 10, Window: time.Second}
	ks := algorithms.NewKeys()
	lim, err := st.Maker("fields", time.Minute)(p, ks)
	if err != nil {
		t.Fatal(err)
	}
	red := lim.(*Limiter)
	k := ks.Key("k")
	ctx := context.Background()
	hash := HashKey("fields", "k")
	in := algorithms.State{Fields: []int64{300}, Log: []int64{100, 1, 200, 2, 300, 3}}
	if err := red.write(k, in); err != nil {
		t.Fatal(err)
	}
	h, err := st.client.HGetAll(ctx, hash).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"last": "300", "log.head": "0", "log.next": "3", "log:0": "100 1", "log:1": "200 2", "log:2": "300 3"}
	if fmt.Sprint(h) != fmt.Sprint(want) {
		t.Errorf("after a plain write, HGETALL %v, want %v", h, want)
	}
	// A script call drops nothing (all inside the window), adds _sum and
	// pushes log:3.
	if d := red.DecideKey(400, k, 4); d.Outcome != algorithms.Allowed {
		t.Fatalf("%s", d.Explain())
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	h, _ = st.client.HGetAll(ctx, hash).Result()
	if h["_sum"] != "10" || h["log:3"] != "400 4" || h["log.next"] != "4" {
		t.Errorf("after a call, HGETALL %v, want _sum 10 and log:3 \"400 4\"", h)
	}
	// Past the window of the first two: they are dropped from the head.
	if d := red.DecideKey(time.Second+250, k, 1); d.Outcome != algorithms.Allowed {
		t.Fatalf("%s", d.Explain())
	}
	h, _ = st.client.HGetAll(ctx, hash).Result()
	if _, ok := h["log:1"]; ok || h["log.head"] != "2" || h["_sum"] != "8" {
		t.Errorf("after expiry, HGETALL %v, want log:0 and log:1 gone, head 2, _sum 8", h)
	}
	got, found, err := red.read(k)
	if err != nil || !found || fmt.Sprint(got.Log) != "[300 3 400 4 1000000250 1]" {
		t.Errorf("read %v %v %v", got, found, err)
	}
	for _, c := range []struct {
		field, value, err string
	}{
		{"log:3", "", "no field log:3"},
		{"log:3", "400 x", "not a whole number"},
		{"log:3", "400", "not 2 numbers"},
		{"log.next", "1000000000", "runs from 0 to 1000000000"},
		{"log.head", "7", "runs from 7 to 3"},
	} {
		if err := red.write(k, got); err != nil {
			t.Fatal(err)
		}
		// The write puts the items at 0..2: move to seqs as asked.
		if c.value == "" {
			st.client.HDel(ctx, hash, "log:1")
		} else {
			st.client.HSet(ctx, hash, strings.Replace(c.field, "log:3", "log:1", 1), c.value)
		}
		if _, _, err := red.read(k); err == nil || !strings.Contains(err.Error(), strings.Replace(c.err, "log:3", "log:1", 1)) {
			t.Errorf("%s = %q: read's error %v, want one saying %q", c.field, c.value, err, c.err)
		}
	}
}

// TestLogWalks: a call's work does not grow with the log. On a real
// Redis (miniredis has no command statistics), the server's time per
// script call with a log of 20,000 items is that with 20: a plain write,
// a first call that recomputes the caches (once), then 30 calls admitting
// and expiring one item, or rejecting, timed by INFO commandstats.
func TestLogWalks(t *testing.T) {
	var srv server
	for _, s := range servers(t) {
		if s.name == "redis" {
			srv = s
		}
	}
	if srv.url == "" {
		t.Skip("no real Redis (RATELAB_REDIS_URL)")
	}
	st := open(t, srv)
	for _, a := range []algorithms.Algorithm{algorithms.SlidingLog, algorithms.AttemptLog, algorithms.CollapsingLog} {
		var us [2]float64
		for j, n := range []int{20, 20000} {
			us[j] = perCall(t, st, a, n)
		}
		t.Logf("%s: %.0f µs a call with 20 items, %.0f µs with 20,000", a, us[0], us[1])
		if us[1] > 4*us[0]+200 {
			t.Errorf("%s: %.0f µs a call with 20 items, %.0f µs with 20,000", a, us[0], us[1])
		}
	}
}

// perCall is the server's µs per script call of a's on a log of n items,
// the limit n, each item of cost 1, 2ms apart, inside a window of 1h.
func perCall(t *testing.T, st *Store, a algorithms.Algorithm, n int) float64 {
	p := algorithms.Policy{Algorithm: a, Limit: int64(n), Window: time.Hour}
	ks := algorithms.NewKeys()
	lim, err := st.Maker("walks", 2*time.Hour)(p, ks)
	if err != nil {
		t.Fatal(err)
	}
	red := lim.(*Limiter)
	k := ks.Key("k")
	log := make([]int64, 0, 3*n)
	step := int64(2 * time.Millisecond)
	for i := range int64(n) {
		switch a {
		case algorithms.SlidingLog:
			log = append(log, i*step, 1)
		case algorithms.AttemptLog:
			log = append(log, i*step, 1, 1)
		case algorithms.CollapsingLog:
			log = append(log, i*step/int64(time.Millisecond), 1)
		}
	}
	last := int64(n-1) * step
	fields := []int64{last}
	if a == algorithms.CollapsingLog {
		fields = []int64{last, int64(n), int64(n)}
	}
	if err := red.ImportKey(k, algorithms.State{Fields: fields, Log: log}); err != nil {
		t.Fatal(err)
	}
	// The first item leaves the window: the call drops it and admits;
	// from then on, 1ms apart, every other call drops one and admits, the
	// ones between are rejected.
	at := time.Hour + time.Millisecond
	if d := red.DecideKey(at, k, 1); d.Outcome != algorithms.Allowed {
		t.Fatalf("%s", d.Explain())
	}
	before := evalStats(t, st)
	for range 30 {
		at += time.Millisecond
		red.DecideKey(at, k, 1)
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	after := evalStats(t, st)
	return (after[1] - before[1]) / (after[0] - before[0])
}

// evalStats is the server's EVALSHA calls and µs so far.
func evalStats(t *testing.T, st *Store) [2]float64 {
	t.Helper()
	info, err := st.client.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_evalsha:"); ok {
			var calls, usec float64
			for _, kv := range strings.Split(v, ",") {
				name, x, _ := strings.Cut(kv, "=")
				switch name {
				case "calls":
					fmt.Sscan(x, &calls)
				case "usec":
					fmt.Sscan(x, &usec)
				}
			}
			return [2]float64{calls, usec}
		}
	}
	t.Fatal("no EVALSHA in INFO commandstats")
	return [2]float64{}
}
