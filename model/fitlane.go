package model

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/fit"
	"ratelab/scenarios"
)

// fitSuffix names a fitted lane after the lane it was fitted for
// ("bucket-fit").
const fitSuffix = "-fit"

// Fitted is what ToggleFit did: the lane it added (or took away) and, when
// added, its policy and what the fit measured.
type Fitted struct {
	Lane, Of string
	On       bool
	Policy   algorithms.Policy
	// Size is the policy's size (capacity, burst, limit …); Requests the
	// traffic's; SmallerRefused how many of them the size one less refused
	// (SmallerValid false when no smaller size is valid).
	Size           int64
	Requests       int64
	SmallerValid   bool
	SmallerRefused int64
}

// String says it in a line short enough for an 80-column status line,
// with a million requests too: "bucket-fit: token-bucket capacity 22,
// rate 1/s refuses none of 2400; 21 refuses 6", or "bucket-fit taken
// away".
func (f Fitted) String() string {
	if !f.On {
		return f.Lane + " taken away"
	}
	s := fmt.Sprintf("%s: %s refuses none of %d", f.Lane, f.Policy, f.Requests)
	if f.SmallerValid {
		s += fmt.Sprintf("; %d refuses %d", f.Size-1, f.SmallerRefused)
	}
	return s
}

// ToggleFit adds, beside the lane called name, the smallest policy of its
// algorithm at its rate (or window) that refuses none of the scenario's
// requests, found by package fit and confirmed by the real limiter, per
// key unless the lane is one allowance for every key; it is called
// name-fit. On a fitted lane, or a lane whose fitted lane is there, it
// takes the fitted lane away. The learner's own requests are not fitted:
// they are not the scenario's traffic. s itself is not changed.
func ToggleFit(s *scenarios.Scenario, name string) (*scenarios.Scenario, Fitted, error) {
	i := slices.IndexFunc(s.Lanes, func(l scenarios.Lane) bool { return l.Name == name })
	if i < 0 {
		return nil, Fitted{}, fmt.Errorf("no lane is called %s", name)
	}
	of := strings.TrimSuffix(name, fitSuffix)
	fitName := of + fitSuffix
	if j := slices.IndexFunc(s.Lanes, func(l scenarios.Lane) bool { return l.Name == fitName }); j >= 0 && (j == i || name == of) {
		if err := removable(s, fitName); err != nil {
			return nil, Fitted{}, err
		}
		return withLanes(s, slices.Delete(slices.Clone(s.Lanes), j, j+1)), Fitted{Lane: fitName, Of: of}, nil
	}
	lane := s.Lanes[i]
	allKeys := len(lane.Stack) == 1 && lane.Stack[0].AllKeys
	switch {
	case len(lane.Stack) > 1:
		return nil, Fitted{}, fmt.Errorf("%s is a stack of policies: fit fits one policy", name)
	case !lane.Fleet.Plain():
		return nil, Fitted{}, fmt.Errorf("%s is a lane of gateways: fit fits one limiter", name)
	case !slices.Contains(fit.Supported, lane.Policy.Algorithm):
		return nil, Fitted{}, fmt.Errorf("fit cannot fit a %s (it fits %s)", lane.Policy.Algorithm, fit.SupportedWords())
	case len(s.Lanes) >= scenarios.MaxLanes:
		return nil, Fitted{}, fmt.Errorf("%d lanes already, the most a lab holds: no room for %s", len(s.Lanes), fitName)
	}
	p := lane.Policy
	o := fit.Options{Algorithms: []algorithms.Algorithm{p.Algorithm}, ByKey: !allKeys, Confirm: fit.ConfirmAll}
	if p.Window > 0 {
		o.Windows = []time.Duration{p.Window}
	} else {
		o.Rates = []algorithms.Rate{p.Rate}
	}
	r, err := fit.Fit(fit.ScenarioSource(s), o)
	if err != nil {
		return nil, Fitted{}, err
	}
	f := r.Frontier(p.Algorithm)
	j := -1
	if f != nil {
		j = slices.IndexFunc(f.Points, func(pt fit.Point) bool { return pt.Rate == p.Rate && pt.Window == p.Window })
	}
	if j < 0 || !f.Points[j].Feasible {
		return nil, Fitted{}, fmt.Errorf("no %s at %s refuses none of this traffic", p.Algorithm, rateOrWindow(p))
	}
	pt := f.Points[j]
	fl := scenarios.Lane{Name: fitName, Policy: pt.Policy}
	if allKeys {
		fl.Stack = []algorithms.Layer{{Name: fitName, Policy: pt.Policy, AllKeys: true}}
	}
	done := Fitted{Lane: fitName, Of: name, On: true, Policy: pt.Policy, Size: pt.Size, Requests: r.Requests,
		SmallerValid: pt.Confirmation.Ran && pt.Confirmation.SmallerValid, SmallerRefused: pt.Confirmation.SmallerRefused}
	return withLanes(s, slices.Insert(slices.Clone(s.Lanes), i+1, fl)), done, nil
}

// rateOrWindow is a policy's rate, or its window.
func rateOrWindow(p algorithms.Policy) string {
	if p.Window > 0 {
		return algorithms.FormatDuration(p.Window)
	}
	return p.Rate.String()
}
