package model

import (
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// TestEmptyTimeline: a scenario with no traffic is a sandbox; every query
// answers "nothing" without panicking, and firing and undoing work.
func TestEmptyTimeline(t *testing.T) {
	s := parse(t, "title: sandbox\nlimiters:"+allSix)
	l := newLab(t, s)
	if l.Len() != 0 || l.End() != s.Duration || l.End() != 2*time.Second { // the counter's two windows
		t.Fatalf("Len %d, End %v, duration %v", l.Len(), l.End(), s.Duration)
	}
	for _, to := range []time.Duration{-time.Second, 0, time.Second, l.End() + time.Hour} {
		l.Seek(to)
		l.Step(-time.Millisecond)
		l.Step(3 * time.Millisecond)
	}
	if l.Now() != l.End() {
		t.Fatalf("clock at %v after stepping past the end, want %v", l.Now(), l.End())
	}
	for lane := range s.Lanes {
		if _, ok := l.LastDecision(lane); ok {
			t.Errorf("lane %d: a last decision with no request", lane)
		}
		if st := l.Stats(lane); st != (Stats{PeakWindow: l.PeakWindow()}) {
			t.Errorf("lane %d: stats %+v", lane, st)
		}
		if snap := l.Snapshot(lane, scenarios.DefaultKey); snap == nil || snap.Moment() != l.Now() {
			t.Errorf("lane %d: snapshot %+v", lane, snap)
		}
		if tally := l.Tally(lane, -5, 5); tally != (Tally{}) {
			t.Errorf("lane %d: tally %+v", lane, tally)
		}
		if n := l.TrailingAdmitted(lane, scenarios.DefaultKey, time.Minute); n != 0 {
			t.Errorf("lane %d: trailing admitted %d", lane, n)
		}
	}
	l.Records(0, l.End(), func(r Record) bool { t.Errorf("a record: %+v", r); return true })
	for _, f := range []func(time.Duration) (time.Duration, bool){l.NextRequest, l.PrevRequest, l.NextDisagreement, l.PrevDisagreement} {
		if at, ok := f(time.Second); ok {
			t.Errorf("found something at %v on an empty timeline", at)
		}
	}
	for _, i := range []int{-1, 0, 1} {
		if l.Disagrees(i) {
			t.Errorf("Disagrees(%d) on an empty timeline", i)
		}
	}
	if _, ok := l.Undo(); ok {
		t.Fatal("undo on an empty timeline")
	}

	l.Seek(time.Second)
	recs, err := l.Fire("me", 5)
	if err != nil || len(recs) != len(s.Lanes) {
		t.Fatalf("Fire: %v, %v", recs, err)
	}
	for _, r := range recs {
		if r.Index != 0 || r.Decision.Outcome != algorithms.Allowed {
			t.Errorf("lane %d: the first request ever is %s (index %d)", r.Lane, r.Decision.Outcome, r.Index)
		}
	}
	if rec, ok := l.LastDecision(0); !ok || rec.Index != 0 || rec.Request.Key != "me" {
		t.Fatalf("last decision after firing: %+v, %v", rec, ok)
	}
	if u, _ := l.Undo(); u.N != 1 || l.Len() != 0 {
		t.Fatalf("undo: %d requests left", l.Len())
	}
	if _, ok := l.LastDecision(0); ok {
		t.Fatal("a last decision after undoing the only request")
	}
}

// TestOnlyRequestsAtZero: a timeline whose requests all arrive at t = 0 has
// decided them all at 0, and nothing lies before or after.
func TestOnlyRequestsAtZero(t *testing.T) {
	s := parse(t, "title: t\nlimiters:"+allSix+"traffic:\n  - {at: 0s, count: 30}\n")
	l := newLab(t, s)
	if l.Now() != 0 {
		t.Fatalf("clock at %v", l.Now())
	}
	want, _ := reference(t, s, 0)
	lanes := len(s.Lanes)
	for lane := range s.Lanes {
		rec, ok := l.LastDecision(lane)
		if !ok || rec.Index != 29 || rec.Decision.Explain() != want[29*lanes+lane].Decision.Explain() {
			t.Fatalf("lane %d at 0: last decision %+v, %v", lane, rec, ok)
		}
		if got := l.Stats(lane).Requests(); got != 30 {
			t.Errorf("lane %d at 0: %d requests counted, want 30", lane, got)
		}
	}
	if _, ok := l.PrevRequest(0); ok {
		t.Error("a request before 0")
	}
	if _, ok := l.NextRequest(0); ok {
		t.Error("a request after 0")
	}
	if at, ok := l.NextDisagreement(-1); !ok || at != 0 {
		t.Errorf("next disagreement from before 0: %v, %v (the fixed window admits 20, the bucket 5)", at, ok)
	}
	l.Seek(l.End())
	l.Step(-l.End())
	if rec, ok := l.LastDecision(0); !ok || rec.Index != 29 {
		t.Errorf("back at 0: %+v, %v", rec, ok)
	}
}

// TestQueriesAtTheBoundaries: indexes and ranges at and past the ends of the
// timeline, a range with from after to, and a key never seen.
func TestQueriesAtTheBoundaries(t *testing.T) {
	s := randomScenario(t, 13, 600)
	l := newLab(t, s)
	n := l.Len()
	if l.Disagrees(-1) || l.Disagrees(n) || l.Disagrees(n+100) {
		t.Error("Disagrees outside the timeline")
	}
	_ = l.Disagrees(0)
	_ = l.Disagrees(n - 1)
	for lane := range s.Lanes {
		if got := l.Tally(lane, 0, n+10).Total(); got != n {
			t.Errorf("lane %d: Tally over everything counts %d of %d", lane, got, n)
		}
		if got := l.Tally(lane, n, n+10); got != (Tally{}) {
			t.Errorf("lane %d: Tally past the end %+v", lane, got)
		}
		if got := l.Tally(lane, 10, 5); got != (Tally{}) {
			t.Errorf("lane %d: Tally of a reversed range %+v", lane, got)
		}
		_ = l.Outcome(lane, 0)
		_ = l.Outcome(lane, n-1)
	}
	mid := l.Request(n / 2).At
	l.Records(mid+time.Second, mid, func(r Record) bool { t.Errorf("from after to gave %+v", r); return true })
	var got int
	l.Records(l.Request(n-1).At, l.End()+time.Hour, func(Record) bool { got++; return true })
	if got == 0 || got%len(s.Lanes) != 0 {
		t.Errorf("Records to past the end: %d records", got)
	}
	l.Seek(mid)
	for lane := range s.Lanes {
		fresh, err := algorithms.New(s.Lanes[lane].Policy)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(l.Snapshot(lane, "nobody")), fmt.Sprint(fresh.Snapshot(mid, "nobody")); got != want {
			t.Errorf("lane %d: a key never seen shows %s, want the initial state %s", lane, got, want)
		}
	}
}

// TestTallyAfterWhatIfsAndUndos: the precomputed tally blocks are dropped
// and rebuilt with the outcomes whenever the timeline changes mid-way.
func TestTallyAfterWhatIfsAndUndos(t *testing.T) {
	t.Parallel()
	s := randomScenario(t, 14, CheckpointEvery+1000)
	l := newLab(t, s)
	check := func(when string) {
		t.Helper()
		want, _ := reference(t, mustMarshal(t, s, l.FiredRequests()), 0)
		lanes := len(s.Lanes)
		for lane := range s.Lanes {
			var loop Tally
			for i := 0; i < l.Len(); i++ {
				if got := l.Outcome(lane, i); got != want[i*lanes+lane].Decision.Outcome {
					t.Fatalf("%s: request %d lane %d is %s, a fresh run says %s", when, i, lane, got, want[i*lanes+lane].Decision.Outcome)
				}
				loop.add(want[i*lanes+lane].Decision.Outcome)
			}
			if got := l.Tally(lane, 0, l.Len()); got != loop {
				t.Fatalf("%s: lane %d tally %+v, want %+v", when, lane, got, loop)
			}
			for _, lo := range []int{1, tallyBlock - 1, CheckpointEvery + 3} {
				var part Tally
				for i := lo; i < l.Len(); i++ {
					part.add(want[i*lanes+lane].Decision.Outcome)
				}
				if got := l.Tally(lane, lo, l.Len()); got != part {
					t.Fatalf("%s: lane %d tally from %d %+v, want %+v", when, lane, lo, got, part)
				}
			}
		}
	}
	l.Seek(l.End())
	check("computed")
	mid := l.Request(CheckpointEvery + 700).At
	if _, err := l.FireAt(mid, "k1", 3); err != nil {
		t.Fatal(err)
	}
	check("after a what-if")
	if _, err := l.FireAt(l.Request(300).At, "k2", 2); err != nil {
		t.Fatal(err)
	}
	check("after a second, earlier what-if")
	l.Undo()
	check("after an undo")
	l.Undo()
	check("after undoing both")
}

func mustMarshal(t *testing.T, s *scenarios.Scenario, extra []Request) *scenarios.Scenario {
	t.Helper()
	data, err := scenarios.Marshal(s, extra)
	if err != nil {
		t.Fatal(err)
	}
	out, err := scenarios.Parse("what-if.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResetForgetsFiredKeys: after a reset the lab is the one New built,
// down to its list of keys.
func TestResetForgetsFiredKeys(t *testing.T) {
	s := randomScenario(t, 15, 100)
	l := newLab(t, s)
	want := fmt.Sprint(l.Keys())
	l.Seek(time.Second)
	if _, err := l.Fire("visitor", 1); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(l.Keys()); got == want {
		t.Fatalf("the fired key is not among the keys: %s", got)
	}
	l.Reset()
	if got := fmt.Sprint(l.Keys()); got != want {
		t.Errorf("keys after reset %s, want %s as built", got, want)
	}
	if _, err := l.Fire("visitor", 1); err != nil {
		t.Fatal(err)
	}
	if got := l.Keys(); got[len(got)-1] != "visitor" {
		t.Errorf("firing again after the reset: keys %q", got)
	}
}

// TestFireAtBeyondTheTimeLimitersTake: a what-if must stay within the
// times a scenario may use.
func TestFireAtBeyondTheTimeLimitersTake(t *testing.T) {
	l := newLab(t, randomScenario(t, 16, 10))
	if _, err := l.FireAt(scenarios.MaxTime+1, "k0", 1); err == nil {
		t.Error("a request after the longest time a scenario may use accepted")
	}
	// A file's requests arrive before its duration, which is at most
	// MaxTime: a request at MaxTime could not be saved, so it is refused,
	// and one just before it is taken and saves.
	if _, err := l.FireAt(scenarios.MaxTime, "k0", 1); err == nil {
		t.Error("a request at MaxTime accepted")
	}
	if _, err := l.FireAt(scenarios.MaxTime-1, "k0", 1); err != nil {
		t.Errorf("a request at the very last instant: %v", err)
	}
	data, _, err := l.Save("")
	if err != nil {
		t.Fatalf("saving a request at the last instant: %v", err)
	}
	if _, err := scenarios.Parse("saved.yaml", data); err != nil {
		t.Errorf("the saved file does not load: %v", err)
	}
}

// TestFireWithNoKeyIsTheDefaultKey: a request fired without a key is the
// default key's, as in a file, so that saving the lab keeps its decisions.
func TestFireWithNoKeyIsTheDefaultKey(t *testing.T) {
	s := parse(t, "title: t\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}\ntraffic:\n  - {at: 0s}\n")
	l := newLab(t, s)
	recs, err := l.Fire("", 1)
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Request.Key != scenarios.DefaultKey || recs[0].Decision.Outcome != algorithms.Rejected {
		t.Errorf("fired without a key: %+v; want the default key's, rejected (its token is spent)", recs[0])
	}
	if keys := l.Keys(); len(keys) != 1 {
		t.Errorf("keys %q", keys)
	}
}
