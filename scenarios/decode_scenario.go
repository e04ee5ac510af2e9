package scenarios

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/goccy/go-yaml/ast"

	"ratelab/algorithms"
)

// topFields are the fields of a file's top level, as the format documents
// them.
var topFields = []string{"title", "about", "step", "duration", "seed", "watch", "limiters", "clients", "traffic", "notes", "quiz", "expect"}

// scenario decodes the file's top level, root: its fields in the order
// each needs the one before (the seed, the lanes, the clients, the
// traffic, then notes, quiz marks and expectations), then the time axis
// and what must fall within it.
func (d *decoder) scenario(root ast.Node) (*Scenario, error) {
	if _, text := root.(ast.ScalarNode); text {
		// Quoted, the start of a file that is no scenario at all (a key
		// file named by mistake) could show a secret.
		return nil, d.errorf(root, "", "want a mapping with title, limiters and traffic, got a text (is this a scenario file?)")
	}
	f, err := d.fields(root, "", "a mapping with title, limiters and traffic", topFields)
	if err != nil {
		return nil, err
	}
	s := &Scenario{Name: d.file, Step: DefaultStep}
	if s.Title, err = f.requiredText("title", "a title", false); err != nil {
		return nil, err
	}
	if s.About, _, err = f.text("about", "prose about the lesson", true); err != nil {
		return nil, err
	}
	if step, ok, err := f.duration("step", true); err != nil {
		return nil, err
	} else if ok {
		s.Step = step
	}
	duration, explicitDuration, err := f.duration("duration", true)
	if err != nil {
		return nil, err
	}
	if seed, _, err := f.integer("seed", 0, math.MaxInt64); err != nil {
		return nil, err
	} else {
		s.Seed = uint64(seed)
	}
	if watch, ok, err := f.text("watch", "what the lesson asks the learner to watch: state", false); err != nil {
		return nil, err
	} else if ok {
		if watch != "state" {
			return nil, f.errorf("watch", "want state (the lanes' state bytes), got %s", strconv.Quote(shorten(watch)))
		}
		s.WatchState = true
	}

	lanes, err := f.list("limiters", "a list of 1 to 8 limiters")
	if err != nil {
		return nil, err
	}
	switch {
	case !f.has("limiters"):
		return nil, f.missing("limiters", "a list of 1 to 8 limiters")
	case len(lanes) == 0:
		return nil, f.errorf("limiters", "want 1 to %d limiters, got none", MaxLanes)
	case len(lanes) > MaxLanes:
		return nil, f.errorf("limiters", "want 1 to %d limiters, got %d", MaxLanes, len(lanes))
	}
	for i, n := range lanes {
		lane, err := d.lane(n, index("limiters", i), s.Lanes)
		if err != nil {
			return nil, err
		}
		lane.Fleet.Seed = s.Seed
		s.Lanes = append(s.Lanes, lane)
	}
	s.About = withConfigNotes(s.About, s.Lanes)

	if s.Clients, err = d.clients(f, s.Lanes); err != nil {
		return nil, err
	}

	// Each list keeps its items' fields, for the checks against the time
	// axis; an item of accounts or keys becomes its copies here, each with
	// its item's fields. The seed is already read, wherever the file puts it.
	tf, written, err := d.trafficList(f, s)
	if err != nil {
		return nil, err
	}
	s.keyNumbers = written
	var nf, qf, ef []*fields
	if s.Notes, nf, err = listOf(f, "notes", "a list of notes such as {at: 60s, text: ...}", d.note); err != nil {
		return nil, err
	}
	if s.Quiz, qf, err = listOf(f, "quiz", "a list of quiz marks such as {at: 60s, lane: log}", d.quizMark); err != nil {
		return nil, err
	}
	if s.Expect, ef, err = listOf(f, "expect", "a list of expectations such as {lane: fixed, admitted: 240}", d.expectation); err != nil {
		return nil, err
	}

	// The time axis: explicit, or reaching the longest horizon past the last
	// request or note.
	var last time.Duration
	for _, t := range s.Traffic {
		switch {
		case t.Form == Poisson: // whatever it drew, it may reach until
			last = max(last, t.Until)
		case t.Count > 0:
			last = max(last, t.Time(t.Count-1))
		}
	}
	for _, l := range s.Logs {
		last = max(last, l.Last)
	}
	for _, n := range s.Notes {
		last = max(last, n.At)
	}
	if explicitDuration {
		s.Duration = duration
	} else {
		var horizon time.Duration
		for _, l := range s.Lanes {
			horizon = max(horizon, l.Horizon())
		}
		s.Duration = min(last+min(horizon, MaxTime), MaxTime)
	}
	for i, t := range s.Traffic {
		if t.Form == Poisson {
			if t.Until > s.Duration {
				return nil, tf[i].errorf("until", "%s is past the end of the time axis (duration %s)", algorithms.FormatDuration(t.Until), algorithms.FormatDuration(s.Duration))
			}
			continue
		}
		if at := t.Time(t.Count - 1); at >= s.Duration {
			what := "its last request arrives"
			if t.Count == 1 {
				what = "it arrives"
			}
			return nil, d.errorf(tf[i].node, tf[i].path, "%s at %s, not before the end of the time axis (duration %s)", what, algorithms.FormatDuration(at), algorithms.FormatDuration(s.Duration))
		}
	}
	for _, l := range s.Logs {
		if l.Last >= s.Duration {
			return nil, d.errorf(root, "traffic", "the log %s replays requests until %s, not before the end of the time axis (duration %s): cut it with until, or lengthen the duration", l.Path, algorithms.FormatDuration(l.Last), algorithms.FormatDuration(s.Duration))
		}
	}
	for i, n := range s.Notes {
		if n.At > s.Duration {
			return nil, nf[i].errorf("at", "%s is past the end of the time axis (duration %s)", algorithms.FormatDuration(n.At), algorithms.FormatDuration(s.Duration))
		}
		if err := checkNamed(s, n.Lane, n.Key, nf[i], written); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(s.Notes, func(a, b Note) int { return cmp.Compare(a.At, b.At) })

	// An expectation or a quiz mark may name any key the traffic names,
	// whether or not a request was drawn or kept for it: every key of
	// s.Keys() is among them. A set, for a file may name 100,000.
	keys := written
	for i := range s.Quiz {
		if err := checkQuizMark(s, &s.Quiz[i], qf[i], keys); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(s.Quiz, func(a, b QuizMark) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Request, b.Request))
	})
	for i := range s.Expect {
		if err := checkExpectation(s, &s.Expect[i], ef[i], keys); err != nil {
			return nil, err
		}
	}
	return s, nil
}
