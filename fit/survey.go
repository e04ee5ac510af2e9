package fit

import (
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// maxTotalCost bounds a traffic's total cost, so that no sum of costs a fit
// keeps can overflow.
const maxTotalCost = 1 << 62

// peakWindow is the shortest window the rate grid looks at: its top is
// the busiest 10ms's cost as a rate.
const peakWindow = 10 * time.Millisecond

// survey is what the first pass learns of the traffic: enough to choose
// the grids, and to check the requests are in time order.
type survey struct {
	requests, cost int64
	first, last    time.Duration
	keys           int
	// busiest is the traffic the rate grid is chosen for: all of it, or
	// for ByKey the key of the largest total cost; its cost and its first
	// and last time.
	busiestCost               int64
	busiestFirst, busiestLast time.Duration
	// peak is the largest cost in any aligned peakWindow [k × 10ms, (k+1)
	// × 10ms) of one state's traffic (for ByKey, of any key).
	peak int64
}

// keySurvey is one key's share of a survey.
type keySurvey struct {
	cost        int64
	first, last time.Duration
	slot        int64 // the aligned peakWindow of the latest request
	inSlot      int64 // its cost so far
}

// A Survey is what a fit learns of its traffic before it computes: the
// span, the keys, the busiest key, the peak, from which the grids are
// chosen; and whether the requests come in time order. Fit makes one in a
// pass of its own, or takes one made while the traffic was first read
// (Options.Survey), which saves that pass: a log is surveyed so as it is
// read (scenarios.LogOptions.Observe).
type Survey struct {
	sv    survey
	byKey bool
	keys  map[string]*keySurvey
	all   keySurvey
	// last is the state of lastKey: a run of one key skips the map.
	last    *keySurvey
	lastKey string
	bad     error
}

// NewSurvey starts a survey of a traffic to be fitted per key (byKey, as
// Options.ByKey) or as one state for all of it.
func NewSurvey(byKey bool) *Survey {
	return &Survey{byKey: byKey, keys: map[string]*keySurvey{}}
}

// Add surveys the traffic's next request. The requests must come as the
// fit's source will yield them: in time order, at times ≥ 0, costs ≥ 1; a
// request that does not is kept as the survey's error, and the rest are
// not surveyed.
func (s *Survey) Add(at time.Duration, key string, cost int64) {
	sv := &s.sv
	switch {
	case s.bad != nil:
		return
	case cost < 1:
		s.bad = fmt.Errorf("fit: request %d at %s costs %d: costs must be at least 1", sv.requests, algorithms.FormatSeconds(at), cost)
	case at < 0:
		s.bad = fmt.Errorf("fit: request %d at %s: times must not be negative", sv.requests, algorithms.FormatSeconds(at))
	case sv.requests > 0 && at < sv.last:
		s.bad = fmt.Errorf("fit: request %d at %s comes before the one at %s: the source must be in time order", sv.requests, algorithms.FormatSeconds(at), algorithms.FormatSeconds(sv.last))
	case cost > maxTotalCost-sv.cost:
		s.bad = fmt.Errorf("fit: the traffic's total cost passes 2^62")
	}
	if s.bad != nil {
		return
	}
	if sv.requests == 0 {
		sv.first = at
	}
	sv.requests++
	sv.cost += cost
	sv.last = at
	if key != s.lastKey || sv.requests == 1 {
		s.lastKey = key
		if s.last = s.keys[key]; s.last == nil {
			s.last = &keySurvey{first: at, slot: -1}
			s.keys[key] = s.last
		}
	}
	k := &s.all
	if s.byKey {
		k = s.last
	} else if sv.requests == 1 {
		k.first, k.slot = at, -1
	}
	k.cost += cost
	k.last = at
	if slot := int64(at / peakWindow); slot != k.slot {
		k.slot, k.inSlot = slot, 0
	}
	k.inSlot += cost
	sv.peak = max(sv.peak, k.inSlot)
	if k.cost > sv.busiestCost {
		sv.busiestCost, sv.busiestFirst, sv.busiestLast = k.cost, k.first, k.last
	}
}

// result is what the survey found, or the error of the first request that
// broke the source's rules.
func (s *Survey) result() (survey, error) {
	if s.bad != nil {
		return s.sv, s.bad
	}
	sv := s.sv
	sv.keys = len(s.keys)
	return sv, nil
}

// surveyPass reads src once, checking its order.
func surveyPass(src Source, byKey bool) (survey, error) {
	s := NewSurvey(byKey)
	err := src(func(r scenarios.Request) bool {
		s.Add(r.At, r.Key, r.Cost)
		return s.bad == nil
	})
	if s.bad != nil {
		return s.sv, s.bad
	}
	if err != nil {
		return s.sv, fmt.Errorf("fit: reading the traffic: %w", err)
	}
	return s.result()
}
