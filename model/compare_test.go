package model

import (
	"testing"

	"ratelab/scenarios"
)

// Compare counts, request by request, what one lane admits and the other
// refuses, and delays that differ, whichever order the lanes are in.
func TestCompare(t *testing.T) {
	s, err := scenarios.Parse("c.yaml", []byte(`title: t
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 5, rate: 1/s}
  - {name: window, algorithm: fixed-window, limit: 3, window: 1s}
  - {name: shaper, algorithm: leaky-bucket, queue: 4, rate: 1/s}
traffic:
  - {at: 0s, count: 6}
  - {at: 1s, count: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	// At 0s the bucket admits 5 and the window 3; at 1s the bucket has 1
	// token, the window 3: the bucket admits 1, the window 2.
	c, err := Compare(s, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Requests != 8 || c.OnlyA != 2 || c.OnlyB != 1 || c.Delays != 0 || c.Differ() != 3 || c.First != 0 {
		t.Errorf("bucket against window: %+v", c)
	}
	back, _ := Compare(s, 1, 0)
	if back.OnlyA != c.OnlyB || back.OnlyB != c.OnlyA || back.Requests != c.Requests {
		t.Errorf("window against bucket %+v, the other way %+v", back, c)
	}
	// The shaper admits 5 at 0s, 4 of them delayed: 4 delays differ from
	// the bucket's none; the sixth both refuse.
	if c, _ := Compare(s, 0, 2); c.Delays < 4 {
		t.Errorf("bucket against shaper: %+v", c)
	}
	if _, err := Compare(s, 0, 0); err == nil {
		t.Error("a lane against itself was compared")
	}
}
