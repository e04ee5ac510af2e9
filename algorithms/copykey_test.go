package algorithms

import (
	"math/rand/v2"
	"strconv"
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

// TestCopyDecideIsCopyThenDecide: a CopyDecider's one call decides as
// CopyKey and then DecideInto, for every algorithm and for nginx's zone
// (which keeps a queue of keys beside their states: its own CopyKey and
// DecideInto must not be skipped for the keyed limiter it embeds), keys
// copied back and forth between two limiters of one policy.
func TestCopyDecideIsCopyThenDecide(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 4))
	var policies []Policy
	for _, alg := range Algorithms {
		for range 10 {
			policies = append(policies, randPolicy(r, alg))
		}
	}
	// The smallest zone, which the keys below overfill.
	policies = append(policies, Policy{Algorithm: NginxLimitReq, Rate: Rate{N: 10, Per: 1e9}, Burst: 4, Zone: nginxMinZone})
	for _, p := range policies {
		ks := NewKeys()
		keys := make([]Key, 2*NginxZoneKeys(nginxMinZone))
		for i := range keys {
			keys[i] = ks.Key(strconv.Itoa(i))
		}
		// one and two copy and decide in one call, three and four in two.
		one, _ := NewWithKeys(p, ks)
		two, three, four := one.Clone(), one.Clone(), one.Clone()
		cd := [2]CopyDecider{CopyDeciderOf(one), CopyDeciderOf(two)}
		lims := [2][2]Limiter{{one, two}, {three, four}}
		reqs := randTrace(r, p, 600, false)
		for i, q := range reqs {
			k, to := keys[r.IntN(len(keys))], r.IntN(2)
			var a, b Decision
			cd[to].CopyDecideInto(&a, lims[0][1-to], q.at, k, q.cost)
			lims[1][to].(KeyCopier).CopyKey(lims[1][1-to], k)
			lims[1][to].DecideInto(&b, q.at, k, q.cost)
			if a.Outcome != b.Outcome || a.Delay != b.Delay || a.RetryAfter != b.RetryAfter {
				t.Fatalf("%v request %d: %v in one call, %v in two", p, i, a.Outcome, b.Outcome)
			}
		}
		for to := range 2 {
			if a, b := lims[0][to].Memory(), lims[1][to].Memory(); a.State != b.State {
				t.Fatalf("%v: %d bytes after copies and decisions in one call, %d in two", p, a.State, b.State)
			}
		}
	}
}
