package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

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
	if promptKind(a) != promptOpen {
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

// TestAFileOpenedFromInsideIsWatched: a file opened from the explorer is
// followed for edits, as one opened from the command line (found in a
// review).
func TestAFileOpenedFromInsideIsWatched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(sandbox), 0o644); err != nil {
		t.Fatal(err)
	}
	a := newTestApp(t, "boundary", 100, 30)
	s, _ := scenarios.Load(path)
	if cmd := a.onLoaded(loadedMsg{path: path, s: s}); cmd == nil || a.watch.path != path {
		t.Error("the opened file is not watched")
	}
}

// TestReloadUnderTheRetryPrompt: a reload while the quiz's retry prompt is
// open ends the question and closes its prompt; enter then does nothing
// (found in a review).
func TestReloadUnderTheRetryPrompt(t *testing.T) {
	a, path, _ := openCannedFile(t, "dashboard", t.TempDir(), "d.yaml")
	press(a, "t")
	for i := 0; i < 12 && !a.quiz.asking(); i++ {
		press(a, "n")
	}
	press(a, "r")
	if promptKind(a) != promptRetry {
		t.Fatal("r did not ask for the retry")
	}
	settle(a, loadFile(path, true))
	press(a, "enter") // must not panic
	if a.prompt.active() || a.quiz.asking() {
		t.Errorf("after the reload: prompt %v, asking %v", a.prompt.active(), a.quiz.asking())
	}
}
