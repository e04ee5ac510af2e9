package main

import (
	"math"
	"math/rand/v2"
)

// newRand is the generator's one source of randomness: a PCG seeded from
// the -seed flag alone, so the same flags give the same bytes on every
// machine and Go release that keeps math/rand/v2's PCG stable (it
// promises to).
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// poisson draws how many arrivals a second holds when mean arrive on
// average: Knuth's product of uniforms for small means, where the exact
// shape matters (a quiet second is often empty), and a rounded normal for
// large ones, where it does not and the product would take mean steps.
func poisson(r *rand.Rand, mean float64) int {
	switch {
	case mean <= 0:
		return 0
	case mean < 30:
		limit := math.Exp(-mean)
		n, p := 0, r.Float64()
		for p > limit {
			n++
			p *= r.Float64()
		}
		return n
	}
	n := math.Round(mean + math.Sqrt(mean)*r.NormFloat64())
	if n < 0 {
		return 0
	}
	return int(n)
}

// mix scrambles x (splitmix64's finaliser): a client's fixed traits are
// read from mix(seed, client) so that they need no memory per client and
// stay the same for every one of its requests.
func mix(seed, x uint64) uint64 {
	z := seed + x*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
