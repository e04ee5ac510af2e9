package model

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"ratelab/algorithms"
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

func TestPeakSurvivesCheckpointRestore(t *testing.T) {
	t.Parallel()
	s := randomScenario(t, 4, 3*CheckpointEvery)
	l := newLab(t, s)
	_, final := reference(t, s, 0)
	for _, target := range []time.Duration{l.End(), l.End() / 3, l.End()} {
		l.Seek(target)
		if target == l.End() {
			for lane := range s.Lanes {
				got := l.Stats(lane)
				if got.Peak != final[lane].Peak || got.PeakAt != final[lane].PeakAt {
					t.Fatalf("lane %d at end: peak %d at %v, fresh run %d at %v",
						lane, got.Peak, got.PeakAt, final[lane].Peak, final[lane].PeakAt)
				}
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
				if len(l.engine.checkpoints) < 4 {
					t.Fatalf("%d checkpoints", len(l.engine.checkpoints))
				}
				whole := 0
				for _, cp := range l.engine.checkpoints {
					for _, w := range cp.whole {
						if w {
							whole++
						}
					}
				}
				if peakKeepBytes == 0 && whole != 0 || c.name == "regular" && peakKeepBytes > 0 && whole == 0 {
					t.Fatalf("%d trackers kept whole (peakKeepBytes %d)", whole, peakKeepBytes)
				}
				seeksMatchFresh(t, l, rounds(30, 10))
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
		if want := l.Len()/CheckpointEvery + 1; len(l.engine.checkpoints) != want {
			t.Fatalf("%d checkpoints for %d requests, want %d", len(l.engine.checkpoints), l.Len(), want)
		}
		for k, cp := range l.engine.checkpoints {
			if cp.pos != k*CheckpointEvery {
				t.Fatalf("checkpoint %d at %d", k, cp.pos)
			}
		}
		rng := rand.New(rand.NewPCG(9, 9))
		for range rounds(25, 10) {
			l.Seek(0)
			target := l.Request(rng.IntN(l.Len())).At
			l.Seek(target)
			if n := l.Pos() - l.clock.from; n < 0 || n > CheckpointEvery {
				t.Fatalf("at %v: replayed %d requests from %d to %d", target, n, l.clock.from, l.Pos())
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

// newTestEngine is the engine of s's timeline alone, no lab around it.
func newTestEngine(t testing.TB, s *scenarios.Scenario) *engine {
	t.Helper()
	defs := LanesOf(s)
	e, err := newEngine(newTimeline(s, nil), defs, DefaultPeakWindow(defs), nil, newClientBook(s))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestEngineAlone: the engine by itself decides as a run does, as far as
// asked; takes a checkpoint every CheckpointEvery requests where states
// are small; replays any range as the run decided it; restores a
// checkpoint to the run's state there; and forgets from where the
// timeline changed, to decide it again alike.
func TestEngineAlone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		s       *scenarios.Scenario
		ensures []int // ensure these in turn, checking computed after each
	}{
		{"all six", randomScenario(t, 61, 2*CheckpointEvery+70), []int{0, 1, 300, CheckpointEvery, 1 << 30}},
		{"shapers", randomTraffic(t, 62, CheckpointEvery+500, shapers, 2), []int{CheckpointEvery + 1, 10, 1 << 30}},
		{"bursts", burstTraffic(t, 63, CheckpointEvery+200, allSix, 3), []int{1 << 30}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEngine(t, c.s)
			n := e.tl.len()
			recs, _ := reference(t, c.s, 0)
			lanes := len(e.defs)
			most := 0
			for _, to := range c.ensures {
				e.ensure(to)
				most = max(most, min(to, n))
				if e.computed != most {
					t.Fatalf("ensure(%d): computed %d, want %d", to, e.computed, most)
				}
			}
			for i := range n {
				for lane := range lanes {
					if got, want := e.outcome(lane, i), recs[i*lanes+lane].Decision.Outcome; got != want {
						t.Fatalf("request %d lane %d: %s, a run %s", i, lane, got, want)
					}
				}
			}
			if want := n/CheckpointEvery + 1; len(e.checkpoints) != want {
				t.Fatalf("%d checkpoints for %d requests, want %d", len(e.checkpoints), n, want)
			}
			for k, cp := range e.checkpoints {
				if cp.pos != k*CheckpointEvery || e.checkpointAt(cp.pos) != k || e.checkpointAt(cp.pos+CheckpointEvery-1) != k {
					t.Fatalf("checkpoint %d at %d", k, cp.pos)
				}
				ls := e.restore(cp.pos)
				want := freshStats(t, c.s, e.window, e.tl.at(max(cp.pos-1, 0)))
				for lane := range lanes {
					if got := ls.statsAt(lane, e.tl.at(max(cp.pos-1, 0))); cp.pos > 0 && e.tl.at(cp.pos) != e.tl.at(cp.pos-1) && got != want[lane] {
						t.Fatalf("checkpoint at %d lane %d restored: %+v, fresh %+v", cp.pos, lane, got, want[lane])
					}
				}
			}
			for _, r := range [][2]int{{0, 1}, {CheckpointEvery - 2, CheckpointEvery + 3}, {n - 5, n}, {7, 7}} {
				var got []Record
				e.replay(r[0], r[1], -1, func(rec Record) bool { got = append(got, rec); return true })
				want := recs[r[0]*lanes : r[1]*lanes]
				if len(got) != len(want) {
					t.Fatalf("replay [%d, %d): %d records, want %d", r[0], r[1], len(got), len(want))
				}
				for i := range got {
					if got[i].Index != want[i].Index || got[i].Lane != want[i].Lane || got[i].Decision.Explain() != want[i].Decision.Explain() {
						t.Fatalf("replay [%d, %d) record %d: %+v, a run %+v", r[0], r[1], i, got[i], want[i])
					}
				}
			}
			for _, from := range []int{n - 1, CheckpointEvery + 1, 3} {
				gen := e.gen
				e.replace(from)
				if e.gen != gen+1 || e.computed > from || e.computed != e.checkpoints[len(e.checkpoints)-1].pos {
					t.Fatalf("replace(%d): gen %d (was %d), computed %d, last checkpoint at %d", from, e.gen, gen, e.computed, e.checkpoints[len(e.checkpoints)-1].pos)
				}
				for i := n - 1; i >= 0; i -= 97 {
					for lane := range lanes {
						if got, want := e.outcome(lane, i), recs[i*lanes+lane].Decision.Outcome; got != want {
							t.Fatalf("after replace(%d), request %d lane %d: %s, a run %s", from, i, lane, got, want)
						}
					}
				}
			}
		})
	}
}

// TestEngineCountsByBlock: tallies, disagreements and admitted sums read
// from the engine's blocks are what counting the outcomes one by one
// gives, over ranges across and inside blocks.
func TestEngineCountsByBlock(t *testing.T) {
	e := newTestEngine(t, randomScenario(t, 64, 3*tallyBlock+17))
	n := e.tl.len()
	for _, r := range []struct{ lo, hi int }{{0, 0}, {0, n}, {5, 6}, {tallyBlock - 3, 2*tallyBlock + 4}, {tallyBlock, 3 * tallyBlock}, {-4, n + 9}} {
		for lane := range e.defs {
			var want Tally
			var admitted int64
			for i := max(r.lo, 0); i < min(r.hi, n); i++ {
				want.add(e.outcome(lane, i))
				if k := e.tl.kind(i); k.key == 0 && e.outcomes[lane][i].Admitted() {
					admitted += k.cost
				}
			}
			if got := e.tally(lane, r.lo, r.hi); got != want {
				t.Errorf("lane %d tally [%d, %d): %+v, counted %+v", lane, r.lo, r.hi, got, want)
			}
			if lo, hi := max(r.lo, 0), min(r.hi, n); lo <= hi {
				if got := e.admittedIn(lane, 0, lo, hi); got != admitted {
					t.Errorf("lane %d admitted [%d, %d): %d, counted %d", lane, lo, hi, got, admitted)
				}
			}
		}
	}
	for i := range n {
		admits := 0
		for lane := range e.defs {
			if e.outcome(lane, i).Admitted() {
				admits++
			}
		}
		if got, want := e.disagrees(i), admits > 0 && admits < len(e.defs); got != want {
			t.Fatalf("request %d: disagrees %v, %d of %d lanes admit", i, got, admits, len(e.defs))
		}
	}
}

// TestRestoreOfARefilledCheckpointIsAFreshOne: a checkpoint whose peak
// trackers restore refilled from the timeline is restored again from the
// refilled copy it keeps; that copy goes on exactly as a fresh refill does
// (every lane's stats, peak included, after each request of the next
// checkpoint interval), and a change of the timeline before the checkpoint
// drops it.
func TestRestoreOfARefilledCheckpointIsAFreshOne(t *testing.T) {
	old := peakKeepBytes
	peakKeepBytes = 0
	defer func() { peakKeepBytes = old }()
	s := randomScenario(t, 61, 3*CheckpointEvery+300)
	l := newLab(t, s)
	l.Seek(l.End())
	e := l.engine
	if len(e.checkpoints) < 3 {
		t.Fatalf("%d checkpoints", len(e.checkpoints))
	}
	for _, cp := range e.checkpoints[1:] {
		e.refilled = refilledCheckpoint{}
		fresh := e.restore(cp.pos)
		if e.refilled.from != cp.ls {
			t.Fatalf("checkpoint at %d: its refilled copy is not kept", cp.pos)
		}
		again := e.restore(cp.pos)
		for lane := range e.defs {
			if !reflect.DeepEqual(fresh.peaks[lane], again.peaks[lane]) {
				t.Fatalf("checkpoint at %d, lane %d: the peak tracker restored again differs from the refilled one", cp.pos, lane)
			}
		}
		for i := cp.pos; i < min(cp.pos+CheckpointEvery, l.Len()); i++ {
			r := e.tl.request(i)
			for _, ls := range []*lanes{fresh, again} {
				ls.arrive(r, i)
				for lane := range e.defs {
					ls.decide(lane, r)
				}
			}
			for lane := range e.defs {
				if f, a := fresh.statsAt(lane, r.At), again.statsAt(lane, r.At); f != a {
					t.Fatalf("checkpoint at %d, request %d, lane %d: restored again %+v, fresh %+v", cp.pos, i, lane, a, f)
				}
			}
		}
	}
	last := e.checkpoints[len(e.checkpoints)-1]
	e.restore(last.pos)
	if _, err := l.FireAt(l.Request(last.pos-10).At, "k1", 1); err != nil {
		t.Fatal(err)
	}
	if e.refilled.from == last.ls {
		t.Error("the refilled copy of a checkpoint the change dropped is still kept")
	}
}
