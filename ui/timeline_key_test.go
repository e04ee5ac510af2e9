package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"ratelab/model"
	"ratelab/scenarios"
)

// keyTimelineCases are moments drawn with a key pinned: the timeline's
// rows are the key's alone, and the legend (or without one the axis's
// label) names it.
var keyTimelineCases = []struct {
	lesson string
	at     time.Duration
	key    string
	sizes  [][2]int
	// timelineOnly draws the timeline alone: what it shows, whatever
	// the lane boxes above it show.
	timelineOnly bool
}{
	// The sync key's second wave, one burst of 10 at 3.9s after three
	// empty windows; the spread key's retries a trickle across them.
	{"jitter-spreads-retries", 3900 * time.Millisecond, "sync", [][2]int{{80, 24}, {120, 40}, {50, 14}}, false},
	{"jitter-spreads-retries", 3900 * time.Millisecond, "spread", [][2]int{{80, 24}, {120, 40}}, false},
	// One caller's queue and releases among three: the polite key's
	// waits given back leave nothing to release.
	{"deadlines-and-cancel", 2 * time.Second, "polite", [][2]int{{120, 40}}, true},
	{"deadlines-and-cancel", 2 * time.Second, "patient", [][2]int{{120, 40}}, true},
}

func TestTimelineKeyGolden(t *testing.T) {
	for _, c := range keyTimelineCases {
		for _, size := range c.sizes {
			t.Run(fmt.Sprintf("%s_%s_%dx%d", c.lesson, c.key, size[0], size[1]), func(t *testing.T) {
				a := newTestApp(t, c.lesson, size[0], size[1])
				seekTo(a, c.at)
				if !a.pin(c.key) {
					t.Fatalf("no key %s", c.key)
				}
				seekTo(a, c.at) // the pinned key's verdict worked out
				out := screen(a)
				if c.timelineOnly {
					out = ansi.Strip(strings.Join(a.tl.view(a.tl.span()), "\n"))
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

// laneRowTexts are the timeline's lane rows on the screen, by lane name.
func laneRowTexts(t *testing.T, a *App) []string {
	t.Helper()
	var rows []string
	inChart := false // the chart's rows, under their title, are no timeline rows
	for _, line := range strings.Split(screen(a), "\n") {
		name := strings.TrimPrefix(strings.Fields(line + " x")[0], "▶")
		switch {
		case strings.HasPrefix(line, "state over time"):
			inChart = true
		case inChart && !strings.HasPrefix(line, " ") && !slices.ContainsFunc(a.lab.Lanes(), func(l model.Lane) bool { return l.Name == name }):
			inChart = false
		}
		if inChart {
			continue
		}
		for _, l := range a.lab.Lanes() {
			if name := strings.TrimPrefix(strings.Fields(line + " x")[0], "▶"); name == l.Name && !strings.Contains(line, "─") && !strings.Contains(line, "━") {
				rows = append(rows, line)
			}
		}
	}
	if len(rows) < len(a.lab.Lanes()) {
		t.Fatalf("%d lane rows on the screen, want %d:\n%s", len(rows), len(a.lab.Lanes()), screen(a))
	}
	return rows
}

// TestTimelineKeyRows: pinning the only key of a lesson leaves its rows as
// they were (the key's rows are the lane's), while pinning one of two
// keys changes them, and unpinning gives the merged rows back.
func TestTimelineKeyRows(t *testing.T) {
	one := newTestApp(t, "retry-after-not-a-reservation", 120, 40)
	seekTo(one, 3*time.Second)
	one.keyIdx = -1
	merged := laneRowTexts(t, one)
	if !one.pin(one.lab.Keys()[0]) || len(one.lab.Keys()) != 1 {
		t.Fatalf("retry-after-not-a-reservation has keys %v, want one", one.lab.Keys())
	}
	if got := laneRowTexts(t, one); strings.Join(got, "\n") != strings.Join(merged, "\n") {
		t.Errorf("the only key's rows:\n%s\nwant the lanes':\n%s", strings.Join(got, "\n"), strings.Join(merged, "\n"))
	}

	two := newTestApp(t, "jitter-spreads-retries", 120, 40)
	seekTo(two, 3900*time.Millisecond)
	two.keyIdx = -1
	merged = laneRowTexts(t, two)
	seen := map[string]string{}
	for _, key := range []string{"sync", "spread"} {
		two.pin(key)
		rows := strings.Join(laneRowTexts(t, two), "\n")
		if rows == strings.Join(merged, "\n") {
			t.Errorf("key %s's rows are the merged rows", key)
		}
		if !strings.Contains(screen(two), "key "+key) {
			t.Errorf("pinned %s, the screen does not name it", key)
		}
		seen[key] = rows
	}
	if seen["sync"] == seen["spread"] {
		t.Error("the two keys' rows are the same")
	}
	two.keyIdx = -1
	if got := laneRowTexts(t, two); strings.Join(got, "\n") != strings.Join(merged, "\n") {
		t.Errorf("unpinned, the rows are\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(merged, "\n"))
	}
}

// benchKeyRows draws frames of s at 160×48 with the middle key of its
// keys pinned, the clock at the middle, the whole run on screen if
// zoomedOut.
func benchKeyRows(b *testing.B, s *scenarios.Scenario, zoomedOut bool) {
	a := openApp(b, s, 160, 48)
	a.lab.Seek(a.lab.End() / 2)
	keys := a.lab.Keys()
	a.pin(keys[len(keys)/2])
	if !a.pinned() {
		b.Fatal("no key pinned")
	}
	if zoomedOut {
		a.tl.zoom = a.tl.widest()
	}
	benchFrames(b, a)
}

func manyKeys(b *testing.B) *scenarios.Scenario {
	s, err := scenarios.Open("../tools/many-keys.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkViewKeyRowsManyKeys: one key of tools/many-keys.yaml's 100,000
// (10 of its 1,000,000 requests) pinned, its rows over columns each
// holding hundreds of other keys' requests.
func BenchmarkViewKeyRowsManyKeys(b *testing.B) { benchKeyRows(b, manyKeys(b), false) }

// BenchmarkViewKeyRowsZoomedOut is the same with the whole run on screen.
func BenchmarkViewKeyRowsZoomedOut(b *testing.B) { benchKeyRows(b, manyKeys(b), true) }

// BenchmarkViewKeyRowsClients: two keys of 50,000 requests each whose
// client retries with jitter, nearly every request refused, one pinned:
// its retry marks among the other's.
func BenchmarkViewKeyRowsClients(b *testing.B) {
	s, err := scenarios.Parse("clients.yaml", []byte(`title: two keys that retry
step: 100ms
duration: 1001s
seed: 1
clients:
  - {name: backs-off, retry: backoff, attempts: 4, base: 10ms, cap: 1s, jitter: full}
limiters:
  - {name: fixed,  algorithm: fixed-window, limit: 120, window: 60s}
  - {name: bucket, algorithm: token-bucket, capacity: 10, rate: 2/s}
  - {name: shaper, algorithm: leaky-bucket, queue: 10,    rate: 2/s}
traffic:
  - {every: 20ms, until: 1000s, client: backs-off, key: a}
  - {every: 20ms, from: 10ms, until: 1000s, client: backs-off, key: b}
`))
	if err != nil {
		b.Fatal(err)
	}
	benchKeyRows(b, s, false)
}

// TestTimelineKeyRowsAhead: with a key pinned, a column is marked ahead
// (·) only where that key has requests to come, not where another key
// has.
func TestTimelineKeyRowsAhead(t *testing.T) {
	a := newYAMLApp(t, "title: two keys\nlimiters:\n  - {name: w, algorithm: fixed-window, limit: 5, window: 10s}\ntraffic:\n  - {at: 1s, count: 1, key: a}\n  - {at: 5s, count: 1, key: b}\n", 120, 40)
	a.lab.Seek(0)
	a.keyIdx = -1
	ahead := func() int { return strings.Count(ansi.Strip(laneRowTexts(t, a)[0]), "·") }
	if n := ahead(); n != 2 {
		t.Fatalf("unpinned at 0s: %d columns ahead, want 2 (a's and b's):\n%s", n, screen(a))
	}
	for _, key := range []string{"a", "b"} {
		if !a.pin(key) {
			t.Fatalf("no key %s", key)
		}
		if n := ahead(); n != 1 {
			t.Errorf("key %s pinned at 0s: %d columns ahead, want 1:\n%s", key, n, screen(a))
		}
	}
}
