//go:build !race

package ui

// raceDetector is whether the tests run under the race detector, which
// makes them 5 to 20 times slower: what measures time is then skipped.
const raceDetector = false
