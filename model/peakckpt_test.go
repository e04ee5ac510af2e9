package model

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"ratelab/scenarios"
)

// bothPeakPaths runs f twice: with checkpoints keeping the peak trackers
// whole where they are small, and with every tracker refilled from the
// timeline on restore (peakKeepBytes 0), so that both paths are tested
// whatever the trackers' sizes.
func bothPeakPaths(t *testing.T, f func(t *testing.T)) {
	t.Run("kept", f)
	t.Run("refilled", func(t *testing.T) {
		old := peakKeepBytes
		peakKeepBytes = 0
		defer func() { peakKeepBytes = old }()
		f(t)
	})
}

// freshStats decides every request of s at or before by with fresh lanes
// and returns their stats at by, the peak counting what passed by then.
func freshStats(t *testing.T, s *scenarios.Scenario, window, by time.Duration) []Stats {
	t.Helper()
	defs := LanesOf(s)
	ls, err := newLanes(defs, window, nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for r := range s.Requests() {
		if r.At > by {
			break
		}
		ls.arrive(r, 0)
		for lane := range defs {
			ls.decide(lane, r)
		}
	}
	out := make([]Stats, len(defs))
	for lane := range defs {
		out[lane] = ls.statsAt(lane, by)
	}
	return out
}

// seeksMatchFresh seeks the lab to random times by random paths and
// compares every lane's Stats, peak included, with fresh lanes fed the
// requests up to that time.
func seeksMatchFresh(t *testing.T, l *Lab, seeks int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	end := l.End()
	for range seeks {
		target := time.Duration(rng.Int64N(int64(end) + 1))
		l.Seek(time.Duration(rng.Int64N(int64(end) + 1)))
		l.Seek(target)
		want := freshStats(t, l.Scenario(), l.PeakWindow(), target)
		for lane := range l.Lanes() {
			if got := l.Stats(lane); got != want[lane] {
				t.Fatalf("at %v lane %d: %+v, a fresh run %+v", target, lane, got, want[lane])
			}
		}
	}
}

// TestStatsAfterSeeksWithALongPeakWindow: a long timeline (several
// checkpoints) with a peak window longer than the whole of it and lanes
// that delay, reached by random seeks: every lane's Stats, peak included,
// are a fresh run's, with the trackers kept in the checkpoints and with
// them refilled from the timeline.
func TestStatsAfterSeeksWithALongPeakWindow(t *testing.T) {
	regular := parse(t, `title: regular
limiters:
  - {name: shaper, algorithm: leaky-bucket, queue: 50, rate: 100/s}
  - {name: slow,   algorithm: leaky-bucket, queue: 5, rate: 3/s}
  - {name: bucket, algorithm: token-bucket, capacity: 20, rate: 50/s}
  - {name: log,    algorithm: sliding-log, limit: 30, window: 1s}
traffic:
  - {every: 7ms, until: 60s}
  - {every: 5s, from: 1s, until: 60s, cost: 3}
  - {at: 20s, count: 40}
  - {at: 41.5s, count: 30, spread: 1s}
`)
	cases := []struct {
		name string
		s    *scenarios.Scenario
	}{
		{"regular", regular},
		{"random", randomTraffic(t, 21, 3*CheckpointEvery+300, shapers, 2)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bothPeakPaths(t, func(t *testing.T) {
				l, err := New(c.s, time.Hour)
				if err != nil {
					t.Fatal(err)
				}
				l.Seek(l.End())
				if len(l.checkpoints) < 4 {
					t.Fatalf("%d checkpoints", len(l.checkpoints))
				}
				whole := 0
				for _, cp := range l.checkpoints {
					for _, w := range cp.whole {
						if w {
							whole++
						}
					}
				}
				if peakKeepBytes == 0 && whole != 0 || c.name == "regular" && peakKeepBytes > 0 && whole == 0 {
					t.Fatalf("%d trackers kept whole (peakKeepBytes %d)", whole, peakKeepBytes)
				}
				seeksMatchFresh(t, l, 30)
			})
		})
	}
}

// TestRestoreReachesBackAWindowAndTheLongestDelay: a leaky bucket's delayed
// request of cost 5 queued at 0s passes at 3s, while the checkpoint
// before the end sits at 2048 requests: refilling from only one peak window
// (1ns) before the lane's last admission would miss it. Stats at the end
// are fresh lanes'.
func TestRestoreReachesBackAWindowAndTheLongestDelay(t *testing.T) {
	s := parse(t, "title: q\nlimiters:\n  - {name: shaper, algorithm: leaky-bucket, queue: 100, rate: 10/s}\ntraffic:\n  - {at: 0s, count: 30}\n  - {at: 0s, cost: 5}\n  - {every: 1ms, from: 1ms, until: 3s}\n")
	bothPeakPaths(t, func(t *testing.T) {
		l, err := New(s, time.Nanosecond)
		if err != nil {
			t.Fatal(err)
		}
		l.Seek(l.End())
		want := freshStats(t, s, time.Nanosecond, l.End())[0]
		if want.Peak != 5 || want.PeakAt != 3*time.Second {
			t.Fatalf("fresh peak %d at %v, want 5 at 3s", want.Peak, want.PeakAt)
		}
		if got := l.Stats(0); got != want {
			t.Fatalf("after a restore: %+v, fresh %+v", got, want)
		}
	})
}

// TestSeekReplaysAtMostACheckpointInterval: with small states a checkpoint
// is taken every CheckpointEvery requests, and a seek restores the latest
// before its position and replays at most CheckpointEvery requests; Stats
// there are a fresh run's.
func TestSeekReplaysAtMostACheckpointInterval(t *testing.T) {
	s := randomScenario(t, 31, 3*CheckpointEvery+77)
	bothPeakPaths(t, func(t *testing.T) {
		l := newLab(t, s)
		l.Seek(l.End())
		if want := l.Len()/CheckpointEvery + 1; len(l.checkpoints) != want {
			t.Fatalf("%d checkpoints for %d requests, want %d", len(l.checkpoints), l.Len(), want)
		}
		for k, cp := range l.checkpoints {
			if cp.pos != k*CheckpointEvery {
				t.Fatalf("checkpoint %d at %d", k, cp.pos)
			}
		}
		rng := rand.New(rand.NewPCG(9, 9))
		for range 25 {
			l.Seek(0)
			target := l.Request(rng.IntN(l.Len())).At
			l.Seek(target)
			if n := l.Pos() - l.liveFrom; n < 0 || n > CheckpointEvery {
				t.Fatalf("at %v: replayed %d requests from %d to %d", target, n, l.liveFrom, l.Pos())
			}
			want := freshStats(t, s, l.PeakWindow(), target)
			for lane := range l.Lanes() {
				if got := l.Stats(lane); got != want[lane] {
					t.Fatalf("at %v lane %d: %+v, fresh %+v", target, lane, got, want[lane])
				}
			}
		}
	})
}

// TestPeakTrackerCloneSharesNothing: a clone of a tracker (a braid of
// strands, loose passages, pending releases) and the tracker go on with
// different passages, and each ends as a tracker fed its own passages alone.
func TestPeakTrackerCloneSharesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 50 {
		window := time.Duration(1+rng.IntN(5000)) * time.Millisecond
		xs := randomAdmissions(rng, 3000, trial%2 == 0)
		cut := len(xs) / 2
		feed := func(p *peakTracker, xs []admission) {
			for _, x := range xs {
				p.admit(x.at, x.delay, x.cost, 0)
			}
		}
		a := peakTracker{window: window}
		feed(&a, xs[:cut])
		b := a.clone()
		// a goes on with the rest; b with the rest shifted by a
		// different cost, then both are compared with fresh trackers.
		other := make([]admission, len(xs)-cut)
		for i, x := range xs[cut:] {
			x.cost = x.cost%3 + 1
			other[i] = x
		}
		feed(&a, xs[cut:])
		feed(&b, other)
		fa := peakTracker{window: window}
		feed(&fa, xs)
		fb := peakTracker{window: window}
		feed(&fb, append(append([]admission(nil), xs[:cut]...), other...))
		for _, c := range []struct {
			name      string
			got, want *peakTracker
		}{{"original", &a, &fa}, {"clone", &b, &fb}} {
			gp, ga := c.got.peakBy(endOfTime)
			wp, wa := c.want.peakBy(endOfTime)
			if gp != wp || ga != wa || c.got.kept.sum != c.want.kept.sum {
				t.Fatalf("trial %d %s: peak %d at %v sum %d, fresh %d at %v sum %d", trial, c.name, gp, ga, c.got.kept.sum, wp, wa, c.want.kept.sum)
			}
		}
	}
}

// TestPeakTrackerCloneCopiesEverySlice walks a tracker and its clone field
// by field (fields added later included) and fails where both hold the same
// array, pointer or map: what one then changes in place, the other would
// see.
func TestPeakTrackerCloneCopiesEverySlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	p := peakTracker{window: time.Hour}
	xs := randomAdmissions(rng, 5000, true)
	for i, x := range xs {
		p.admit(x.at, x.delay, x.cost, int64(i%3)) // several sources: a map of groups
	}
	// And a release out of its source's order, loose.
	last := xs[len(xs)-1].at
	p.push(passage{last + time.Hour, 1}, 0)
	p.push(passage{last + time.Minute, 1}, 0)
	c := p.clone()
	shared := 0
	var walk func(path string, a, b reflect.Value)
	walk = func(path string, a, b reflect.Value) {
		switch a.Kind() {
		case reflect.Slice:
			if a.Cap() > 0 && a.Pointer() == b.Pointer() {
				t.Errorf("%s: the clone shares the array", path)
				shared++
			}
			for i := range min(a.Len(), b.Len()) {
				walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		case reflect.Pointer, reflect.Map:
			if !a.IsNil() && a.Pointer() == b.Pointer() {
				t.Errorf("%s: the clone shares the %s", path, a.Kind())
			}
			if a.Kind() == reflect.Pointer && !a.IsNil() && !b.IsNil() {
				walk(path+".*", a.Elem(), b.Elem())
			}
		case reflect.Struct:
			for i := range a.NumField() {
				walk(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
			}
		case reflect.Array:
			for i := range a.Len() {
				walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		}
	}
	walk("peakTracker", reflect.ValueOf(p), reflect.ValueOf(c))
	if p.kept.bytes() == 0 || p.pending.bytes() == 0 || p.pending.more == nil || len(p.pending.more.slot) == 0 || len(p.pending.more.loose) == 0 {
		t.Fatalf("the tracker keeps %d bytes and %d pending: nothing to share", p.kept.bytes(), p.pending.bytes())
	}
}
