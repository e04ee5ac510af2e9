package scenarios

import (
	"math"
	"math/rand/v2"
	"time"
)

// poissonStream is added to a poisson item's index among the scenario's
// poisson items to make the second word of its PCG seed, so that its draws
// never share a stream with a random stagger (whose second word is an
// item's position in the file, below 2^32).
const poissonStream = 1 << 32

// onTime is the length of the on-phases of t within [From, Until): all of
// it without On and Off.
func (t *Traffic) onTime() time.Duration {
	span := t.Until - t.From
	if t.On == 0 {
		return span
	}
	period := t.On + t.Off
	return (span/period)*t.On + min(span%period, t.On)
}

// arrivals yields t's arrival times in order, drawn from the PCG seeded
// with (seed, poissonStream + stream), until yield returns false. Gaps are
// drawn on the on-time, the on-phases laid end to end from 0: each gap is
// −ln(U) × Per / N nanoseconds rounded to the nearest whole one (halves away
// from zero), with U = 1 − Float64() in (0, 1]; an arrival is at the sum of
// the gaps so far while that sum is before onTime, and is then placed in
// its on-phase.
func (t *Traffic) arrivals(seed, stream uint64, yield func(time.Duration) bool) {
	rng := rand.New(rand.NewPCG(seed, poissonStream+stream))
	total := t.onTime()
	mean := float64(t.Rate.Per) / float64(t.Rate.N)
	var c time.Duration // on-time of the last arrival
	for {
		u := 1 - rng.Float64()
		g := math.Round(-math.Log(u) * mean)
		if g >= 1<<62 || time.Duration(g) >= total-c {
			return
		}
		c += time.Duration(g)
		at := t.From + c
		if t.On > 0 {
			at = t.From + (c/t.On)*(t.On+t.Off) + c%t.On
		}
		if !yield(at) {
			return
		}
	}
}

// draw sets t.Count and t.times to t's arrivals (see arrivals), unless
// there are more than budget of them: then it returns false with t as it
// was. It counts the arrivals before it keeps them, so that an item of far
// too many requests is refused after at most budget + 1 draws and without
// holding them.
func (t *Traffic) draw(seed, stream uint64, budget int64) bool {
	var n int64
	t.arrivals(seed, stream, func(time.Duration) bool {
		n++
		return n <= budget
	})
	if n > budget {
		return false
	}
	times := make([]time.Duration, 0, n)
	t.arrivals(seed, stream, func(at time.Duration) bool {
		times = append(times, at)
		return true
	})
	t.Count, t.times = n, times
	return true
}
