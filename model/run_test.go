package model

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

func TestShaperPeakCountsReleasesNotArrivals(t *testing.T) {
	s := parse(t, `title: t
limiters:
  - {name: policer, algorithm: token-bucket, capacity: 10, rate: 2/s}
  - {name: shaper,  algorithm: leaky-bucket, queue: 10,    rate: 2/s}
traffic:
  - {at: 0s, count: 11}
`)
	stats, err := Run(s, Options{PeakWindow: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The policer passes its 10 tokens' worth at t=0, all at once.
	if stats[0].Admitted != 10 || stats[0].Peak != 10 || stats[0].PeakAt != 0 {
		t.Fatalf("policer: %+v", stats[0])
	}
	// The shaper admits all 11 but releases one every 0.5s: at most 2 in any 1s.
	if stats[1].Admitted != 11 || stats[1].Delayed != 10 || stats[1].Peak != 2 || stats[1].PeakAt != 500*time.Millisecond {
		t.Fatalf("shaper: %+v", stats[1])
	}
	l := newLab(t, s)
	l.Seek(0)
	if got := l.Stats(1).Peak; got != 1 {
		t.Fatalf("shaper at t=0: peak %d, want 1 (the rest are still queued)", got)
	}
	l.Seek(l.End())
	if got := l.Stats(1); got.Peak != 2 {
		t.Fatalf("shaper at the end: %+v", got)
	}
}

func TestRunUntilStopsBeforeIt(t *testing.T) {
	s := parse(t, "title: t\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}\n"+
		"traffic:\n  - {every: 1s, until: 10s}\n")
	var n int
	stats, err := Run(s, Options{Until: 4 * time.Second}, func(Record) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 || stats[0].Requests() != 4 {
		t.Fatalf("until 4s: %d records, %d requests; want the 4 at 0s..3s", n, stats[0].Requests())
	}
}

// yearWindow is the blow-up, scaled to n requests: a fixed window
// of 8784h (so the default peak window is a year) beside seven token
// buckets that admit everything, so that every admission stays inside the
// peak window of seven lanes. Regular traffic is one request every
// 8000h/20M = 1.44s; irregular is five periodic keys whose merged gaps
// never settle into one step (about 0.9 n requests).
func yearWindow(b testing.TB, n int, traffic string, expect string) *scenarios.Scenario {
	var y strings.Builder
	y.WriteString("title: a year's peak window\nlimiters:\n  - {name: fixed, algorithm: fixed-window, limit: 100, window: 8784h}\n")
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&y, "  - {name: b%d, algorithm: token-bucket, capacity: 20000000, rate: 1000/s}\n", i)
	}
	span := time.Duration(n) * 1440 * time.Millisecond
	y.WriteString("traffic:\n")
	switch traffic {
	case "merged":
		// 0.63 requests per second in all: about 0.9 n requests.
		for i, every := range []string{"18s", "12.75s", "8.25s", "7.25s", "4.25s"} {
			fmt.Fprintf(&y, "  - {every: %s, from: %dms, until: %s, key: k%d}\n", every, i, algorithms.FormatDuration(span), i)
		}
	case "uneven":
		// A burst whose spread is no multiple of its count: gaps of 1.44s
		// and 1.44s + 1ns in an irregular pattern.
		fmt.Fprintf(&y, "  - {at: 0s, count: %d, spread: %s}\n", n, algorithms.FormatDuration(span+time.Duration(n)*39/100))
	default:
		fmt.Fprintf(&y, "  - {at: 0s, count: %d, spread: %s}\n", n, algorithms.FormatDuration(span))
	}
	y.WriteString(expect)
	s, err := scenarios.Parse("year.yaml", []byte(y.String()))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkRunYearPeakWindow: `run --format summary` over 2,000,000
// requests whose peak window (a year) holds every admission of seven lanes.
// The peak trackers' memory no longer grows with the window: one run for
// regular traffic, a few bytes per passing instant for irregular traffic.
func BenchmarkRunYearPeakWindow(b *testing.B) {
	for _, traffic := range []string{"regular", "merged", "uneven"} {
		b.Run(traffic, func(b *testing.B) {
			s := yearWindow(b, 2_000_000, traffic, "")
			reportPeakHeap(b, func() {
				if _, err := Run(s, Options{}, nil); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
