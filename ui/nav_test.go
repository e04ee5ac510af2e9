package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestJumpKeys(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "n")
	if got, want := a.lab.Now(), seconds(59.9); got != want {
		t.Fatalf("n: now = %v, want the first request at %v", got, want)
	}
	press(a, "n")
	if next, _ := a.lab.NextRequest(seconds(59.9)); a.lab.Now() != next {
		t.Fatalf("n: now = %v, want %v", a.lab.Now(), next)
	}
	press(a, "N")
	if got, want := a.lab.Now(), seconds(59.9); got != want {
		t.Fatalf("N: now = %v, want %v", got, want)
	}
	press(a, "d")
	if got, want := a.lab.Now(), 60*time.Second; got != want {
		t.Fatalf("d: now = %v, want the first disagreement at %v", got, want)
	}
	if !strings.Contains(a.status.text, "disagree at 60s") {
		t.Errorf("d: status %q does not name the disagreement", a.status.text)
	}
	press(a, "d")
	next := a.lab.Now()
	if next <= 60*time.Second {
		t.Fatalf("d again did not move on: now = %v", next)
	}
	press(a, "D")
	if got := a.lab.Now(); got != 60*time.Second {
		t.Fatalf("D: now = %v, want 60s", got)
	}
	press(a, "home", "]")
	if got := a.lab.Now(); got != seconds(59.9) {
		t.Fatalf("]: now = %v, want the second note at 59.9s", got)
	}
	press(a, "]", "[")
	if got := a.lab.Now(); got != seconds(59.9) {
		t.Fatalf("] [: now = %v, want 59.9s", got)
	}
	// ] and [ skip the note at the clock: boundary's notes are at 0s,
	// 59.9s, 60s, 60.1s and 119.9s.
	for _, c := range []struct {
		from   time.Duration
		key    string
		to     time.Duration
		status string
	}{
		{60 * time.Second, "]", seconds(60.1), ""},
		{60 * time.Second, "[", seconds(59.9), ""},
		{0, "[", 0, "no note before 0s"},
		{seconds(119.9), "]", seconds(119.9), "no note after 119.9s"},
		{seconds(119.95), "[", seconds(119.9), ""},
	} {
		a.lab.Seek(c.from)
		press(a, c.key)
		if a.lab.Now() != c.to || a.status.text != c.status {
			t.Errorf("%s from %v: now %v, status %q; want %v, %q", c.key, c.from, a.lab.Now(), a.status.text, c.to, c.status)
		}
	}
}

// TestStepThroughAnInstant: the dashboard's page load is 10 requests at 0s;
// n and N step through them one by one, the bucket's balance and the why
// panel follow each.
func TestStepThroughAnInstant(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	a.lab.SeekPos(0)
	requireScreen(t, a, "before request 1 of 10 at 0s", "10 of 10 tokens")
	for k := 1; k <= 10; k++ {
		press(a, "n")
		requireScreen(t, a, "request "+itoa(int64(k))+" of 10 at 0s", itoa(int64(10-k))+" of 10 tokens")
	}
	press(a, "N", "N")
	requireScreen(t, a, "request 8 of 10 at 0s", "2 of 10 tokens")
	// The shaper's third request waits 1s: tab to it and read why.
	a.lab.SeekPos(3)
	press(a, "tab", "tab")
	requireScreen(t, a, "why shaper", "delay = 1s")
}

// TestQuizAndStepsWithRetries: a question waits at its request's own
// instant, with the lanes showing its key; n stops where only retries are
// decided, and never skips a request of the instant it stands in.
func TestQuizAndStepsWithRetries(t *testing.T) {
	a := newTestApp(t, "retry-after-not-a-reservation", 80, 24)
	press(a, "g")
	seen := map[time.Duration]bool{}
	for range 40 {
		press(a, "n")
		k, m := a.lab.Instant()
		if k > m {
			t.Fatalf("request %d of %d at %v", k, m, a.lab.Now())
		}
		seen[a.lab.Now()] = true
	}
	for _, at := range []time.Duration{200 * time.Millisecond, 1200 * time.Millisecond, 2100 * time.Millisecond} {
		if !seen[at] {
			t.Errorf("n never stood at %v: %v", at, seen)
		}
	}
	// N walks back through the same stops.
	back := map[time.Duration]bool{}
	for range 40 {
		press(a, "N")
		back[a.lab.Now()] = true
	}
	for _, at := range []time.Duration{200 * time.Millisecond, 1200 * time.Millisecond, 2100 * time.Millisecond} {
		if !back[at] {
			t.Errorf("N never stood at %v: %v", at, back)
		}
	}
	// Both requests at 0.2s are stepped through one by one.
	a.lab.SeekBefore(a.lab.Search(200*time.Millisecond - 1))
	press(a, "n")
	if k, m := a.lab.Instant(); a.lab.Now() != 200*time.Millisecond || k != 1 || m != 2 {
		t.Fatalf("at %v, request %d of %d", a.lab.Now(), k, m)
	}
	press(a, "n")
	if k, m := a.lab.Instant(); a.lab.Now() != 200*time.Millisecond || k != 2 || m != 2 {
		t.Errorf("n skipped the second request at 0.2s: at %v, request %d of %d", a.lab.Now(), k, m)
	}

	b := newTestApp(t, "global-cap", 80, 24)
	press(b, "t")
	b.play.speed = len(speeds) - 1
	press(b, "m")
	press(b, "p")
	playUntilPaused(t, b, 100000)
	if !b.quiz.asking() {
		t.Fatal("no question")
	}
	q := b.lab.Request(b.quiz.index)
	if b.lab.Now() != q.At || b.programContext.key() != q.Key {
		t.Errorf("asked about %+v at %v, showing key %s", q, b.lab.Now(), b.programContext.key())
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
