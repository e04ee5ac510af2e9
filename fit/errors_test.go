package fit

import (
	"errors"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

func TestSourceErrors(t *testing.T) {
	broken := errors.New("disk gone")
	cases := []struct {
		name string
		src  Source
		o    Options
		want string
	}{
		{"out of order", Requests([]scenarios.Request{req(2*s, 1), req(s, 1)}), Options{}, "time order"},
		{"cost 0", Requests([]scenarios.Request{req(0, 0)}), Options{}, "at least 1"},
		{"negative time", Requests([]scenarios.Request{req(-1, 1)}), Options{}, "negative"},
		{"read error", func(yield func(scenarios.Request) bool) error { yield(req(0, 1)); return broken }, Options{}, "disk gone"},
		{"not exact", Requests(burstThenOne), Options{Algorithms: []algorithms.Algorithm{algorithms.Guava}}, "cannot be fitted"},
		{"twice", Requests(burstThenOne), Options{Algorithms: []algorithms.Algorithm{algorithms.GCRA, algorithms.GCRA}}, "twice"},
		{"bad rate", Requests(burstThenOne), Options{Rates: []algorithms.Rate{{N: 0, Per: s}}}, "positive"},
		{"bad window", Requests(burstThenOne), Options{Windows: []time.Duration{0}}, "positive"},
		{"share", Requests(burstThenOne), Options{RejectAtMost: PPM}, "reject-at-most"},
	}
	for _, c := range cases {
		_, err := Fit(c.src, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if c.name == "read error" && !errors.Is(err, broken) {
			t.Errorf("read error not wrapped: %v", err)
		}
	}
}

// A second pass that fails is reported too.
func TestSecondPassError(t *testing.T) {
	passes := 0
	src := func(yield func(scenarios.Request) bool) error {
		passes++
		for _, r := range burstThenOne {
			yield(r)
		}
		if passes == 2 {
			return errors.New("rotated away")
		}
		return nil
	}
	if _, err := Fit(src, Options{}); err == nil || !strings.Contains(err.Error(), "rotated away") {
		t.Fatalf("error %v", err)
	}
}

func TestEmptyTraffic(t *testing.T) {
	res, err := Fit(Requests(nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Frontiers) != len(Default) || res.Requests != 0 || len(res.Knees()) != 0 {
		t.Fatalf("%+v", res)
	}
	for _, f := range res.Frontiers {
		if len(f.Points) != 0 || f.Knee != -1 {
			t.Fatalf("%s: %+v", f.Algorithm, f)
		}
	}
}

// A backlog beyond 2^62 fits no valid policy: the point says why.
func TestInfeasible(t *testing.T) {
	// 1/h: a cost of 2^21 needs a capacity of 2^21 tokens × 3.6e12 ns > 2^62.
	reqs := []scenarios.Request{req(0, 1<<21)}
	slow := algorithms.Rate{N: 1, Per: time.Hour}
	res, err := Fit(Requests(reqs), Options{Algorithms: []algorithms.Algorithm{algorithms.TokenBucket}, Rates: []algorithms.Rate{slow}})
	if err != nil {
		t.Fatal(err)
	}
	p := pointAt(t, res, algorithms.TokenBucket, slow, 0)
	if p.Feasible || p.Why == "" || p.Size != 0 {
		t.Fatalf("%+v", p)
	}
}

func TestKneesAreTheSavedPolicies(t *testing.T) {
	res, err := Fit(Requests(randomTrace(3, 400, 2, 2)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	knees := res.Knees()
	if len(knees) != len(res.Frontiers) {
		t.Fatalf("%d knees for %d frontiers", len(knees), len(res.Frontiers))
	}
	for i, f := range res.Frontiers {
		p := f.Points[f.Knee]
		if knees[i] != p.Policy || knees[i].Validate() != nil || !p.Confirmation.Confirmed {
			t.Errorf("%s: knee %s, point %+v", f.Algorithm, knees[i], p)
		}
	}
}

// A source whose passes differ is refused, not fitted wrongly.
func TestSourceThatChanges(t *testing.T) {
	for _, fail := range []int{2, 3} {
		passes := 0
		src := func(yield func(scenarios.Request) bool) error {
			passes++
			for i, r := range burstThenOne {
				if passes == fail && i == 2 {
					break
				}
				yield(r)
			}
			return nil
		}
		if _, err := Fit(src, Options{}); err == nil || !strings.Contains(err.Error(), "every pass must give the same") {
			t.Errorf("pass %d shorter: error %v", fail, err)
		}
	}
}
