package scenarios_test

import (
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// TestExamplesRoundTrip: every algorithm's examples, and the edges of its
// arithmetic, written as a lane by Marshal read back as the same lane: a
// parameter the format writes wrong, or cannot read back, fails here for
// the algorithm that takes it.
func TestExamplesRoundTrip(t *testing.T) {
	for _, a := range algorithms.Algorithms {
		d := algorithms.Describe(a)
		if len(d.Examples) == 0 {
			t.Errorf("%s has no example to write (its Description's Examples)", a)
		}
		lanes := make([]scenarios.Lane, 0, len(d.Examples)+len(d.Edges))
		for _, e := range d.Examples {
			lanes = append(lanes, scenarios.Lane{Name: e.Name, Policy: e.Policy})
		}
		for _, p := range d.Edges {
			lanes = append(lanes, scenarios.Lane{Name: "edge", Policy: p})
		}
		for _, l := range lanes {
			s := &scenarios.Scenario{Title: "round trip", Step: 100 * time.Millisecond, Duration: 10 * time.Second,
				Lanes: []scenarios.Lane{l}}
			out, err := scenarios.Marshal(s, nil)
			if err != nil {
				t.Errorf("%s: Marshal: %v", l.Policy, err)
				continue
			}
			back, err := scenarios.Parse("example.yaml", out)
			if err != nil {
				t.Errorf("%s: written as\n%s\ndoes not read back: %v", l.Policy, out, err)
				continue
			}
			if len(back.Lanes) != 1 || back.Lanes[0].Name != l.Name || back.Lanes[0].Policy != l.Policy {
				t.Errorf("%s, written as\n%s\nreads back as %+v", l.Policy, out, back.Lanes)
			}
		}
	}
}
