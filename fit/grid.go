package fit

import (
	"math/bits"
	"slices"
	"time"

	"ratelab/algorithms"
)

// ladder is the round rates a user would type, slowest first: the rate grid
// is taken from it.
var ladder = func() []algorithms.Rate {
	var rs []algorithms.Rate
	for _, n := range []int64{1, 2, 3, 5, 10, 20, 30} {
		rs = append(rs, algorithms.Rate{N: n, Per: time.Hour})
	}
	for _, n := range []int64{1, 2, 3, 5, 10, 15, 20, 30, 40, 50} {
		rs = append(rs, algorithms.Rate{N: n, Per: time.Minute})
	}
	// Per second: 1 to 8, then 10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80
	// times each power of ten, up to a million.
	for n := int64(1); n <= 8; n++ {
		rs = append(rs, algorithms.Rate{N: n, Per: time.Second})
	}
	for scale := int64(1); scale <= 10_000; scale *= 10 {
		for _, m := range []int64{10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80} {
			rs = append(rs, algorithms.Rate{N: m * scale, Per: time.Second})
		}
	}
	return append(rs, algorithms.Rate{N: 1_000_000, Per: time.Second})
}()

// gridPoints is how many rates the grid chosen from the traffic has at
// most.
const gridPoints = 12

// cmpRate compares two rates' values exactly: −1 if a is slower than b, 0
// if equal (1/s and 60/min), +1 if faster.
func cmpRate(a, b algorithms.Rate) int {
	return cmp128(mul128(a.N, int64(b.Per)), mul128(b.N, int64(a.Per)))
}

// u128 is an unsigned 128-bit product, high word first.
type u128 struct{ hi, lo uint64 }

// mul128 is a × b for a, b ≥ 0.
func mul128(a, b int64) u128 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return u128{hi, lo}
}

func cmp128(a, b u128) int {
	if a.hi != b.hi {
		return cmpU(a.hi, b.hi)
	}
	return cmpU(a.lo, b.lo)
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// rateGrid is the rates a fit of traffic sv fits at: the ladder's round
// rates from the busiest state's mean rate (the largest ladder rate not
// above it) up to its peak over an aligned 10ms (the smallest ladder rate
// not below it, in requests a second), at most gridPoints of them evenly
// picked with both ends kept, then extra, slowest first, a rate of equal
// value listed once. Below the mean rate a bucket must hold about all the
// traffic, and past the peak over 10ms it need hold little more than what
// comes at one instant: the frontier lies between.
func rateGrid(sv survey, extra []algorithms.Rate) []algorithms.Rate {
	var rates []algorithms.Rate
	if sv.requests > 0 {
		span := int64(sv.busiestLast - sv.busiestFirst)
		lo := 0
		if span > 0 {
			// The largest ladder rate r with r ≤ cost / span: r.N × span ≤ cost × r.Per.
			for i, r := range ladder {
				if cmp128(mul128(r.N, span), mul128(sv.busiestCost, int64(r.Per))) <= 0 {
					lo = i
				}
			}
		}
		hi := len(ladder) - 1
		for i := len(ladder) - 1; i >= 0; i-- {
			// The smallest ladder rate r with r ≥ peak / 10ms.
			if r := ladder[i]; cmp128(mul128(r.N, int64(peakWindow)), mul128(sv.peak, int64(r.Per))) >= 0 {
				hi = i
			}
		}
		if span <= 0 {
			lo = max(0, hi-gridPoints+1) // one instant: no mean rate to start from
		}
		lo = min(lo, hi)
		if hi-lo < 2 { // too few to draw a frontier: widen it below
			lo = max(0, hi-2)
		}
		rates = spread(ladder[lo:hi+1], gridPoints)
	}
	for _, r := range extra {
		if !slices.ContainsFunc(rates, func(q algorithms.Rate) bool { return cmpRate(q, r) == 0 }) {
			rates = append(rates, r)
		}
	}
	slices.SortStableFunc(rates, cmpRate)
	return rates
}

// spread is at most n of rs, evenly picked by index with both ends kept.
func spread(rs []algorithms.Rate, n int) []algorithms.Rate {
	if len(rs) <= n {
		return slices.Clone(rs)
	}
	out := make([]algorithms.Rate, n)
	for i := range n {
		out[i] = rs[i*(len(rs)-1)/(n-1)]
	}
	return out
}

// defaultWindows are the windows the windowed algorithms are fitted at,
// those the traffic spans.
var defaultWindows = []time.Duration{time.Second, 10 * time.Second, time.Minute, 10 * time.Minute, time.Hour}

// windowGrid is the default windows no longer than the traffic's span
// (1s if none is), then extra, in increasing order, each once.
func windowGrid(sv survey, extra []time.Duration) []time.Duration {
	var ws []time.Duration
	for _, w := range defaultWindows {
		if w <= sv.last-sv.first {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		ws = append(ws, time.Second)
	}
	ws = append(ws, extra...)
	slices.Sort(ws)
	return slices.Compact(ws)
}
