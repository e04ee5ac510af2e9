package fit

import (
	"fmt"
	"testing"

	"ratelab/algorithms"
)

// When the real limiters disagree with a point's size, fit searches with
// real runs: a size too large (its size less one refuses nothing) is
// searched down, one too small (it refuses) galloped up and bisected, both
// back to the exact size.
func TestDisagreementIsSearched(t *testing.T) {
	reqs := randomTrace(7, 800, 2, 3)
	for _, skew := range []int64{+3, -2, +40, -1} {
		for _, byKey := range []bool{false, true} {
			t.Run(fmt.Sprintf("skew %+d, by key %v", skew, byKey), func(t *testing.T) {
				o := Options{Algorithms: Supported, ByKey: byKey, Confirm: ConfirmAll}
				res, err := Fit(Requests(reqs), o)
				if err != nil {
					t.Fatal(err)
				}
				exact := map[*Point]int64{}
				for i := range res.Frontiers {
					f := &res.Frontiers[i]
					for j := range f.Points {
						p := &f.Points[j]
						if p.Size+skew < MinSize(f.Algorithm) {
							continue
						}
						exact[p] = p.Size
						p.Size += skew
						p.Policy = families[f.Algorithm].policy(p.Rate, p.Window, p.Size)
						p.Confirmation = Confirmation{}
					}
				}
				if err := confirm(Requests(reqs), res, o); err != nil {
					t.Fatal(err)
				}
				for p, want := range exact {
					c := p.Confirmation
					if p.Size != want || sizeOf(p.Policy) != want || !c.Searched || !c.Confirmed || c.Refused != 0 {
						t.Errorf("%s: size %d after the search, want %d; %+v", p.Policy, p.Size, want, c)
					}
					if r, _ := refusals(t, p.Policy, reqs, byKey); r != 0 {
						t.Errorf("%s refuses %d", p.Policy, r)
					}
					if c.SmallerValid {
						smaller := p.Policy
						setSize(&smaller, want-1)
						if r, _ := refusals(t, smaller, reqs, byKey); r == 0 || r != c.SmallerRefused {
							t.Errorf("%s refuses %d; the search says %d", smaller, r, c.SmallerRefused)
						}
					}
				}
			})
		}
	}
}

// setSize sets p's size parameter, as sizeOf reads it.
func setSize(p *algorithms.Policy, size int64) { *sizeField(p) = size }
