package fit

import (
	"reflect"
	"strings"
	"testing"

	"ratelab/scenarios"
)

// surveyed is a Survey of reqs made by Add, as a log's reading makes one.
func surveyed(reqs []scenarios.Request, byKey bool) *Survey {
	s := NewSurvey(byKey)
	for _, r := range reqs {
		s.Add(r.At, r.Key, r.Cost)
	}
	return s
}

// TestSurveyGiven: a fit given a survey of its source made while the
// source was read finds what it finds with a survey pass of its own, and
// makes one pass fewer.
func TestSurveyGiven(t *testing.T) {
	for _, byKey := range []bool{false, true} {
		reqs := randomTrace(11, 900, 4, 3)
		passes := 0
		src := func(yield func(scenarios.Request) bool) error {
			passes++
			return Requests(reqs)(yield)
		}
		want, err := Fit(src, Options{ByKey: byKey})
		if err != nil {
			t.Fatal(err)
		}
		alone := passes
		passes = 0
		got, err := Fit(src, Options{ByKey: byKey, Survey: surveyed(reqs, byKey)})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("by key %v: the fit given a survey differs from the one that made its own", byKey)
		}
		if passes != alone-1 {
			t.Errorf("by key %v: %d passes with a survey given, %d without", byKey, passes, alone)
		}
	}
}

// TestSurveyErrors: a survey made for the other kind of fit, one of other
// traffic, and one whose requests broke the source's rules are errors.
func TestSurveyErrors(t *testing.T) {
	reqs := randomTrace(12, 300, 2, 2)
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"by key", Options{ByKey: true, Survey: surveyed(reqs, false)}, "by key"},
		{"other traffic", Options{Survey: surveyed(reqs[:100], false)}, "every pass must give the same"},
		{"out of order", Options{Survey: surveyed([]scenarios.Request{req(2*s, 1), req(s, 1)}, false)}, "time order"},
	} {
		if _, err := Fit(Requests(reqs), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
