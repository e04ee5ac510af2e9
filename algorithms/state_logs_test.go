package algorithms

import (
	"testing"
	"time"
)

// TestLogStateRejects: states no limiter of the policy could hold are
// refused, each with its reason.
func TestLogStateRejects(t *testing.T) {
	sec := int64(time.Second)
	ms := int64(time.Millisecond)
	slide := Policy{Algorithm: SlidingLog, Limit: 5, Window: time.Second}
	tried := Policy{Algorithm: AttemptLog, Limit: 5, Window: time.Second}
	coll := Policy{Algorithm: CollapsingLog, Limit: 5, Window: time.Second}
	tests := []struct {
		p    Policy
		st   State
		want string // in the error; "" for a state that is fine
	}{
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 2, 2 * sec, 3}}, ""},
		{slide, State{Fields: []int64{2 * sec}}, ""},
		{slide, State{Fields: []int64{-1}}, "negative"},
		{slide, State{Fields: []int64{sec / 2}, Log: []int64{-1, 1}}, "outside the window"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{sec, 1}}, "outside the window"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2*sec + 1, 1}}, "outside the window"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2 * sec, 1, sec + 5, 1}}, "out of order"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2 * sec, 0}}, "cost 0"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2 * sec, 6}}, "cost 6"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 3, 2 * sec, 3}}, "past the limit"},
		{slide, State{Fields: []int64{2 * sec}, Log: []int64{2 * sec}}, "not whole items"},
		{tried, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 3, 1, sec + 2, 3, 0, 2 * sec, 3, 0}}, ""},
		{tried, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 3, 1, sec + 2, 3, 1}}, "past the limit"},
		{tried, State{Fields: []int64{2 * sec}, Log: []int64{sec + 1, 3, 2}}, "mark is 2"},
		{tried, State{Fields: []int64{2 * sec}, Log: []int64{sec, 3, 1}}, "outside the window"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{1001, 2, 2000, 3}}, ""},
		{coll, State{Fields: []int64{2 * sec, 4, 1}, Log: []int64{1001, 2, 2000, 3}}, "admitted ≥ added ≥ members"},
		{coll, State{Fields: []int64{2 * sec, 1, 2}}, "admitted ≥ added"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{2000, 2, 2000, 1}}, "out of order"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{2001, 2}}, "not a millisecond"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{1000, 2}}, "outside the window"},
		{coll, State{Fields: []int64{2 * sec, 4, 2}, Log: []int64{1001, 3, 2000, 3}}, "past the limit"},
		{coll, State{Fields: []int64{2*sec + ms/2, 4, 2}, Log: []int64{2000, 3}}, ""},
		{Policy{Algorithm: CollapsingLog, Limit: 5, Window: time.Microsecond},
			State{Fields: []int64{2*sec + ms/2, 4, 2}, Log: []int64{2000, 3}}, ""},
		{Policy{Algorithm: CollapsingLog, Limit: 5, Window: time.Microsecond},
			State{Fields: []int64{2*sec + ms/2, 4, 2}, Log: []int64{1999, 1, 2000, 3}}, "outside the window"},
	}
	for _, tt := range tests {
		checkImport(t, tt.p, tt.st, tt.want)
		if l, k, err := importState(t, tt.p, tt.st); err == nil {
			if back, _ := l.ExportKey(k); !sameState(back, tt.st) {
				t.Errorf("%s: %v reads back as %v", tt.p, tt.st, back)
			}
		}
	}
}
