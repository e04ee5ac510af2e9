package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkSeekYearWindow seeks to random times of a 1,000,000-request
// timeline whose peak window is a year (yearWindow: a fixed window of 8784h
// beside seven token buckets, every admission inside the window), every
// request decided. While checkpoints kept no peak window, each seek
// refilled the trackers with every admission inside the window since the
// checkpoint: 9.3 ms (regular), 11.5 ms (merged), 12.8 ms (uneven) a seek.
// Checkpoints now keep each lane's tracker where it is small (regular and
// merged traffic: 33 µs, 42 µs); the uneven burst's tracker, a bit a
// passage, is over peakKeepBytes and still refilled (12 ms).
func BenchmarkSeekYearWindow(b *testing.B) {
	for _, traffic := range []string{"regular", "merged", "uneven"} {
		b.Run(traffic, func(b *testing.B) {
			l := newLab(b, yearWindow(b, 1_000_000, traffic, ""))
			l.Seek(l.End())
			rng := rand.New(rand.NewPCG(1, 1))
			end := int64(l.End())
			for b.Loop() {
				l.Seek(time.Duration(rng.Int64N(end)))
			}
		})
	}
}
