package model

import (
	"fmt"
	"slices"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// SavedName is what Save's errors call the text it writes when no name is
// given.
const SavedName = "(the saved scenario)"

// Save writes the lab's timeline as a scenario file that loads to the same
// timeline: the scenario with its time axis as the learner had it (duration
// End), and each of the learner's fire actions as one traffic item after
// the scenario's own (a burst keeps its count and spread). The scenario's
// expectations that no longer hold with the learner's requests (Check finds
// them) are left out, and dropped counts them, so that `ratelab check`
// passes on the file.
//
// name is what an error calls the text being saved, with its line and
// column (the path it is about to be written to, say); "" means SavedName.
// It is never the name of the file the scenario came from, whose lines are
// other lines. A fired request that a lane can never admit cannot be saved
// (the file would not load): the error says which and why.
func (l *Lab) Save(name string) (data []byte, dropped int, err error) {
	if name == "" {
		name = SavedName
	}
	s := *l.scenario
	s.Name = name
	s.Duration = l.End()
	s.Traffic = slices.Clone(s.Traffic)
	for _, f := range l.timeline.fireActions() {
		if err := l.CheckCost(f.cost); err != nil {
			return nil, 0, fmt.Errorf("your request at %s: %w", algorithms.FormatSeconds(f.at), err)
		}
		it := f.item()
		if last := it.Time(it.Count - 1); last >= s.Duration {
			s.Duration = last + s.Step // requests arrive before the duration
		}
		s.Traffic = append(s.Traffic, it)
	}
	data, err = scenarios.Marshal(&s, nil)
	if err != nil || l.timeline.nFired == 0 || len(s.Expect) == 0 {
		return data, 0, err
	}
	saved, err := scenarios.Parse(name, data)
	if err != nil {
		return nil, 0, err
	}
	failures, err := Check(saved)
	if err != nil {
		return nil, 0, err
	}
	failed := map[int]bool{}
	for _, f := range failures {
		if f.Quiz == nil {
			failed[f.Expectation.Line] = true
		}
	}
	if len(failed) == 0 {
		return data, 0, nil
	}
	var kept []scenarios.Expectation
	for i, e := range saved.Expect {
		if !failed[e.Line] {
			kept = append(kept, s.Expect[i])
		}
	}
	s.Expect = kept
	data, err = scenarios.Marshal(&s, nil)
	return data, len(failed), err
}

// CheckCost is nil when every lane can ever admit a request of cost cost
// (cost ≤ its Policy.MaxCost), else an error naming the first lane that
// cannot, its bound and why. A scenario file holding such a request does
// not load, so the learner's requests should not cost that much.
func (l *Lab) CheckCost(cost int64) error {
	if cost < 1 {
		return ErrCost
	}
	for _, d := range l.engine.defs {
		p := d.Policy
		bound := p.MaxCost()
		if cost <= bound {
			continue
		}
		why := algorithms.Describe(p.Algorithm).CostBound(p)
		return fmt.Errorf("lane %s can never admit cost %d: %s", d.Name, cost, why)
	}
	return nil
}

// Rebase is a new lab for s, an edited version of the lab's scenario
// (reloaded from its file), that keeps the learner's work: the same choice
// of peak window (s's default when the lab has the default), the learner's
// fire actions on the timeline fired again, oldest first, as the same
// actions (one Undo each) at their own times, and the clock where it was,
// clamped to the new axis (at a whole instant). An action that no longer
// fits s — a cost some lane of s can never admit — is dropped whole; kept
// and dropped count requests. Resets in the undo history are not carried
// over. err is New's, when s's lanes do not build.
func (l *Lab) Rebase(s *scenarios.Scenario) (nl *Lab, kept, dropped int, err error) {
	nl, err = New(s, l.peakChoice)
	if err != nil {
		return nil, 0, 0, err
	}
	for _, f := range l.timeline.fireActions() {
		if nl.CheckCost(f.cost) != nil {
			dropped += f.n
			continue
		}
		if _, err := nl.fire(f); err != nil {
			dropped += f.n
			continue
		}
		kept += f.n
	}
	nl.Seek(l.clock.now)
	return nl, kept, dropped, nil
}
