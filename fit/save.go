package fit

import (
	"fmt"
	"strings"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// ScenarioSource is a scenario's traffic as a Source: each pass its
// Requests, ending with the error that ended a log's reading early.
func ScenarioSource(s *scenarios.Scenario) Source {
	return func(yield func(scenarios.Request) bool) error {
		for r := range s.Requests() {
			if !yield(r) {
				return nil
			}
		}
		return s.Err()
	}
}

// Saved is s with the fit's answers as its lanes, ready to open and to
// check: a lane for each frontier's knee (named after its algorithm),
// the budget's policy there instead when refusals were allowed; each lane
// expects what the real limiters measured (rejected: 0 at a knee). The
// traffic and the clients are s's; the notes, the quiz and the
// expectations are replaced. Without ByKey a fitted policy is one
// allowance for every key together (across: all), which a shaper, which
// delays, cannot be: those lanes are left out and named in left.
func Saved(s *scenarios.Scenario, r *Result) (out *scenarios.Scenario, left []string) {
	c := *s
	c.Title = "Fitted: " + s.Title
	c.Notes, c.Quiz, c.Expect = nil, nil, nil
	c.Lanes = nil
	var what []string
	for i := range r.Frontiers {
		f := &r.Frontiers[i]
		if f.Knee < 0 {
			continue
		}
		pt := &f.Points[f.Knee]
		p, refused, measured := pt.Policy, pt.Confirmation.Refused, pt.Confirmation.Ran
		if pt.Budget != nil {
			p, refused, measured = pt.Budget.Policy, pt.Budget.Refused, true
		}
		name := string(f.Algorithm)
		lane := scenarios.Lane{Name: name, Policy: p}
		if !r.ByKey {
			if algorithms.Describe(p.Algorithm).Delays() {
				left = append(left, name)
				continue
			}
			lane.Stack = []algorithms.Layer{{Name: name, Policy: p, AllKeys: true}}
		}
		c.Lanes = append(c.Lanes, lane)
		what = append(what, p.String())
		if measured {
			c.Expect = append(c.Expect, scenarios.Expectation{Lane: name, Until: c.Duration, Rejected: &refused,
				Why: fmt.Sprintf("what the fit measured: %s refuses %d of the %d requests", p, refused, r.Requests)})
		}
	}
	scope := "for all keys together"
	if r.ByKey {
		scope = "for each key"
	}
	c.About = fmt.Sprintf("The smallest policies that fit this traffic, %s, at each frontier's knee (ratelab fit): %s.", scope, strings.Join(what, "; "))
	return &c, left
}
