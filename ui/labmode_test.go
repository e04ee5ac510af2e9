package ui

import (
	"strings"
	"testing"
	"time"
)

func TestStepKeys(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	step := a.lab.Scenario().Step
	for _, c := range []struct {
		key  string
		want time.Duration
	}{
		{"right", step}, {"l", 2 * step}, {"left", step}, {"h", 0},
		{"L", 10 * step}, {"shift+right", 20 * step}, {"H", 10 * step}, {"shift+left", 0},
		{"h", 0}, // clamped at the start
		{"end", a.lab.End()}, {"home", 0}, {"G", a.lab.End()}, {"g", 0},
	} {
		press(a, c.key)
		if got := a.lab.Now(); got != c.want {
			t.Fatalf("after %s: now = %v, want %v", c.key, got, c.want)
		}
	}
	press(a, "right")
	if !strings.Contains(screen(a), "t = 0.1s") {
		t.Errorf("the header does not show the clock after a step:\n%s", screen(a))
	}
}

func TestFocusKeys(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "d")
	names := []string{"fixed", "log", "counter", "bucket"}
	for i := 1; i <= 4; i++ {
		press(a, "tab")
		want := names[i%4]
		if a.focus != i%4 || !strings.Contains(screen(a), "why "+want) {
			t.Fatalf("tab ×%d: focus %d, want %s", i, a.focus, want)
		}
	}
	press(a, "shift+tab")
	if a.focus != 3 || !strings.Contains(screen(a), "why bucket") {
		t.Fatalf("shift+tab: focus %d", a.focus)
	}
}

func TestKeyKey(t *testing.T) {
	a := newTestApp(t, "counter-blind-spot", 100, 30)
	a.lab.Seek(90 * time.Second)
	a.followNote() // the 90s note names no key: the 0s note's early is let go
	if got := a.key(); got != "late" {
		t.Fatalf("the lanes follow key %q, want the latest request's, late", got)
	}
	press(a, "k")
	if got := a.key(); got != "early" {
		t.Fatalf("k pinned %q, want early", got)
	}
	// The lanes' verdicts and the why panel now explain early's latest
	// request, which the log admits (early's history is over 60s old),
	// not late's, the latest of all, which it rejects.
	press(a, "tab")
	if out := screen(a); !strings.Contains(out, "why log · request at 90s, cost 1, key early") || !strings.Contains(out, "✓ allowed: recent") {
		t.Fatalf("with early pinned the why panel does not explain early's request:\n%s", out)
	}
	press(a, "space")
	if f := a.lab.FiredRequests(); len(f) != 1 || f[0].Key != "early" {
		t.Fatalf("space fired %+v, want key early", f)
	}
	press(a, "k", "k")
	if a.keyIdx != -1 {
		t.Fatalf("k did not cycle back to following: keyIdx %d", a.keyIdx)
	}
}

func TestResetKey(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "d", "space", "space", "r")
	if a.lab.Now() != 0 || len(a.lab.FiredRequests()) != 0 || a.lab.FiredCount() != 0 {
		t.Fatalf("r: now %v, %d fired", a.lab.Now(), len(a.lab.FiredRequests()))
	}
}

// TestResetKeepsAPinnedKeyByName: reset keeps the pinned key by its name,
// not its index (found in a review).
func TestResetKeepsAPinnedKeyByName(t *testing.T) {
	a := newTestApp(t, "counter-blind-spot", 100, 30)
	press(a, "k", "k") // late
	pinned := a.key()
	press(a, "K")
	answer(a, "third")
	press(a, "k", "k", "k") // back to late? cycle: follow, early, late
	for a.key() != pinned {
		press(a, "k")
	}
	press(a, "r")
	if a.key() != pinned || !a.pinned() {
		t.Errorf("after r the lanes show %q, want %q pinned", a.key(), pinned)
	}
}

// TestMistakesSwitchOn: M on the boundary lesson's bucket adds its float
// and whole-token twins beside it, keeps the learner's requests and the
// clock, and their totals say how far they are off the bucket; M on one of
// them takes it away again.
func TestMistakesSwitchOn(t *testing.T) {
	a := newTestApp(t, "boundary", 160, 48)
	a.lab.Seek(60 * time.Second)
	a.focus = 3 // bucket
	press(a, "space")
	fired := a.lab.FiredCount()
	press(a, "M")
	var names []string
	for _, l := range a.lab.Lanes() {
		names = append(names, l.Name)
	}
	if strings.Join(names, " ") != "fixed log counter bucket bucket-float bucket-whole" {
		t.Fatalf("lanes after M: %v (status %q)", names, a.status.text)
	}
	if a.lab.FiredCount() != fired || a.lab.Now() != 60*time.Second {
		t.Errorf("M lost the learner's work: %d fired (had %d), clock %v", a.lab.FiredCount(), fired, a.lab.Now())
	}
	if want := "switched on bucket-float, bucket-whole · M again switches them off"; !strings.HasPrefix(a.status.text, "switched on bucket-float, bucket-whole") || !strings.HasSuffix(a.status.text, "M again switches them off") {
		t.Errorf("status %q, want %q", a.status.text, want)
	}
	out := screen(a)
	if !strings.Contains(out, "than bucket") && !strings.Contains(out, "same as bucket") {
		t.Errorf("no mistake lane says how far it is off the bucket:\n%s", out)
	}
	a.focus = 5
	press(a, "M")
	if n := len(a.lab.Lanes()); n != 5 || !strings.HasPrefix(a.status.text, "switched off bucket-whole") || !strings.HasSuffix(a.status.text, "M on bucket switches it on again") {
		t.Errorf("M on bucket-whole: %d lanes, status %q", n, a.status.text)
	}
	a.focus = 3
	press(a, "M")
	if n := len(a.lab.Lanes()); n != 6 || !strings.HasPrefix(a.status.text, "switched on bucket-whole") {
		t.Fatalf("M on the bucket again: %d lanes, status %q", n, a.status.text)
	}
	press(a, "M")
	if n := len(a.lab.Lanes()); n != 4 || !strings.HasPrefix(a.status.text, "switched off bucket-float, bucket-whole") || !strings.HasSuffix(a.status.text, "M on bucket switches them on again") {
		t.Errorf("M on the bucket with both: %d lanes, status %q", n, a.status.text)
	}
}

// TestMistakesKeepThePlace: M inside an instant (n stepping through the
// requests arriving at once) keeps the clock on the same request of
// that instant, not at its end.
func TestMistakesKeepThePlace(t *testing.T) {
	a := newYAMLApp(t, `title: twelve at once
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 10, rate: 1/s}
traffic:
  - {at: 1s, count: 12}
`, 100, 30)
	press(a, "n", "n", "n")
	if k, m := a.lab.Instant(); k != 3 || m != 12 {
		t.Fatalf("after n n n: request %d of %d", k, m)
	}
	press(a, "M")
	if k, m := a.lab.Instant(); k != 3 || m != 12 || a.lab.Now() != time.Second || len(a.lab.Lanes()) != 3 {
		t.Errorf("after M: request %d of %d at %v, %d lanes; want request 3 of 12 at 1s, 3 lanes", k, m, a.lab.Now(), len(a.lab.Lanes()))
	}
	press(a, "M")
	if k, m := a.lab.Instant(); k != 3 || m != 12 {
		t.Errorf("after M again: request %d of %d", k, m)
	}
}

// TestPeakWindowPrompt: w sets the peak's window; the lanes say per what.
func TestPeakWindowPrompt(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.lab.Seek(a.lab.End())
	press(a, "w")
	answer(a, "1s")
	if a.lab.PeakWindow() != time.Second {
		t.Fatalf("peak window %v", a.lab.PeakWindow())
	}
	requireScreen(t, a, "peak 240 per 1s")
	press(a, "w")
	answer(a, "61")
	if !a.status.err || !strings.Contains(a.status.text, "a number needs a unit") {
		t.Errorf("w 61: %q", a.status.text)
	}
}

// TestFooterNamesNextNote: at 80 columns the footer names ] (the way
// through a lesson) when the scenario has notes, and leaves it out when
// there is none to go to; the about page starts with the same keys.
func TestFooterNamesNextNote(t *testing.T) {
	a := newTestApp(t, "boundary", 80, 24)
	if footer := lastLine(screen(a)); !strings.Contains(footer, "] next note") {
		t.Errorf("boundary's footer: %q", footer)
	}
	press(a, "a")
	if about := screen(a); !strings.Contains(about, "To go through it: ] jumps to the next note, n steps") {
		t.Errorf("the about page does not start with the way through:\n%s", about)
	}
	b := newYAMLApp(t, "title: no notes\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}\ntraffic:\n  - {at: 0s}\n", 80, 24)
	if footer := lastLine(screen(b)); strings.Contains(footer, "]") || !strings.Contains(footer, "space fire") {
		t.Errorf("a footer without notes: %q", footer)
	}
}

// TestFitKey: F on which-burst's one-less adds one-less-fit beside it,
// the status saying what the fit found; F on the fitted lane takes it
// away.
func TestFitKey(t *testing.T) {
	a := newTestApp(t, "which-burst", 100, 40)
	a.focus = 1
	settle(a, press(a, "F"))
	lanes := a.lab.Lanes()
	if len(lanes) != 4 || lanes[2].Name != "one-less-fit" {
		t.Fatalf("lanes after F: %v", lanes)
	}
	if msg := a.status.text; !strings.Contains(msg, "one-less-fit: token-bucket capacity 22, rate 1/s refuses none of 2400; 21 refuses 6") {
		t.Errorf("status %q", msg)
	}
	a.focus = 2
	settle(a, press(a, "F"))
	if n := len(a.lab.Lanes()); n != 3 {
		t.Errorf("%d lanes after F on the fitted lane, want 3", n)
	}
}
