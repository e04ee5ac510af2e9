package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// The tests of what a learner ran into (issue 6): every note readable,
// play that stops at the lesson's moments, an instant opened request by
// request, per-key numbers labelled, the shaper's output drawn, and the
// rest.

// TestEveryNoteReadableAt80x24: at each note of every canned lesson, the
// note panel shows the note whole or says that e reads the rest, and e
// shows it whole.
func TestEveryNoteReadableAt80x24(t *testing.T) {
	for _, info := range scenarios.List() {
		t.Run(info.Name, func(t *testing.T) {
			a := newTestApp(t, info.Name, 80, 24)
			for _, n := range a.lab.Scenario().Notes {
				a.lab.Seek(n.At)
				// The note panel: from the note's line to the why panel.
				var panel []string
				for _, l := range strings.Split(screen(a), "\n") {
					if strings.HasPrefix(l, "◆ "+secs(n.At)+"  ") || len(panel) > 0 {
						if strings.HasPrefix(l, "why ") {
							break
						}
						panel = append(panel, l)
					}
				}
				flat := strings.Join(strings.Fields(strings.Join(panel, " ")), " ")
				text := strings.Join(strings.Fields(n.Text), " ")
				if !strings.Contains(flat, text) && !strings.HasSuffix(flat, "(e: read all)") {
					t.Fatalf("at %v the note is cut without a word:\n%s", n.At, screen(a))
				}
				press(a, "e")
				if a.overlay != overlayPanel {
					t.Fatal("e did not open the panel")
				}
				page := strings.Join(strings.Fields(ansi.Strip(a.page.GetContent())), " ")
				if !strings.Contains(page, text) {
					t.Fatalf("at %v the panel lacks the note %q:\n%s", n.At, text, page)
				}
				press(a, "e")
				if a.overlay != overlayNone {
					t.Fatal("e again did not close the panel")
				}
			}
		})
	}
}

// TestExpandedPanelHasEveryExplanation: the panel holds every lane's whole
// explanation, however short the screen.
func TestExpandedPanelHasEveryExplanation(t *testing.T) {
	a := newTestApp(t, "dashboard", 80, 24)
	a.lab.Seek(30*time.Second + 250*time.Millisecond)
	press(a, "e")
	page := strings.Join(strings.Fields(ansi.Strip(a.page.GetContent())), " ")
	for lane := range a.lab.Lanes() {
		rec, _ := a.lab.LastDecision(lane)
		if want := strings.Join(strings.Fields(rec.Decision.Explain()), " "); !strings.Contains(page, want) {
			t.Errorf("the panel lacks lane %d's explanation %q", lane, want)
		}
	}
}

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

// TestPerKeyLabels: with two keys the totals say "all keys", and a pinned
// key shows its own totals and peak first.
func TestPerKeyLabels(t *testing.T) {
	a := newTestApp(t, "counter-blind-spot", 160, 48)
	a.lab.Seek(a.lab.End())
	requireScreen(t, a, "all keys")
	press(a, "k")
	out := screen(a)
	// The log's totals line: the pinned key's own counts and peak, then
	// every key's.
	mine, all := a.lab.StatsFor(1, a.key()), a.lab.Stats(1)
	want := "key " + a.key() + " ✓" + itoa(mine.Admitted-mine.Delayed) + " ✗" + itoa(mine.Rejected) + " · peak " + itoa(mine.Peak)
	if !strings.Contains(out, want) || !strings.Contains(out, "✓"+itoa(all.Admitted-all.Delayed)+" ✗"+itoa(all.Rejected)+" · peak "+itoa(all.Peak)) {
		t.Errorf("the log's totals do not show %q beside every key's:\n%s", want, out)
	}
	if mine.Peak == all.Peak {
		t.Fatalf("the lesson should give the key a peak apart from every key's (%d)", all.Peak)
	}
}

// TestReleasesAreDrawn: the shaper's row of releases marks when its
// delayed requests leave, one per second after the burst.
func TestReleasesAreDrawn(t *testing.T) {
	a := newTestApp(t, "shaping-vs-policing", 120, 40)
	a.lab.Seek(5 * time.Second)
	out := screen(a)
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "↦ out") {
			row = l
		}
	}
	// Four requests queued at 0s leave at 1s, 2s, 3s and 4s: four marks
	// (and the row's label).
	if row == "" || strings.Count(row, "↦") != 1+4 {
		t.Fatalf("the row of releases does not mark the four releases:\n%s", out)
	}
}

// TestBurstWithSpread: "120 100ms" fires 120 requests over 100ms, placed as
// a traffic item's spread places them.
func TestBurstWithSpread(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.lab.Seek(30 * time.Second)
	press(a, "b")
	answer(a, "120 100ms")
	f := a.lab.FiredRequests()
	if len(f) != 120 || f[0].At != 30*time.Second || f[119].At != 30*time.Second+119*100*time.Millisecond/120 {
		t.Fatalf("fired %d requests, first %v last %v", len(f), f[0].At, f[len(f)-1].At)
	}
	press(a, "b")
	answer(a, "3 fast")
	if !a.status.err || !strings.Contains(a.status.text, "a number needs a unit") && !strings.Contains(a.status.text, "spread") {
		t.Errorf("a bad spread: %q", a.status.text)
	}
}

// TestFireAsANewKey: K asks for a key's name, fires one request as it and
// pins the lanes to it.
func TestFireAsANewKey(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	a.lab.Seek(60 * time.Second)
	press(a, "K")
	answer(a, "second-seller")
	if a.key() != "second-seller" || len(a.lab.FiredRequests()) != 1 {
		t.Fatalf("key %q, fired %v", a.key(), a.lab.FiredRequests())
	}
	requireScreen(t, a, "second-seller")
	press(a, "K")
	answer(a, strings.Repeat("x", 65))
	if !a.prompt.active() || !a.status.err || !strings.Contains(a.status.text, "1 to 64 bytes") {
		t.Errorf("a 65-byte key: prompt %v, %q", a.prompt.active(), a.status.text)
	}
}

// TestDiscardAsksFirst: q with unsaved requests asks; a key other than y
// keeps them; y quits. r removes them, and u brings them back.
func TestDiscardAsksFirst(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "space")
	if cmd := press(a, "q"); isQuit(cmd) || a.confirm == nil {
		t.Fatal("q quit without asking")
	}
	requireScreen(t, a, "lose your 1 request?")
	press(a, "x")
	if a.confirm != nil || a.lab.FiredCount() != 1 {
		t.Fatal("another key did not keep the requests")
	}
	press(a, "r")
	if a.lab.FiredCount() != 0 {
		t.Fatal("r kept the requests")
	}
	press(a, "u")
	if a.lab.FiredCount() != 1 || !strings.Contains(a.status.text, "undid the reset") {
		t.Fatalf("u after r: %d fired, %q", a.lab.FiredCount(), a.status.text)
	}
	press(a, "o")
	if a.confirm == nil {
		t.Fatal("o did not ask")
	}
	press(a, "y")
	if a.overlay != overlayPicker {
		t.Fatal("y did not open the picker")
	}
	press(a, "esc")
	press(a, "q")
	if cmd := press(a, "y"); !isQuit(cmd) {
		t.Error("y did not quit")
	}
}

// TestSavedWorkDoesNotAsk: after a save, q quits at once.
func TestSavedWorkDoesNotAsk(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "space", "s")
	path := filepath.Join(t.TempDir(), "mine.yaml")
	press(a, "ctrl+u")
	typeText(a, path)
	cmd := press(a, "enter")
	if cmd == nil {
		t.Fatal("save returned no command to write the file")
	}
	settle(a, cmd)
	if _, err := os.Stat(path); err != nil || !strings.Contains(a.status.text, "saved") {
		t.Fatalf("not saved: %v %q", err, a.status.text)
	}
	if cmd := press(a, "q"); !isQuit(cmd) {
		t.Error("q asked again after a save")
	}
}

// TestOpenAFileAndReloadIt: the picker's last line opens a file by its
// path; an edit on disk reloads it keeping the learner's requests, and a
// broken edit keeps the last good version with one line of error.
func TestOpenAFileAndReloadIt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	write := func(text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(sandbox)
	a := newTestApp(t, "boundary", 100, 30)
	press(a, "o")
	for range len(a.picker.items) {
		press(a, "down")
	}
	press(a, "enter")
	if a.prompt.kind != promptOpen {
		t.Fatal("the picker's last line did not ask for a path")
	}
	press(a, "ctrl+u")
	typeText(a, path)
	settle(a, press(a, "enter"))
	if a.lab.Scenario().Name != path || a.watch.path != path {
		t.Fatalf("opened %q, watching %q", a.lab.Scenario().Name, a.watch.path)
	}
	press(a, "space")
	write(strings.Replace(sandbox, "title: s", "title: edited", 1))
	a.Update(fileStatMsg{path: path, mod: time.Unix(1, 0), size: 1})
	a.Update(loadFile(path, true)())
	if a.lab.Scenario().Title != "edited" || a.lab.FiredCount() != 1 || !strings.Contains(a.status.text, "1 request kept") {
		t.Fatalf("reload: title %q, %d fired, %q", a.lab.Scenario().Title, a.lab.FiredCount(), a.status.text)
	}
	write("title: broken\nlimiters: [\n")
	a.Update(loadFile(path, true)())
	if a.lab.Scenario().Title != "edited" || !a.status.err || !strings.Contains(a.status.text, "last good version") {
		t.Fatalf("a broken edit: title %q, status %q", a.lab.Scenario().Title, a.status.text)
	}
	requireScreen(t, a, "mine.yaml:")
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

// TestCostNoLaneCanAdmitIsRefused: the cost prompt says why.
func TestCostNoLaneCanAdmitIsRefused(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	press(a, "c")
	answer(a, "12")
	if !a.status.err || a.cost != 1 || !strings.Contains(a.status.text, "bucket") {
		t.Errorf("cost 12 on a bucket of 10: cost %d, %q", a.cost, a.status.text)
	}
}

// TestRetrySaysWhen: a rejection's retry is a time and a wait from the
// clock, which shrinks as the clock moves.
func TestRetrySaysWhen(t *testing.T) {
	a := newTestApp(t, "boundary", 160, 48)
	a.lab.Seek(60*time.Second + 50*time.Millisecond)
	press(a, "tab")
	requireScreen(t, a, "retry at 119.9s (in 59.85s)")
	press(a, "l")
	requireScreen(t, a, "retry at 119.9s (in 59.75s)")
}

// TestGCRAWordsIntroduced: the about page says what TAT and τ mean.
func TestGCRAWordsIntroduced(t *testing.T) {
	a := newTestApp(t, "gcra-is-token-bucket", 100, 60)
	press(a, "a")
	page := strings.Join(strings.Fields(ansi.Strip(a.page.GetContent())), " ")
	for _, want := range []string{"TAT (theoretical arrival time)", "τ (tolerance)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the about page lacks %q", want)
		}
	}
}

// TestAboutMarksNotesByTheClock: ◆ for the notes passed, ◇ for those
// ahead, and wrapped notes indented under their text.
func TestAboutMarksNotesByTheClock(t *testing.T) {
	a := newTestApp(t, "boundary", 60, 60)
	press(a, "a")
	page := ansi.Strip(a.page.GetContent())
	if strings.Contains(page, "◆ 59.9s") || !strings.Contains(page, "◇ 59.9s") {
		t.Errorf("at 0s a note ahead is marked passed:\n%s", page)
	}
	lines := strings.Split(page, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  ◇ ") && i+1 < len(lines) && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "  ") {
			t.Errorf("a wrapped note is not indented: %q", lines[i+1])
		}
	}
}

// TestZoomOutStopsAtTheWholeRun: Z stops once the whole axis fits.
func TestZoomOutStopsAtTheWholeRun(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	for range 40 {
		press(a, "Z")
	}
	sp := a.tl.span()
	if sp.length() <= a.lab.End() || sp.dt/10*time.Duration(sp.cols) > a.lab.End() && a.tl.zoom > 0 && a.tl.zooms[a.tl.zoom-1]*time.Duration(sp.cols) > a.lab.End() {
		t.Errorf("zoomed out to %v a column, %v on screen for an axis of %v", sp.dt, sp.length(), a.lab.End())
	}
}

// TestEightLaneNamesWhole: eight lanes with long names keep them whole in
// the timeline's labels.
func TestEightLaneNamesWhole(t *testing.T) {
	y := "title: eight\ntraffic: [{at: 0s}]\nlimiters:\n"
	names := []string{"fixed-minute", "fixed-second", "log-minute", "log-second", "counter-min", "counter-sec", "bucket-burst", "shaper-queue"}
	for _, n := range names {
		y += "  - {name: " + n + ", algorithm: fixed-window, limit: 5, window: 1s}\n"
	}
	a := newYAMLApp(t, y, 80, 40)
	for _, n := range names {
		requireScreen(t, a, n+" ")
	}
}

// TestTotalsWrittenOneWay: the lanes' totals use one notation.
func TestTotalsWrittenOneWay(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		a := newTestApp(t, "dashboard", size[0], size[1])
		a.lab.Seek(a.lab.End())
		if out := screen(a); regexp.MustCompile(`✓ \d+ allowed|✗ \d+ rejected`).MatchString(out) {
			t.Errorf("%v: totals written as words:\n%s", size, out)
		}
	}
}

// TestHeaderKeepsNumbersApart: "cost 1" and the request count never run
// together.
func TestHeaderKeepsNumbersApart(t *testing.T) {
	a := newTestApp(t, "boundary", 80, 24)
	press(a, "space")
	if line := strings.Split(screen(a), "\n")[1]; strings.Contains(line, "1 241") || !strings.Contains(line, "· 241 requests") {
		t.Errorf("header: %q", line)
	}
}

// TestQuizThroughALesson: the quiz stops at each of the dashboard's marks,
// takes the answers and keeps the score; rewinding and playing again does
// not ask twice.
func TestQuizThroughALesson(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	press(a, "t")
	if !a.quiz.on || len(a.quiz.marks) != len(a.lab.Scenario().Quiz) {
		t.Fatalf("quiz on %v with %d marks", a.quiz.on, len(a.quiz.marks))
	}
	a.play.speed = len(speeds) - 1
	press(a, "m") // only the quiz stops play
	asked := 0
	for a.lab.Now() < a.lab.End() {
		press(a, "p")
		playUntilPaused(t, a, 100000)
		if !a.quiz.asking() {
			break
		}
		asked++
		k, _ := a.lab.Instant()
		if a.lab.Pos() != a.quiz.index || k != a.lab.Pos()-a.lab.Search(a.lab.Now()-1) {
			t.Fatalf("the quiz asks about request %d with %d decided", a.quiz.index, a.lab.Pos())
		}
		requireScreen(t, a, "quiz", "What will")
		if a.status.text != "" {
			t.Errorf("the status line says %q over a question", a.status.text)
		}
		for a.quiz.asking() {
			if a.quiz.stage == quizRetry {
				answer(a, "1s")
				continue
			}
			press(a, "a")
		}
		if !strings.Contains(a.status.text, "score") {
			t.Fatalf("no score after an answer: %q", a.status.text)
		}
	}
	if asked != len(a.lab.Scenario().Quiz) {
		t.Errorf("asked at %d moments, want %d", asked, len(a.lab.Scenario().Quiz))
	}
	if a.quiz.asked == 0 || a.quiz.right == 0 || a.quiz.right == a.quiz.asked {
		t.Errorf("score %d of %d: answering \"admitted\" everywhere should be right sometimes, not always", a.quiz.right, a.quiz.asked)
	}
	press(a, "g", "p")
	playUntilPaused(t, a, 100000)
	if a.quiz.asking() {
		t.Error("a moment answered was asked again after rewinding")
	}
	press(a, "t")
	if a.quiz.on || !strings.Contains(a.status.text, "final score") {
		t.Errorf("t did not end the quiz: %q", a.status.text)
	}
}

// TestQuizAsksBeforeTheDecision: while the question is open the request is
// undecided and the lanes show the state before it.
func TestQuizAsksBeforeTheDecision(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	press(a, "t")
	a.lab.SeekPos(0)
	press(a, "n")
	if !a.quiz.asking() {
		// The first mark is the 10th request at 0s: n on the way asks there.
		for i := 0; i < 12 && !a.quiz.asking(); i++ {
			press(a, "n")
		}
	}
	if !a.quiz.asking() || a.lab.Pos() != a.quiz.index {
		t.Fatalf("asking %v at request %d with %d decided", a.quiz.asking(), a.quiz.index, a.lab.Pos())
	}
	if _, ok := a.Update(tea.KeyPressMsg{Code: 'x', Text: "x"}); ok == nil && !strings.Contains(a.status.text, "answer with a, d or r") {
		t.Errorf("another key: %q", a.status.text)
	}
}

// TestQuizMarksFollowFiredRequests: a request fired before a marked moment
// shifts the timeline; the quiz still asks about the marked request.
func TestQuizMarksFollowFiredRequests(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	press(a, "t")
	a.lab.Seek(250 * time.Millisecond)
	press(a, "space") // before the poll at 0.5s that the lesson marks
	a.lab.Seek(400 * time.Millisecond)
	press(a, "l", "l") // the step crosses 0.5s
	if !a.quiz.asking() {
		t.Fatal("crossing the marked poll did not ask")
	}
	if r := a.lab.Request(a.quiz.index); r.At != 500*time.Millisecond || a.lab.Fired(a.quiz.index) {
		t.Errorf("asked about the request at %v (fired %v), want the poll at 0.5s", r.At, a.lab.Fired(a.quiz.index))
	}
}

// TestQuizEveryRequestWithoutMarks: a scenario that marks nothing asks at
// every request; after a rewind the answered ones are passed over and the
// next unanswered one is asked.
func TestQuizEveryRequestWithoutMarks(t *testing.T) {
	a := newYAMLApp(t, "title: q\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}\ntraffic:\n  - {every: 500ms, until: 3s}\n", 100, 30)
	press(a, "t")
	for want := 0; want < 2; want++ {
		press(a, "n")
		if !a.quiz.asking() || a.quiz.index != want {
			t.Fatalf("n: asking %v about request %d, want %d", a.quiz.asking(), a.quiz.index, want)
		}
		press(a, "a")
	}
	press(a, "g", "L", "L", "L") // 3s: past the two answered and beyond
	if !a.quiz.asking() || a.quiz.index != 2 {
		t.Errorf("after the rewind: asking %v about request %d, want 2", a.quiz.asking(), a.quiz.index)
	}
}

// TestReviewFixes covers what a review found: a reload while the quiz's
// retry prompt is open, a save over the open file, a file opened from
// inside being watched, n in quiz mode, the order of play's stops, "save
// first" going on to quit, and reset keeping a pinned key by name.
func TestReviewFixes(t *testing.T) {
	t.Run("reload under the retry prompt", func(t *testing.T) {
		a, path, _ := openCannedFile(t, "dashboard", t.TempDir(), "d.yaml")
		press(a, "t")
		for i := 0; i < 12 && !a.quiz.asking(); i++ {
			press(a, "n")
		}
		press(a, "r")
		if a.prompt.kind != promptRetry {
			t.Fatal("r did not ask for the retry")
		}
		settle(a, loadFile(path, true))
		press(a, "enter") // must not panic
		if a.prompt.active() || a.quiz.asking() {
			t.Errorf("after the reload: prompt %v, asking %v", a.prompt.active(), a.quiz.asking())
		}
	})
	t.Run("save over the open file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "b.yaml")
		if err := os.WriteFile(path, []byte(sandbox), 0o644); err != nil {
			t.Fatal(err)
		}
		s, _ := scenarios.Load(path)
		a := openApp(t, s, 100, 30)
		press(a, "space", "s", "ctrl+u")
		typeText(a, path)
		press(a, "enter") // exists: enter again
		cmd := press(a, "enter")
		saved := cmd()
		reopen := a.onSaved(saved.(savedMsg))
		if reopen == nil {
			t.Fatal("saving over the open file did not open it anew")
		}
		a.Update(reopen())
		if a.lab.FiredCount() != 0 || a.lab.Len() != 1 {
			t.Fatalf("after saving over the open file: %d fired, %d requests; want 0 and 1", a.lab.FiredCount(), a.lab.Len())
		}
		a.Update(loadFile(path, true)())
		if a.lab.Len() != 1 {
			t.Errorf("a reload after the save doubled the request: %d", a.lab.Len())
		}
	})
	t.Run("a file opened from inside is watched", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, []byte(sandbox), 0o644); err != nil {
			t.Fatal(err)
		}
		a := newTestApp(t, "boundary", 100, 30)
		s, _ := scenarios.Load(path)
		if cmd := a.onLoaded(loadedMsg{path: path, s: s}); cmd == nil || a.watch.path != path {
			t.Error("the opened file is not watched")
		}
	})
	t.Run("n in quiz mode decides one request", func(t *testing.T) {
		a := newTestApp(t, "dashboard", 100, 30)
		press(a, "t", "n")
		if a.lab.Pos() != 1 || a.quiz.asking() {
			t.Errorf("n: %d decided, asking %v; want 1 and no question", a.lab.Pos(), a.quiz.asking())
		}
	})
	t.Run("play stops at the earliest stop", func(t *testing.T) {
		a := newTestApp(t, "boundary", 100, 30)
		a.lab.Seek(60 * time.Second)
		want, _ := a.lab.NextDisagreement(a.lab.Now())
		a.play.speed = len(speeds) - 1
		press(a, "P")
		playUntilPaused(t, a, 100)
		if a.lab.Now() != want {
			t.Errorf("P from 60s at ×1000 stopped at %v, want the disagreement at %v before the note at 60.1s", a.lab.Now(), want)
		}
	})
	t.Run("save first, then quit", func(t *testing.T) {
		a := newTestApp(t, "boundary", 100, 30)
		press(a, "space", "q", "s")
		if a.prompt.kind != promptSave {
			t.Fatal("s did not open the save prompt")
		}
		cmd := press(a, "enter")
		if msg, ok := cmd().(savedMsg); !ok || !isQuit(a.onSaved(msg)) {
			t.Error("after the save, the quit did not go on")
		}
	})
	t.Run("reset keeps a pinned key by name", func(t *testing.T) {
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
	})
}

// TestQuizRejectionAndRetry: d and r answer too; r asks when a retry would
// fit, and a close guess counts.
func TestQuizRejectionAndRetry(t *testing.T) {
	a := newTestApp(t, "shaping-vs-policing", 100, 30)
	press(a, "t")
	for i := 0; i < 12 && !a.quiz.asking(); i++ {
		press(a, "n")
	}
	if !a.quiz.asking() {
		t.Fatal("no question")
	}
	for a.quiz.asking() {
		lane := a.quiz.lane()
		a.lab.SeekPos(a.quiz.index + 1)
		rec, _ := a.lab.LastDecision(lane)
		a.lab.SeekPos(a.quiz.index)
		switch d := rec.Decision; d.Outcome {
		case algorithms.Delayed:
			press(a, "d")
		case algorithms.Rejected:
			press(a, "r")
			if a.prompt.kind != promptRetry {
				t.Fatal("r did not ask when a retry would fit")
			}
			answer(a, algorithms.FormatDuration(d.RetryAfter))
		default:
			press(a, "a")
		}
	}
	if a.quiz.right != a.quiz.asked || a.quiz.asked == 0 {
		t.Errorf("right answers scored %d of %d", a.quiz.right, a.quiz.asked)
	}
	if a.quiz.retryClose != a.quiz.retryAsked {
		t.Errorf("exact retry guesses scored %d of %d", a.quiz.retryClose, a.quiz.retryAsked)
	}
}
