package model

import (
	"fmt"
	"slices"
	"strings"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// TwinOf is the lane that runs the exact twin of lane's mistake: a lane whose
// policy is lane's with the algorithm its description names as the twin.
// ok is false when lane is not a mistake, or the lab has no such lane.
func (l *Lab) TwinOf(lane int) (twin int, ok bool) {
	return TwinIn(l.engine.defs, lane)
}

// TwinIn is TwinOf among defs: the lane of defs running the exact twin of
// lane's mistake.
func TwinIn(defs []Lane, lane int) (int, bool) {
	d := algorithms.Describe(defs[lane].Policy.Algorithm)
	if d == nil || d.Family != algorithms.Mistake {
		return 0, false
	}
	want := defs[lane].Policy
	want.Algorithm = d.Twin
	for i, def := range defs {
		if def.Policy == want {
			return i, true
		}
	}
	return 0, false
}

// Toggled is what ToggleMistakes did: the mistake lanes it switched on
// or off, those it had no room for, and the exact lane they twin.
type Toggled struct {
	On     bool     // switched on (added), else off (taken away)
	Lanes  []string // the mistake lanes switched, in the scenario's order
	NoRoom []string // mistakes left out for want of room (when On)
	Of     string   // the exact lane whose mistakes they are
}

// String is what was done in words: "switched on bucket-float,
// bucket-whole", "switched off bucket-whole", with the lanes left out
// for want of room named.
func (t Toggled) String() string {
	words := "switched off "
	if t.On {
		words = "switched on "
	}
	words += strings.Join(t.Lanes, ", ")
	if len(t.NoRoom) > 0 {
		words += " (no room for " + strings.Join(t.NoRoom, ", ") + ")"
	}
	return words
}

// ToggleMistakes is s with the mistake lanes of its lane called name
// switched on or off, and what was done. On an exact lane that some
// mistakes twin (a token bucket: its float and whole-token versions), it
// adds each of them with the same parameters, right after the lane, named
// after it ("bucket-float"), as many as MaxLanes leaves room for; if they
// are all there already, it takes them away. On a mistake lane it takes that
// lane away. A lane an expectation or a quiz mark names is never taken away:
// the scenario would no longer check. s itself is not changed.
func ToggleMistakes(s *scenarios.Scenario, name string) (*scenarios.Scenario, Toggled, error) {
	i := slices.IndexFunc(s.Lanes, func(l scenarios.Lane) bool { return l.Name == name })
	if i < 0 {
		return nil, Toggled{}, fmt.Errorf("no lane is called %s", name)
	}
	lane := s.Lanes[i]
	d := algorithms.Describe(lane.Policy.Algorithm)
	if d.Family == algorithms.Mistake {
		if err := removable(s, lane.Name); err != nil {
			return nil, Toggled{}, err
		}
		of := lane.Name
		if twin, ok := TwinIn(LanesOf(s), i); ok {
			of = s.Lanes[twin].Name
		}
		return withLanes(s, slices.Delete(slices.Clone(s.Lanes), i, i+1)), Toggled{Lanes: []string{lane.Name}, Of: of}, nil
	}
	mistakes := algorithms.MistakesOf(lane.Policy.Algorithm)
	if len(mistakes) == 0 {
		return nil, Toggled{}, fmt.Errorf("a %s has no mistake lanes (%s)", lane.Policy.Algorithm, twinsWords())
	}
	var missing []scenarios.Lane
	var present []string
	for _, m := range mistakes {
		ml := mistakeLane(lane, m)
		switch j := slices.IndexFunc(s.Lanes, func(l scenarios.Lane) bool { return l.Name == ml.Name }); {
		case j < 0:
			missing = append(missing, ml)
		case s.Lanes[j].Policy == ml.Policy:
			present = append(present, ml.Name)
		default:
			return nil, Toggled{}, fmt.Errorf("a lane called %s is already there and is not %s's %s", ml.Name, lane.Name, m)
		}
	}
	if len(missing) == 0 {
		lanes := slices.Clone(s.Lanes)
		for _, n := range present {
			if err := removable(s, n); err != nil {
				return nil, Toggled{}, err
			}
			lanes = slices.DeleteFunc(lanes, func(l scenarios.Lane) bool { return l.Name == n })
		}
		return withLanes(s, lanes), Toggled{Lanes: present, Of: lane.Name}, nil
	}
	room := scenarios.MaxLanes - len(s.Lanes)
	if room <= 0 {
		return nil, Toggled{}, fmt.Errorf("%d lanes already, the most a lab holds: no room for %s's mistakes", len(s.Lanes), lane.Name)
	}
	done := Toggled{On: true, Of: lane.Name}
	if len(missing) > room {
		done.NoRoom = laneNames(missing[room:])
		missing = missing[:room]
	}
	done.Lanes = laneNames(missing)
	// After the lane and the mistakes of it already there.
	at := i + 1
	for at < len(s.Lanes) && slices.Contains(present, s.Lanes[at].Name) {
		at++
	}
	lanes := slices.Insert(slices.Clone(s.Lanes), at, missing...)
	return withLanes(s, lanes), done, nil
}

// mistakeLane is lane's policy run by the mistake m, named after the lane
// and the mistake's first word: "bucket-float" for a float-token-bucket.
func mistakeLane(lane scenarios.Lane, m algorithms.Algorithm) scenarios.Lane {
	word, _, _ := strings.Cut(string(m), "-")
	base := lane.Name
	if limit := scenarios.MaxNameLen - len(word) - 1; len(base) > limit {
		base = strings.TrimRight(base[:limit], "-")
	}
	p := lane.Policy
	p.Algorithm = m
	for _, q := range algorithms.Describe(lane.Policy.Algorithm).Params {
		if !algorithms.Describe(m).Takes(q.Name) {
			clearParam(q, &p) // an optional parameter the mistake lacks
		}
	}
	return scenarios.Lane{Name: base + "-" + word, Policy: p, Fleet: lane.Fleet}
}

// clearParam sets q's value in p to its zero.
func clearParam(q algorithms.Param, p *algorithms.Policy) {
	switch q.Kind {
	case algorithms.Count, algorithms.Bytes:
		*q.CountOf(p) = 0
	case algorithms.Duration:
		*q.DurationOf(p) = 0
	case algorithms.RateKind:
		*q.RateOf(p) = algorithms.Rate{}
	case algorithms.Flag:
		*q.FlagOf(p) = false
	}
}

// removable says why the lane called name cannot be taken away: an
// expectation or a quiz mark names it.
func removable(s *scenarios.Scenario, name string) error {
	for _, e := range s.Expect {
		if e.Lane == name {
			return fmt.Errorf("lane %s stays: an expectation of the scenario (line %d) is about it", name, e.Line)
		}
	}
	for _, q := range s.Quiz {
		if q.Lane == name {
			return fmt.Errorf("lane %s stays: a quiz question of the scenario (line %d) is about it", name, q.Line)
		}
	}
	return nil
}

func withLanes(s *scenarios.Scenario, lanes []scenarios.Lane) *scenarios.Scenario {
	out := *s
	out.Lanes = lanes
	return &out
}

func laneNames(lanes []scenarios.Lane) []string {
	names := make([]string, len(lanes))
	for i, l := range lanes {
		names[i] = l.Name
	}
	return names
}

// twinsWords names the algorithms that have mistakes: "the mistakes twin
// token-bucket, sliding-log and fixed-window".
func twinsWords() string {
	var twins []string
	for _, a := range algorithms.Algorithms {
		if len(algorithms.MistakesOf(a)) > 0 {
			twins = append(twins, string(a))
		}
	}
	if len(twins) == 0 {
		return "no algorithm has any"
	}
	return "mistakes twin " + strings.Join(twins, ", ")
}
