package model

import (
	"fmt"
	"regexp"
	"testing"
)

// pointers are the addresses in a printed decision, which differ from lab
// to lab.
var pointers = regexp.MustCompile(`0x[0-9a-f]+`)

// clockView is what a screen reads of the lab at its clock: every lane's
// totals, latest decision, a key's state size and snapshot.
func clockView(l *Lab) string {
	s := fmt.Sprintf("now %v pos %d|", l.Now(), l.Pos())
	for lane := range l.Lanes() {
		rec, ok := l.LastDecision(lane)
		s += fmt.Sprintf("%+v %+v %v %d %+v|", l.Stats(lane), rec, ok, l.KeyStateBytes(lane, "k1"), l.Snapshot(lane, "k1"))
	}
	return pointers.ReplaceAllString(s, "ptr")
}

// TestClockTakesTheFrontier: a clock that jumps to the last request the
// lab decided takes a copy of the frontier's state; what it shows (and
// shows after moving on, back and firing) is what a clock that walked
// there request by request shows.
func TestClockTakesTheFrontier(t *testing.T) {
	s := randomScenario(t, 61, 3*CheckpointEvery+300)
	for _, target := range []int{2*CheckpointEvery + 17, 3*CheckpointEvery + 300} {
		jump, walk := newLab(t, s), newLab(t, s)
		jump.ComputeAhead(target)
		at := jump.Request(target - 1).At
		target = jump.Search(at) // whole instants
		jump.ComputeAhead(target - jump.Computed())
		jump.Seek(at)
		if !jump.engine.tipFor(jump.Pos()) && jump.Pos() == jump.Computed() {
			t.Fatalf("the lab decided %d, the clock at %d: no tip to take", jump.Computed(), jump.Pos())
		}
		for p := 0; p <= target; p += 100 {
			walk.SeekPos(p)
		}
		walk.Seek(at)
		if got, want := clockView(jump), clockView(walk); got != want {
			t.Fatalf("at %v the jumping clock shows\n%s\nthe walking one\n%s", at, got, want)
		}
		for _, l := range []*Lab{jump, walk} {
			l.Step(l.Scenario().Step * 7)
		}
		if got, want := clockView(jump), clockView(walk); got != want {
			t.Fatalf("moved on, the jumping clock shows\n%s\nthe walking one\n%s", got, want)
		}
		for _, l := range []*Lab{jump, walk} {
			if _, err := l.Fire("k1", 1); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := clockView(jump), clockView(walk); got != want {
			t.Fatalf("after a fire, the jumping clock shows\n%s\nthe walking one\n%s", got, want)
		}
	}
}
