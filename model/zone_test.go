package model

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// zoneScenario has 200 accounts polling every second, more keys than a
// 32k zone holds, beside a hot key: lanes of nginx's zone (which frees the
// least recently used account at every poll, so each is new again), of a
// zone that never fills, and of a dry run in a zone.
const zoneScenario = `title: zones
step: 100ms
duration: 30s
limiters:
  - {name: zone, algorithm: nginx-limit-req, rate: 1r/m, burst: 1, zone: 32k}
  - {name: endless, algorithm: nginx-limit-req, rate: 1r/m, burst: 1}
  - {name: dry, algorithm: nginx-limit-req, rate: 1r/m, burst: 1, dry_run: true, zone: 32k}
traffic:
  - {every: 1s, from: 0s, until: 30s, accounts: 200}
  - {every: 100ms, from: 50ms, until: 30s, key: hot}
`

// TestZoneInEveryPath: the run (Run, RunByKey) and the explorer's lab,
// seeking back through its checkpoints, decide a lane with a zone as its
// limiter alone does on the same requests, and show the same states; a dry
// run's totals count what it would have refused.
func TestZoneInEveryPath(t *testing.T) {
	s, err := scenarios.Parse("zones.yaml", []byte(zoneScenario))
	if err != nil {
		t.Fatal(err)
	}
	l := newLab(t, s)
	n := l.Len()
	if n < 2*CheckpointEvery {
		t.Fatalf("%d requests: too few to reach two checkpoints", n)
	}
	// The limiters alone, and their states of two keys at a few positions.
	lims := make([]algorithms.Limiter, len(s.Lanes))
	for i, lane := range s.Lanes {
		if lims[i], err = algorithms.New(lane.Policy); err != nil {
			t.Fatal(err)
		}
	}
	stops := map[int]bool{n / 7: true, n / 2: true, n - 3: true, 2*CheckpointEvery + 5: true}
	type state struct {
		pos        int
		lane       int
		key        string
		snap       algorithms.Snapshot
		lanesStats Stats
	}
	var states []state
	want := make([][]algorithms.Decision, len(s.Lanes))
	for i := range n {
		r := l.Request(i)
		for lane, lim := range lims {
			want[lane] = append(want[lane], lim.Decide(r.At, r.Key, r.Cost))
		}
		if stops[i+1] {
			for lane, lim := range lims {
				for _, key := range []string{"acct-1", "hot"} {
					states = append(states, state{pos: i + 1, lane: lane, key: key, snap: lim.Snapshot(r.At, key)})
				}
			}
		}
	}
	var zoneRefused, endlessRefused, dryRefused int64
	for i := range n {
		if want[0][i].Outcome == algorithms.Rejected {
			zoneRefused++
		}
		if want[1][i].Outcome == algorithms.Rejected {
			endlessRefused++
		}
		if want[2][i].DryRun == algorithms.Rejected {
			dryRefused++
		}
	}
	if zoneRefused == 0 || endlessRefused <= zoneRefused || dryRefused != zoneRefused {
		t.Fatalf("refused: zone %d, endless %d, dry (would) %d: want the zone to forget accounts the endless lane refuses, and the dry run to pretend the zone's", zoneRefused, endlessRefused, dryRefused)
	}

	// Run and RunByKey.
	i := 0
	stats, err := Run(s, Options{}, func(r Record) error {
		if d := want[r.Lane][r.Index]; r.Decision.Outcome != d.Outcome || r.Decision.DryRun != d.DryRun || r.Decision.Delay != d.Delay {
			t.Fatalf("Run: request %d lane %d: %s (dry run %s), the limiter %s (%s)", r.Index, r.Lane, r.Decision.Outcome, r.Decision.DryRun, d.Outcome, d.DryRun)
		}
		i++
		return nil
	})
	if err != nil || i != n*len(s.Lanes) {
		t.Fatalf("Run: %v after %d records", err, i)
	}
	if stats[0].Rejected != zoneRefused || stats[2].DryRunRejected != dryRefused || stats[2].Rejected != 0 || stats[2].Admitted != int64(n) {
		t.Errorf("Run's totals: zone %+v, dry %+v", stats[0], stats[2])
	}
	_, byKey, err := RunByKey(s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, k := range byKey {
		sum += k.Lanes[2].DryRunRejected
	}
	if sum != dryRefused {
		t.Errorf("RunByKey: the keys' dry rejections add up to %d, want %d", sum, dryRefused)
	}

	// The lab: every outcome, then states reached in random order, back
	// through checkpoints.
	l.SeekPos(n)
	for lane := range s.Lanes {
		for i := range n {
			if got := l.Outcome(lane, i); got != want[lane][i].Outcome {
				t.Fatalf("lab: request %d lane %d: %s, the limiter %s", i, lane, got, want[lane][i].Outcome)
			}
		}
		if st := l.Stats(lane); st.Rejected != stats[lane].Rejected || st.DryRunRejected != stats[lane].DryRunRejected {
			t.Errorf("lab's totals of lane %d: %+v, Run's %+v", lane, st, stats[lane])
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	rng.Shuffle(len(states), func(a, b int) { states[a], states[b] = states[b], states[a] })
	for _, st := range states {
		l.SeekPos(st.pos)
		if got := l.Snapshot(st.lane, st.key); !reflect.DeepEqual(got, st.snap) {
			t.Errorf("lab at %d, lane %d, key %s: %+v, the limiter %+v", st.pos, st.lane, st.key, got, st.snap)
		}
	}
}
