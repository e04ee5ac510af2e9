package model

import "testing"

// TestComputeAhead: slices of computing ahead reach the whole timeline and
// decide as one pass would.
func TestComputeAhead(t *testing.T) {
	s := parse(t, `title: t
limiters:
  - {name: b, algorithm: token-bucket, capacity: 5, rate: 3/s}
  - {name: q, algorithm: leaky-bucket, queue: 4, rate: 2/s}
traffic:
  - {every: 70ms, until: 700s}
`)
	lab, err := New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := New(s, 0)
	if lab.Computed() > CheckpointEvery {
		t.Fatalf("a new lab computed %d requests ahead", lab.Computed())
	}
	for steps := 0; lab.Computed() < lab.Len(); steps++ {
		before := lab.Computed()
		if got := lab.ComputeAhead(1000); got != min(before+1000, lab.Len()) {
			t.Fatalf("ComputeAhead(1000) from %d reached %d", before, got)
		}
	}
	if lab.ComputeAhead(0) != lab.Len() || lab.ComputeAhead(-5) != lab.Len() {
		t.Fatal("computing nothing changed Computed")
	}
	fresh.Seek(fresh.End())
	lab.Seek(lab.End())
	for i := 0; i < lab.Len(); i += 97 {
		for lane := range lab.Lanes() {
			if lab.Outcome(lane, i) != fresh.Outcome(lane, i) {
				t.Fatalf("request %d lane %d: %v computed ahead, %v in one pass", i, lane, lab.Outcome(lane, i), fresh.Outcome(lane, i))
			}
		}
	}
}
