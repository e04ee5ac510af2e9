package model

import (
	"slices"
	"testing"
	"time"
)

// TestRelaneIsRebase: a rebase that takes over the timeline (M toggling
// mistake lanes) gives the lab a rebase that expands it again gives: the
// same requests, axis, clock, decisions, and undo history.
func TestRelaneIsRebase(t *testing.T) {
	t.Parallel()
	s := randomScenario(t, 21, 3*CheckpointEvery)
	build := func() *Lab {
		l := newLab(t, s)
		l.Seek(2 * time.Second)
		l.FireBurst("k1", 2, 4)
		l.Seek(5 * time.Second)
		l.Fire("new", 1)
		l.Reset() // the history above the reset is not carried over
		l.Seek(3 * time.Second)
		l.FireSpread("k0", 1, 20, 300*time.Millisecond)
		l.Seek(l.End() - time.Millisecond)
		l.Fire("late", 3) // stretches the axis by the lanes' horizon
		l.Seek(7 * time.Second)
		return l
	}
	for _, lane := range []string{"bucket", "log", "fixed"} {
		on, _, err := ToggleMistakes(s, lane)
		if err != nil {
			t.Fatal(err)
		}
		want, wk, wd, err := build().Rebase(on)
		if err != nil {
			t.Fatal(err)
		}
		old := build()
		kept := old.timeline
		got, gk, gd, err := old.Relane(on)
		if err != nil {
			t.Fatal(err)
		}
		if got.timeline != kept {
			t.Fatalf("%s: Relane expanded the traffic again instead of taking over the timeline", lane)
		}
		for step := 0; ; step++ {
			if gk != wk || gd != wd || got.Len() != want.Len() || got.End() != want.End() || got.Now() != want.Now() ||
				got.Pos() != want.Pos() || !slices.Equal(got.Keys(), want.Keys()) || got.FiredCount() != want.FiredCount() ||
				!slices.Equal(got.FiredRequests(), want.FiredRequests()) {
				t.Fatalf("%s, after %d undos: relaned %d requests to %v (clock %v, %d fired), rebased %d to %v (clock %v, %d fired)",
					lane, step, got.Len(), got.End(), got.Now(), got.FiredCount(), want.Len(), want.End(), want.Now(), want.FiredCount())
			}
			var g, w []string
			got.Records(0, got.End(), func(r Record) bool { g = append(g, r.Decision.Explain()); return true })
			want.Records(0, want.End(), func(r Record) bool { w = append(w, r.Decision.Explain()); return true })
			if !slices.Equal(g, w) {
				t.Fatalf("%s, after %d undos: the decisions differ", lane, step)
			}
			gu, gok := got.Undo()
			wu, wok := want.Undo()
			if gok != wok || gu != wu {
				t.Fatalf("%s: undo %d gives %+v %v, a rebase's %+v %v", lane, step, gu, gok, wu, wok)
			}
			if !gok {
				break
			}
			got.Fire("again", 1)
			want.Fire("again", 1)
			got.Undo()
			want.Undo()
		}
	}
}
