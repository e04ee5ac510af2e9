//go:build race

package redisstore

// raceSlowdown is how much slower the race detector makes a call to an
// in-process server (the tests' miniredis runs its Lua in Go, every
// memory access of it checked): about tenfold, for the scripts that walk
// a thousand sub-windows. Timeout is scaled by it, so that a deadline
// missed is a server's fault, not the detector's cost.
const raceSlowdown = 10

// raceEnabled is whether the race detector is on: the tests run their
// heaviest cases shorter then.
const raceEnabled = true
