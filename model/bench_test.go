package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/scenarios"
)

// millionRequests is 1,000,000 requests, one per millisecond for 1000 s, on
// six lanes of every algorithm: the scenario of the README's figures.
func millionRequests(b *testing.B) *scenarios.Scenario {
	s, err := scenarios.Load("../tools/million.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSeekMillion seeks to random times in a 1,000,000-request timeline.
func BenchmarkSeekMillion(b *testing.B) {
	l := newLab(b, millionRequests(b))
	l.Seek(l.End()) // compute every outcome once, as a learner's first play would
	rng := rand.New(rand.NewPCG(1, 1))
	end := int64(l.End())
	b.ResetTimer()
	for b.Loop() {
		l.Seek(time.Duration(rng.Int64N(end)))
	}
}

// BenchmarkStepMillion steps the clock by 100ms through the same timeline,
// as playing does.
func BenchmarkStepMillion(b *testing.B) {
	l := newLab(b, millionRequests(b))
	l.Seek(l.End())
	l.Seek(0)
	b.ResetTimer()
	for b.Loop() {
		if l.Now() == l.End() {
			l.Seek(0)
		}
		l.Step(100 * time.Millisecond)
	}
}

// BenchmarkRunSummaryMillion streams 1,000,000 requests through 6 lanes, as
// `ratelab run --format summary` does (one op = the whole run).
func BenchmarkRunSummaryMillion(b *testing.B) {
	s := millionRequests(b)
	for b.Loop() {
		if _, err := Run(s, Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildMillion builds the lab and computes every decision once.
func BenchmarkBuildMillion(b *testing.B) {
	s := millionRequests(b)
	for b.Loop() {
		l := newLab(b, s)
		l.Seek(l.End())
	}
}

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
