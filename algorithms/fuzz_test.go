package algorithms

import (
	"math/bits"
	"testing"
	"time"
)

// The fuzz targets build a valid policy from three numbers and a trace from
// bytes, then run checkTrace: no panic, every decision consistent and equal
// to the reference model, the algorithm's bound, exact retry-afters and
// sound snapshots; GCRA also decides and shows its balance as the token
// bucket. Their seeds, a few policies of every size and the examples and
// edges of each algorithm's description, run as ordinary tests.

// pick maps x to [1, 2^maxBits], small values being as likely as large.
func pick(x uint64, maxBits uint) int64 {
	lg := uint(x&63) % (maxBits + 1)
	return 1 + int64((x>>6)&(1<<lg-1))
}

// fuzzPolicy builds a valid policy for alg, shrinking the period or window
// until the products fit.
func fuzzPolicy(alg Algorithm, a, b, c uint64) Policy {
	size := pick(a, 40)
	switch alg {
	case FixedWindow, SlidingLog, SlidingCounter:
		w := min(pick(b, 62), maxScaled/size)
		p := Policy{Algorithm: alg, Limit: size}
		if alg == SlidingCounter {
			w = min(w, maxScaled/2)
			// c picks the sub-windows, 1 to 1000, half the time 1 (left out).
			if c&(1<<12) != 0 {
				p.SubWindows = min(pick(c>>13, 10), MaxSubWindows)
				w = max(w/p.SubWindows, 1) * p.SubWindows
			}
		}
		p.Window = time.Duration(w)
		return p
	case IntervalBucket:
		// c's low bits give tokens_per_fill, its top bit starts_empty.
		every := min(pick(b, 62), maxScaled/size)
		return Policy{Algorithm: alg, Capacity: size, TokensPerFill: pick(c, 40), FillInterval: time.Duration(every), StartsEmpty: c>>63 == 1}
	}
	per := min(pick(b, 62), maxScaled/size)
	p := Policy{Algorithm: alg, Rate: Rate{N: pick(c, 31), Per: time.Duration(per)}}
	setSize(&p, size)
	if alg == LeakyBucket {
		p.Rate.Per = min(p.Rate.Per, time.Duration(maxScaled/(size+1)))
	}
	if alg == TokenBucket {
		p.StartsEmpty = c>>63 == 1 // pick reads c's low 37 bits only
	}
	return p
}

// fuzzSeed is the three numbers from which fuzzPolicy builds p, a policy
// of one of the fuzzed algorithms within its bounds.
func fuzzSeed(p Policy) (a, b, c uint64) {
	// enc(v) is x such that pick(x, bits) = v, for 1 ≤ v ≤ 2^bits.
	enc := func(v int64) uint64 { return uint64(v-1)<<6 | uint64(bits.Len64(uint64(v-1))) }
	switch p.Algorithm {
	case FixedWindow, SlidingLog, SlidingCounter:
		a, b = enc(p.Limit), enc(int64(p.Window))
		if p.SubWindows != 0 {
			c = 1<<12 | enc(p.SubWindows)<<13
		}
	case IntervalBucket:
		a, b, c = enc(p.Capacity), enc(int64(p.FillInterval)), enc(p.TokensPerFill)
	default:
		_, size := p.sizeParam()
		a, b, c = enc(size), enc(int64(p.Rate.Per)), enc(p.Rate.N)
	}
	if p.StartsEmpty {
		c |= 1 << 63
	}
	return a, b, c
}

// fuzzTrace reads requests from data, three bytes each: how to step the
// time, by how much, and the cost. Times stay in [0, 2^62).
func fuzzTrace(p Policy, data []byte) []req {
	const maxTime = 1<<62 - 1
	u := int64(unit(p))
	var reqs []req
	var t int64
	for len(data) >= 3 && len(reqs) < 200 {
		g, m, c := data[0], int64(data[1]), data[2]
		data = data[3:]
		var step int64
		switch g % 8 {
		case 1:
			step = m
		case 2:
			step = m * max(1, u/16)
		case 3:
			step = min(m, maxTime/u) * u
		case 4:
			step = int64(p.Horizon()) + m
		case 5:
			step = int64(1) << (m % 63)
		case 6:
			step = -m * max(1, u/16) // earlier than the last request
		case 7:
			step = m << (g >> 3)
		}
		t = min(max(t+min(step, maxTime-t), 0), maxTime)
		cost := int64(1)
		switch c % 8 {
		case 0:
			cost = p.MaxCost()
		case 1:
			cost = p.MaxCost() + 1
		case 2:
			cost = 1 + int64(c>>3)%p.MaxCost()
		case 3:
			cost = 1 << 41 // above every MaxCost
		}
		reqs = append(reqs, req{time.Duration(t), cost})
	}
	return reqs
}

func fuzzAlgorithm(f *testing.F, alg Algorithm) {
	// Small policies on busy traces, and the extremes of Validate.
	busy := []byte{0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 1, 0, 3, 1, 0, 0, 0, 1, 6, 3, 0, 1, 7, 0, 4, 0, 8, 3, 2, 0, 0, 0, 0, 0, 0, 0}
	f.Add(uint64(3<<6|2), uint64(1000<<6|10), uint64(2<<6|2), busy)
	f.Add(uint64(10<<6|4), uint64(1<<6|1), uint64(3<<6|2), busy)
	f.Add(uint64(1<<6|1), uint64(999<<6|10), uint64(7<<6|3), busy)
	f.Add(uint64(63), uint64(63), uint64(63), busy) // 2^40, 2^62 shrunk, 2^31
	f.Add(uint64(0), uint64(63), uint64(0), busy)   // size 1, period 2^62
	f.Add(uint64(1<<6|1), uint64(62), uint64(62), []byte{5, 61, 0, 5, 61, 0, 5, 61, 1, 4, 0, 2, 0, 0, 0})
	f.Add(uint64(5<<6|3), uint64(3<<6|2), uint64(0), []byte{3, 200, 0, 6, 255, 2, 1, 255, 10, 7, 255, 3, 0, 0, 8})
	f.Add(uint64(10<<6|4), uint64(1000<<6|10), uint64(1<<63|3<<6|2), busy) // starts empty, where a policy takes it
	// The algorithm's examples and the edges of its arithmetic, from its
	// description.
	for _, p := range describedPolicies(alg) {
		a, b, c := fuzzSeed(p)
		if got := fuzzPolicy(alg, a, b, c); got != p {
			f.Fatalf("the seed of %v builds %v", p, got)
		}
		f.Add(a, b, c, busy)
	}
	f.Fuzz(func(t *testing.T, a, b, c uint64, data []byte) {
		p := fuzzPolicy(alg, a, b, c)
		if err := p.Validate(); err != nil {
			t.Fatalf("fuzzPolicy made an invalid policy %+v: %v", p, err)
		}
		reqs := fuzzTrace(p, data)
		if err := checkTrace(p, reqs, nil); err != nil {
			t.Fatalf("%+v: %v\ntrace %v", p, err, reqs)
		}
		if alg == GCRA {
			if err := checkGCRAEqualsTokenBucket(p, reqs); err != nil {
				t.Fatalf("%v\ntrace %v", err, reqs)
			}
		}
	})
}

func FuzzFixedWindow(f *testing.F)    { fuzzAlgorithm(f, FixedWindow) }
func FuzzSlidingLog(f *testing.F)     { fuzzAlgorithm(f, SlidingLog) }
func FuzzSlidingCounter(f *testing.F) { fuzzAlgorithm(f, SlidingCounter) }
func FuzzTokenBucket(f *testing.F)    { fuzzAlgorithm(f, TokenBucket) }
func FuzzGCRA(f *testing.F)           { fuzzAlgorithm(f, GCRA) }
func FuzzLeakyBucket(f *testing.F)    { fuzzAlgorithm(f, LeakyBucket) }
func FuzzIntervalBucket(f *testing.F) { fuzzAlgorithm(f, IntervalBucket) }

// FuzzParseRate: ParseRate never panics, and what it accepts is valid and
// round-trips through String.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"2/s", "120/min", "1/500ms", "3/2s", "0/s", "1/0s", "9223372036854775807/h", "1/-1ns", "/", "1/1m30s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("ParseRate(%q) = %v, invalid: %v", s, r, err)
		}
		if back, err := ParseRate(r.String()); err != nil || back != r {
			t.Fatalf("ParseRate(%q) = %v; String %q parses as %v, %v", s, r, r.String(), back, err)
		}
	})
}
