package fit

import (
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// On random traces, at every point of every frontier, the fitted size
// refuses nothing and the size one less refuses something, both run here
// with the real limiters, apart from fit's own confirmation.
func TestEveryPointIsExact(t *testing.T) {
	extraRates := []algorithms.Rate{{N: 7, Per: 3 * time.Second}, {N: 5, Per: 700 * time.Millisecond}, {N: 45, Per: time.Minute}, {N: 13, Per: 10}}
	extraWindows := []time.Duration{700 * time.Millisecond, 3*time.Second + 7}
	for seed := uint64(1); seed <= 16; seed++ {
		byKey := seed%2 == 0
		keys := 1 + int(seed%5)
		reqs := randomTrace(seed, 300+int(seed)*60, keys, 1+int64(seed%4))
		t.Run(fmt.Sprintf("seed %d, %d keys, by key %v", seed, keys, byKey), func(t *testing.T) {
			res, err := Fit(Requests(reqs), Options{Algorithms: Supported, ByKey: byKey, Rates: extraRates, Windows: extraWindows, Confirm: ConfirmAll})
			if err != nil {
				t.Fatal(err)
			}
			points := 0
			for _, f := range res.Frontiers {
				for _, p := range f.Points {
					if !p.Feasible {
						t.Errorf("%s at %s/%s: not feasible: %s", f.Algorithm, p.Rate, p.Window, p.Why)
						continue
					}
					points++
					checkExact(t, f, p, reqs, byKey)
				}
			}
			if points < 40 {
				t.Fatalf("only %d points", points)
			}
		})
	}
}

// checkExact checks one point against the real limiters.
func checkExact(t *testing.T, f Frontier, p Point, reqs []scenarios.Request, byKey bool) {
	t.Helper()
	if err := p.Policy.Validate(); err != nil {
		t.Fatalf("%s: %v", p.Policy, err)
	}
	if sizeOf(p.Policy) != p.Size {
		t.Fatalf("%s: size %d", p.Policy, p.Size)
	}
	refused, wait := refusals(t, p.Policy, reqs, byKey)
	if refused != 0 {
		t.Errorf("%s refuses %d", p.Policy, refused)
	}
	if wait != p.LongestWait {
		t.Errorf("%s: longest wait %s, the real one %s", p.Policy, p.LongestWait, wait)
	}
	smaller := families[f.Algorithm].policy(p.Rate, p.Window, p.Size-1)
	if p.Size > MinSize(f.Algorithm) && smaller.Validate() == nil {
		if n, _ := refusals(t, smaller, reqs, byKey); n == 0 {
			t.Errorf("%s refuses nothing either", smaller)
		} else if p.Confirmation.SmallerRefused != n {
			t.Errorf("%s refuses %d; the confirmation says %d", smaller, n, p.Confirmation.SmallerRefused)
		}
	}
	// A float family's size is the integer bucket's, which the library's
	// own arithmetic may not share at an extreme rate: searched then.
	if c := p.Confirmation; !c.Ran || !c.Confirmed || c.Searched && !families[f.Algorithm].float || c.Requests != int64(len(reqs)) {
		t.Errorf("%s: confirmation %+v", p.Policy, c)
	}
}
