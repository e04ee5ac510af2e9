package model

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
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

func TestFireAtInThePastEqualsAScenarioWithThatRequest(t *testing.T) {
	s := randomScenario(t, 5, 2*CheckpointEvery+50)
	l := newLab(t, s)
	l.Seek(l.End())
	what := Request{At: l.End() / 4, Key: "k1", Cost: 2}
	recs, err := l.FireAt(what.At, what.Key, what.Cost)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(s.Lanes) || recs[0].Request != what {
		t.Fatalf("FireAt returned %+v", recs)
	}
	if l.Now() != l.End() {
		t.Fatalf("FireAt moved the clock to %v", l.Now())
	}

	data, err := scenarios.Marshal(s, []Request{what})
	if err != nil {
		t.Fatal(err)
	}
	withIt, err := scenarios.Parse("with.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	want, wantStats := reference(t, withIt, 0)
	lanes := len(s.Lanes)
	if l.Len()*lanes != len(want) {
		t.Fatalf("lab has %d requests, the scenario with it %d", l.Len(), len(want)/lanes)
	}
	for i := 0; i < l.Len(); i++ {
		for lane := 0; lane < lanes; lane++ {
			if got := l.Outcome(lane, i); got != want[i*lanes+lane].Decision.Outcome {
				t.Fatalf("request %d lane %d after the what-if: %s, want %s", i, lane, got, want[i*lanes+lane].Decision.Outcome)
			}
		}
	}
	for lane, r := range recs {
		ref := want[r.Index*lanes+lane]
		if ref.Request != what || r.Decision.Explain() != ref.Decision.Explain() {
			t.Fatalf("lane %d: fired decision %q, the scenario says %q", lane, r.Decision.Explain(), ref.Decision.Explain())
		}
	}
	if got := l.FiredRequests(); len(got) != 1 || got[0] != what {
		t.Fatalf("FiredRequests = %+v", got)
	}
	// At the end every delayed request has been released: the totals and
	// peaks are the fresh run's, though the lab recomputed from a checkpoint.
	for lane := range s.Lanes {
		if got := l.Stats(lane); got != wantStats[lane] {
			t.Errorf("lane %d after the what-if: stats %+v, the scenario with it %+v", lane, got, wantStats[lane])
		}
	}
}

func TestFireAtNowIsDecidedAfterTheRequestsAlreadyThere(t *testing.T) {
	s := parse(t, "title: t\nlimiters:\n  - {name: fixed, algorithm: fixed-window, limit: 2, window: 1s}\n"+
		"traffic:\n  - {at: 1s, count: 2}\n")
	l := newLab(t, s)
	l.Seek(time.Second)
	recs, err := l.Fire("default", 1)
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Index != 2 || recs[0].Decision.Outcome != algorithms.Rejected {
		t.Fatalf("fired request: index %d %s; want index 2, rejected (the two at 1s came first)",
			recs[0].Index, recs[0].Decision.Outcome)
	}
	if rec, _ := l.LastDecision(0); rec.Index != 2 {
		t.Fatalf("last decision is request %d, want the fired one", rec.Index)
	}
	if _, err := l.Fire("default", 0); err == nil {
		t.Fatal("cost 0 accepted")
	}
	if _, err := l.FireAt(-time.Second, "default", 1); err == nil {
		t.Fatal("a request before t=0 accepted")
	}
}

func TestFireBurstIsOneActionEqualToSingleFires(t *testing.T) {
	s := randomScenario(t, 12, CheckpointEvery+700)
	burst, singles := newLab(t, s), newLab(t, s)
	at := burst.Request(CheckpointEvery - 3).At
	burst.Seek(at)
	singles.Seek(at)
	recs, err := burst.FireBurst("k2", 2, 40)
	if err != nil {
		t.Fatal(err)
	}
	var want []Record
	for range 40 {
		r, err := singles.Fire("k2", 2)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r...)
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i := range recs {
		if recs[i].Index != want[i].Index || recs[i].Lane != want[i].Lane || recs[i].Decision.Explain() != want[i].Decision.Explain() {
			t.Fatalf("record %d: %+v, firing one by one gives %+v", i, recs[i], want[i])
		}
	}
	for i := 0; i < burst.Len(); i++ {
		for lane := range s.Lanes {
			if burst.Outcome(lane, i) != singles.Outcome(lane, i) {
				t.Fatalf("request %d lane %d differs", i, lane)
			}
		}
	}
	if burst.FiredCount() != 40 || len(burst.FiredRequests()) != 40 {
		t.Fatalf("FiredCount %d, FiredRequests %d", burst.FiredCount(), len(burst.FiredRequests()))
	}
	burst.Fire("k0", 1)
	if u, _ := burst.Undo(); u.N != 1 || u.Request.Key != "k0" {
		t.Fatalf("undo removed %+v, want the single k0 request", u)
	}
	if u, _ := burst.Undo(); u.N != 40 || u.Request != (Request{At: at, Key: "k2", Cost: 2}) {
		t.Fatalf("undo removed %+v, want the whole burst", u)
	}
	if burst.FiredCount() != 0 || burst.Len() != l0(s) {
		t.Fatalf("after undoing the burst: fired %d, %d requests", burst.FiredCount(), burst.Len())
	}
	if _, err := burst.FireBurst("k", 1, 0); err == nil {
		t.Fatal("a burst of 0 accepted")
	}
}

// l0 is the number of requests in s.
func l0(s *scenarios.Scenario) int { return int(s.RequestCount()) }

// TestFiringStretchesTheAxis: a sandbox's axis grows to follow a request
// fired at its end, never shrinks, and Reset restores it.
func TestFiringStretchesTheAxis(t *testing.T) {
	s := parse(t, "title: sandbox\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}\n")
	l := newLab(t, s)
	if l.End() != 3*time.Second {
		t.Fatalf("end %v; want 3s (the time to refill 3 at 1/s)", l.End())
	}
	l.Seek(l.End())
	if _, err := l.Fire("", 3); err != nil {
		t.Fatal(err)
	}
	if l.End() != 6*time.Second {
		t.Fatalf("end %v after firing at 3s, want 6s", l.End())
	}
	l.Seek(5 * time.Second)
	if l.Now() != 5*time.Second {
		t.Fatalf("the clock stopped at %v, want 5s", l.Now())
	}
	if _, err := l.FireAt(time.Second, "", 1); err != nil {
		t.Fatal(err)
	}
	if l.End() != 6*time.Second {
		t.Fatalf("firing earlier shortened the axis to %v", l.End())
	}
	l.Reset()
	if l.End() != s.Duration || l.Now() != 0 {
		t.Fatalf("after Reset: end %v, now %v; want %v, 0", l.End(), l.Now(), s.Duration)
	}
}

// TestFireOneRecordsAreTheReplayed: the records one request fired at the
// clock returns (taken from the clock, which has just decided it) are
// those a replay of it gives, at every distance from a checkpoint.
func TestFireOneRecordsAreTheReplayed(t *testing.T) {
	s := randomScenario(t, 52, 3*CheckpointEvery)
	l := newLab(t, s)
	for _, i := range []int{0, 1, CheckpointEvery - 1, CheckpointEvery, CheckpointEvery + 1, 2*CheckpointEvery + 77} {
		l.Seek(l.Request(i).At)
		recs, err := l.Fire("k1", 1)
		if err != nil {
			t.Fatal(err)
		}
		// Printed, as a decision holds its explanation's function.
		if want := l.DecisionsOn(recs[0].Index); fmt.Sprintf("%+v", recs) != fmt.Sprintf("%+v", want) {
			t.Errorf("fired at request %d: records %+v, replayed %+v", i, recs, want)
		}
	}
}

// TestFireSpreadLaterTalliesFireSpreadsRecords: a spread burst added with
// FireSpreadLater, its requests then decided a slice at a time, has the
// tallies of FireSpread's records of the same burst on a twin lab, lane by
// lane, and leaves the same timeline; a change of the timeline after it
// makes its tallies unreadable rather than wrong.
func TestFireSpreadLaterTalliesFireSpreadsRecords(t *testing.T) {
	s := randomScenario(t, 53, 3*CheckpointEvery)
	for _, c := range []struct {
		name   string
		at     int // the request whose time the clock is at
		n      int
		spread time.Duration
		key    string
	}{
		{"at 0 over 3s", 0, 120, 3 * time.Second, "k1"},
		{"mid over 1s", CheckpointEvery + 7, 40, time.Second, "new"},
		{"at once", 500, 25, 0, "k0"},
		{"one", 900, 1, 0, "k2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			later, now := newLab(t, s), newLab(t, s)
			later.Seek(later.Request(c.at).At)
			now.Seek(now.Request(c.at).At)
			f, err := later.FireSpreadLater(c.key, 2, c.n, c.spread)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := now.FireSpread(c.key, 2, c.n, c.spread)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]Tally, len(s.Lanes))
			for _, r := range recs {
				want[r.Lane].add(r.Decision.Outcome)
			}
			if f.Key != c.key || f.Last != recs[len(recs)-1].Request.At || f.Need != recs[len(recs)-1].Index+1 {
				t.Errorf("fired %+v; the last record %+v", f, recs[len(recs)-1])
			}
			for later.Computed() < f.Need {
				later.ComputeAhead(37)
			}
			got, ok := later.FiredTallies(f)
			if !ok || !slices.Equal(got, want) {
				t.Errorf("tallies %v %v, FireSpread's records %v", got, ok, want)
			}
			if later.Now() != now.Now() || later.Pos() != now.Pos() || labState(later) != labState(now) {
				t.Errorf("clock at %v (%d), FireSpread's at %v (%d)", later.Now(), later.Pos(), now.Now(), now.Pos())
			}
			later.Undo()
			if _, ok := later.FiredTallies(f); ok {
				t.Error("tallies of an undone burst")
			}
		})
	}
}
