package fit

import "ratelab/scenarios"

// Source is traffic a fit reads as often as it needs. Each call is one
// whole pass: it calls yield with every request in time order (At never
// decreasing, At ≥ 0, Cost ≥ 1), stops early if yield returns false, and
// returns the pass's error (a log that failed to read), nil otherwise. Two
// passes must yield the same requests. Passes are never concurrent.
type Source func(yield func(scenarios.Request) bool) error

// Requests is the Source of requests held in memory, in time order.
func Requests(reqs []scenarios.Request) Source {
	return func(yield func(scenarios.Request) bool) error {
		for _, r := range reqs {
			if !yield(r) {
				return nil
			}
		}
		return nil
	}
}
