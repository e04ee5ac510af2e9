package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/scenarios"
)

// keyAlone is lane's Stats of a fresh run of key's decided requests alone
// (the first Pos of the lab's timeline), the peak counted by Now, and the
// peak again by a sort and sweep.
func keyAlone(t *testing.T, l *Lab, lane int, key string) (Stats, int64, time.Duration) {
	t.Helper()
	ls, err := newLanes(l.Lanes(), l.PeakWindow(), nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for i := range l.Pos() {
		if r := l.Request(i); r.Key == key {
			ls.arrive(r, i)
			d, _ := ls.decide(lane, r)
			recs = append(recs, Record{Index: i, Lane: lane, Request: r, Decision: d})
		}
	}
	peak, at := referencePeak(recs, lane, l.PeakWindow(), l.Now())
	return ls.statsAt(lane, l.Now()), peak, at
}

// TestStatsForMatchesAFreshRunOfTheKeyAlone: whatever the clock and the
// timeline went through, a key's stats are those of its requests decided
// alone, for every algorithm (each keeps a state per key).
func TestStatsForMatchesAFreshRunOfTheKeyAlone(t *testing.T) {
	t.Parallel()
	for _, s := range []*scenarios.Scenario{
		randomScenario(t, 31, 2*CheckpointEvery+100),
		burstTraffic(t, 32, CheckpointEvery+500, allSix, 3),
		randomTraffic(t, 33, 2*CheckpointEvery, shapers, 2),
	} {
		l := newLab(t, s)
		rng := rand.New(rand.NewPCG(31, 31))
		for step := range rounds(80, 15) {
			switch rng.IntN(10) {
			case 0:
				l.FireBurst([]string{"k1", "new"}[rng.IntN(2)], 1, 1+rng.IntN(200))
			case 1:
				l.Undo()
			case 2:
				if step%30 == 0 {
					l.Reset()
				}
			case 3:
				if err := l.SetPeakWindow(time.Duration(rng.IntN(3)) * 700 * time.Millisecond); err != nil {
					t.Fatal(err)
				}
			case 4, 5, 6:
				l.SeekPos(rng.IntN(l.Len() + 1))
			default:
				l.Seek(time.Duration(rng.Int64N(int64(l.End()) + 1)))
			}
			for _, key := range append(l.Keys(), "nobody") {
				for lane := range s.Lanes {
					want, peak, at := keyAlone(t, l, lane, key)
					got := l.StatsFor(lane, key)
					if got != want || got.Peak != peak || got.PeakAt != at {
						t.Fatalf("%s step %d at %v (pos %d) lane %d key %s: %+v; alone %+v, peak %d at %v",
							s.Title, step, l.Now(), l.Pos(), lane, key, got, want, peak, at)
					}
				}
			}
		}
	}
}

// TestStatsForTheCannedLessons: at the end of each lesson, each key's stats
// are what `ratelab run --by-key` reports (RunByKey), and a key that sent
// every request has the lane's stats. In counter-blind-spot the sliding
// log's peak per key is half the lane's.
func TestStatsForTheCannedLessons(t *testing.T) {
	for _, info := range lessons("counter-blind-spot") {
		s, err := scenarios.Canned(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		l := newLab(t, s)
		l.Seek(l.End())
		_, byKey, err := RunByKey(s, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, ks := range byKey {
			for lane := range s.Lanes {
				if got := l.StatsFor(lane, ks.Key); got != ks.Lanes[lane] {
					t.Errorf("%s lane %d key %s: %+v, RunByKey %+v", info.Name, lane, ks.Key, got, ks.Lanes[lane])
				}
				whole := l.Stats(lane)
				if len(byKey) == 1 && l.StatsFor(lane, ks.Key) != whole {
					t.Errorf("%s lane %d: the only key's stats differ from the lane's", info.Name, lane)
				}
			}
		}
		if info.Name == "counter-blind-spot" {
			for lane, def := range l.Lanes() {
				if def.Name != "log" {
					continue
				}
				all := l.Stats(lane).Peak
				for _, key := range l.Keys() {
					if got := l.StatsFor(lane, key).Peak; 2*got != all {
						t.Errorf("counter-blind-spot: key %s peaks at %d in the log, the lane at %d", key, got, all)
					}
				}
			}
		}
	}
}

// BenchmarkStatsForFrame is one frame's StatsFor calls, every lane for the
// pinned key, at a random time of a 100,000-request timeline of 200 keys
// (prepared once, as playing does after the first frame).
func BenchmarkStatsForFrame(b *testing.B) {
	l := newLab(b, manyKeysShaper(b, 100_000))
	l.Seek(l.End())
	l.StatsFor(0, "k7")
	rng := rand.New(rand.NewPCG(5, 5))
	for b.Loop() {
		b.StopTimer()
		l.Seek(time.Duration(rng.Int64N(int64(l.End()))))
		b.StartTimer()
		for lane := range l.Lanes() {
			l.StatsFor(lane, "k7")
		}
	}
}

// BenchmarkStatsForPrepare is the first frame after a change to the
// timeline: every lane prepared for the pinned key, clock at the end.
func BenchmarkStatsForPrepare(b *testing.B) {
	l := newLab(b, manyKeysShaper(b, 100_000))
	l.Seek(l.End())
	for b.Loop() {
		l.engine.gen++ // as a change to the timeline would
		for lane := range l.Lanes() {
			l.StatsFor(lane, "k7")
		}
	}
}

// TestSetPeakWindowKeepsTheClockAndTheFiredRequests: changing the peak
// window gives the stats of a lab built with that window, wherever the
// clock stood (inside an instant too), with the learner's requests kept.
func TestSetPeakWindowKeepsTheClockAndTheFiredRequests(t *testing.T) {
	s := burstTraffic(t, 34, CheckpointEvery+700, allSix, 3)
	l := newLab(t, s)
	l.Seek(l.End() / 3)
	if _, err := l.FireBurst("mine", 2, 30); err != nil {
		t.Fatal(err)
	}
	l.SeekPos(CheckpointEvery + 5)
	pos, now, fired := l.Pos(), l.Now(), l.FiredCount()
	for _, w := range []time.Duration{300 * time.Millisecond, 0, -time.Second, 4 * time.Second} {
		if err := l.SetPeakWindow(w); err != nil {
			t.Fatal(err)
		}
		want := w
		if w <= 0 {
			want = DefaultPeakWindow(l.Lanes())
		}
		if l.PeakWindow() != want || l.Pos() != pos || l.Now() != now || l.FiredCount() != fired {
			t.Fatalf("SetPeakWindow(%v): window %v, pos %d, now %v, fired %d; want %v, %d, %v, %d",
				w, l.PeakWindow(), l.Pos(), l.Now(), l.FiredCount(), want, pos, now, fired)
		}
		ref, err := New(s, w)
		if err != nil {
			t.Fatal(err)
		}
		ref.Seek(l.End() / 3)
		ref.FireBurst("mine", 2, 30)
		ref.SeekPos(pos)
		for lane := range s.Lanes {
			if got, want := l.Stats(lane), ref.Stats(lane); got != want {
				t.Fatalf("window %v lane %d: %+v, a lab built with it %+v", w, lane, got, want)
			}
			if got, want := l.StatsFor(lane, "k1"), ref.StatsFor(lane, "k1"); got != want {
				t.Fatalf("window %v lane %d key k1: %+v, a lab built with it %+v", w, lane, got, want)
			}
		}
	}
	if err := l.SetPeakWindow(scenarios.MaxTime + 1); err == nil {
		t.Error("a peak window longer than a scenario may last accepted")
	}
	if l.PeakWindow() != 4*time.Second {
		t.Errorf("a refused window changed the window to %v", l.PeakWindow())
	}
}

// dryScenario has two keys through nginx's limit_req twice, once for real
// (one refusing, one delaying) and once as a dry run of each.
const dryScenario = `title: dry
step: 100ms
limiters:
  - {name: refuses, algorithm: nginx-limit-req, rate: 10r/s, burst: 2, nodelay: true}
  - {name: dry-refuses, algorithm: nginx-limit-req, rate: 10r/s, burst: 2, nodelay: true, dry_run: true}
  - {name: delays, algorithm: nginx-limit-req, rate: 10r/s, burst: 2}
  - {name: dry-delays, algorithm: nginx-limit-req, rate: 10r/s, burst: 2, dry_run: true}
traffic:
  - {every: 40ms, from: 0s, until: 200s, key: busy}
  - {every: 90ms, from: 5ms, until: 200s, key: calm}
  - {at: 100s, count: 30, key: calm}
`

// TestStatsForCountsDryRuns: a dry run's totals for one key count what it
// would have refused and delayed, as its real twin refuses and delays that
// key's requests (nginx accounts a dry run as it would the real one), at
// every clock; over the keys they add up to the lane's.
func TestStatsForCountsDryRuns(t *testing.T) {
	t.Parallel()
	s, err := scenarios.Parse("dry.yaml", []byte(dryScenario))
	if err != nil {
		t.Fatal(err)
	}
	l := newLab(t, s)
	if l.Len() < 2*CheckpointEvery {
		t.Fatalf("%d requests: too few to reach two checkpoints", l.Len())
	}
	rng := rand.New(rand.NewPCG(7, 7))
	seen := false
	for range rounds(40, 10) {
		l.SeekPos(rng.IntN(l.Len() + 1))
		var sum Stats
		for _, key := range []string{"busy", "calm"} {
			refuses, dryRefuses := l.StatsFor(0, key), l.StatsFor(1, key)
			delays, dryDelays := l.StatsFor(2, key), l.StatsFor(3, key)
			if dryRefuses.Rejected != 0 || dryDelays.Delayed != 0 || dryDelays.Rejected != 0 {
				t.Fatalf("pos %d, key %s: a dry run refused or delayed: %+v, %+v", l.Pos(), key, dryRefuses, dryDelays)
			}
			if dryRefuses.DryRunRejected != refuses.Rejected || dryRefuses.DryRunDelayed != 0 {
				t.Errorf("pos %d, key %s: dry run would have refused %d, delayed %d; the real lane refused %d",
					l.Pos(), key, dryRefuses.DryRunRejected, dryRefuses.DryRunDelayed, refuses.Rejected)
			}
			if dryDelays.DryRunDelayed != delays.Delayed || dryDelays.DryRunRejected != delays.Rejected {
				t.Errorf("pos %d, key %s: dry run would have delayed %d, refused %d; the real lane %d, %d",
					l.Pos(), key, dryDelays.DryRunDelayed, dryDelays.DryRunRejected, delays.Delayed, delays.Rejected)
			}
			sum.DryRunDelayed += dryDelays.DryRunDelayed
			sum.DryRunRejected += dryRefuses.DryRunRejected
			seen = seen || dryRefuses.DryRunRejected > 0 && dryDelays.DryRunDelayed > 0
		}
		if all := l.Stats(1).DryRunRejected; sum.DryRunRejected != all {
			t.Errorf("pos %d: the keys' dry refusals add up to %d, the lane's are %d", l.Pos(), sum.DryRunRejected, all)
		}
		if all := l.Stats(3).DryRunDelayed; sum.DryRunDelayed != all {
			t.Errorf("pos %d: the keys' dry delays add up to %d, the lane's are %d", l.Pos(), sum.DryRunDelayed, all)
		}
	}
	if !seen {
		t.Error("no clock where the dry runs would have refused and delayed")
	}
}
