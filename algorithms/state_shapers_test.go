package algorithms

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// stateAlgorithms are the algorithms whose whole-number states this file
// tests: the leaky bucket (with its queue), the interval bucket, Envoy's
// two buckets and the whole-token bucket.
var stateAlgorithms = []Algorithm{LeakyBucket, IntervalBucket, EnvoyLocal, WholeTokenBucket}

// statePolicies are random policies of a, with both values of its flags,
// and a few odd rates.
func statePolicies(r *rand.Rand, a Algorithm) []Policy {
	var out []Policy
	for range 12 {
		out = append(out, randPolicy(r, a))
	}
	switch a {
	case LeakyBucket:
		out = append(out, Policy{Algorithm: a, Queue: 3, Rate: Rate{N: 7, Per: time.Second}},
			Policy{Algorithm: a, Queue: 5, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
			Policy{Algorithm: a, Queue: 2, Rate: Rate{N: 1000, Per: 7}})
	case IntervalBucket:
		out = append(out, Policy{Algorithm: a, Capacity: 5, TokensPerFill: 2, FillInterval: 700 * time.Millisecond, StartsEmpty: true},
			Policy{Algorithm: a, Capacity: 5, TokensPerFill: 2, FillInterval: 700 * time.Millisecond})
	case EnvoyLocal:
		out = append(out, Policy{Algorithm: a, MaxTokens: 5, TokensPerFill: 3, FillInterval: 700 * time.Millisecond, Timer: true},
			Policy{Algorithm: a, MaxTokens: 5, TokensPerFill: 3, FillInterval: 700 * time.Millisecond})
	case WholeTokenBucket:
		out = append(out, Policy{Algorithm: a, Capacity: 3, Rate: Rate{N: 7, Per: time.Second}})
	}
	return out
}

// comparable is a snapshot with what a state read back does not keep (the
// whole-token bucket's count of what it dropped) cleared.
func comparable(s Snapshot) Snapshot {
	if w, ok := s.(WholeTokenBucketSnapshot); ok {
		w.Lost = Quantity{}
		return w
	}
	return s
}

// TestStateRoundTrip: after random traffic on several keys, each key's
// state written as whole numbers reads back into a limiter that writes it
// again alike, and which then decides every further request (verdict, wait
// and why) and shows every snapshot as the original does.
func TestStateRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 3))
	names := []string{"a", "b", "c"}
	for _, a := range stateAlgorithms {
		for i, p := range statePolicies(r, a) {
			t.Run(fmt.Sprintf("%s-%d", a, i), func(t *testing.T) {
				ks := NewKeys()
				orig, err := NewWithKeys(p, ks)
				if err != nil {
					t.Fatal(err)
				}
				form := p.StateForm()
				trace := randTrace(r, p, 300, true)
				for j, q := range trace {
					key := ks.Key(names[r.IntN(len(names))])
					orig.DecideKey(q.at, key, q.cost)
					st, ok := orig.(StateCodec).ExportKey(key)
					if !ok {
						t.Fatalf("request %d: no state after a decision", j)
					}
					if err := form.checkShape(st); err != nil {
						t.Fatalf("request %d: %v", j, err)
					}
					if j%10 != 0 {
						continue
					}
					// Read every key's state into a new limiter, and the
					// rest of the trace decided by both.
					copyKs := NewKeys()
					cp, err := NewWithKeys(p, copyKs)
					if err != nil {
						t.Fatal(err)
					}
					for _, n := range names {
						st, ok := orig.(StateCodec).ExportKey(ks.Key(n))
						if !ok {
							continue
						}
						if err := cp.(StateCodec).ImportKey(copyKs.Key(n), st); err != nil {
							t.Fatalf("request %d: ImportKey(%v): %v", j, st, err)
						}
						again, _ := cp.(StateCodec).ExportKey(copyKs.Key(n))
						if !reflect.DeepEqual(again, st) {
							t.Fatalf("request %d: key %s wrote %v, read back and written again %v", j, n, st, again)
						}
					}
					twin := orig.Clone()
					for k, q2 := range trace[j+1 : min(len(trace), j+40)] {
						n := names[(j+k)%len(names)]
						want := twin.Decide(q2.at, n, q2.cost)
						got := cp.Decide(q2.at, n, q2.cost)
						if got.Outcome != want.Outcome || got.Delay != want.Delay || got.RetryAfter != want.RetryAfter || got.Explain() != want.Explain() {
							t.Fatalf("after request %d, request %+v of %s: read back decides %v %q, the original %v %q",
								j, q2, n, got, got.Explain(), want, want.Explain())
						}
						at := q2.at + time.Duration(k)*time.Millisecond
						if gs, ws := comparable(cp.Snapshot(at, n)), comparable(twin.Snapshot(at, n)); !reflect.DeepEqual(gs, ws) {
							t.Fatalf("after request %d: snapshot of %s %+v, the original's %+v", j, n, gs, ws)
						}
					}
				}
			})
		}
	}
}

// TestStateRejected: states no decision could leave are refused.
func TestStateRejected(t *testing.T) {
	cases := []struct {
		p   Policy
		st  State
		why string
	}{
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{0, 7, 0}}, "out of range"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{int64(time.Second), 0, 0}}, "out of range"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{300e6, 0, 10}, Log: []int64{10, 10, 1}}, "queue"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{300e6, 0, 10}, Log: []int64{10, 200e6, 1, 10, 100e6, 1}}, "queue"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{300e6, 0, 10}, Log: []int64{10, 200e6, 1, 10}}, "whole items"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{300e6, 0, 10}, Log: []int64{10, 400e6, 1}}, "queue"},
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: time.Second}, State{Fields: []int64{4, 0, 0}}, "out of range"},
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: time.Second}, State{Fields: []int64{1, 5, 4}}, "out of range"},
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: time.Second}, State{Fields: []int64{1, 5}}, "fields"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second, Timer: true}, State{Fields: []int64{1, 5, 4}}, "fields"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second, Timer: true}, State{Fields: []int64{-1, 5}}, "out of range"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second}, State{Fields: []int64{3e9 + 1, 5}}, "out of range"},
		{Policy{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{N: 1, Per: time.Second}}, State{Fields: []int64{4, 0}}, "out of range"},
		{Policy{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{N: 1, Per: time.Second}}, State{Fields: []int64{1, -1}}, "out of range"},
	}
	for _, c := range cases {
		ks := NewKeys()
		l, err := NewWithKeys(c.p, ks)
		if err != nil {
			t.Fatal(err)
		}
		err = l.(StateCodec).ImportKey(ks.Key("k"), c.st)
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: ImportKey(%v) = %v, want an error saying %q", c.p, c.st, err, c.why)
		}
	}
}

// TestStateForms: the fields a learner reads in HGETALL.
func TestStateForms(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want string
	}{
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, "[next_ns next_frac last] queue [arrived at cost]"},
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: time.Second}, "[tokens first last]  []"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second}, "[balance last]  []"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second, Timer: true}, "[tokens last]  []"},
		{Policy{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{N: 1, Per: time.Second}}, "[tokens last]  []"},
	} {
		f := c.p.StateForm()
		if got := fmt.Sprintf("%v %s %v", f.Fields, f.Log, f.Item); got != c.want {
			t.Errorf("%s: form %s, want %s", c.p, got, c.want)
		}
	}
	// The worked example: a leaky bucket of 7/s, two requests at 0: the
	// second waits for 1/7 s, next free at 2/7 s (285714285 + 5/7 ns).
	ks := NewKeys()
	l, _ := NewWithKeys(Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, ks)
	l.Decide(0, "k", 1)
	l.Decide(0, "k", 1)
	st, _ := l.(StateCodec).ExportKey(ks.Key("k"))
	if got := fmt.Sprint(st); got != "{[285714285 5 0] [0 142857143 1]}" {
		t.Errorf("leaky bucket state %s", got)
	}
}
