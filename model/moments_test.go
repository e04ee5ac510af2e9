package model

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"ratelab/scenarios"
)

// TestSplitAtCountsLikeALoop: at every instant of a bursty timeline, and
// between instants, SplitAt counts what a loop over the instant's requests
// counts.
func TestSplitAtCountsLikeALoop(t *testing.T) {
	s := burstTraffic(t, 71, CheckpointEvery+300, allSix, 3)
	l := newLab(t, s)
	for i := 0; i <= l.Len(); i++ {
		at := l.End()
		if i < l.Len() {
			at = l.Request(i).At
		}
		for _, t0 := range []time.Duration{at, at - 1} {
			want := Split{Complete: true, Tallies: make([]Tally, len(s.Lanes))}
			for j := range l.Len() {
				if l.Request(j).At != t0 {
					continue
				}
				want.Requests++
				if l.Disagrees(j) {
					want.Disagree++
				}
				for lane := range s.Lanes {
					want.Tallies[lane].add(l.Outcome(lane, j))
				}
			}
			got := l.SplitAt(t0)
			if got.Requests != want.Requests || got.Disagree != want.Disagree || !got.Complete || len(got.Tallies) != len(want.Tallies) {
				t.Fatalf("SplitAt(%v) = %+v, want %+v", t0, got, want)
			}
			for lane := range want.Tallies {
				if got.Tallies[lane] != want.Tallies[lane] {
					t.Fatalf("SplitAt(%v) lane %d: %+v, want %+v", t0, lane, got.Tallies[lane], want.Tallies[lane])
				}
			}
		}
		if i < l.Len() {
			for i+1 < l.Len() && l.Request(i+1).At == at {
				i++
			}
		}
	}
}

// TestSplitAtStopsScanningAtTheBound: an instant of more than MaxSplitScan
// requests is scanned up to the bound, and tallied whole.
func TestSplitAtStopsScanningAtTheBound(t *testing.T) {
	l := newLab(t, parse(t, "title: t\nlimiters:"+allSix+"traffic:\n  - {at: 1s, count: 10050}\n"))
	sp := l.SplitAt(time.Second)
	if sp.Requests != 10050 || sp.Complete || sp.Tallies[0].Total() != 10050 {
		t.Fatalf("%+v", sp)
	}
	var want int
	for i := range MaxSplitScan {
		if l.Disagrees(i) {
			want++
		}
	}
	if sp.Disagree != want || want == 0 {
		t.Fatalf("%d disagreements among the first %d, want %d", sp.Disagree, MaxSplitScan, want)
	}
}

// TestNextMomentIsTheNearestNoteOrDisagreement compares NextMoment with the
// earlier of NextDisagreement and the next note, from random times and
// from each note.
func TestNextMomentIsTheNearestNoteOrDisagreement(t *testing.T) {
	s := burstTraffic(t, 72, 3000, allSix, 3)
	l := newLab(t, s)
	rng := rand.New(rand.NewPCG(72, 72))
	for range 10 {
		s.Notes = append(s.Notes, scenarios.Note{At: time.Duration(rng.Int64N(int64(l.End()))), Text: "a note"})
	}
	slices.SortStableFunc(s.Notes, func(a, b scenarios.Note) int { return cmp.Compare(a.At, b.At) })
	var times []time.Duration
	for range 200 {
		times = append(times, time.Duration(rng.Int64N(int64(l.End())+1))-time.Second)
	}
	for _, n := range s.Notes {
		times = append(times, n.At, n.At-1)
	}
	for _, t0 := range times {
		want, wantOK := l.NextDisagreement(t0)
		for _, n := range s.Notes {
			if n.At > t0 {
				if !wantOK || n.At < want {
					want, wantOK = n.At, true
				}
				break
			}
		}
		if got, ok := l.NextMoment(t0); got != want || ok != wantOK {
			t.Fatalf("NextMoment(%v) = %v, %v; want %v, %v", t0, got, ok, want, wantOK)
		}
	}
	empty := newLab(t, parse(t, "title: t\nlimiters:"+allSix))
	if _, ok := empty.NextMoment(0); ok {
		t.Error("a moment in an empty sandbox")
	}
}
