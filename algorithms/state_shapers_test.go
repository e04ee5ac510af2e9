package algorithms

import (
	"fmt"
	"testing"
	"time"
)

// TestStateRejected: states no decision could leave are refused.
func TestStateRejected(t *testing.T) {
	cases := []struct {
		p   Policy
		st  State
		why string
	}{
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{0, 7, 0}}, "out of range"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{int64(time.Second), 0, 0}}, "out of range"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{300e6, 0, 10}, Log: []int64{10, 10, 1}}, "queue"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{300e6, 0, 10}, Log: []int64{10, 200e6, 1, 10, 100e6, 1}}, "queue"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{300e6, 0, 10}, Log: []int64{10, 200e6, 1, 10}}, "whole items"},
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, State{Fields: []int64{300e6, 0, 10}, Log: []int64{10, 400e6, 1}}, "queue"},
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: time.Second}, State{Fields: []int64{4, 0, 0}}, "out of range"},
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: time.Second}, State{Fields: []int64{1, 5, 4}}, "out of range"},
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: time.Second}, State{Fields: []int64{1, 5}}, "fields"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second, Timer: true}, State{Fields: []int64{1, 5, 4}}, "fields"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second, Timer: true}, State{Fields: []int64{-1, 5}}, "out of range"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second}, State{Fields: []int64{3e9 + 1, 5}}, "out of range"},
		{Policy{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{N: 1, Per: time.Second}}, State{Fields: []int64{4, 0}}, "out of range"},
		{Policy{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{N: 1, Per: time.Second}}, State{Fields: []int64{1, -1}}, "out of range"},
	}
	for _, c := range cases {
		checkImport(t, c.p, c.st, c.why)
	}
}

// TestStateForms: the fields a learner reads in HGETALL.
func TestStateForms(t *testing.T) {
	for _, c := range []struct {
		p    Policy
		want string
	}{
		{Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, "[next_ns next_frac last] queue [arrived at cost]"},
		{Policy{Algorithm: IntervalBucket, Capacity: 3, TokensPerFill: 1, FillInterval: time.Second}, "[tokens first last]  []"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second}, "[balance last]  []"},
		{Policy{Algorithm: EnvoyLocal, MaxTokens: 3, TokensPerFill: 1, FillInterval: time.Second, Timer: true}, "[tokens last]  []"},
		{Policy{Algorithm: WholeTokenBucket, Capacity: 3, Rate: Rate{N: 1, Per: time.Second}}, "[tokens last]  []"},
	} {
		f := c.p.StateForm()
		if got := fmt.Sprintf("%v %s %v", f.Fields, f.Log, f.Item); got != c.want {
			t.Errorf("%s: form %s, want %s", c.p, got, c.want)
		}
	}
	// The worked example: a leaky bucket of 7/s, two requests at 0: the
	// second waits for 1/7 s, next free at 2/7 s (285714285 + 5/7 ns).
	ks := NewKeys()
	l, _ := NewWithKeys(Policy{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 7, Per: time.Second}}, ks)
	l.Decide(0, "k", 1)
	l.Decide(0, "k", 1)
	st, _ := l.(StateCodec).ExportKey(ks.Key("k"))
	if got := fmt.Sprint(st); got != "{[285714285 5 0] [0 142857143 1]}" {
		t.Errorf("leaky bucket state %s", got)
	}
}
