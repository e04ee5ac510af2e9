package ui

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
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
	if !strings.Contains(screen(a), "t = 0.100 s") {
		t.Errorf("the header does not show the clock after a step:\n%s", screen(a))
	}
}

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

func TestFireKeyShowsDecision(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.lab.Seek(60 * time.Second)
	n := a.lab.Len()
	press(a, "space")
	if a.lab.Len() != n+1 {
		t.Fatalf("space: %d requests, want %d", a.lab.Len(), n+1)
	}
	fired := a.lab.FiredRequests()
	if len(fired) != 1 || fired[0].At != 60*time.Second || fired[0].Cost != 1 {
		t.Fatalf("space fired %+v, want one request at 60s of cost 1", fired)
	}
	rec, ok := a.lab.LastDecision(0)
	if !ok || !a.lab.Fired(rec.Index) {
		t.Fatalf("the last decision is not on the fired request")
	}
	out := screen(a)
	for _, want := range []string{"fired 1 request at 60s", "why fixed", rec.Decision.Explain()[:30], "(1 yours)"} {
		if !strings.Contains(out, want) {
			t.Errorf("after space the screen lacks %q:\n%s", want, out)
		}
	}
	// The log rejects it: focus it and the 429 appears.
	press(a, "tab")
	out = screen(a)
	if !strings.Contains(out, "why log") || !strings.Contains(out, "429 Too Many Requests · Retry-After: 60") {
		t.Errorf("the log's why panel lacks its 429:\n%s", out)
	}
}

func TestRewindAndFire(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	before := a.lab.Outcome(1, a.lab.Search(seconds(59.9))) // the log's verdict on the first request of the first burst
	if before != algorithms.Allowed {
		t.Fatalf("setup: the log allowed %v", before)
	}
	// Fire 120 requests at 30s: the log is full before the first burst.
	a.lab.Seek(30 * time.Second)
	press(a, "b")
	answer(a, "120")
	if got := len(a.lab.FiredRequests()); got != 120 {
		t.Fatalf("burst fired %d, want 120", got)
	}
	if !strings.Contains(ansi.Strip(a.status.text), "fired 120 requests at 30s: fixed ✓120 · log ✓120") {
		t.Errorf("status after the burst: %q", a.status.text)
	}
	if got := a.lab.Outcome(1, a.lab.Search(seconds(59.9))-1); got != algorithms.Rejected {
		t.Errorf("after firing at 30s the log's verdict on the request at 59.9s is %v, want rejected", got)
	}
	press(a, "u")
	if got := len(a.lab.FiredRequests()); got != 0 || !strings.HasPrefix(a.status.text, "undid 120 requests at 30s;") {
		t.Fatalf("u after a burst left %d fired requests, want 0; status %q", got, a.status.text)
	}
	// A burst far larger than any lane's limit is one action too.
	press(a, "b")
	answer(a, "50000")
	if got := a.lab.FiredCount(); got != 50000 {
		t.Fatalf("a burst of 50000 fired %d", got)
	}
	press(a, "u")
	if got := a.lab.Outcome(1, a.lab.Search(seconds(59.9))-1); got != algorithms.Allowed {
		t.Errorf("after undo the log's verdict at 59.9s is %v, want allowed again", got)
	}
}

func TestUndoKey(t *testing.T) {
	a := newTestApp(t, "shaping-vs-policing", 100, 30)
	press(a, "u")
	if !strings.Contains(a.status.text, "nothing to undo") {
		t.Errorf("u with nothing fired: status %q", a.status.text)
	}
	press(a, "right", "space", "right", "space")
	if got := len(a.lab.FiredRequests()); got != 2 {
		t.Fatalf("fired %d, want 2", got)
	}
	press(a, "u")
	fired := a.lab.FiredRequests()
	if len(fired) != 1 || fired[0].At != a.lab.Scenario().Step {
		t.Fatalf("u left %+v, want the first request only", fired)
	}
}

func TestBurstAndCostKeys(t *testing.T) {
	a := newTestApp(t, "shaping-vs-policing", 100, 30)
	press(a, "c")
	if !a.prompt.active() {
		t.Fatal("c did not open the cost prompt")
	}
	answer(a, "0")
	if !a.prompt.active() || !a.status.err {
		t.Fatal("a cost of 0 was accepted")
	}
	press(a, "backspace")
	typeText(a, "3")
	press(a, "enter")
	if a.prompt.active() || a.cost != 3 {
		t.Fatalf("cost = %d (prompt open %v), want 3", a.cost, a.prompt.active())
	}
	press(a, "b")
	answer(a, "4")
	fired := a.lab.FiredRequests()
	if len(fired) != 4 {
		t.Fatalf("burst of 4 fired %d", len(fired))
	}
	for _, r := range fired {
		if r.Cost != 3 {
			t.Errorf("fired cost %d, want 3", r.Cost)
		}
	}
	if !strings.Contains(a.status.text, "fired 4 requests") {
		t.Errorf("status %q", a.status.text)
	}
	press(a, "b", "esc")
	if a.prompt.active() || len(a.lab.FiredRequests()) != 4 {
		t.Error("esc did not cancel the burst prompt")
	}
}

func TestKeyKey(t *testing.T) {
	a := newTestApp(t, "counter-blind-spot", 100, 30)
	a.lab.Seek(90 * time.Second)
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

func TestPlayKeys(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	cmd := press(a, "p")
	if !a.play.playing || cmd == nil {
		t.Fatal("p did not start playing with a ticker")
	}
	start := time.Unix(1000, 0)
	a.Update(tickMsg{gen: a.play.gen, at: start})
	now := a.lab.Now()
	if want := frameInterval.Truncate(time.Millisecond); now != want {
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

func TestZoomKeys(t *testing.T) {
	a := newTestApp(t, "boundary", 120, 50) // tall enough for the legend
	if a.tl.zooms[a.tl.zoom] != a.lab.Scenario().Step {
		t.Fatalf("default zoom %v, want the step", a.tl.zooms[a.tl.zoom])
	}
	press(a, "z")
	if a.tl.zooms[a.tl.zoom] >= a.lab.Scenario().Step || !strings.Contains(screen(a), "0.05s/column") {
		t.Fatalf("z: %v per column", a.tl.zooms[a.tl.zoom])
	}
	press(a, "Z", "Z")
	if a.tl.zooms[a.tl.zoom] != 200*time.Millisecond {
		t.Fatalf("Z Z: %v per column", a.tl.zooms[a.tl.zoom])
	}
}

func TestResetKey(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "d", "space", "space", "r")
	if a.lab.Now() != 0 || len(a.lab.FiredRequests()) != 0 || a.lab.FiredCount() != 0 {
		t.Fatalf("r: now %v, %d fired", a.lab.Now(), len(a.lab.FiredRequests()))
	}
}

func TestHelpAndAboutKeys(t *testing.T) {
	a := newTestApp(t, "boundary", 120, 50)
	press(a, "?")
	if a.overlay != overlayHelp {
		t.Fatal("? did not open the help")
	}
	out := screen(a)
	km := newKeyMap()
	for _, group := range km.FullHelp() {
		for _, b := range group {
			// The key, then its description, on one line.
			pair := regexp.MustCompile(regexp.QuoteMeta(b.Help().Key) + ` +` + regexp.QuoteMeta(b.Help().Desc))
			if !pair.MatchString(out) {
				t.Errorf("the help lacks %q (%s)", b.Help().Desc, b.Help().Key)
			}
		}
	}
	press(a, "?")
	if a.overlay != overlayNone {
		t.Fatal("? did not close the help")
	}
	press(a, "a")
	if a.overlay != overlayAbout || !strings.Contains(screen(a), "Four limiters promise the same thing") {
		t.Fatalf("a did not show the about text:\n%s", screen(a))
	}
	press(a, "esc")
	if a.overlay != overlayNone {
		t.Fatal("esc did not close the about page")
	}
	// A key of the lab on a page closes it and does its job.
	press(a, "a", "n")
	if a.overlay != overlayNone || a.lab.Now() != seconds(59.9) {
		t.Fatalf("n on the about page: overlay %v, now %v", a.overlay, a.lab.Now())
	}
	press(a, "?", "down")
	if a.overlay != overlayHelp {
		t.Fatal("down closed the help instead of scrolling it")
	}
}

func TestPickerKey(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "o")
	if a.overlay != overlayPicker {
		t.Fatal("o did not open the picker")
	}
	list := scenarios.List()
	if !strings.Contains(screen(a), list[1].Title) {
		t.Errorf("the picker does not list %q", list[1].Title)
	}
	press(a, "down", "enter")
	if a.overlay != overlayNone || a.lab.Scenario().Name != list[1].Name {
		t.Fatalf("down enter opened %q, want %q", a.lab.Scenario().Name, list[1].Name)
	}
	if !strings.Contains(screen(a), list[1].Title) {
		t.Error("the header does not show the new scenario")
	}
	press(a, "o", "esc")
	if a.overlay != overlayNone || a.lab.Scenario().Name != list[1].Name {
		t.Fatal("esc in the picker changed the scenario")
	}
}

func TestSaveKey(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "d", "space")
	press(a, "s")
	if !a.prompt.active() {
		t.Fatal("s did not open the save prompt")
	}
	want := filepath.Join(a.opts.SaveDir, "boundary-mine.yaml")
	if got := a.prompt.input.Value(); got != want {
		t.Fatalf("default path %q, want %q", got, want)
	}
	settle(a, press(a, "enter"))
	if a.prompt.active() || a.status.err {
		t.Fatalf("save failed: %s", a.status.text)
	}
	s, err := scenarios.Load(want)
	if err != nil {
		t.Fatal(err)
	}
	var n, at60 int
	for r := range s.Requests() {
		n++
		if r.At == 60*time.Second {
			at60++
		}
	}
	if n != 241 || at60 != 2 {
		t.Fatalf("the saved scenario has %d requests, %d at 60s; want 241 and 2", n, at60)
	}
	// The fixed window now admits 241 by 61s: the expectation of 240 no
	// longer holds and is left out; the others are kept, and hold.
	if failures, err := model.Check(s); err != nil || len(failures) > 0 {
		t.Fatalf("the saved scenario fails its checks: %v %v", failures, err)
	}
	orig, _ := scenarios.Canned("boundary")
	if len(s.Expect) == 0 || len(s.Expect) >= len(orig.Expect) || !strings.Contains(a.status.text, "left out") {
		t.Fatalf("kept %d of %d expectations; status %q", len(s.Expect), len(orig.Expect), a.status.text)
	}
	// Saving again asks before overwriting.
	press(a, "s", "enter")
	if !a.prompt.active() || !strings.Contains(a.status.text, "exists") {
		t.Fatalf("no warning before overwriting: %q", a.status.text)
	}
	settle(a, press(a, "enter"))
	if a.prompt.active() {
		t.Fatal("a second enter did not overwrite")
	}
	// An impossible path is reported, and the prompt opens again on it.
	press(a, "s", "ctrl+u")
	typeText(a, filepath.Join(a.opts.SaveDir, "no", "such", "dir.yaml"))
	settle(a, press(a, "enter"))
	if !a.prompt.active() || !a.status.err || !strings.Contains(screen(a), "not saved") {
		t.Fatalf("a bad path: status %q", a.status.text)
	}
	press(a, "esc")
	if _, err := os.Stat(filepath.Join(a.opts.SaveDir, "no")); err == nil {
		t.Fatal("a directory was created")
	}
}

func TestQuitKeys(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		a := newTestApp(t, "boundary", 100, 30)
		if !isQuit(press(a, k)) {
			t.Errorf("%s does not quit", k)
		}
	}
	// In a prompt q is text; ctrl+c still quits.
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "s")
	if isQuit(press(a, "q")) {
		t.Error("q in the save prompt quit")
	}
	if !isQuit(press(a, "ctrl+c")) {
		t.Error("ctrl+c in a prompt does not quit")
	}
	// From the help and the picker q quits too.
	for _, open := range []string{"?", "a", "o"} {
		a := newTestApp(t, "boundary", 100, 30)
		if !isQuit(press(a, open, "q")) {
			t.Errorf("q does not quit from %s", open)
		}
	}
}

func TestResize(t *testing.T) {
	a := newTestApp(t, "boundary", 160, 48)
	if a.lay.mode != laneBoxed {
		t.Fatalf("160×48: %v lanes", a.lay.mode)
	}
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	out := screen(a)
	// Row lanes: the lesson's longest note needs three rows, which compact
	// lanes would not leave it.
	if a.lay.mode != laneRow || strings.Count(out, "\n") != 23 {
		t.Fatalf("after a resize to 80×24: %v lanes, %d lines", a.lay.mode, strings.Count(out, "\n")+1)
	}
	a.Update(tea.WindowSizeMsg{Width: 30, Height: 10})
	if !strings.Contains(screen(a), "too small") {
		t.Fatal("no too-small message at 30×10")
	}
}

// TestSaveOnAFullDisk saves the open file, with the learner's requests,
// on a file system with no room left (a tmpfs of 4 KiB holding the 3.6 KB
// scenario): the save fails and says why, and the file is as it was. It
// needs the right to mount (root, as CI runs) and is skipped without it.
func TestSaveOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	a, path, src := openCannedFile(t, "boundary", dir, "boundary.yaml")
	for range 140 {
		press(a, "space")
	}
	press(a, "s")
	answer(a, path)
	settle(a, press(a, "enter")) // it exists: enter again
	if !a.status.err || !strings.Contains(a.status.text, "no space left on device") {
		t.Errorf("status %q, want the reason the save failed", a.status.text)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, src) {
		t.Errorf("the open file is now %d bytes, want it untouched (%d)", len(got), len(src))
	}
}
