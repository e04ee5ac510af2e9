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

// surveyPass reads src once, checking its order.
func surveyPass(src Source, byKey bool) (survey, error) {
	var sv survey
	keys := map[string]*keySurvey{}
	var all keySurvey
	// last is the state of lastKey: a run of one key skips the map.
	var last *keySurvey
	var lastKey string
	var bad error
	err := src(func(r scenarios.Request) bool {
		switch {
		case r.Cost < 1:
			bad = fmt.Errorf("fit: request %d at %s costs %d: costs must be at least 1", sv.requests, algorithms.FormatSeconds(r.At), r.Cost)
		case r.At < 0:
			bad = fmt.Errorf("fit: request %d at %s: times must not be negative", sv.requests, algorithms.FormatSeconds(r.At))
		case sv.requests > 0 && r.At < sv.last:
			bad = fmt.Errorf("fit: request %d at %s comes before the one at %s: the source must be in time order", sv.requests, algorithms.FormatSeconds(r.At), algorithms.FormatSeconds(sv.last))
		case r.Cost > maxTotalCost-sv.cost:
			bad = fmt.Errorf("fit: the traffic's total cost passes 2^62")
		}
		if bad != nil {
			return false
		}
		if sv.requests == 0 {
			sv.first = r.At
		}
		sv.requests++
		sv.cost += r.Cost
		sv.last = r.At
		if r.Key != lastKey || sv.requests == 1 {
			lastKey = r.Key
			if last = keys[r.Key]; last == nil {
				last = &keySurvey{first: r.At, slot: -1}
				keys[r.Key] = last
			}
		}
		k := &all
		if byKey {
			k = last
		} else if sv.requests == 1 {
			k.first, k.slot = r.At, -1
		}
		k.cost += r.Cost
		k.last = r.At
		if s := int64(r.At / peakWindow); s != k.slot {
			k.slot, k.inSlot = s, 0
		}
		k.inSlot += r.Cost
		sv.peak = max(sv.peak, k.inSlot)
		if k.cost > sv.busiestCost {
			sv.busiestCost, sv.busiestFirst, sv.busiestLast = k.cost, k.first, k.last
		}
		return true
	})
	if bad != nil {
		return sv, bad
	}
	if err != nil {
		return sv, fmt.Errorf("fit: reading the traffic: %w", err)
	}
	sv.keys = len(keys)
	return sv, nil
}
