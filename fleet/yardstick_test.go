package fleet

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/algorithms"
)

// asking is a yardstick that counts the requests it is asked about.
type asking struct {
	algorithms.Limiter
	asked int
}

func (a *asking) DecideInto(d *algorithms.Decision, now time.Duration, key algorithms.Key, cost int64) {
	a.asked++
	a.Limiter.DecideInto(d, now, key, cost)
}

// TestTheYardstickForeseesItsRefusals: a lane that skips asking the
// yardstick while its latest refusal of a key stands (measure) counts
// exactly the admissions beyond the policy that one asking it about every
// request does, on every algorithm's examples and edges, whatever its
// store, with costs that change, costs that never fit, and bursts within
// the refusals' waits; and on traffic far above the policy it asks about
// few of the requests.
func TestTheYardstickForeseesItsRefusals(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 9))
	configs := []Config{
		{Gateways: 3},
		{Gateways: 4, Store: Split, Route: Random, Seed: 3},
		{Gateways: 8, Store: Racy, Latency: 50 * time.Millisecond},
		{Gateways: 3, Store: Synced, SyncEvery: 300 * time.Millisecond},
		{Gateways: 2, Store: Shared, ExpireIdle: 200 * time.Millisecond},
	}
	n := 600
	if testing.Short() {
		n = 200
	}
	for _, a := range algorithms.Algorithms {
		desc := algorithms.Describe(a)
		var ps []algorithms.Policy
		for _, ex := range desc.Examples {
			ps = append(ps, ex.Policy)
		}
		ps = append(ps, desc.Edges...)
		for _, p := range ps {
			for _, c := range configs {
				if c.Validate(p) != nil {
					continue // a split nginx's rate it cannot write
				}
				ids := algorithms.NewKeys()
				fore, err := New(p, c, ids)
				if err != nil {
					t.Fatal(err)
				}
				every, _ := New(p, c, ids)
				every.foresees = false
				if fore.foresees != (desc.Family == algorithms.Textbook) || fore.yard == nil {
					t.Fatalf("%v %+v: foresees %v, has a yardstick %v", p, c, fore.foresees, fore.yard != nil)
				}
				yard := &asking{Limiter: fore.yard}
				fore.yard = yard
				// The trace is made as it goes: now and then the next
				// request repeats a refused one at its RetryAfter, or 1ns
				// before, when the yardstick's refusal ends.
				keys := []string{"a", "b", "c"}
				var last req
				for i := range n {
					q := req{last.at, keys[r.IntN(3)], 1 + r.Int64N(2)}
					switch r.IntN(4) {
					case 0: // at once
					case 1:
						q.at += time.Duration(r.Int64N(int64(10 * time.Millisecond)))
					default:
						q.at += time.Duration(r.Int64N(int64(200 * time.Millisecond)))
					}
					switch y := every.yardD; {
					case i > 0 && y.Outcome == algorithms.Rejected && y.RetryAfter < sec && r.IntN(3) == 0:
						q = req{max(last.at, y.At+y.RetryAfter-time.Duration(r.IntN(2))), last.key, last.cost}
					case i%11 == 3:
						if m := p.MaxCost(); m < math.MaxInt32 {
							q.cost = m + 1 // never fits: RetryAfter Never
						}
					case i%11 == 7:
						q.cost = max(1, min(p.MaxCost(), 3))
					}
					last = q
					k := ids.Key(q.key)
					x, y := fore.DecideKey(q.at, k, q.cost), every.DecideKey(q.at, k, q.cost)
					if !same(x, y) || x.Beyond != y.Beyond {
						t.Fatalf("%v %+v request %d at %v cost %d: %v beyond %d; asking every time %v beyond %d", p, c, i, q.at, q.cost, x.Outcome, x.Beyond, y.Outcome, y.Beyond)
					}
				}
				if !fore.foresees && yard.asked != n {
					t.Errorf("%v %+v: the yardstick asked about %d of %d requests, want all", p, c, yard.asked, n)
				}
			}
		}
	}
	// A request a millisecond on a bucket refilling 2 a second: the
	// yardstick is asked about its admissions (the first 10 and one each
	// 500ms) and the first request of each refusal.
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 2, Per: sec}}
	l := lane(t, p, Config{Gateways: 8, Store: Racy, Latency: 50 * time.Millisecond})
	yard := &asking{Limiter: l.yard}
	l.yard = yard
	for ms := range 10000 {
		l.Decide(time.Duration(ms)*time.Millisecond, "k", 1)
	}
	if want := 10 + 2*(10000/500-1) + 1; yard.asked > want {
		t.Errorf("the yardstick was asked about %d of 10000 requests, want at most %d", yard.asked, want)
	}
}
