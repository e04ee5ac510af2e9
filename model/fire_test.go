package model

import (
	"slices"
	"testing"
	"time"

	"ratelab/scenarios"
)

// withItems is s with the traffic items appended, as a file would list
// them after its own.
func withItems(s *scenarios.Scenario, items ...scenarios.Traffic) *scenarios.Scenario {
	c := *s
	c.Traffic = append(slices.Clone(s.Traffic), items...)
	return &c
}

// TestFireSpreadIsABurstItem: spread bursts fired at two times, overlapping
// each other and the scenario's traffic, give the timeline and decisions of
// the scenario with the same burst items appended; the records are the
// fired requests' own; undo removes each whole.
func TestFireSpreadIsABurstItem(t *testing.T) {
	s := randomScenario(t, 51, CheckpointEvery+800)
	l := newLab(t, s)
	a := scenarios.Traffic{Form: scenarios.Burst, At: l.Request(300).At, Spread: 3 * time.Second, Count: 70, Key: "k1", Cost: 2}
	b := scenarios.Traffic{Form: scenarios.Burst, At: a.At + time.Second, Spread: 777 * time.Millisecond, Count: 9, Key: "spread", Cost: 1}
	before := labState(l)
	var got [][]Record
	for _, it := range []scenarios.Traffic{a, b} {
		l.Seek(it.At)
		recs, err := l.FireSpread(it.Key, it.Cost, int(it.Count), it.Spread)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, recs)
	}
	ref := newLab(t, withItems(s, a, b))
	ref.Seek(ref.End())
	if l.Len() != ref.Len() {
		t.Fatalf("%d requests, the scenario with the items %d", l.Len(), ref.Len())
	}
	lanes := len(s.Lanes)
	want := freshRun(t, ref)
	for i := range l.Len() {
		if l.Request(i) != ref.Request(i) {
			t.Fatalf("request %d: %+v, the scenario with the items has %+v", i, l.Request(i), ref.Request(i))
		}
		for lane := range lanes {
			if l.Outcome(lane, i) != want[i*lanes+lane].Decision.Outcome {
				t.Fatalf("request %d lane %d: %s, want %s", i, lane, l.Outcome(lane, i), want[i*lanes+lane].Decision.Outcome)
			}
		}
	}
	// Each burst's records, against the scenario as it stood when it was fired.
	for k, it := range []scenarios.Traffic{a, b} {
		recs := got[k]
		if len(recs) != int(it.Count)*lanes {
			t.Fatalf("burst %d: %d records", k, len(recs))
		}
		want := freshRun(t, newLab(t, withItems(s, []scenarios.Traffic{a, b}[:k+1]...)))
		for j, r := range recs {
			if w := want[r.Index*lanes+r.Lane]; r.Request != w.Request || r.Request.At != it.Time(int64(j/lanes)) || r.Decision.Explain() != w.Decision.Explain() {
				t.Fatalf("burst %d record %d: %+v, want %+v at %v", k, j, r, w, it.Time(int64(j/lanes)))
			}
		}
	}
	if u, _ := l.Undo(); u.N != 9 || u.Request.Key != "spread" {
		t.Fatalf("undo: %+v", u)
	}
	if u, _ := l.Undo(); u.N != 70 || u.Request.At != a.At {
		t.Fatalf("undo: %+v", u)
	}
	l.Seek(0)
	if got := labState(l); got != before {
		t.Fatalf("after undoing both:\n%s\nwant\n%s", tail(got), tail(before))
	}
	checkAgainstFresh(t, l, "after undoing both")
	for _, c := range []struct {
		n      int
		spread time.Duration
	}{{2, -time.Second}, {2, scenarios.MaxTime + 1}} {
		if _, err := l.FireSpread("k0", 1, c.n, c.spread); err == nil {
			t.Errorf("%d over %v accepted", c.n, c.spread)
		}
	}
	if _, err := l.fire(fireAction{at: scenarios.MaxTime - time.Second, spread: 3 * time.Second, key: "k0", cost: 1, n: 2}); err == nil {
		t.Error("a spread past the longest time a scenario may last accepted")
	}
	if _, err := l.fire(fireAction{at: scenarios.MaxTime - time.Second, spread: 3 * time.Second, key: "k0", cost: 1, n: 1}); err != nil {
		t.Errorf("one request with a spread (which it ignores): %v", err)
	}
}
