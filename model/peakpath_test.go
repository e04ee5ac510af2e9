package model

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// referencePeak is the largest total cost of the admitted requests in recs
// whose passage (arrival + delay) is at or before by, inside any window (t −
// w, t], and the first t reaching it: a sort and a two-pointer sweep, with
// nothing shared with peakTracker.
func referencePeak(recs []Record, lane int, w, by time.Duration) (peak int64, at time.Duration) {
	var xs []passage
	for _, r := range recs {
		if r.Lane != lane || !r.Decision.Outcome.Admitted() {
			continue
		}
		if x := (passage{r.Request.At + r.Decision.Delay, r.Request.Cost}); x.at <= by {
			xs = append(xs, x)
		}
	}
	slices.SortStableFunc(xs, func(a, b passage) int { return cmp.Compare(a.at, b.at) })
	var sum int64
	lo := 0
	for hi := 0; hi < len(xs); {
		end := xs[hi].at
		for ; hi < len(xs) && xs[hi].at == end; hi++ {
			sum += xs[hi].cost
		}
		for xs[lo].at <= end-w {
			sum -= xs[lo].cost
			lo++
		}
		if sum > peak {
			peak, at = sum, end
		}
	}
	return peak, at
}

// A leaky bucket's delayed request whose release came before a checkpoint,
// but after the lane's last admission, has not passed the peak tracker yet:
// only rejections followed it. Restoring that checkpoint must leave it
// pending, so that it still counts when it passes.
func TestPeakAfterRestoreCountsAReleaseFollowedOnlyByRejections(t *testing.T) {
	// 2044 spaced requests from 10s, then at T0 = 20450s: one allowed, one
	// delayed to T0+1s, two of cost 2 rejected (at T0+0.5s and T0+1.5s):
	// that is request 2047, the last before the checkpoint at 2048. At
	// T0+10s one more is admitted. Within 2s, T0 and T0+1s pass: the peak
	// is 2.
	s := parse(t, `title: t
limiters:
  - {name: shaper, algorithm: leaky-bucket, queue: 1, rate: 1/s}
traffic:
  - {every: 10s, from: 10s, until: 20450s}
  - {at: 20450s, count: 2}
  - {at: 20450.5s, cost: 2}
  - {at: 20451.5s, cost: 2}
  - {at: 20460s}
`)
	const window = 2 * time.Second
	recs, _ := referenceWindow(t, s, window)
	if n := len(recs); n != CheckpointEvery+1 {
		t.Fatalf("%d requests, want %d", n, CheckpointEvery+1)
	}
	for i, want := range map[int]algorithms.Outcome{2044: algorithms.Allowed, 2045: algorithms.Delayed, 2046: algorithms.Rejected, 2047: algorithms.Rejected} {
		if got := recs[i].Decision.Outcome; got != want {
			t.Fatalf("request %d: %s, want %s", i, got, want)
		}
	}
	wantPeak, wantAt := referencePeak(recs, 0, window, endOfTime)
	if wantPeak != 2 || wantAt != 20451*time.Second {
		t.Fatalf("reference peak %d at %v, want 2 at 20451s", wantPeak, wantAt)
	}
	l, err := New(s, window)
	if err != nil {
		t.Fatal(err)
	}
	// From 0, where no request has come, the end is more than a checkpoint
	// away: the seek restores the checkpoint at 2048 and replays one request.
	l.Seek(l.End())
	if got := l.Stats(0); got.Peak != wantPeak || got.PeakAt != wantAt {
		t.Fatalf("after a restore: peak %d at %v, want %d at %v", got.Peak, got.PeakAt, wantPeak, wantAt)
	}
}

// referenceWindow is reference with a chosen peak window.
func referenceWindow(t testing.TB, s *scenarios.Scenario, window time.Duration) (recs []Record, stats []Stats) {
	t.Helper()
	stats, err := Run(s, Options{PeakWindow: window}, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs, stats
}
