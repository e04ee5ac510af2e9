package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestFiringStretchesTheAxis: a sandbox's axis grows to follow a request
// fired at its end, never shrinks, and Reset restores it.
func TestFiringStretchesTheAxis(t *testing.T) {
	s := parse(t, "title: sandbox\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}\n")
	l := newLab(t, s)
	if l.End() != 3*time.Second {
		t.Fatalf("end %v; want 3s (the time to refill 3 at 1/s)", l.End())
	}
	l.Seek(l.End())
	if _, err := l.Fire("", 3); err != nil {
		t.Fatal(err)
	}
	if l.End() != 6*time.Second {
		t.Fatalf("end %v after firing at 3s, want 6s", l.End())
	}
	l.Seek(5 * time.Second)
	if l.Now() != 5*time.Second {
		t.Fatalf("the clock stopped at %v, want 5s", l.Now())
	}
	if _, err := l.FireAt(time.Second, "", 1); err != nil {
		t.Fatal(err)
	}
	if l.End() != 6*time.Second {
		t.Fatalf("firing earlier shortened the axis to %v", l.End())
	}
	l.Reset()
	if l.End() != s.Duration || l.Now() != 0 {
		t.Fatalf("after Reset: end %v, now %v; want %v, 0", l.End(), l.Now(), s.Duration)
	}
}

// TestTrailingAdmittedMatchesALoop checks the running sums against a walk
// over the window, through seeks, what-ifs, bursts, undos and a reset.
func TestTrailingAdmittedMatchesALoop(t *testing.T) {
	s := randomScenario(t, 13, 3*CheckpointEvery)
	l := newLab(t, s)
	rng := rand.New(rand.NewPCG(13, 13))
	walk := func(lane int, key string, window time.Duration) int64 {
		var sum int64
		for i := l.Search(l.Now()) - 1; i >= 0 && l.Request(i).At > l.Now()-window; i-- {
			if r := l.Request(i); r.Key == key && l.Outcome(lane, i).Admitted() {
				sum += r.Cost
			}
		}
		return sum
	}
	for step := range 300 {
		switch rng.IntN(6) {
		case 0:
			l.FireBurst("k1", 1, 1+rng.IntN(300))
		case 1:
			l.Undo()
		case 2:
			if step%50 == 0 {
				l.Reset()
			}
		default:
			l.Seek(time.Duration(rng.Int64N(int64(l.End()) + 1)))
		}
		lane := rng.IntN(len(s.Lanes))
		key := []string{"k0", "k1", "k2", "nobody"}[rng.IntN(4)]
		window := time.Duration(1+rng.IntN(5000)) * time.Millisecond
		if got, want := l.TrailingAdmitted(lane, key, window), walk(lane, key, window); got != want {
			t.Fatalf("step %d at %v: lane %d key %s window %v: %d, a walk gives %d", step, l.Now(), lane, key, window, got, want)
		}
	}
}

// TestLastDecisionForMatchesAFreshRun checks each key's last decision at
// random times, and after what-ifs, against a fresh run of the scenario.
func TestLastDecisionForMatchesAFreshRun(t *testing.T) {
	s := randomScenario(t, 14, 2*CheckpointEvery)
	l := newLab(t, s)
	rng := rand.New(rand.NewPCG(14, 14))
	for step := range 60 {
		if step == 30 {
			l.Seek(l.End() / 2)
			l.FireBurst("k2", 3, 5) // a what-if: the fresh runs below must see it
		}
		l.Seek(time.Duration(rng.Int64N(int64(l.End()) + 1)))
		var recs []Record
		l.Records(0, l.Now(), func(r Record) bool { recs = append(recs, r); return true })
		for _, key := range []string{"k0", "k1", "k2", "nobody"} {
			lane := rng.IntN(len(s.Lanes))
			var want *Record
			for i := range recs {
				if recs[i].Lane == lane && recs[i].Request.Key == key {
					want = &recs[i]
				}
			}
			got, ok := l.LastDecisionFor(lane, key)
			switch {
			case want == nil && ok:
				t.Fatalf("at %v key %s: a decision %+v where none was made", l.Now(), key, got)
			case want != nil && (!ok || got.Index != want.Index || got.Decision.Explain() != want.Decision.Explain()):
				t.Fatalf("at %v key %s lane %d: %d %q, a replay gives %d %q", l.Now(), key, lane,
					got.Index, got.Decision.Explain(), want.Index, want.Decision.Explain())
			}
		}
	}
}
