package fit

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// Ten quiet keys send 2 at once; key "a" sends 10, 1ms apart. At 1/s a
// quiet key needs a bucket of 2 and "a" one of 10 (a thousandth of a token
// back each ms is not enough for the next). The 90% quantile of 11 keys is
// the 10th smallest need, 2; at capacity 2 "a" is refused its third to its
// tenth request, from 2ms to 9ms.
func TestByKeyQuantile(t *testing.T) {
	var reqs []scenarios.Request
	for i := range 10 {
		reqs = append(reqs, scenarios.Request{At: time.Duration(i) * ms, Key: "a", Cost: 1})
		k := string(rune('b' + i))
		reqs = append(reqs, scenarios.Request{At: time.Duration(i) * ms, Key: k, Cost: 1}, scenarios.Request{At: time.Duration(i) * ms, Key: k, Cost: 1})
	}
	one := algorithms.Rate{N: 1, Per: s}
	res, err := Fit(Requests(reqs), Options{Algorithms: []algorithms.Algorithm{algorithms.TokenBucket}, Rates: []algorithms.Rate{one}, ByKey: true, KeyShare: 900_000, Confirm: ConfirmAll})
	if err != nil {
		t.Fatal(err)
	}
	if res.Keys != 11 {
		t.Fatalf("%d keys", res.Keys)
	}
	f := res.Frontier(algorithms.TokenBucket)
	p := pointAt(t, res, algorithms.TokenBucket, one, 0)
	if p.Size != 10 || p.Quantile == nil || p.Quantile.Size != 2 {
		t.Fatalf("size %d, quantile %+v; want 10 and 2", p.Size, p.Quantile)
	}
	if len(p.Quantile.Keys) != 1 || p.Quantile.Keys[0].Key != "a" || p.Quantile.Keys[0].Size != 10 || p.Quantile.Keys[0].Requests != 10 {
		t.Fatalf("keys above: %+v", p.Quantile.Keys)
	}
	// Measured at the knee only; make 1/s the knee to read the counts.
	j := slices.IndexFunc(f.Points, func(q Point) bool { return q.Rate == one })
	f.Knee = j
	f.Points[j].Quantile.Keys[0].Refused = 0
	if err := confirm(Requests(reqs), res, Options{ByKey: true, Confirm: ConfirmKnees}); err != nil {
		t.Fatal(err)
	}
	q := f.Points[j].Quantile
	if want := (TopKey{Key: "a", Requests: 10, Size: 10, Refused: 8, FirstRefusal: 2 * ms, LastRefusal: 9 * ms, id: 0}); !q.Measured || q.Keys[0] != want {
		t.Fatalf("measured %v: %+v, want %+v", q.Measured, q.Keys[0], want)
	}
}

// On random traces of many keys, each point's size is the largest key's
// need, the quantile is the smallest size at least KeyShare of the keys
// need no more than, the keys above are exactly those needing more, and the
// knee's counts are the real limiter's.
func TestByKeyQuantileRandom(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		reqs := randomTrace(seed, 2000, 20, 3)
		share := int64(500_000 + 80_000*seed)
		t.Run(fmt.Sprintf("seed %d, share %d", seed, share), func(t *testing.T) {
			res, err := Fit(Requests(reqs), Options{ByKey: true, KeyShare: share})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Frontiers {
				for j, p := range f.Points {
					checkQuantile(t, res, f, j, p, share)
				}
				if k := f.Points[f.Knee].Quantile; k != nil && len(k.Keys) > 0 {
					if !k.Measured {
						t.Errorf("%s: the knee's quantile was not measured", f.Algorithm)
					}
					checkTopCounts(t, k, reqs)
				}
			}
		})
	}
}

func checkQuantile(t *testing.T, r *Result, f Frontier, j int, p Point, share int64) {
	t.Helper()
	var largest, within, withinLess int64
	above := map[string]int64{}
	for k, kt := range r.PerKey {
		size := f.KeySize(k, j)
		largest = max(largest, size)
		if size <= p.Quantile.Size {
			within++
		} else {
			above[kt.Key] = size
		}
		if size <= p.Quantile.Size-1 {
			withinLess++
		}
	}
	n := int64(len(r.PerKey))
	if largest != p.Size {
		t.Errorf("%s %d: size %d, the largest key needs %d", f.Algorithm, j, p.Size, largest)
	}
	if within*PPM < share*n || withinLess*PPM >= share*n {
		t.Errorf("%s %d: quantile %d covers %d of %d keys, one less %d: share %d ppm", f.Algorithm, j, p.Quantile.Size, within, n, withinLess, share)
	}
	if len(p.Quantile.Keys) != len(above) {
		t.Errorf("%s %d: %d keys above, want %d", f.Algorithm, j, len(p.Quantile.Keys), len(above))
	}
	for i, k := range p.Quantile.Keys {
		if above[k.Key] != k.Size || (i > 0 && k.Size > p.Quantile.Keys[i-1].Size) {
			t.Errorf("%s %d: key above %+v", f.Algorithm, j, k)
		}
	}
}

// checkTopCounts runs the quantile policy here, per key, and compares the
// refusals of the keys above.
func checkTopCounts(t *testing.T, q *Quantile, reqs []scenarios.Request) {
	t.Helper()
	lim, err := algorithms.New(q.Policy)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*TopKey{}
	for _, r := range reqs {
		if lim.Decide(r.At, r.Key, r.Cost).Outcome != algorithms.Rejected {
			continue
		}
		k := got[r.Key]
		if k == nil {
			k = &TopKey{FirstRefusal: r.At}
			got[r.Key] = k
		}
		k.Refused++
		k.LastRefusal = r.At
	}
	for _, k := range q.Keys {
		w := got[k.Key]
		if w == nil || w.Refused != k.Refused || w.FirstRefusal != k.FirstRefusal || w.LastRefusal != k.LastRefusal {
			t.Errorf("%s, key %s: %+v; the real limiter: %+v", q.Policy, k.Key, k, w)
		}
	}
}
