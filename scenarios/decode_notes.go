package scenarios

import (
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"ratelab/algorithms"
)

// Field names of a note, an expectation and a quiz mark, as the format
// documents them.
var (
	noteFields   = []string{"at", "text", "key", "lane"}
	expectFields = []string{"lane", "key", "at", "from", "until", "allowed", "admitted", "delayed", "rejected", "retries", "served", "abandoned", "peak", "peak_window", "outcome", "retry_after", "wait", "latency_p50", "latency_p95", "latency_p99", "state_per_key", "state_total", "why"}
	quizFields   = []string{"at", "request", "key", "lane", "ask", "why"}
)

func (d *decoder) note(n ast.Node, path string) (Note, *fields, error) {
	f, err := d.fields(n, path, "a note such as {at: 60s, text: ...}", noteFields)
	if err != nil {
		return Note{}, nil, err
	}
	var note Note
	var ok bool
	if note.At, ok, err = f.duration("at", false); err != nil {
		return Note{}, nil, err
	} else if !ok {
		return Note{}, nil, f.missing("at", "the time to show the note, such as 60s")
	}
	if note.Text, err = f.requiredText("text", "the note's text", true); err != nil {
		return Note{}, nil, err
	}
	if note.Key, _, err = f.optionalKey(); err != nil {
		return Note{}, nil, err
	}
	if note.Lane, err = f.optionalLane(); err != nil {
		return Note{}, nil, err
	}
	return note, f, nil
}

// optionalLane reads a lane's name, "" when the field is absent.
func (f *fields) optionalLane() (string, error) {
	lane, ok, err := f.text("lane", "the name of a lane", false)
	if err != nil || !ok {
		return "", err
	}
	if lane == "" {
		return "", f.errorf("lane", "want the name of a lane, got blank text")
	}
	return lane, nil
}

// named reports whether the traffic names key.
func named(keys map[string]int32, key string) bool {
	_, ok := keys[key]
	return ok
}

// checkNamed checks the lane and the key a note or a quiz mark names,
// read from f, against the scenario's lanes and the keys its traffic
// names.
func checkNamed(s *Scenario, lane, key string, f *fields, keys map[string]int32) error {
	if lane != "" {
		if _, ok := s.Lane(lane); !ok {
			return f.errorf("lane", "no lane is called %s; the lanes are %s", strconv.Quote(shorten(lane)), laneNames(s))
		}
	}
	if key != "" && !named(keys, key) {
		return f.errorf("key", "no request has key %s", strconv.Quote(shorten(key)))
	}
	return nil
}

// maxStateBytes bounds state_per_key and state_total, in bytes: 1 PiB, far
// above what any run's state can take.
const maxStateBytes = 1 << 50

// outcomes are the values of an expectation's outcome.
var outcomes = map[string]algorithms.Outcome{
	"allowed":  algorithms.Allowed,
	"delayed":  algorithms.Delayed,
	"rejected": algorithms.Rejected,
}

// expectation decodes one item of expect. Until is left at -1 when the
// file leaves it to default to the scenario's duration, which
// checkExpectation resolves.
func (d *decoder) expectation(n ast.Node, path string) (Expectation, *fields, error) {
	f, err := d.fields(n, path, "an expectation such as {lane: fixed, until: 61s, admitted: 240}", expectFields)
	if err != nil {
		return Expectation{}, nil, err
	}
	e := Expectation{Until: -1}
	e.Line, _ = position(n)
	if e.Lane, err = f.requiredText("lane", "the name of a lane", false); err != nil {
		return Expectation{}, nil, err
	}
	if e.Key, _, err = f.optionalKey(); err != nil {
		return Expectation{}, nil, err
	}
	if f.has("at") {
		for _, name := range []string{"from", "until"} {
			if f.present(name) {
				return Expectation{}, nil, f.keyErrorf(name, "at selects the requests of one instant and cannot be combined with %s", name)
			}
		}
		at, _, err := f.duration("at", false)
		if err != nil {
			return Expectation{}, nil, err
		}
		e.From, e.Until, e.Instant = at, at+1, true
	} else {
		if e.From, _, err = f.duration("from", false); err != nil {
			return Expectation{}, nil, err
		}
		if until, ok, err := f.duration("until", true); err != nil {
			return Expectation{}, nil, err
		} else if ok {
			if until <= e.From {
				return Expectation{}, nil, f.errorf("until", "want a time after from (%s), got %s", algorithms.FormatDuration(e.From), algorithms.FormatDuration(until))
			}
			e.Until = until
		}
	}
	for _, c := range e.counts() {
		v, ok, err := f.integer(c.name, 0, MaxRequests)
		if err != nil {
			return Expectation{}, nil, err
		}
		if ok {
			*c.v = &v
		}
	}
	peak, hasPeak, err := f.integer("peak", 0, maxTotalCost)
	if err != nil {
		return Expectation{}, nil, err
	}
	window, hasWindow, err := f.duration("peak_window", true)
	if err != nil {
		return Expectation{}, nil, err
	}
	switch {
	case hasPeak && !hasWindow:
		return Expectation{}, nil, f.missing("peak_window", "the length of the window peak is measured in, such as 1s")
	case hasWindow && !hasPeak:
		return Expectation{}, nil, f.errorf("peak_window", "peak_window needs peak")
	case hasPeak:
		e.Peak, e.PeakWindow = &peak, window
	}
	if o, ok, err := f.text("outcome", "allowed, delayed or rejected", false); err != nil {
		return Expectation{}, nil, err
	} else if ok {
		outcome, known := outcomes[o]
		if !known {
			return Expectation{}, nil, f.errorf("outcome", "want allowed, delayed or rejected, got %s", strconv.Quote(shorten(o)))
		}
		e.Outcome = &outcome
	}
	if s, ok, err := f.integer("retry_after", 0, int64(MaxTime/time.Second)+1); err != nil {
		return Expectation{}, nil, err
	} else if ok {
		e.RetryAfter = &s
	}
	if w, ok, err := f.duration("wait", false); err != nil {
		return Expectation{}, nil, err
	} else if ok {
		e.Wait = &w
	}
	asserted := e.Peak != nil || e.Outcome != nil || e.RetryAfter != nil || e.Wait != nil
	for _, l := range e.latencies() {
		if v, ok, err := f.duration(l.name, false); err != nil {
			return Expectation{}, nil, err
		} else if ok {
			*l.v, asserted = &v, true
		}
	}
	for _, b := range e.states() {
		if v, ok, err := f.integer(b.name, 0, maxStateBytes); err != nil {
			return Expectation{}, nil, err
		} else if ok {
			*b.v, asserted = &v, true
		}
	}
	if e.StateTotal != nil && f.present("from") {
		return Expectation{}, nil, f.keyErrorf("from", "state_total is the state at until, whatever arrived before from: give it without from (or at: for one instant)")
	}
	for _, c := range e.counts() {
		asserted = asserted || *c.v != nil
	}
	if !asserted {
		return Expectation{}, nil, d.errorf(n, path, "want at least one assertion: allowed, admitted, delayed, rejected, retries, served, abandoned, peak, outcome, retry_after, wait, a latency percentile, state_per_key or state_total")
	}
	if e.Why, _, err = f.text("why", "an explanation", true); err != nil {
		return Expectation{}, nil, err
	}
	return e, f, nil
}

// quizMark decodes one item of quiz.
func (d *decoder) quizMark(n ast.Node, path string) (QuizMark, *fields, error) {
	f, err := d.fields(n, path, "a quiz mark such as {at: 60s, lane: log, ask: ...}", quizFields)
	if err != nil {
		return QuizMark{}, nil, err
	}
	q := QuizMark{Request: 1}
	q.Line, _ = position(n)
	var ok bool
	if q.At, ok, err = f.duration("at", false); err != nil {
		return QuizMark{}, nil, err
	} else if !ok {
		return QuizMark{}, nil, f.missing("at", "the time of the request to predict, such as 60s")
	}
	if r, ok, err := f.integer("request", 1, MaxRequests); err != nil {
		return QuizMark{}, nil, err
	} else if ok {
		q.Request = int(r)
	}
	if q.Key, _, err = f.optionalKey(); err != nil {
		return QuizMark{}, nil, err
	}
	if q.Lane, err = f.optionalLane(); err != nil {
		return QuizMark{}, nil, err
	}
	if q.Ask, _, err = f.text("ask", "a question or hint", true); err != nil {
		return QuizMark{}, nil, err
	}
	if q.Why, _, err = f.text("why", "an explanation", true); err != nil {
		return QuizMark{}, nil, err
	}
	return q, f, nil
}

// checkQuizMark checks q, read from f, against the rest of the scenario,
// whose traffic names keys. Whether the marked request exists is left to
// `ratelab check`.
func checkQuizMark(s *Scenario, q *QuizMark, f *fields, keys map[string]int32) error {
	if err := checkNamed(s, q.Lane, q.Key, f, keys); err != nil {
		return err
	}
	if q.At >= s.Duration {
		return f.errorf("at", "%s is not before the end of the time axis (duration %s)", algorithms.FormatDuration(q.At), algorithms.FormatDuration(s.Duration))
	}
	return nil
}

// checkExpectation checks e, read from f, against the rest of the scenario,
// whose traffic names keys, and resolves its default end.
func checkExpectation(s *Scenario, e *Expectation, f *fields, keys map[string]int32) error {
	lane, ok := s.Lane(e.Lane)
	if !ok {
		return f.errorf("lane", "no lane is called %s; the lanes are %s", strconv.Quote(shorten(e.Lane)), laneNames(s))
	}
	if e.Key != "" && !named(keys, e.Key) {
		return f.errorf("key", "no request has key %s", strconv.Quote(shorten(e.Key)))
	}
	if !algorithms.Describe(lane.Policy.Algorithm).Delays() {
		never := func(name string) error {
			return f.errorf(name, "lane %s is a %s, which never delays a request", lane.Name, lane.Policy.Algorithm)
		}
		if e.Delayed != nil && *e.Delayed > 0 {
			return never("delayed")
		}
		if e.Outcome != nil && *e.Outcome == algorithms.Delayed {
			return never("outcome")
		}
	}
	switch {
	case e.Instant && e.From >= s.Duration:
		return f.errorf("at", "%s is not before the end of the time axis (duration %s)", algorithms.FormatDuration(e.From), algorithms.FormatDuration(s.Duration))
	case e.Until < 0:
		e.Until = s.Duration
		if e.From >= e.Until {
			return f.errorf("from", "%s is not before the end of the time axis (duration %s)", algorithms.FormatDuration(e.From), algorithms.FormatDuration(s.Duration))
		}
	case e.Until > s.Duration: // an instant before the end ends at most at it
		return f.errorf("until", "%s is past the end of the time axis (duration %s)", algorithms.FormatDuration(e.Until), algorithms.FormatDuration(s.Duration))
	}
	return nil
}

// laneNames lists s's lane names for errors: "fixed, log, bucket".
func laneNames(s *Scenario) string {
	names := make([]string, len(s.Lanes))
	for i, l := range s.Lanes {
		names[i] = l.Name
	}
	return strings.Join(names, ", ")
}
