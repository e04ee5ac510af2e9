package ui

import (
	"strings"
	"testing"
	"time"
)

// playUntilPaused plays frame by frame (wall time 1/30 s a frame) until
// the clock stops, at most frames frames.
func playUntilPaused(t *testing.T, a *App, frames int) {
	t.Helper()
	wall := time.Unix(0, 0)
	for i := 0; a.play.playing; i++ {
		if i == frames {
			t.Fatalf("still playing after %d frames, at %v", frames, a.lab.Now())
		}
		wall = wall.Add(frameInterval)
		a.Update(tickMsg{gen: a.play.gen, at: wall})
	}
}

func TestPlayKeys(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.lab.Seek(58 * time.Second) // near the burst: nothing to skip
	cmd := press(a, "p")
	if !a.play.playing || cmd == nil {
		t.Fatal("p did not start playing with a ticker")
	}
	start := time.Unix(1000, 0)
	a.Update(tickMsg{gen: a.play.gen, at: start})
	now := a.lab.Now()
	if want := 58*time.Second + frameInterval.Truncate(time.Millisecond); now != want {
		t.Fatalf("the first frame moved the clock to %v, want %v (whole milliseconds)", now, want)
	}
	a.Update(tickMsg{gen: a.play.gen, at: start.Add(100 * time.Millisecond)})
	if got := a.lab.Now() - now; got != 100*time.Millisecond {
		t.Fatalf("100ms of wall time at ×1 moved the clock %v", got)
	}
	press(a, "+", "+")
	if speeds[a.play.speed] != 5 || !strings.Contains(screen(a), "×5") {
		t.Fatalf("+ + : speed ×%v", speeds[a.play.speed])
	}
	now = a.lab.Now()
	a.Update(tickMsg{gen: a.play.gen, at: start.Add(200 * time.Millisecond)})
	if got := a.lab.Now() - now; got != 500*time.Millisecond {
		t.Fatalf("100ms at ×5 moved the clock %v", got)
	}
	press(a, "-", "-", "-", "-", "-", "-", "-")
	if a.play.speed != 0 || !strings.Contains(screen(a), "×0.1") {
		t.Fatalf("- ×7: speed ×%v", speeds[a.play.speed])
	}
	for range len(speeds) + 2 {
		press(a, "=")
	}
	if speeds[a.play.speed] != 1000 {
		t.Fatalf("= to the top: speed ×%v", speeds[a.play.speed])
	}
	gen := a.play.gen
	if cmd := press(a, "p"); a.play.playing || cmd != nil {
		t.Fatal("p did not pause, or left a ticker running")
	}
	now = a.lab.Now()
	_, cmd = a.Update(tickMsg{gen: gen, at: start.Add(time.Second)})
	if cmd != nil || a.lab.Now() != now {
		t.Fatal("a tick after pause moved the clock or scheduled another")
	}
	// Playing to the end stops there.
	press(a, "p")
	a.lab.Seek(a.lab.End() - time.Millisecond)
	_, cmd = a.Update(tickMsg{gen: a.play.gen, at: start.Add(2 * time.Second)})
	if a.play.playing || cmd != nil || a.lab.Now() != a.lab.End() {
		t.Fatalf("play did not stop at the end: playing %v, now %v", a.play.playing, a.lab.Now())
	}
	press(a, "p")
	if a.lab.Now() != 0 || !a.play.playing {
		t.Fatal("p at the end did not start again from 0")
	}
}

// TestPlayStopsAtEachNote: at ×1000 play stops exactly at every note; with
// m it runs through them to the end.
func TestPlayStopsAtEachNote(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.play.speed = len(speeds) - 1
	notes := a.lab.Scenario().Notes
	for _, n := range notes {
		if n.At == 0 {
			continue
		}
		press(a, "p")
		playUntilPaused(t, a, 1000)
		if a.lab.Now() != n.At || !strings.Contains(a.status.text, "stopped at the note at "+secs(n.At)) {
			t.Fatalf("play stopped at %v (%q), want the note at %v", a.lab.Now(), a.status.text, n.At)
		}
	}
	press(a, "g", "m")
	if !strings.Contains(screen(a), "no note stops") {
		t.Error("the header does not say that play runs through the notes")
	}
	press(a, "p")
	playUntilPaused(t, a, 1000)
	if a.lab.Now() != a.lab.End() {
		t.Errorf("with m, play stopped at %v, not the end", a.lab.Now())
	}
}

// TestPlayToTheNextMoment: P plays to the next note or disagreement and
// stops there, at any speed.
func TestPlayToTheNextMoment(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "m") // notes do not stop it: the moment does
	a.play.speed = 0
	a.lab.Seek(61 * time.Second)
	want, ok := a.lab.NextMoment(a.lab.Now())
	if !ok {
		t.Fatal("no moment after 61s")
	}
	press(a, "P")
	playUntilPaused(t, a, 100000)
	if a.lab.Now() != want {
		t.Errorf("P stopped at %v, want %v", a.lab.Now(), want)
	}
}

// TestPlayStopsAtTheEarliestStop: of the stops a frame of play passes, the
// earliest wins: a disagreement before a note (found in a review).
func TestPlayStopsAtTheEarliestStop(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.lab.Seek(60 * time.Second)
	want, _ := a.lab.NextDisagreement(a.lab.Now())
	a.play.speed = len(speeds) - 1
	press(a, "P")
	playUntilPaused(t, a, 100)
	if a.lab.Now() != want {
		t.Errorf("P from 60s at ×1000 stopped at %v, want the disagreement at %v before the note at 60.1s", a.lab.Now(), want)
	}
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

// TestPlaySkipsEmptyStretches: play jumps over a stretch where nothing
// happens to a second of play before the next request, and says so;
// where requests keep arriving, or a queue keeps emptying, it does not
// jump.
func TestPlaySkipsEmptyStretches(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.play.stopAtNotes = false
	a.Update(keyPress("p"))
	a.Update(tickMsg{gen: a.play.gen, at: time.Now()})
	if got, want := a.lab.Now(), 59900*time.Millisecond-time.Second; got != want {
		t.Fatalf("after one frame of play from 0 the clock is at %v, want %v (a second before the burst)", got, want)
	}
	if !strings.Contains(a.status.text, "skipped 0s to 58.9s") {
		t.Errorf("the skip is not said: %q", a.status.text)
	}
	if !a.play.playing {
		t.Error("play stopped at the skip")
	}

	// A queue still emptying is something happening: the out row moves,
	// so play does not jump over it, though no request arrives until 60s.
	q := newYAMLApp(t, "title: queue\nlimiters:\n  - {name: s, algorithm: leaky-bucket, queue: 20, rate: 1/s}\ntraffic:\n  - {at: 0s, count: 20}\n  - {at: 60s, count: 1}\n", 100, 30)
	q.play.stopAtNotes = false
	q.lab.Seek(0)
	q.Update(keyPress("p"))
	from := q.lab.Now()
	q.Update(tickMsg{gen: q.play.gen, at: time.Now()})
	if q.lab.Now()-from > time.Second || strings.Contains(q.status.text, "skipped") {
		t.Errorf("a queue emptying: one frame moved the clock %v → %v (%q)", from, q.lab.Now(), q.status.text)
	}

	b := newYAMLApp(t, "title: steady\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}\ntraffic:\n  - {every: 500ms, from: 0s, until: 50s}\n", 100, 30)
	b.Update(keyPress("p"))
	from = b.lab.Now()
	b.Update(tickMsg{gen: b.play.gen, at: time.Now()})
	if b.lab.Now()-from > time.Second || strings.Contains(b.status.text, "skipped") {
		t.Errorf("steady traffic: one frame moved the clock %v → %v (%q)", from, b.lab.Now(), b.status.text)
	}
}

// TestPlaySkipLandsBeforeRetriesAndNotes: an empty stretch ends at a
// retry and at a note as at a request: play jumps to a second of play
// before it, not past it.
func TestPlaySkipLandsBeforeRetriesAndNotes(t *testing.T) {
	for _, c := range []struct{ name, yaml string }{
		{"a retry at 20s", "title: retry\nlimiters:\n  - {name: w, algorithm: fixed-window, limit: 1, window: 60s}\nclients:\n  - {name: slow, retry: backoff, base: 20s, attempts: 2}\ntraffic:\n  - {at: 0s, count: 2, client: slow}\n  - {at: 60s, count: 1}\n"},
		{"a note at 20s", "title: note\nlimiters:\n  - {name: w, algorithm: fixed-window, limit: 1, window: 60s}\ntraffic:\n  - {at: 0s, count: 2}\n  - {at: 60s, count: 1}\nnotes:\n  - {at: 20s, text: here}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newYAMLApp(t, c.yaml, 100, 30)
			a.play.stopAtNotes = false
			a.lab.Seek(0)
			a.Update(keyPress("p"))
			a.Update(tickMsg{gen: a.play.gen, at: time.Now()})
			if got, want := a.lab.Now(), 19*time.Second; got != want {
				t.Errorf("after one frame of play from 0 the clock is at %v, want %v (%q)", got, want, a.status.text)
			}
		})
	}
}
