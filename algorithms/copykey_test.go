package algorithms

import (
	"math/rand/v2"
	"testing"
)

// TestCopyKey: after a clone decides more of a key's requests, copying that
// key's state back into the original makes the two decide the rest alike,
// for every algorithm; another key of the original is left as it was, and
// the clone is not disturbed by the original's later decisions.
func TestCopyKey(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	for _, alg := range Algorithms {
		t.Run(string(alg), func(t *testing.T) {
			for range 30 {
				p := randPolicy(r, alg)
				reqs := randTrace(r, p, 90, false)
				ks := NewKeys()
				a, _ := NewWithKeys(p, ks)
				k, other := ks.Key("k"), ks.Key("other")
				for _, q := range reqs[:30] {
					a.DecideKey(q.at, k, q.cost)
					a.DecideKey(q.at, other, q.cost)
				}
				b := a.Clone()
				for _, q := range reqs[30:60] {
					b.DecideKey(q.at, k, q.cost)
				}
				ref := a.Clone() // other's state as it was
				a.(KeyCopier).CopyKey(b, k)
				for i, q := range reqs[60:] {
					x, y := a.DecideKey(q.at, k, q.cost), b.DecideKey(q.at, k, q.cost)
					if x.Outcome != y.Outcome || x.Delay != y.Delay || x.RetryAfter != y.RetryAfter {
						t.Fatalf("%v request %d after the copy: %v, the source %v", p, i, x.Outcome, y.Outcome)
					}
					o, w := a.DecideKey(q.at, other, q.cost), ref.DecideKey(q.at, other, q.cost)
					if o.Outcome != w.Outcome || o.RetryAfter != w.RetryAfter {
						t.Fatalf("%v: the copy changed another key", p)
					}
				}
			}
		})
	}
}

// TestForgetKey: a forgotten key decides as a fresh limiter's would, from
// then on; another key is untouched, and so is a clone taken before.
func TestForgetKey(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 4))
	for _, alg := range Algorithms {
		for range 20 {
			p := randPolicy(r, alg)
			reqs := randTrace(r, p, 80, false)
			ks := NewKeys()
			a, _ := NewWithKeys(p, ks)
			k, other := ks.Key("k"), ks.Key("other")
			for _, q := range reqs[:40] {
				a.DecideKey(q.at, k, q.cost)
				a.DecideKey(q.at, other, q.cost)
			}
			ref := a.Clone()
			a.(KeyCopier).ForgetKey(k)
			// The clone taken before keeps k's state: forgetting is the
			// original's own change (copy on write), as a witness that
			// decided the same requests and forgot nothing shows.
			witness := mustNew(t, p)
			for _, q := range reqs[:40] {
				witness.Decide(q.at, "k", q.cost)
			}
			for _, q := range reqs[40:] {
				x, y := ref.DecideKey(q.at, k, q.cost), witness.Decide(q.at, "k", q.cost)
				if x.Outcome != y.Outcome || x.RetryAfter != y.RetryAfter || x.Delay != y.Delay {
					t.Fatalf("%v: forgetting k in the original changed a clone's k", p)
				}
			}
			ref = a.Clone() // for other, below: ref's k has moved on
			fresh := mustNew(t, p)
			for i, q := range reqs[40:] {
				x, y := a.DecideKey(q.at, k, q.cost), fresh.Decide(q.at, "k", q.cost)
				if x.Outcome != y.Outcome || x.RetryAfter != y.RetryAfter || x.Delay != y.Delay {
					t.Fatalf("%v request %d after forgetting: %v, a fresh limiter %v", p, i, x.Outcome, y.Outcome)
				}
				if o, w := a.DecideKey(q.at, other, q.cost), ref.DecideKey(q.at, other, q.cost); o.Outcome != w.Outcome {
					t.Fatalf("%v: forgetting one key changed another", p)
				}
			}
		}
	}
}
