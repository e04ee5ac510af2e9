package model

import (
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

// TestRebaseKeepsTheLearnersWork: after an edit that shrinks the bucket,
// the actions whose cost still fits are fired again as the same actions
// (one undo each), the one that no longer fits is dropped and counted, the
// clock and the chosen peak window stay, and the timeline is that of the
// edited scenario with those actions.
func TestRebaseKeepsTheLearnersWork(t *testing.T) {
	const lanes = "limiters:\n  - {name: bucket, algorithm: token-bucket, capacity: %s, rate: 2/s}\n  - {name: shaper, algorithm: leaky-bucket, queue: 4, rate: 2/s}\n"
	src := "title: t\n" + strings.Replace(lanes, "%s", "5", 1) + "traffic:\n  - {every: 100ms, until: 20s, key: a}\n"
	s := parse(t, src)
	l := newLab(t, s)
	l.Seek(3 * time.Second)
	must := func(_ []Record, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(l.FireBurst("b", 1, 10))
	must(l.FireBurst("b", 5, 3)) // cost 5: no longer fits a capacity of 3
	must(l.FireSpread("c", 2, 6, 2*time.Second))
	if err := l.SetPeakWindow(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	l.Seek(7 * time.Second)

	edited := parse(t, "title: t\n"+strings.Replace(lanes, "%s", "3", 1)+"traffic:\n  - {every: 100ms, until: 15s, key: a}\n")
	nl, kept, dropped, err := l.Rebase(edited)
	if err != nil {
		t.Fatal(err)
	}
	if kept != 16 || dropped != 3 {
		t.Fatalf("kept %d, dropped %d; want 16, 3", kept, dropped)
	}
	if nl.Now() != 7*time.Second || nl.PeakWindow() != 3*time.Second || nl.FiredCount() != 16 {
		t.Fatalf("now %v, peak window %v, fired %d", nl.Now(), nl.PeakWindow(), nl.FiredCount())
	}
	ref := newLab(t, withItems(edited,
		scenarios.Traffic{Form: scenarios.Burst, At: 3 * time.Second, Count: 10, Key: "b", Cost: 1},
		scenarios.Traffic{Form: scenarios.Burst, At: 3 * time.Second, Spread: 2 * time.Second, Count: 6, Key: "c", Cost: 2}))
	if nl.Len() != ref.Len() {
		t.Fatalf("%d requests, want %d", nl.Len(), ref.Len())
	}
	for i := range nl.Len() {
		if nl.Request(i) != ref.Request(i) || nl.Fired(i) != (nl.Request(i).Key != "a") {
			t.Fatalf("request %d: %+v, want %+v", i, nl.Request(i), ref.Request(i))
		}
	}
	checkAgainstFresh(t, nl, "after the rebase")
	for _, n := range []int{6, 10} {
		if u, ok := nl.Undo(); !ok || u.N != n {
			t.Fatalf("undo: %+v, %v; want %d requests", u, ok, n)
		}
	}
	if _, ok := nl.Undo(); ok {
		t.Fatal("more actions than were kept")
	}
	if l.FiredCount() != 19 || l.PeakWindow() != 3*time.Second {
		t.Fatal("Rebase changed the old lab")
	}

	// The default peak window follows the edit; the clock is clamped to
	// the new axis.
	d := newLab(t, s)
	d.Seek(d.End())
	shorter := parse(t, "title: t\nlimiters:\n  - {name: w, algorithm: fixed-window, limit: 9, window: 2s}\n")
	nd, kept, dropped, err := d.Rebase(shorter)
	if err != nil || kept+dropped != 0 {
		t.Fatalf("%d kept, %d dropped, %v", kept, dropped, err)
	}
	if nd.PeakWindow() != 2*time.Second || nd.Now() != nd.End() {
		t.Fatalf("peak window %v, now %v of %v", nd.PeakWindow(), nd.Now(), nd.End())
	}
}
