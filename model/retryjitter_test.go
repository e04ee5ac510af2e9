package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/scenarios"
)

// TestJitterSaltIsJitterDraw checks the salted draw against the scenarios'
// own, bit for bit, on edge values and at random.
func TestJitterSaltIsJitterDraw(t *testing.T) {
	type args struct {
		seed  uint64
		c     int
		first time.Duration
		rank  int
		n     int
	}
	cases := []args{
		{0, 0, 0, 0, 1},
		{1, 0, time.Second, 0, 1},
		{1, 3, time.Second, 7, 2},
		{^uint64(0), 254, scenarios.MaxTime, 1 << 30, 255},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		cases = append(cases, args{r.Uint64(), r.IntN(256), time.Duration(r.Int64N(int64(scenarios.MaxTime))), r.IntN(1 << 20), 1 + r.IntN(255)})
	}
	for _, a := range cases {
		want := scenarios.JitterDraw(a.seed, a.c, a.first, a.rank, a.n)
		if got := jitterDraw(jitterSalt(a.seed, a.c, a.first, a.rank), a.n); got != want {
			t.Fatalf("%+v: %#x, want %#x", a, got, want)
		}
	}
}
