//go:build !race

package redisstore

// raceSlowdown scales Timeout: 1 without the race detector (see
// race_on.go).
const raceSlowdown = 1

// raceEnabled is whether the race detector is on (see race_on.go).
const raceEnabled = false
