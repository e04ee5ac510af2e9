package fit

import (
	"fmt"
	"testing"

	"ratelab/algorithms"
)

// With a share of refusals allowed, each point's budget size refuses at
// most that share and the size one less refuses more, both measured here
// with the real limiters, and the counts are those the Budget reports.
func TestRejectAtMost(t *testing.T) {
	for _, c := range []struct {
		seed  uint64
		share int64
		byKey bool
	}{{1, 10_000, false}, {2, 50_000, false}, {3, 200_000, true}, {4, 1, false}, {5, 999_999, true}} {
		reqs := randomTrace(c.seed, 1500, 4, 3)
		t.Run(fmt.Sprintf("seed %d, %d ppm", c.seed, c.share), func(t *testing.T) {
			res, err := Fit(Requests(reqs), Options{Algorithms: Supported, ByKey: c.byKey, RejectAtMost: c.share})
			if err != nil {
				t.Fatal(err)
			}
			n := int64(len(reqs))
			for _, f := range res.Frontiers {
				for _, p := range f.Points {
					b := p.Budget
					if b == nil {
						t.Fatalf("%s at %s/%s: no budget", f.Algorithm, p.Rate, p.Window)
					}
					if b.Size > p.Size || sizeOf(b.Policy) != b.Size || b.Requests != n {
						t.Fatalf("%s: budget %+v for size %d", f.Algorithm, b, p.Size)
					}
					refused, _ := refusals(t, b.Policy, reqs, c.byKey)
					if refused != b.Refused || refused*PPM > c.share*n {
						t.Errorf("%s refuses %d of %d (budget says %d): above %d ppm", b.Policy, refused, n, b.Refused, c.share)
					}
					smaller := families[f.Algorithm].policy(p.Rate, p.Window, b.Size-1)
					if valid := b.Size > MinSize(f.Algorithm) && smaller.Validate() == nil; valid != b.SmallerValid {
						t.Fatalf("%s: smaller valid %v", smaller, b.SmallerValid)
					}
					if b.SmallerValid {
						if r, _ := refusals(t, smaller, reqs, c.byKey); r != b.SmallerRefused || r*PPM <= c.share*n {
							t.Errorf("%s refuses %d (budget says %d): within %d ppm", smaller, r, b.SmallerRefused, c.share)
						}
					}
				}
			}
		})
	}
}

// The budget allows refusals, so it is below the size refusing nothing
// somewhere on a bursty trace.
func TestRejectAtMostShrinks(t *testing.T) {
	reqs := randomTrace(9, 3000, 1, 1)
	res, err := Fit(Requests(reqs), Options{Algorithms: []algorithms.Algorithm{algorithms.TokenBucket}, RejectAtMost: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	smaller := 0
	for _, p := range res.Frontiers[0].Points {
		if p.Budget.Size < p.Size {
			smaller++
		}
	}
	if smaller == 0 {
		t.Fatal("no budget below the size refusing nothing")
	}
}
