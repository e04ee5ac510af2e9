package model

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

// bruteForcePeak is the largest total cost with release time in (t − w, t]
// over every t, by trying every release as the window's end.
func bruteForcePeak(xs []passage, w time.Duration) (peak int64, at time.Duration) {
	for _, end := range xs {
		var sum int64
		for _, x := range xs {
			if x.at > end.at-w && x.at <= end.at {
				sum += x.cost
			}
		}
		if sum > peak || (sum == peak && end.at < at) {
			peak, at = sum, end.at
		}
	}
	return peak, at
}

func TestPeakTrackerMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial := range 300 {
		w := time.Duration(1+rng.IntN(50)) * time.Millisecond
		var p peakTracker
		p.window = w
		var releases []passage
		at := time.Duration(0)
		n := 1 + rng.IntN(60)
		for range n {
			at += time.Duration(rng.IntN(20)) * time.Millisecond
			delay := time.Duration(0)
			if rng.IntN(3) == 0 {
				delay = time.Duration(rng.IntN(40)) * time.Millisecond
			}
			cost := int64(1 + rng.IntN(4))
			p.admit(at, delay, cost, 0)
			releases = append(releases, passage{at + delay, cost})
		}
		// Mid-way, at or after the last admission (as peakBy requires) but
		// while delayed requests may still wait: peakBy counts only what
		// was released by then, and leaves p alone.
		cut := at + time.Duration(rng.IntN(30))*time.Millisecond
		var early []passage
		for _, x := range releases {
			if x.at <= cut {
				early = append(early, x)
			}
		}
		before := p.peak
		wantPeak, wantAt := bruteForcePeak(early, w)
		if got, gotAt := p.peakBy(cut); got != wantPeak || gotAt != wantAt {
			t.Fatalf("trial %d: peakBy(%v) = %d at %v, brute force %d at %v", trial, cut, got, gotAt, wantPeak, wantAt)
		}
		wantPeak, wantAt = bruteForcePeak(releases, w)
		gotPeak, gotAt := p.peakBy(endOfTime)
		if gotPeak != wantPeak || gotAt != wantAt {
			t.Fatalf("trial %d: peak %d at %v, brute force %d at %v", trial, gotPeak, gotAt, wantPeak, wantAt)
		}
		if p.peak != before {
			t.Fatalf("trial %d: peakBy changed the tracker", trial)
		}
	}
}

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

func TestDefaultPeakWindow(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want time.Duration
	}{
		{"  - {name: a, algorithm: fixed-window, limit: 5, window: 60s}\n  - {name: b, algorithm: token-bucket, capacity: 5, rate: 1/h}\n", time.Minute},
		{"  - {name: b, algorithm: token-bucket, capacity: 5, rate: 1/500ms}\n  - {name: c, algorithm: gcra, burst: 5, rate: 3/2s}\n", 2 * time.Second},
	} {
		s := parse(t, "title: t\nlimiters:\n"+c.yaml)
		if got := DefaultPeakWindow(LanesOf(s)); got != c.want {
			t.Errorf("%s: %v, want %v", c.yaml, got, c.want)
		}
	}
}

func TestCheckReportsWhatFailed(t *testing.T) {
	s := parse(t, `title: t
duration: 10s
limiters:
  - {name: fixed, algorithm: fixed-window, limit: 2, window: 1s}
traffic:
  - {at: 0s, count: 3}
  - {at: 1s, count: 1}
expect:
  - {lane: fixed, until: 1s, admitted: 2, rejected: 1}
  - {lane: fixed, until: 1s, admitted: 3, why: "wrong on purpose"}
  - {lane: fixed, at: 1s, outcome: rejected}
  - {lane: fixed, peak: 3, peak_window: 2s}
  - {lane: fixed, at: 5s, outcome: allowed}
`)
	got := checkErrors(t, s)
	want := []string{
		"expected fixed until 1s: admitted 3; got admitted 2 (wrong on purpose)",
		"got the request at 1s (key default) was allowed: window [1s, 2s): count 0 + cost 1 = 1 ≤ limit 2 → allowed",
		"no request selected",
	}
	if len(got) != len(want) {
		t.Fatalf("failures:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) || !strings.HasPrefix(got[i], "test.yaml:") {
			t.Errorf("failure %d:\n got %s\nwant it to contain %q", i, got[i], want[i])
		}
	}
}

// checkErrors runs Check on s and returns its failures as they print.
func checkErrors(t *testing.T, s *scenarios.Scenario) []string {
	t.Helper()
	failures, err := Check(s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range failures {
		got = append(got, f.Error())
	}
	return got
}
