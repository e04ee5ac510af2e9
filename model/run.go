package model

import (
	"fmt"
	"math"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// Options tune Run.
type Options struct {
	// Until stops the run before the first request at or after Until; zero
	// means run every request.
	Until time.Duration
	// PeakWindow is the window of Stats.Peak; zero means DefaultPeakWindow.
	PeakWindow time.Duration
}

// endOfTime is later than any request: the peak counted "by" it includes
// every delayed request's release.
const endOfTime = time.Duration(math.MaxInt64)

// Run streams s's requests through its lanes, in request order and, for each
// request, lane order, calling emit (if not nil) with every decision. It
// holds no more than the lanes' state: a run of millions of requests needs
// no more memory than one of ten. It returns each lane's final totals, or
// the first error from emit.
func Run(s *scenarios.Scenario, opt Options, emit func(Record) error) ([]Stats, error) {
	defs := LanesOf(s)
	if opt.PeakWindow <= 0 {
		opt.PeakWindow = DefaultPeakWindow(defs)
	}
	ls, err := newLanes(defs, opt.PeakWindow)
	if err != nil {
		return nil, err
	}
	index := 0
	for r := range s.Requests() {
		if opt.Until > 0 && r.At >= opt.Until {
			break
		}
		for lane := range defs {
			d := ls.decide(lane, r)
			if emit != nil {
				if err := emit(Record{Index: index, Lane: lane, Request: r, Decision: d}); err != nil {
					return nil, err
				}
			}
		}
		index++
	}
	stats := make([]Stats, len(defs))
	for lane := range defs {
		stats[lane] = ls.statsAt(lane, endOfTime)
	}
	return stats, nil
}

// Failure is an expectation that did not hold, or, when Quiz is set, a quiz
// mark whose request the scenario's traffic does not hold (Expectation is
// then zero).
type Failure struct {
	Scenario    string
	Expectation scenarios.Expectation
	Quiz        *scenarios.QuizMark
	// Got says what happened instead, e.g. "admitted 120".
	Got string
}

// Error reads "boundary.yaml:31: fixed until 61s: admitted 240; got admitted 120".
func (f Failure) Error() string {
	if f.Quiz != nil {
		return f.quizError()
	}
	where := f.Scenario
	if f.Expectation.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, f.Expectation.Line)
	}
	msg := fmt.Sprintf("%s: expected %s; got %s", where, f.Expectation.String(), f.Got)
	if f.Expectation.Why != "" {
		msg += " (" + f.Expectation.Why + ")"
	}
	return msg
}

// verdicts tallies the requests one expectation selects.
type verdicts struct {
	exp      *scenarios.Expectation
	outcomes Tally
	peak     peakTracker
	mismatch *Record // first request whose outcome differs from exp.Outcome
}

// Check runs s and evaluates its expectations, and checks that the request
// each quiz mark names exists; it returns the failures in file order (none
// when all hold).
func Check(s *scenarios.Scenario) ([]Failure, error) {
	laneIndex := map[string]int{}
	for i, l := range s.Lanes {
		laneIndex[l.Name] = i
	}
	tallies := make([]*verdicts, len(s.Expect))
	byLane := make([][]*verdicts, len(s.Lanes))
	for i := range s.Expect {
		e := &s.Expect[i]
		lane, ok := laneIndex[e.Lane]
		if !ok {
			return nil, fmt.Errorf("%s: expectation names unknown lane %q", s.Name, e.Lane)
		}
		v := &verdicts{exp: e, peak: peakTracker{window: e.PeakWindow}}
		tallies[i] = v
		byLane[lane] = append(byLane[lane], v)
	}
	_, err := Run(s, Options{}, func(r Record) error {
		for _, v := range byLane[r.Lane] {
			if v.exp.Selects(r.Request) {
				v.add(r)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var failures []Failure
	for _, v := range tallies {
		if got, ok := v.verdict(); !ok {
			failures = append(failures, Failure{Scenario: s.Name, Expectation: *v.exp, Got: got})
		}
	}
	return checkQuiz(s, failures), nil
}

func (v *verdicts) add(r Record) {
	d := r.Decision
	v.outcomes.add(d.Outcome)
	if d.Outcome.Admitted() && v.exp.Peak != nil {
		v.peak.admit(r.Request.At, d.Delay, r.Request.Cost)
	}
	if v.exp.Outcome != nil && d.Outcome != *v.exp.Outcome && v.mismatch == nil {
		rec := r
		v.mismatch = &rec
	}
}

// verdict reports what was measured and whether it matches every assertion.
func (v *verdicts) verdict() (got string, ok bool) {
	e := v.exp
	ok = true
	sep := ""
	report := func(format string, args ...any) {
		got += sep + fmt.Sprintf(format, args...)
		sep = ", "
	}
	o := v.outcomes
	for _, c := range []struct {
		name string
		want *int64
		got  int
	}{{"allowed", e.Allowed, o.Allowed}, {"admitted", e.Admitted, o.Allowed + o.Delayed}, {"delayed", e.Delayed, o.Delayed}, {"rejected", e.Rejected, o.Rejected}} {
		if c.want != nil {
			report("%s %d", c.name, c.got)
			ok = ok && int64(c.got) == *c.want
		}
	}
	if e.Peak != nil {
		peak, at := v.peak.peakBy(endOfTime)
		report("peak %d per %s (window ending %s)", peak, algorithms.FormatDuration(e.PeakWindow), algorithms.FormatSeconds(at))
		ok = ok && peak == *e.Peak
	}
	if e.Outcome != nil {
		switch {
		case o.Total() == 0:
			report("no request selected")
			ok = false
		case v.mismatch != nil:
			m := v.mismatch
			report("the request at %s (key %s) was %s: %s", algorithms.FormatSeconds(m.Request.At),
				m.Request.Key, m.Decision.Outcome, m.Decision.Explain())
			ok = false
		default:
			report("all %d %s", o.Total(), *e.Outcome)
		}
	}
	return got, ok
}
