package ui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// bigScenario generates the YAML of a scenario with one lane of every
// algorithm (the sliding log's limit kept small enough that its log stays
// short) and periodic traffic of n requests over the duration.
func bigScenario(tb testing.TB, n int, every time.Duration) *scenarios.Scenario {
	tb.Helper()
	until := time.Duration(n) * every
	s, err := scenarios.Parse("big.yaml", []byte(fmt.Sprintf(`title: "%d requests"
step: 100ms
duration: %s
limiters:
  - {name: fixed,   algorithm: fixed-window,    limit: 500, window: 10s}
  - {name: log,     algorithm: sliding-log,     limit: 500, window: 10s}
  - {name: counter, algorithm: sliding-counter, limit: 500, window: 10s}
  - {name: bucket,  algorithm: token-bucket,    capacity: 50, rate: 40/s}
  - {name: gcra,    algorithm: gcra,            burst: 50,    rate: 40/s}
  - {name: shaper,  algorithm: leaky-bucket,    queue: 20,    rate: 40/s}
traffic:
  - {every: %s, until: %s}
notes:
  - {at: 1s, text: "a note"}
`, n, algorithms.FormatDuration(until+time.Second), algorithms.FormatDuration(every), algorithms.FormatDuration(until))))
	if err != nil {
		tb.Fatal(err)
	}
	if got := s.RequestCount(); got != int64(n) {
		tb.Fatalf("generated %d requests, want %d", got, n)
	}
	return s
}

// benchFrames draws a's frame once (the lab computes up to the clock),
// then times drawing it again.
func benchFrames(b *testing.B, a *App) {
	a.render()
	for b.Loop() {
		a.render()
	}
}

// BenchmarkView draws one frame of 6 lanes over a 100,000-request timeline
// at 160×48, the clock in the middle.
func BenchmarkView(b *testing.B) {
	a := openApp(b, bigScenario(b, 100_000, 20*time.Millisecond), 160, 48)
	a.lab.Seek(a.lab.End() / 2)
	benchFrames(b, a)
}

// BenchmarkViewDense is BenchmarkView with all 100,000 requests inside one
// window (one every 50µs): a frame must not cost what the window holds (the
// sliding counter's exact count walks nothing but two partial blocks).
func BenchmarkViewDense(b *testing.B) {
	a := openApp(b, bigScenario(b, 100_000, 50*time.Microsecond), 160, 48)
	a.lab.Seek(a.lab.End())
	benchFrames(b, a)
}

// BenchmarkViewPinned is BenchmarkView with two keys, one pinned: every
// lane then shows that key's own totals and peak beside every key's, on a
// 200×60 screen (the widest layout, boxes in two rows).
func BenchmarkViewPinned(b *testing.B) {
	s := bigScenario(b, 100_000, 20*time.Millisecond)
	s.Traffic = append(s.Traffic, scenarios.Traffic{Form: scenarios.Periodic, From: 10 * time.Millisecond,
		Every: 20 * time.Millisecond, Until: s.Traffic[0].Until, Count: 100_000, Key: "other", Cost: 1})
	a := openApp(b, s, 200, 60)
	a.lab.Seek(a.lab.End() / 2)
	press(a, "k")
	if !a.pinned() {
		b.Fatal("no key pinned")
	}
	benchFrames(b, a)
}

// BenchmarkViewZoomedOut is BenchmarkView with the whole timeline on
// screen: each column then tallies hundreds of requests.
func BenchmarkViewZoomedOut(b *testing.B) {
	a := openApp(b, bigScenario(b, 100_000, 20*time.Millisecond), 160, 48)
	a.lab.Seek(a.lab.End() / 2)
	a.tl.zoom = len(a.tl.zooms) - 1
	for a.tl.zoom > 0 && a.tl.zooms[a.tl.zoom-1]*160 > a.lab.End() {
		a.tl.zoom--
	}
	benchFrames(b, a)
}

// BenchmarkFastForward plays a 1,000,000-request scenario at ×1000, frame
// by frame as the program would: a tick message 1/30 s after the last
// advances the clock by 1000 × 1/30 s, then the frame is drawn. At the end
// play starts again from 0.
func BenchmarkFastForward(b *testing.B) {
	a := openApp(b, bigScenario(b, 1_000_000, 20*time.Millisecond), 160, 48)
	a.play.speed = len(speeds) - 1
	a.play.stopAtNotes = false // the run's notes would stop it
	a.play.start(&a.status)
	wall := time.Unix(0, 0)
	for b.Loop() {
		if !a.play.playing {
			a.play.start(&a.status)
		}
		wall = wall.Add(frameInterval)
		a.Update(tickMsg{gen: a.play.gen, at: wall})
		a.render()
	}
}

// BenchmarkStartup reads a scenario, builds its lab and draws the first
// frame: what `ratelab` does before the learner sees anything. default is
// the default canned scenario; many-keys is tools/many-keys.yaml (100,000
// keys, 1,000,000 requests), read from its file.
func BenchmarkStartup(b *testing.B) {
	for _, c := range []struct {
		name string
		load func() (*scenarios.Scenario, error)
	}{
		{"default", func() (*scenarios.Scenario, error) { return scenarios.Canned(scenarios.Default) }},
		{"many-keys", func() (*scenarios.Scenario, error) { return scenarios.Load("../tools/many-keys.yaml") }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				s, err := c.load()
				if err != nil {
					b.Fatal(err)
				}
				lab, err := model.New(s, 0)
				if err != nil {
					b.Fatal(err)
				}
				a := New(lab, Options{About: true})
				a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
				a.render()
			}
		})
	}
}

// BenchmarkViewFourDecimals draws boundary at 160×48 in its burst, where
// requests 0.8ms apart put the screen in a form of 4 decimals: every time
// of its boxes and explanations is written at them.
func BenchmarkViewFourDecimals(b *testing.B) {
	a := newTestApp(b, "boundary", 160, 48)
	a.lab.Seek(60099200 * time.Microsecond)
	if f := a.form(); f != 4 {
		b.Fatalf("form %d, want 4", f)
	}
	benchFrames(b, a)
}
