package model

import "time"

// jitterSalt is what scenarios.JitterDraw computes for a request before
// its attempt's number: SplitMix64 over the seed, the client (its index),
// the first arrival and the rank. A lane computes it once a request, not
// once an attempt, and jitterDraw finishes the draw for attempt n:
// jitterDraw(jitterSalt(seed, c, first, rank), n) is
// scenarios.JitterDraw(seed, c, first, rank, n), bit for bit
// (TestJitterSaltIsJitterDraw).
func jitterSalt(seed uint64, c int, first time.Duration, rank int) uint64 {
	return splitmix(splitmix(splitmix(seed^uint64(c))^uint64(first)) ^ uint64(rank))
}

// jitterDraw is the draw of attempt n of the request whose salt is salt.
func jitterDraw(salt uint64, n int) uint64 { return splitmix(salt ^ uint64(n)) }

// splitmix is SplitMix64's step and finaliser, as scenarios draws it.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
