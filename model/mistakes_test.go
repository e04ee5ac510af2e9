package model

import (
	"slices"
	"strings"
	"testing"

	"ratelab/algorithms"
	"ratelab/fleet"
	"ratelab/scenarios"
)

func laneNamesOf(s *scenarios.Scenario) []string { return laneNames(s.Lanes) }

// TestToggleMistakes: M on an exact lane adds its mistakes after it, with
// its parameters; again takes them away; on a mistake lane takes that one
// away; and a lane an expectation names stays.
func TestToggleMistakes(t *testing.T) {
	s, err := scenarios.Parse("t.yaml", []byte(`title: t
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 10, rate: 2/s}
  - {name: log, algorithm: sliding-log, limit: 5, window: 10s}
traffic:
  - {at: 0s, count: 12}
expect:
  - {lane: log, admitted: 5}
`))
	if err != nil {
		t.Fatal(err)
	}
	on, what, err := ToggleMistakes(s, "bucket")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := laneNamesOf(on), []string{"bucket", "bucket-float", "bucket-whole", "log"}; !slices.Equal(got, want) || what.String() != "switched on bucket-float, bucket-whole" {
		t.Fatalf("on: lanes %v (%q), want %v", got, what.String(), want)
	}
	if p := on.Lanes[1].Policy; p.Algorithm != algorithms.FloatTokenBucket || p.Capacity != 10 || p.Rate != s.Lanes[0].Policy.Rate {
		t.Errorf("the float lane's policy %v is not the bucket's", p)
	}
	if len(s.Lanes) != 2 {
		t.Errorf("the original scenario changed: %v", laneNamesOf(s))
	}
	lab, err := New(on, 0)
	if err != nil {
		t.Fatal(err)
	}
	if twin, ok := lab.TwinOf(1); !ok || twin != 0 {
		t.Errorf("TwinOf(bucket-float) = %d, %v; want the bucket, lane 0", twin, ok)
	}
	if _, ok := lab.TwinOf(0); ok {
		t.Errorf("the exact bucket has a twin")
	}
	off, what, err := ToggleMistakes(on, "bucket")
	if err != nil || !slices.Equal(laneNamesOf(off), laneNamesOf(s)) || what.String() != "switched off bucket-float, bucket-whole" || what.On || what.Of != "bucket" {
		t.Errorf("off: %v %+v %v", laneNamesOf(off), what, err)
	}
	one, what, err := ToggleMistakes(on, "bucket-whole")
	if err != nil || !slices.Equal(laneNamesOf(one), []string{"bucket", "bucket-float", "log"}) || what.String() != "switched off bucket-whole" || what.Of != "bucket" {
		t.Errorf("M on bucket-whole: %v %+v %v", laneNamesOf(one), what, err)
	}
	// The log's mistakes come after it; one an expectation names stays.
	logOn, _, err := ToggleMistakes(s, "log")
	if err != nil || !slices.Equal(laneNamesOf(logOn), []string{"bucket", "log", "log-attempt", "log-collapsing"}) {
		t.Errorf("M on log: %v %v", laneNamesOf(logOn), err)
	}
	named := *logOn
	named.Expect = append(slices.Clone(named.Expect), scenarios.Expectation{Lane: "log-attempt", Line: 9})
	if _, _, err := ToggleMistakes(&named, "log"); err == nil || !strings.Contains(err.Error(), "log-attempt stays") {
		t.Errorf("taking away a lane an expectation names: %v", err)
	}
	// Taking one twin away and switching the mistakes on again puts it
	// back in its place, after the bucket and its other twin.
	again, _, err := ToggleMistakes(one, "bucket")
	if err != nil || !slices.Equal(laneNamesOf(again), []string{"bucket", "bucket-float", "bucket-whole", "log"}) {
		t.Errorf("M after taking bucket-whole away: %v %v", laneNamesOf(again), err)
	}
	// A quiz question, like an expectation, keeps its lane.
	quizzed := *logOn
	quizzed.Quiz = append(slices.Clone(quizzed.Quiz), scenarios.QuizMark{Lane: "log-collapsing", Line: 12})
	if _, _, err := ToggleMistakes(&quizzed, "log-collapsing"); err == nil || !strings.Contains(err.Error(), "quiz question") {
		t.Errorf("taking away a lane a quiz question names: %v", err)
	}
	// A mistake keeps its lane's gateways, and leaves out a parameter it
	// does not take (the bucket's starts_empty).
	gw := *s
	gw.Lanes = slices.Clone(s.Lanes)
	gw.Lanes[0].Policy.StartsEmpty = true
	gw.Lanes[0].Fleet = fleet.Config{Gateways: 3}
	withGW, _, err := ToggleMistakes(&gw, "bucket")
	if err != nil {
		t.Fatal(err)
	}
	if f := withGW.Lanes[1]; f.Fleet.Gateways != 3 || f.Policy.StartsEmpty || f.Policy.Validate() != nil {
		t.Errorf("the float twin of a starts-empty bucket on 3 gateways: %+v (%v)", f, f.Policy.Validate())
	}
	// A long name is cut to leave room for the mistake's word.
	long := *s
	long.Lanes = slices.Clone(s.Lanes)
	long.Lanes[0].Name = strings.Repeat("b", scenarios.MaxNameLen)
	cut, _, err := ToggleMistakes(&long, long.Lanes[0].Name)
	if err != nil || len(cut.Lanes[1].Name) > scenarios.MaxNameLen || !strings.HasSuffix(cut.Lanes[1].Name, "-float") {
		t.Errorf("a mistake of a %d-letter lane: %q %v", scenarios.MaxNameLen, cut.Lanes[1].Name, err)
	}
	// A lane already called like the mistake, that is not it, is an error.
	clash := *s
	clash.Lanes = append(slices.Clone(s.Lanes), scenarios.Lane{Name: "bucket-float", Policy: s.Lanes[1].Policy})
	if _, _, err := ToggleMistakes(&clash, "bucket"); err == nil || !strings.Contains(err.Error(), "already there") {
		t.Errorf("a name clash: %v", err)
	}
	if _, _, err := ToggleMistakes(s, "nope"); err == nil {
		t.Errorf("no error for a lane that is not there")
	}
}

// TestToggleMistakesRoom: a lab holds at most MaxLanes; the mistakes that do
// not fit are named, and with no room M refuses.
func TestToggleMistakesRoom(t *testing.T) {
	src := "title: t\nlimiters:\n"
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		src += "  - {name: " + n + ", algorithm: gcra, burst: 1, rate: 1/s}\n"
	}
	src += "  - {name: bucket, algorithm: token-bucket, capacity: 1, rate: 1/s}\ntraffic:\n  - {at: 0s}\n"
	s, err := scenarios.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ToggleMistakes(s, "bucket"); err == nil || !strings.Contains(err.Error(), "no room") {
		t.Errorf("8 lanes: %v", err)
	}
	s.Lanes = slices.Delete(s.Lanes, 0, 1)
	on, what, err := ToggleMistakes(s, "bucket")
	if err != nil || len(on.Lanes) != scenarios.MaxLanes || what.String() != "switched on bucket-float (no room for bucket-whole)" {
		t.Errorf("7 lanes: %d lanes, %q, %v", len(on.Lanes), what.String(), err)
	}
	if _, _, err := ToggleMistakes(s, "b"); err == nil || !strings.Contains(err.Error(), "no mistake lanes") {
		t.Errorf("gcra: %v", err)
	}
}
