//go:build !race

package model

// raceDetector is whether the tests run under the race detector, which
// makes them 5 to 20 times slower: the heaviest cases then run shorter.
const raceDetector = false
