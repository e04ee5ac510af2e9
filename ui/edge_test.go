package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/scenarios"
)

// newYAMLApp opens the scenario written in yaml at w × h.
func newYAMLApp(tb testing.TB, yaml string, w, h int) *App {
	tb.Helper()
	s, err := scenarios.Parse("test.yaml", []byte(yaml))
	if err != nil {
		tb.Fatal(err)
	}
	return openApp(tb, s, w, h)
}

// requireScreen fails unless the screen holds every one of wants.
func requireScreen(t *testing.T, a *App, wants ...string) {
	t.Helper()
	out := screen(a)
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Fatalf("the screen lacks %q:\n%s", w, out)
		}
	}
}

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
	requireScreen(t, a, "t = 6.000 s", "3 of 3 tokens", "✓3 ✗1")
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

// TestCostThatNeverFits: the cost prompt refuses a cost some lane can
// never admit, saying which and why (a file with it would not load). A
// request of such a cost put on the timeline by model's API is drawn as
// rejected there with "never", and no Retry-After, while another lane
// admits it.
func TestCostThatNeverFits(t *testing.T) {
	a := newYAMLApp(t, "title: t\nlimiters:\n  - {name: q, algorithm: leaky-bucket, queue: 50, rate: 3/s}\n  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}\n", 80, 24)
	press(a, "c")
	answer(a, "50")
	if a.cost != 1 || !a.prompt.active() || !strings.Contains(a.status.text, "lane b can never admit cost 50") {
		t.Fatalf("cost 50: cost %d, status %q", a.cost, a.status.text)
	}
	answer(a, "3")
	press(a, "space")
	requireScreen(t, a, "fired 1 request at 0s: q ✓ · b ✓")
	if _, err := a.lab.Fire("default", 50); err != nil {
		t.Fatal(err)
	}
	requireScreen(t, a, "never fits")
	press(a, "tab")
	requireScreen(t, a, "cost 50 > capacity 3", "429 Too Many Requests (no Retry-After: this cost can never fit)")
}

// TestFastForward plays a 200,000-request timeline at ×1000 frame by frame
// to its end: the clock moves 1000 × the frame's wall time each frame and
// stops exactly at the end, paused.
func TestFastForward(t *testing.T) {
	a := openApp(t, bigScenario(t, 200_000, 5*time.Millisecond), 160, 48)
	a.play.speed = len(speeds) - 1
	a.play.stopAtNotes = false // the run's notes would stop it
	a.play.start(&a.status)
	wall := time.Unix(0, 0)
	frames := 0
	for a.play.playing {
		before := a.lab.Now()
		wall = wall.Add(frameInterval)
		a.Update(tickMsg{gen: a.play.gen, at: wall})
		a.render()
		frames++
		if moved := a.lab.Now() - before; a.play.playing && (moved < 33*time.Second || moved > 34*time.Second) {
			t.Fatalf("frame %d moved the clock %v, want 1000 × 1/30 s", frames, moved)
		}
	}
	if a.lab.Now() != a.lab.End() || !strings.Contains(screen(a), "■ at the end ×1000") {
		t.Fatalf("play stopped at %v, end %v", a.lab.Now(), a.lab.End())
	}
	if want := int(a.lab.End()/(1000*frameInterval)) + 1; frames < want-1 || frames > want+1 {
		t.Errorf("%d frames to the end, want about %d", frames, want)
	}
}

// TestWhyShowsDisagreeingLanesFirst: when the why panel has room for one
// other lane only, it is one that decided otherwise.
func TestWhyShowsDisagreeingLanesFirst(t *testing.T) {
	a := newTestApp(t, "dashboard", 80, 24)
	a.lab.Seek(30*time.Second + 250*time.Millisecond)
	// The shaper rejects the reload's last request, as the bucket does; the
	// fixed window admits it. Six rows: heading, three of explanation, the
	// 429, one other lane.
	a.focus = 2
	views := laneViews(a.programContext)
	out := ansi.Strip(strings.Join(whyBlock(a.st, views, 2, 80, 6, labelWidth, ""), "\n"))
	if !strings.Contains(out, "why shaper") || !strings.Contains(out, "  fixed   ✓ window") || strings.Contains(out, "bucket") {
		t.Errorf("the one other lane shown is not the one that disagrees:\n%s", out)
	}
}

// TestSplitOnABurst: d onto a burst at one instant counts how many of its
// requests split the lanes and each lane's outcomes over them, in a line
// that fits 80 columns.
func TestSplitOnABurst(t *testing.T) {
	a := newTestApp(t, "dashboard", 80, 24)
	a.lab.Seek(30 * time.Second)
	press(a, "d")
	want := "split on 10 of 10 requests at 30.25s: bucket ✗10 · fixed ✓10 · shaper ◷1 ✗9"
	if got := ansi.Strip(a.status.text); got != want {
		t.Errorf("status %q, want %q", got, want)
	}
	requireScreen(t, a, want)
}
