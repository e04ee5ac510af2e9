package scenarios

import (
	"fmt"
	"sort"
	"time"

	"ratelab/algorithms"
)

// QuizMark is one item of the quiz list: a request worth predicting before
// its decision is shown. It names the request by its instant and its place
// among the requests of that instant: the Request-th request arriving at
// exactly At, counting only those with key Key when Key is set. The file is
// not required to make the moment exist; `ratelab check` verifies that it
// does (see CountAt).
type QuizMark struct {
	At time.Duration
	// Request is 1-based: 1 is the first request at At (of Key, if set). 1
	// unless written.
	Request int
	Key     string // "" counts every key
	Lane    string // "" asks about every lane
	// Ask is shown with the question, Why after the answer; either may be "".
	Ask string
	Why string
	// Line is the mark's line in the file (1-based), 0 when it was not read
	// from a file.
	Line int
}

// String describes q in one line, as a file would write it: "at 60s",
// "at 0s, request 11", `at 4s, key "export", lane bucket`.
func (q QuizMark) String() string {
	s := "at " + algorithms.FormatDuration(q.At)
	if q.Request != 1 {
		s += fmt.Sprintf(", request %d", q.Request)
	}
	if q.Key != "" {
		s += fmt.Sprintf(", key %q", q.Key)
	}
	if q.Lane != "" {
		s += ", lane " + q.Lane
	}
	return s
}

// CountAt is the number of the item's requests arriving at exactly at. It
// searches the item's times rather than expanding them.
func (t Traffic) CountAt(at time.Duration) int64 {
	// The times never decrease with i: the requests at exactly at are those
	// from the first at or after it to the first after it.
	first := func(after bool) int64 {
		return int64(sort.Search(int(t.Count), func(i int) bool {
			ti := t.Time(int64(i))
			return ti > at || (!after && ti == at)
		}))
	}
	return first(true) - first(false)
}

// CountAt is the number of the scenario's requests arriving at exactly at,
// counting only those with key when key is not "". A quiz mark's moment
// exists when CountAt(q.At, q.Key) ≥ q.Request. A log is read for it, up
// to at.
func (s *Scenario) CountAt(at time.Duration, key string) int64 {
	var n int64
	for _, t := range s.Traffic {
		if key == "" || t.Key == key {
			n += t.CountAt(at)
		}
	}
	for _, l := range s.Logs {
		n += l.countAt(at, key)
	}
	return n
}
