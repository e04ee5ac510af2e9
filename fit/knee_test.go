package fit

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

func TestKnee(t *testing.T) {
	rate := func(n int64) algorithms.Rate { return algorithms.Rate{N: n, Per: time.Second} }
	pts := func(sizes ...int64) []Point {
		rates := []int64{1, 2, 3, 5, 10}
		var ps []Point
		for i, s := range sizes {
			ps = append(ps, Point{Rate: rate(rates[i]), Size: s, Feasible: s > 0})
		}
		return ps
	}
	cases := []struct {
		name   string
		points []Point
		want   int
	}{
		// Scaled: x = (r − 1) / 9, y = (s − 12) / 88; the line x + y = 1.
		// 1 − x − y: 2/s 1 − 1/9 − 28/88 ≈ 0.57, 3/s 1 − 2/9 − 8/88 ≈ 0.69,
		// 5/s 1 − 4/9 − 3/88 ≈ 0.52: the knee is 3/s.
		{"convex", pts(100, 40, 20, 15, 12), 2},
		// A straight frontier: every point on the line; the smallest size.
		{"straight", pts(50, 40, 30, 10, 0)[:4], 3},
		// Flat: the earliest of the smallest size.
		{"flat", pts(7, 7, 7), 0},
		{"one", pts(7), 0},
		// Infeasible points are skipped: of 2/s, 3/s and 5/s (x scaled
		// over 2..5: 0, 1/3, 1; y: 1, 1/4, 0), 3/s is off the line.
		{"infeasible skipped", pts(0, 40, 20, 12), 2},
		{"none feasible", pts(0, 0), -1},
	}
	for _, c := range cases {
		if got := knee(c.points, ByRate); got != c.want {
			t.Errorf("%s: knee %d, want %d", c.name, got, c.want)
		}
	}
	// By window, rising: 1s 10, 10s 12, 1m 60, 10m 61. Scaled over 1s..10m
	// and 10..61: (0, 0), (9/599, 2/51), (59/599, 50/51), (1, 1): the line
	// y = x; 1m is farthest (50/51 − 59/599 ≈ 0.88).
	var ws []Point
	for i, w := range []time.Duration{time.Second, 10 * time.Second, time.Minute, 10 * time.Minute} {
		ws = append(ws, Point{Window: w, Size: []int64{10, 12, 60, 61}[i], Feasible: true})
	}
	if got := knee(ws, ByWindow); got != 2 {
		t.Errorf("by window: knee %d, want 2", got)
	}
}
