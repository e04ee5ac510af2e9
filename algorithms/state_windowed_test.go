package algorithms

import (
	"testing"
	"time"
)

// TestWindowStatesRejected: states no run makes are refused with an error.
func TestWindowStatesRejected(t *testing.T) {
	fixed := Policy{Algorithm: FixedWindow, Limit: 5, Window: 10 * time.Second}
	counter := Policy{Algorithm: SlidingCounter, Limit: 5, Window: 10 * time.Second}
	subs := Policy{Algorithm: SlidingCounter, Limit: 5, Window: 10 * time.Second, SubWindows: 2}
	resetting := Policy{Algorithm: ResettingWindow, Limit: 5, Window: 10 * time.Second}
	firstHit := Policy{Algorithm: FirstHitWindow, Limit: 5, Window: 10 * time.Second}
	s := int64(time.Second)
	for _, c := range []struct {
		p    Policy
		st   State
		want string // "" for a state that is accepted
	}{
		{fixed, State{Fields: []int64{5, 5, 15 * s}}, ""},
		{fixed, State{Fields: []int64{6, 0, 15 * s}}, "out of range"},
		{fixed, State{Fields: []int64{0, -1, 15 * s}}, "out of range"},
		{fixed, State{Fields: []int64{0, 0, -1}}, "out of range"},
		{fixed, State{Fields: []int64{0, 1, 5 * s}}, "first window"},
		{fixed, State{Fields: []int64{0, 0}}, "2 fields, want 3"},
		{counter, State{Fields: []int64{2, 3, 10 * s}}, ""},
		{counter, State{Fields: []int64{2, 4, 10 * s}}, "estimate"},
		{counter, State{Fields: []int64{2, 5, 16 * s}}, ""},
		{counter, State{Fields: []int64{2, 5, 13 * s}}, "estimate"},
		{subs, State{Fields: []int64{12 * s}}, ""},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{1, 2, 2}}, ""},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{3, 2, 2}}, "estimate"},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{0, 4, 2}}, "estimate"},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{0, 2}}, "want none or 3"},
		{subs, State{Fields: []int64{12 * s}, Log: []int64{0, -1, 2}}, "out of range"},
		{subs, State{Fields: []int64{3 * s}, Log: []int64{1, 0, 2}}, "before t = 0"},
		{subs, State{Fields: []int64{-1}}, "before t = 0"},
		{resetting, State{Fields: []int64{7, 12 * s, 1 * s, 5 * s}}, ""},
		{resetting, State{Fields: []int64{0, 0, 0, 5 * s}}, ""},
		{resetting, State{Fields: []int64{3, 5 * s, 1 * s, 5 * s}}, "an expired key"},
		{resetting, State{Fields: []int64{0, 12 * s, 1 * s, 5 * s}}, "out of range"},
		{resetting, State{Fields: []int64{7, 16 * s, 1 * s, 5 * s}}, "out of range"},
		{resetting, State{Fields: []int64{7, 12 * s, 3 * s, 5 * s}}, "out of range"},
		{resetting, State{Fields: []int64{7, 12 * s, 1 * s, -1}}, "before t = 0"},
		{firstHit, State{Fields: []int64{7, 12 * s, 5 * s}}, ""},
		{firstHit, State{Fields: []int64{0, 0, 5 * s}}, ""},
		{firstHit, State{Fields: []int64{3, 5 * s, 5 * s}}, "an ended window"},
		{firstHit, State{Fields: []int64{0, 12 * s, 5 * s}}, "out of range"},
		{firstHit, State{Fields: []int64{7, 16 * s, 5 * s}}, "out of range"},
		{firstHit, State{Fields: []int64{7, 12 * s, -1}}, "before t = 0"},
	} {
		checkImport(t, c.p, c.st, c.want)
	}
}
