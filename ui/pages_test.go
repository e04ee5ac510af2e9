package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/scenarios"
)

func TestHelpAndAboutKeys(t *testing.T) {
	a := newTestApp(t, "boundary", 120, 50)
	press(a, "?")
	if overlayOf(a) != overlayHelp {
		t.Fatal("? did not open the help")
	}
	out := screen(a)
	km := newKeyMap()
	for _, group := range km.Lab.FullHelp() {
		for _, b := range group {
			// The key, then its description, on one line.
			pair := regexp.MustCompile(regexp.QuoteMeta(b.Help().Key) + ` +` + regexp.QuoteMeta(b.Help().Desc))
			if !pair.MatchString(out) {
				t.Errorf("the help lacks %q (%s)", b.Help().Desc, b.Help().Key)
			}
		}
	}
	press(a, "?")
	if overlayOf(a) != overlayNone {
		t.Fatal("? did not close the help")
	}
	press(a, "a")
	if overlayOf(a) != overlayAbout || !strings.Contains(screen(a), "Four limiters promise the same thing") {
		t.Fatalf("a did not show the about text:\n%s", screen(a))
	}
	press(a, "esc")
	if overlayOf(a) != overlayNone {
		t.Fatal("esc did not close the about page")
	}
	// A key of the lab on a page closes it and does its job.
	press(a, "a", "n")
	if overlayOf(a) != overlayNone || a.lab.Now() != seconds(59.9) {
		t.Fatalf("n on the about page: overlay %v, now %v", overlayOf(a), a.lab.Now())
	}
	press(a, "?", "down")
	if overlayOf(a) != overlayHelp {
		t.Fatal("down closed the help instead of scrolling it")
	}
}

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
				if overlayOf(a) != overlayPanel {
					t.Fatal("e did not open the panel")
				}
				page := strings.Join(strings.Fields(ansi.Strip(a.pages.view.GetContent())), " ")
				if !strings.Contains(page, text) {
					t.Fatalf("at %v the panel lacks the note %q:\n%s", n.At, text, page)
				}
				press(a, "e")
				if overlayOf(a) != overlayNone {
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
	page := strings.Join(strings.Fields(ansi.Strip(a.pages.view.GetContent())), " ")
	for lane := range a.lab.Lanes() {
		rec, _ := a.lab.LastDecision(lane)
		if want := strings.Join(strings.Fields(rec.Decision.Explain()), " "); !strings.Contains(page, want) {
			t.Errorf("the panel lacks lane %d's explanation %q", lane, want)
		}
	}
}

// TestGCRAWordsIntroduced: the about page says what TAT and τ mean.
func TestGCRAWordsIntroduced(t *testing.T) {
	a := newTestApp(t, "gcra-is-token-bucket", 100, 60)
	press(a, "a")
	page := strings.Join(strings.Fields(ansi.Strip(a.pages.view.GetContent())), " ")
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
	page := ansi.Strip(a.pages.view.GetContent())
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

// TestAboutNamesWhatALaneFollows: the about page says whose rule a library
// or mistake lane runs, and where it comes from.
func TestAboutNamesWhatALaneFollows(t *testing.T) {
	for _, c := range []struct{ lesson, want string }{
		{"nginx-config", "the library's own rule: nginx src/http/modules/ngx_http_limit_req_module.c"},
		{"attempts-counted", "(a classic mistake: a sliding log that appends rejected requests too, "},
	} {
		a := newTestApp(t, c.lesson, 120, 60)
		press(a, "a")
		if out := strings.Join(strings.Fields(screen(a)), " "); !strings.Contains(out, c.want) {
			t.Errorf("%s's about page lacks %q:\n%s", c.lesson, c.want, screen(a))
		}
	}
}

// TestAboutExplainsItsLanesWords: the about page's words are those its
// lanes use, a stack's layers included, and no others: no sub-windows
// for a sliding counter without them, no tryAcquire for acquire, no
// ReserveN for AllowN (nor AllowN for ReserveN), no max_wait for a
// reservation without one, no wait for a later cycle with a timeout of 0,
// and a bucket that starts full and one that starts empty explained once.
func TestAboutExplainsItsLanesWords(t *testing.T) {
	for _, c := range []struct {
		lesson       string
		want, absent []string
	}{
		{"boundary", []string{"sliding counter:", "token bucket:", "It starts full."}, []string{"sub-windows", "starts_empty", "GCRA"}},
		{"finer-sub-windows", []string{"sub-windows (sub_windows N)"}, nil},
		{"empty-start", []string{"It starts full.", "starts_empty: a token bucket that starts with no tokens"}, []string{"With starts_empty"}},
		{"burst-admits-eleven", []string{"x/time/rate AllowN:"}, []string{"ReserveN", "max_wait"}},
		{"deadlines-and-cancel", []string{"x/time/rate ReserveN:"}, []string{"AllowN", "max_wait"}},
		{"same-words-windows", []string{"x/time/rate ReserveN:", "x/time/rate max_wait:", "timeout_duration 0"}, []string{"AllowN", "waits for that cycle's start"}},
		{"pay-later", []string{"Guava RateLimiter"}, []string{"tryAcquire"}},
		{"crawler-per-host", []string{"token bucket:", "leaky bucket"}, []string{"GCRA"}},
	} {
		a := newTestApp(t, c.lesson, 100, 30)
		words := strings.Join(glossaryOf(a.lab), "\n")
		if n := strings.Count(words, "token bucket: tokens refill"); n > 1 {
			t.Errorf("%s: the token bucket explained %d times:\n%s", c.lesson, n, words)
		}
		for _, w := range c.want {
			if !strings.Contains(words, w) {
				t.Errorf("%s: the words lack %q:\n%s", c.lesson, w, words)
			}
		}
		for _, w := range c.absent {
			if strings.Contains(words, w) {
				t.Errorf("%s: the words explain %q, which no lane uses:\n%s", c.lesson, w, words)
			}
		}
	}
}

// TestAboutNamesTheLog: a scenario replaying a log says on its about page
// what was read (requests, lines, the bad ones with file:line) and the
// times' resolution.
func TestAboutNamesTheLog(t *testing.T) {
	dir := t.TempDir()
	log := "192.0.2.1 - - [24/Nov/2026:09:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"x\"\nnot a line\n"
	if err := os.WriteFile(filepath.Join(dir, "access.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.ReplayLog(filepath.Join(dir, "access.log"), scenarios.LogOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := openApp(t, s, 100, 60)
	press(a, "a")
	page := strings.Join(strings.Fields(ansi.Strip(a.pages.view.GetContent())), " ")
	for _, want := range []string{"1 request from 2 lines (1 bad", "whole seconds", "access.log:2:"} {
		if !strings.Contains(page, want) {
			t.Errorf("the about page lacks %q:\n%s", want, page)
		}
	}
}

func TestReflow(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"one line", "one line"},
		{"a paragraph\nin two lines", "a paragraph in two lines"},
		{"first\nparagraph\n\nsecond", "first paragraph\n\nsecond"},
		{"lanes:\n  a  one\n     two\n  b  three\nafter", "lanes:\n  a  one\n     two\n  b  three\nafter"},
		{"", ""},
	} {
		if got := reflow(tc.in); got != tc.want {
			t.Errorf("reflow(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestFleetWordsExplained: a lesson whose lanes are gateways explains
// "beyond" in its words, one whose keys expire "forgot" too; a lesson of
// plain lanes explains neither; one with a mistake lane beside its exact
// twin explains "2 more than log", naming the twin.
func TestFleetWordsExplained(t *testing.T) {
	for _, tc := range []struct {
		lesson                   string
		beyond, forgots, expires bool
		twin                     string
	}{
		{"clock-skew", true, false, false, ""},
		{"idle-expiry", true, true, true, ""},
		{"boundary", false, false, false, ""},
		{"attempts-counted", false, false, false, "log"},
	} {
		words := strings.Join(glossaryOf(newTestApp(t, tc.lesson, 80, 24).lab), "\n")
		if got, want := strings.Contains(words, "more (or fewer) requests a mistake lane admitted"), tc.twin != ""; got != want ||
			want && !strings.Contains(words, "2 more than "+tc.twin+" · 1 fewer than "+tc.twin+" · same as "+tc.twin+":") {
			t.Errorf("%s: explains a twin %v, want %v (named %q):\n%s", tc.lesson, got, want, tc.twin, words)
		}
		if got := strings.Contains(words, "beyond +3:"); got != tc.beyond {
			t.Errorf("%s: explains beyond %v, want %v", tc.lesson, got, tc.beyond)
		}
		if got := strings.Contains(words, "forgot +6:"); got != tc.forgots {
			t.Errorf("%s: explains forgot %v, want %v", tc.lesson, got, tc.forgots)
		}
		if got := strings.Contains(words, "expired at 3s:"); got != tc.expires {
			t.Errorf("%s: explains expired %v, want %v", tc.lesson, got, tc.expires)
		}
	}
}
