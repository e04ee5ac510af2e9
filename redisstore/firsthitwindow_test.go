package redisstore

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestFirstHitWindowEdges: the window's end, on every server: a window
// ends at exactly its first request + window, refused requests count but
// move no end, a cost above the limit counts nothing and starts no window,
// and an ended window is written as none.
func TestFirstHitWindowEdges(t *testing.T) {
	sec := time.Second
	p := algorithms.Policy{Algorithm: algorithms.FirstHitWindow, Limit: 2, Window: 10 * sec}
	trace := []request{
		{3 * sec, "k", 3},  // above the limit with no window: starts none
		{4 * sec, "k", 1},  // the first hit: window 4s to 14s
		{5 * sec, "k", 1},  // count 2
		{6 * sec, "k", 1},  // refused, counted: 3
		{13 * sec, "k", 1}, // refused, counted: 4, the end still 14s
		{14 * sec, "k", 3}, // above the limit at the end: nothing counted
		{12 * sec, "k", 1}, // late: decided at 14s, a new window to 24s
		{24 * sec, "k", 2}, // at the end: a new window
		{30 * sec, "k", 1},
		{34 * sec, "k", 2},
	}
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			replay(t, open(t, srv), "edges", p, trace)
		})
	}
}
