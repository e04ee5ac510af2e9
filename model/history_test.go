package model

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// labState is everything of a lab's timeline and clock that an undo must
// bring back: each request and who fired it, the keys, the axis, the clock.
func labState(l *Lab) string {
	var b strings.Builder
	for i := range l.Len() {
		fmt.Fprintf(&b, "%v %v|", l.Request(i), l.Fired(i))
	}
	fmt.Fprintf(&b, "keys %q end %v now %v fired %d", l.Keys(), l.End(), l.Now(), l.FiredCount())
	return b.String()
}

// TestUndoTakesBackResetsAndFires: a reset, then fires undone, then the
// reset undone, gives back the timeline, keys, axis and clock exactly, with
// the decisions of a fresh run; each earlier action is then undone in turn,
// the axis shrinking back with it.
func TestUndoTakesBackResetsAndFires(t *testing.T) {
	s := randomScenario(t, 41, CheckpointEvery+600)
	l := newLab(t, s)
	l.Seek(l.Request(300).At)
	states := []string{labState(l)}
	for _, f := range []func() error{
		func() error { _, err := l.FireBurst("k1", 2, 25); return err },
		func() error { _, err := l.FireAt(l.Request(CheckpointEvery+100).At, "visitor", 1); return err },
		func() error { _, err := l.FireAt(l.End(), "late", 3); return err }, // stretches the axis
		func() error { _, err := l.FireBurst("visitor", 1, 3); return err },
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
		states = append(states, labState(l))
	}
	l.SeekPos(CheckpointEvery + 3) // inside an instant
	before := labState(l)
	l.Reset()
	if l.FiredCount() != 0 || l.End() != s.Duration || l.Now() != 0 || len(l.Keys()) != len(s.Keys()) {
		t.Fatalf("after reset: fired %d, end %v, now %v, keys %q", l.FiredCount(), l.End(), l.Now(), l.Keys())
	}
	// Fire after the reset, with a key of its own, and take it back.
	l.Seek(time.Second)
	if _, err := l.FireBurst("after", 1, 4); err != nil {
		t.Fatal(err)
	}
	if u, ok := l.Undo(); !ok || u.Reset || u.N != 4 {
		t.Fatalf("undoing the fire after the reset: %+v, %v", u, ok)
	}
	l.Reset() // nothing to remove: no entry in the history
	u, ok := l.Undo()
	if !ok || !u.Reset || u.N != 25+1+1+3 {
		t.Fatalf("undoing the reset: %+v, %v; want the reset, 30 requests back", u, ok)
	}
	first := 0
	for !l.Fired(first) {
		first++
	}
	if u.Request != l.Request(first) {
		t.Errorf("undone reset's first request %+v, want %+v", u.Request, l.Request(first))
	}
	if got := labState(l); got != before {
		t.Fatalf("after undoing the reset:\n%s\nwant\n%s", tail(got), tail(before))
	}
	checkAgainstFresh(t, l, "after undoing the reset")
	for i := len(states) - 2; i >= 0; i-- {
		u, ok := l.Undo()
		if !ok || u.Reset {
			t.Fatalf("undo %d: %+v, %v", i, u, ok)
		}
		l.Seek(l.Request(300).At)
		if got := labState(l); got != states[i] {
			t.Fatalf("after undo back to state %d:\n%s\nwant\n%s", i, tail(got), tail(states[i]))
		}
		checkAgainstFresh(t, l, fmt.Sprintf("after undo back to state %d", i))
	}
	if _, ok := l.Undo(); ok {
		t.Fatal("an undo with nothing left")
	}
}

// tail is the end of a labState, where keys, axis and clock are.
func tail(s string) string { return s[max(0, len(s)-200):] }

// checkAgainstFresh compares every outcome with fresh limiters, and the
// decided state with a fresh lab on the same timeline.
func checkAgainstFresh(t *testing.T, l *Lab, when string) {
	t.Helper()
	recs := freshRun(t, l)
	lanes := len(l.Lanes())
	for i := range l.Len() {
		for lane := range lanes {
			if got, want := l.Outcome(lane, i), recs[i*lanes+lane].Decision.Outcome; got != want {
				t.Fatalf("%s: request %d lane %d %s, fresh %s", when, i, lane, got, want)
			}
		}
	}
	for lane := range lanes {
		if rec, ok := l.LastDecision(lane); ok && rec.Decision.Explain() != recs[rec.Index*lanes+lane].Decision.Explain() {
			t.Fatalf("%s lane %d: last decision %q, fresh %q", when, lane, rec.Decision.Explain(), recs[rec.Index*lanes+lane].Decision.Explain())
		}
	}
}

func TestFireRefusesKeysAFileCannotHold(t *testing.T) {
	l := newLab(t, randomScenario(t, 42, 10))
	for _, key := range []string{strings.Repeat("x", 65), "bad\xff", "a\tb", "a\u202eb", "a\u2067b", "a\x1b[2Jb"} {
		if _, err := l.Fire(key, 1); err == nil {
			t.Errorf("key %q accepted", key)
		}
	}
	if _, err := l.Fire(strings.Repeat("x", 64), 1); err != nil {
		t.Errorf("a 64-byte key: %v", err)
	}
	if l.FiredCount() != 1 || len(l.timeline.history) != 1 {
		t.Errorf("refused fires left %d requests, %d actions", l.FiredCount(), len(l.timeline.history))
	}
}

func TestUndoRestoresTheTimeline(t *testing.T) {
	s := randomScenario(t, 6, CheckpointEvery+500)
	l := newLab(t, s)
	before, _ := reference(t, s, 0)
	l.Seek(l.End() / 2)
	now := l.Now()
	if _, err := l.Fire("k0", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := l.FireAt(now/3, "new-key", 3); err != nil {
		t.Fatal(err)
	}
	u, ok := l.Undo()
	if !ok || u.N != 1 || u.Reset || u.Request.Key != "new-key" || u.Request.At != now/3 {
		t.Fatalf("first undo removed %+v, %v; want the latest fired request", u, ok)
	}
	u, ok = l.Undo()
	if !ok || u.N != 1 || u.Request.At != now || u.Request.Key != "k0" {
		t.Fatalf("second undo removed %+v, %v", u, ok)
	}
	if _, ok := l.Undo(); ok {
		t.Fatal("undo with nothing fired should report false")
	}
	lanes := len(s.Lanes)
	for i := 0; i < l.Len(); i++ {
		for lane := 0; lane < lanes; lane++ {
			if l.Outcome(lane, i) != before[i*lanes+lane].Decision.Outcome {
				t.Fatalf("after undo, request %d lane %d differs from the original", i, lane)
			}
		}
	}
	if l.Now() != now {
		t.Fatalf("undo moved the clock")
	}
}

func TestResetDropsFiredRequestsAndRewinds(t *testing.T) {
	s := randomScenario(t, 7, 300)
	l := newLab(t, s)
	n := l.Len()
	l.Seek(2 * time.Second)
	l.Fire("x", 1)
	l.Fire("y", 2)
	l.Reset()
	if l.Len() != n || l.Now() != 0 || len(l.FiredRequests()) != 0 {
		t.Fatalf("after reset: %d requests (want %d), now %v, fired %d", l.Len(), n, l.Now(), len(l.FiredRequests()))
	}
	if u, ok := l.Undo(); !ok || !u.Reset || u.N != 2 {
		t.Fatalf("undo after reset: %+v, %v; want the reset undone, 2 requests back", u, ok)
	}
	l.Reset()
	want, _ := reference(t, s, 0)
	lanes := len(s.Lanes)
	for i := 0; i < l.Len(); i++ {
		for lane := 0; lane < lanes; lane++ {
			if got := l.Outcome(lane, i); got != want[i*lanes+lane].Decision.Outcome {
				t.Fatalf("after reset, request %d lane %d is %s, a fresh run says %s", i, lane, got, want[i*lanes+lane].Decision.Outcome)
			}
		}
	}
	if _, ok := l.LastDecision(0); ok != (l.Request(0).At == 0) {
		t.Errorf("after reset at 0: last decision %v, want one only if a request came at 0", ok)
	}
}

// TestUndoGivesBackTheMemory: bursts fired into a sandbox and undone leave
// the lab about as small as before them (before: undo freed nothing).
func TestUndoGivesBackTheMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("fires 200,000 requests")
	}
	l := newLab(t, sandboxLog(t))
	before := heapInUse()
	for i := range 10 {
		l.Seek(time.Duration(i) * time.Second)
		if _, err := l.FireBurst("k", 1, 20_000); err != nil {
			t.Fatal(err)
		}
	}
	l.Seek(l.End())
	full := heapInUse()
	for range 10 {
		if _, ok := l.Undo(); !ok {
			t.Fatal("nothing to undo")
		}
	}
	l.Seek(l.End())
	after := heapInUse()
	runtime.KeepAlive(l)
	t.Logf("heap: %d before the bursts, %d with them, %d undone", before, full, after)
	if after > before+(full-before)/10 {
		t.Errorf("after undoing every burst the lab still holds %d bytes more than before (%d with them)", after-before, full-before)
	}
	if l.Len() != 0 {
		t.Errorf("%d requests left", l.Len())
	}
}
