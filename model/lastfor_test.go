package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestLastDecisionForMatchesAFreshRun checks each key's last decision at
// random times, and after what-ifs, against a fresh run of the scenario.
func TestLastDecisionForMatchesAFreshRun(t *testing.T) {
	t.Parallel()
	s := randomScenario(t, 14, 2*CheckpointEvery)
	l := newLab(t, s)
	rng := rand.New(rand.NewPCG(14, 14))
	steps := rounds(60, 12)
	for step := range steps {
		if step == steps/2 {
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

// TestLastDecisionForInSteps works each key's verdict out a few requests
// at a time (PendingLastDecisionFor, WorkOnLastDecisionFor), with other
// keys asked and what-ifs made in between, and checks it against a
// replay of the records up to the clock.
func TestLastDecisionForInSteps(t *testing.T) {
	t.Parallel()
	s := randomScenario(t, 15, 3*CheckpointEvery)
	l := newLab(t, s)
	rng := rand.New(rand.NewPCG(15, 15))
	keys := []string{"k0", "k1", "k2", "nobody"}
	for step := range rounds(40, 10) {
		l.Seek(time.Duration(rng.Int64N(int64(l.End()) + 1)))
		if step%7 == 3 {
			l.FireBurst("k1", 2, 3)
		}
		var recs []Record
		l.Records(0, l.Now(), func(r Record) bool { recs = append(recs, r); return true })
		for _, key := range keys {
			for n := 0; ; n++ {
				left, pending := l.PendingLastDecisionFor(key)
				if !pending {
					break
				}
				if left <= 0 {
					t.Fatalf("key %s: pending with %d requests left", key, left)
				}
				if n == 2 && rng.IntN(2) == 0 {
					// Another key asked meanwhile, or a what-if made: the
					// work starts again where it must.
					if rng.IntN(2) == 0 {
						l.LastDecisionFor(0, keys[rng.IntN(len(keys))])
					} else {
						l.FireAt(l.Now(), "k2", 1)
						recs = recs[:0]
						l.Records(0, l.Now(), func(r Record) bool { recs = append(recs, r); return true })
					}
				}
				if n > 100_000 {
					t.Fatalf("key %s: still pending after %d steps", key, n)
				}
				l.WorkOnLastDecisionFor(key, 1+rng.IntN(300))
			}
			for lane := range s.Lanes {
				var want *Record
				for i := range recs {
					if recs[i].Lane == lane && recs[i].Request.Key == key && recs[i].Attempt.N == 1 {
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
}
