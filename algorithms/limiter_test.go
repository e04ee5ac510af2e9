package algorithms

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestDecider: Decide (a key by name, runs of one key and changes of key
// alike) and DecideKey decide as DecideInto does, on every algorithm's
// examples and on a stack; a decision returned stays as it was when the
// next is made; and a clone's Decide decides on the clone, never on the
// limiter it was cloned from.
func TestDecider(t *testing.T) {
	var policies []Policy
	for _, a := range Algorithms {
		for _, e := range Describe(a).Examples {
			policies = append(policies, e.Policy)
		}
	}
	stacked := func(p Policy, ks *Keys) (Limiter, error) {
		return NewStack([]Layer{{Name: "each", Policy: p}, {Name: "all", Policy: p, AllKeys: true}}, ks)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for _, p := range policies {
		for _, mk := range []Maker{NewWithKeys, stacked} {
			if p.MaxDelay() > 0 {
				if _, err := mk(p, NewKeys()); err != nil {
					continue // a stack's layers admit or refuse at once
				}
			}
			ks1, ks2, ks3 := NewKeys(), NewKeys(), NewKeys()
			byName, _ := mk(p, ks1)
			byKey, _ := mk(p, ks2)
			into, err := mk(p, ks3)
			if err != nil {
				t.Fatalf("%v: %v", p, err)
			}
			var now time.Duration
			var got Decision
			var earlier []Decision
			var why []string
			for i := range 200 {
				now += time.Duration(r.Int64N(int64(unit(p)) + 1))
				key := []string{"a", "a", "b", "c"}[r.IntN(4)]
				cost := 1 + r.Int64N(2)
				x := byName.Decide(now, key, cost)
				y := byKey.DecideKey(now, ks2.Key(key), cost)
				into.DecideInto(&got, now, ks3.Key(key), cost)
				for _, d := range []Decision{x, y} {
					if d.Outcome != got.Outcome || d.Delay != got.Delay || d.RetryAfter != got.RetryAfter || d.Explain() != got.Explain() {
						t.Fatalf("%v request %d: %s, DecideInto %s", p, i, d.Explain(), got.Explain())
					}
				}
				earlier, why = append(earlier, x), append(why, x.Explain())
			}
			for i, d := range earlier {
				if d.Explain() != why[i] {
					t.Fatalf("%v: decision %d says %q, was %q", p, i, d.Explain(), why[i])
				}
			}
			// A clone decides on itself: the original's keys stay as
			// they were.
			before := byName.Snapshot(now, "a")
			c := byName.Clone()
			for range 5 {
				c.Decide(now, "a", 1)
			}
			if after := byName.Snapshot(now, "a"); !reflect.DeepEqual(before, after) {
				t.Fatalf("%v: deciding on a clone changed the original: %+v, was %+v", p, after, before)
			}
		}
	}
}
