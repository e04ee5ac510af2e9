package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/scenarios"
)

// Scenarios at the edges of what the explorer draws: a sandbox with no
// traffic, and the most lanes with the longest names and keys.

const sandbox = "title: s\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}\n"

// TestSandbox: a scenario without traffic is a sandbox. Its axis is one
// refill long (3s); firing at its end grows the axis so that the learner
// can watch the refill, and reset shrinks it back.
func TestSandbox(t *testing.T) {
	a := newYAMLApp(t, sandbox, 80, 24)
	requireScreen(t, a, "0 requests", "no request has arrived yet", "3 of 3 tokens", "space fires one now")
	for _, c := range []struct{ key, status string }{
		{"n", "no request after 0s"}, {"N", "no request before 0s"},
		{"d", "the lanes agree on every request after 0s"}, {"D", "the lanes agree on every request before 0s"},
		{"]", "no note after 0s"}, {"[", "no note before 0s"},
	} {
		if press(a, c.key); a.lab.Now() != 0 || a.status.text != c.status {
			t.Fatalf("%s in an empty timeline: now %v, status %q, want %q", c.key, a.lab.Now(), a.status.text, c.status)
		}
	}
	press(a, "G")
	if a.lab.Now() != 3*time.Second {
		t.Fatalf("the axis ends at %v, want 3s", a.lab.Now())
	}
	press(a, "space", "space", "space", "space")
	requireScreen(t, a, "fired 1 request at 3s: b ✗", "0 of 3 tokens", "full at 6s", "429 Too Many Requests · Retry-After: 1")
	if a.lab.End() != 6*time.Second {
		t.Fatalf("after firing at the end the axis ends at %v, want 6s (one refill later)", a.lab.End())
	}
	press(a, "G")
	requireScreen(t, a, "t = 6s", "3 of 3 tokens", "✓3 ✗1")
	// Saved, the file keeps the grown axis.
	settle(a, press(a, "s", "enter"))
	saved, err := scenarios.Load(filepath.Join(a.opts.SaveDir, "test-mine.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if saved.Duration != 6*time.Second || saved.RequestCount() != 4 {
		t.Fatalf("saved: duration %v, %d requests; want 6s and 4", saved.Duration, saved.RequestCount())
	}
	press(a, "p")
	if a.lab.Now() != 0 || !a.play.playing {
		t.Fatal("p at the grown end does not play from 0")
	}
	press(a, "r")
	if a.lab.End() != 3*time.Second || a.lab.Len() != 0 {
		t.Fatalf("reset: end %v, %d requests", a.lab.End(), a.lab.Len())
	}
}

// eightLanes has the most lanes a scenario may have, the longest names, a
// key longer than a line, a queue of 50 and a capacity of a billion.
const eightLanes = `title: "Eight lanes under a title long enough to be cut at eighty columns"
limiters:
  - {name: fixed-window-lane-name-32-chars, algorithm: fixed-window, limit: 10, window: 10s}
  - {name: log, algorithm: sliding-log, limit: 10, window: 10s}
  - {name: counter, algorithm: sliding-counter, limit: 10, window: 10s}
  - {name: bucket, algorithm: token-bucket, capacity: 10, rate: 1/s}
  - {name: gcra, algorithm: gcra, burst: 10, rate: 1/s}
  - {name: shaper, algorithm: leaky-bucket, queue: 50, rate: 3/s}
  - {name: huge, algorithm: token-bucket, capacity: 1000000000, rate: 7/3s}
  - {name: tiny, algorithm: token-bucket, capacity: 1, rate: 1/min}
traffic:
  - {at: 1s, count: 300, spread: 1s, key: customer-0123456789-0123456789-0123456789-0123456789}
  - {every: 100ms, from: 3s, until: 20s, key: k2}
`

// TestEightLanes draws eight lanes at every size from the minimum up,
// playing, with long names and keys: the frame fits, and the numbers a
// long key or name could push off a line (the cost fired, the request's
// cost, the policy's rate) stay on screen.
func TestEightLanes(t *testing.T) {
	a := newYAMLApp(t, eightLanes, 80, 24)
	press(a, "n", "l")
	for _, size := range [][2]int{{50, 23}, {80, 24}, {100, 30}, {120, 40}, {160, 48}, {250, 70}} {
		w, h := size[0], size[1]
		a.Update(tea.WindowSizeMsg{Width: w, Height: h})
		out := checkFrame(t, a, w, h)
		if a.lay.tooSmall {
			t.Fatalf("%d×%d is too small for 8 lanes", w, h)
		}
		if !strings.Contains(out, "cost 1") {
			t.Errorf("%d×%d: the cost is cut:\n%s", w, h, out)
		}
		if a.lay.mode == laneBoxed && (!strings.Contains(out, "@7/3s") || !strings.Contains(out, "@3/s")) {
			t.Errorf("%d×%d: a policy's rate is cut:\n%s", w, h, out)
		}
	}
	// The leaky bucket's queue, boxed: its releases and the pipe.
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	press(a, "tab", "tab", "tab", "tab", "tab")
	requireScreen(t, a, "30 of 50 queued", "out at ≈1.333s ≈1.667s 2s +27", "next free ≈11.333s", "why shaper")
}
