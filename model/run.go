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
	// Store keeps the lanes' state; nil: memory.
	Store Store
}

// endOfTime is later than any request: the peak counted "by" it includes
// every delayed request's release.
const endOfTime = time.Duration(math.MaxInt64)

// Run streams s's requests through its lanes, in request order and, for each
// request, lane order, calling emit (if not nil) with every decision. It
// holds no more than the lanes' state (the retries they owe included) and,
// with clients, for the latency percentiles, a count per distinct latency:
// a run of millions of requests needs no more memory than one of ten
// (with clients, one of ten whose lanes gave as many different waits). A scenario with clients decides each
// lane's retries too, every one due by a request before that request, and
// those due after the last one (before the scenario's end) after it; emit
// gets them with their Attempt. It returns each lane's final totals, or
// the first error from emit, or the error that ended reading a log
// (scenarios.Scenario.Err). Only Run measures Stats.KeyBytes.
func Run(s *scenarios.Scenario, opt Options, emit func(Record) error) ([]Stats, error) {
	var lend func(*Record, algorithms.Key) error
	if emit != nil {
		lend = func(r *Record, _ algorithms.Key) error { return emit(*r) }
	}
	stats, err := run(s, opt, lend)
	if err == nil {
		err = s.Err() // a log that could not be read to its end
	}
	if err != nil {
		return nil, err
	}
	return stats, nil
}

// run is Run calling emit with each record and its request's key, numbered
// (algorithms.Key.ID) as every lane numbers it: the record is only lent.
func run(s *scenarios.Scenario, opt Options, emit func(*Record, algorithms.Key) error) ([]Stats, error) {
	defs := LanesOf(s)
	if opt.PeakWindow <= 0 {
		opt.PeakWindow = DefaultPeakWindow(defs)
	}
	ls, err := newLanes(defs, opt.PeakWindow, opt.Store, s.Duration, newClientBook(s))
	if err != nil {
		return nil, err
	}
	if emit == nil && ls.book == nil {
		return runOpen(s, defs, opt, ls), nil
	}
	if emit == nil && opt.Store == nil {
		// A store's lanes keep their state elsewhere, in an order of
		// calls Run keeps; in memory, each lane can run alone.
		return runByLane(s, defs, opt, ls), nil
	}
	var d algorithms.Decision
	var a Attempt
	var rec Record // lent to emit
	keys := keyMeters(defs)
	// How many served requests waited each latency above 0, per lane, in
	// a scenario with clients: exact percentiles need every distinct
	// latency, not every request.
	waited := make([]latencyCounts, len(defs))
	record := func(lane int, r *Request, key algorithms.Key) error {
		keys[lane].measure(ls.limiters[lane], r.At, key, d.Outcome.Admitted())
		if a.Fate == Served && a.Latency != 0 && ls.book != nil {
			waited[lane].add(a.Latency)
		}
		if emit != nil {
			rec = Record{Index: a.Original, Lane: lane, Request: *r, Decision: d, Attempt: a}
			return emit(&rec, key)
		}
		return nil
	}
	// retries decides the retries due by t.
	var rr Request
	retries := func(t time.Duration) (err error) {
		ls.drain(t, &rr, &d, &a, func(lane int) bool {
			err = record(lane, &rr, ls.retryKey)
			return err == nil
		})
		return err
	}
	index := 0
	for r := range s.Requests() {
		if opt.Until > 0 && r.At >= opt.Until {
			break
		}
		if ls.book != nil {
			if err := retries(r.At); err != nil {
				return nil, err
			}
		}
		ls.arrive(r, index)
		for lane := range defs {
			// record, written out: this is a run's hot path.
			ls.decideInto(lane, r, &d, &a)
			keys[lane].measure(ls.limiters[lane], r.At, ls.lastKey, d.Outcome.Admitted())
			if a.Latency != 0 && ls.book != nil && a.Fate == Served {
				waited[lane].add(a.Latency)
			}
			if emit != nil {
				rec = Record{Index: index, Lane: lane, Request: r, Decision: d, Attempt: a}
				if err := emit(&rec, ls.lastKey); err != nil {
					return nil, err
				}
			}
		}
		index++
	}
	last := endOfTime
	if opt.Until > 0 {
		last = opt.Until - 1
	}
	if err := retries(last); err != nil {
		return nil, err
	}
	stats := make([]Stats, len(defs))
	for lane := range defs {
		stats[lane] = ls.statsAt(lane, endOfTime)
		stats[lane].KeyBytes = keys[lane].most
		if ls.book != nil {
			stats[lane].Latency = waited[lane].latency(stats[lane].Served)
		}
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

// keyMeter is the most bytes one key's state took in a lane (Stats.KeyBytes),
// measured only where it can have grown: when the lane admits, or decides
// at all if it keeps rejections (grows), or before any measure.
type keyMeter struct {
	most  int64
	grows bool
}

// keyMeters are a meter for each lane of defs.
func keyMeters(defs []Lane) []keyMeter {
	ms := make([]keyMeter, len(defs))
	for i, def := range defs {
		ms[i].grows = algorithms.Describe(def.Policy.Algorithm).KeepsRejections
	}
	return ms
}

// measure takes the size of key's state in lim after a decision at at,
// admitted or not, where it can have grown.
func (m *keyMeter) measure(lim algorithms.Limiter, at time.Duration, key algorithms.Key, admitted bool) {
	if admitted || m.grows || m.most == 0 {
		m.most = max(m.most, lim.KeyBytes(at, key))
	}
}
