package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

// timelineScenario is five requests of two keys, 1s to 3s, and a
// duration of 10s.
const timelineScenario = `title: t
duration: 10s
limiters:
  - {name: b, algorithm: token-bucket, capacity: 2, rate: 1/s}
traffic:
  - {at: 1s, key: a}
  - {at: 2s, count: 3, key: b}
  - {at: 3s, key: a, cost: 2}
`

// timelineText is the timeline's requests as "at key cost", a * after a
// fired one, then its keys and axis.
func timelineText(tl *timeline) string {
	var b strings.Builder
	for i := range tl.len() {
		r := tl.request(i)
		fmt.Fprintf(&b, "%v %s %d", r.At, r.Key, r.Cost)
		if tl.kind(i).fired != 0 {
			b.WriteString("*")
		}
		b.WriteString(", ")
	}
	fmt.Fprintf(&b, "keys %v, end %v, fired %d", tl.keys.list, tl.axisEnd(), tl.nFired)
	return b.String()
}

// TestTimelineSearches: the searches and the axis of a new timeline.
func TestTimelineSearches(t *testing.T) {
	tl := newTimeline(parse(t, timelineScenario), nil)
	if got, want := timelineText(tl), "1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, keys [a b], end 10s, fired 0"; got != want {
		t.Fatalf("%s\nwant %s", got, want)
	}
	for _, c := range []struct {
		t              time.Duration
		search, before int
	}{
		{0, 0, 0},
		{time.Second, 1, 0},
		{2 * time.Second, 4, 1},
		{2*time.Second + 1, 4, 4},
		{3 * time.Second, 5, 4},
		{time.Hour, 5, 5},
	} {
		if s, b := tl.search(c.t), tl.searchBefore(c.t); s != c.search || b != c.before {
			t.Errorf("at %v: search %d, searchBefore %d; want %d, %d", c.t, s, b, c.search, c.before)
		}
	}
}

// TestTimelineActions: fire, undo and reset change the requests, keys and
// axis as they should, and report the first index they changed.
func TestTimelineActions(t *testing.T) {
	horizon := 2 * time.Second // the lanes' longest, as the lab passes it
	type step struct {
		name string
		do   func(tl *timeline) change
		from int    // the change's first index; −1: none
		want string // timelineText after it
	}
	fire := func(at time.Duration, key string, cost int64, n int, spread time.Duration) func(*timeline) change {
		return func(tl *timeline) change {
			f := fireAction{at: at, key: key, cost: cost, n: n, spread: spread}
			if err := f.check(); err != nil {
				t.Fatal(err)
			}
			first, _ := tl.fire(f, horizon)
			return change{from: first}
		}
	}
	undo := func(tl *timeline) change {
		_, ch, ok := tl.undo()
		if !ok {
			ch.from = -2
		}
		return ch
	}
	reset := func(tl *timeline) change { return tl.reset(0) }
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"fire then undo", []step{
			{"fire at 2s", fire(2*time.Second, "c", 1, 1, 0), 4, "1s a 1, 2s b 1, 2s b 1, 2s b 1, 2s c 1*, 3s a 2, keys [a b c], end 10s, fired 1"},
			{"undo", undo, 4, "1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, keys [a b], end 10s, fired 0"},
			{"nothing to undo", undo, -2, "1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, keys [a b], end 10s, fired 0"},
		}},
		{"a spread burst stretching the axis", []step{
			{"fire 3 over 2s at 9s", fire(9*time.Second, "a", 1, 3, 2*time.Second), 5, "1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, 9s a 1*, 9.666666666s a 1*, 10.333333333s a 1*, keys [a b], end 12.333333333s, fired 3"},
			{"undo", undo, 5, "1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, keys [a b], end 10s, fired 0"},
		}},
		{"reset then undo", []step{
			{"fire at 0", fire(0, "z", 3, 2, 0), 0, "0s z 3*, 0s z 3*, 1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, keys [a b z], end 10s, fired 2"},
			{"fire at 3s", fire(3*time.Second, "a", 1, 1, 0), 7, "0s z 3*, 0s z 3*, 1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, 3s a 1*, keys [a b z], end 10s, fired 3"},
			{"reset", reset, 0, "1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, keys [a b], end 10s, fired 0"},
			{"reset again: nothing", reset, -1, "1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, keys [a b], end 10s, fired 0"},
			{"undo the reset", undo, 0, "0s z 3*, 0s z 3*, 1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, 3s a 1*, keys [a b z], end 10s, fired 3"},
			{"undo the fire at 3s", undo, 7, "0s z 3*, 0s z 3*, 1s a 1, 2s b 1, 2s b 1, 2s b 1, 3s a 2, keys [a b z], end 10s, fired 2"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tl := newTimeline(parse(t, timelineScenario), nil)
			for _, s := range c.steps {
				ch := s.do(tl)
				if ch.from != s.from {
					t.Errorf("%s: changed from %d, want %d", s.name, ch.from, s.from)
				}
				if got := timelineText(tl); got != s.want {
					t.Fatalf("%s:\n got %s\nwant %s", s.name, got, s.want)
				}
			}
		})
	}
}

// TestBuildingIsReported: NewReporting tells its Building of every
// BuildingEvery requests put on the timeline, in order, each with the
// scenario's total; a scenario's items and a log's requests alike, and a
// lab too small for one report is told nothing.
func TestBuildingIsReported(t *testing.T) {
	const n = 3*BuildingEvery + 100 // the items': every 2ms to n ms, twice
	items := parse(t, fmt.Sprintf(`title: t
limiters:
  - {name: b, algorithm: token-bucket, capacity: 2, rate: 1/s}
traffic:
  - {every: 2ms, until: %dms, key: a}
  - {every: 2ms, from: 1ms, until: %dms, key: b}
`, n, n))
	logged, _ := replayed(t, n, 3)
	loggedWhole, _ := replayed(t, 3*BuildingEvery, 3) // its last request ends a block
	small := parse(t, timelineScenario)
	for _, tc := range []struct {
		name string
		s    *scenarios.Scenario
		want []int64
	}{
		{"items", items, []int64{BuildingEvery, 2 * BuildingEvery, 3 * BuildingEvery}},
		{"a log", logged, []int64{BuildingEvery, 2 * BuildingEvery, 3 * BuildingEvery}},
		{"a log of whole blocks", loggedWhole, []int64{BuildingEvery, 2 * BuildingEvery, 3 * BuildingEvery}},
		{"too small", small, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int64
			lab, err := NewReporting(tc.s, 0, nil, func(built, total int64) {
				if total != tc.s.RequestCount() {
					t.Errorf("told a total of %d, want %d", total, tc.s.RequestCount())
				}
				got = append(got, built)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("told %v, want %v", got, tc.want)
			}
			if want := int(tc.s.RequestCount()); lab.Len() != want {
				t.Errorf("the lab holds %d requests, want %d", lab.Len(), want)
			}
		})
	}
}
