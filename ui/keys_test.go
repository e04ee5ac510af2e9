package ui

import (
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestKeyPressHelper checks keyPress against Bubble Tea's own names for
// every key of every binding, so the key tests press what a terminal sends.
func TestKeyPressHelper(t *testing.T) {
	km := newKeyMap()
	for _, group := range km.Lab.FullHelp() {
		for _, b := range group {
			for _, k := range b.Keys() {
				if got := keyPress(k).String(); got != k {
					t.Errorf("keyPress(%q).String() = %q", k, got)
				}
			}
		}
	}
}

// keyCase is one key of the help: where the explorer starts (the boundary
// lesson at 100×30 unless set), and what pressing the key must have done;
// cmd is what the key's Update returned.
type keyCase struct {
	scenario string
	w, h     int
	setup    func(a *App)
	check    func(t *testing.T, a *App, cmd tea.Cmd)
}

// stepCase checks that a key moves the clock from one time to another.
func stepCase(from, to time.Duration) keyCase {
	return keyCase{
		setup: func(a *App) { a.lab.Seek(from) },
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if a.lab.Now() != to {
				t.Errorf("from %v the clock went to %v, want %v", from, a.lab.Now(), to)
			}
		},
	}
}

// everyKey has a case for every key of every binding the help shows, and
// for the keys of the picker and the pages. TestEveryKeyHasACase keeps it
// complete.
var everyKey = map[string]keyCase{
	"right":       stepCase(time.Second, time.Second+100*time.Millisecond),
	"l":           stepCase(time.Second, time.Second+100*time.Millisecond),
	"left":        stepCase(time.Second, time.Second-100*time.Millisecond),
	"h":           stepCase(time.Second, time.Second-100*time.Millisecond),
	"shift+right": stepCase(time.Second, 2*time.Second),
	"L":           stepCase(time.Second, 2*time.Second),
	"shift+left":  stepCase(time.Second, 0),
	"H":           stepCase(time.Second, 0),
	"home":        stepCase(30*time.Second, 0),
	"g":           stepCase(30*time.Second, 0),
	"end":         stepCase(30*time.Second, 125*time.Second),
	"G":           stepCase(30*time.Second, 125*time.Second),
	"n": {
		// The first request, alone at its instant: decided, and only it.
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if a.lab.Now() != seconds(59.9) || a.lab.Pos() != 1 {
				t.Errorf("n from 0: now %v with %d decided, want 59.9s and 1", a.lab.Now(), a.lab.Pos())
			}
		},
	},
	"N": {
		setup: func(a *App) { a.lab.Seek(60 * time.Second) },
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			// The last request of the first burst, decided and the latest.
			if want := a.lab.Request(119).At; a.lab.Now() != want || a.lab.Pos() != 120 {
				t.Errorf("N from 60s: now %v, want %v", a.lab.Now(), want)
			}
		},
	},
	"d": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if a.lab.Now() != 60*time.Second || !strings.Contains(ansi.Strip(a.status.text), "disagree at 60s: fixed ✓ · log ✗") {
				t.Errorf("d: now %v, status %q", a.lab.Now(), a.status.text)
			}
		},
	},
	"D": {
		setup: func(a *App) { a.lab.Seek(61 * time.Second) },
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			// The last request of the second burst, which the fixed window
			// alone admits.
			if want := a.lab.Request(239).At; a.lab.Now() != want || !a.lab.Disagrees(239) {
				t.Errorf("D from 61s: now %v, want %v", a.lab.Now(), want)
			}
		},
	},
	"]": stepCase(time.Second, seconds(59.9)),
	"[": stepCase(seconds(60.05), 60*time.Second),
	"p": {
		check: func(t *testing.T, a *App, cmd tea.Cmd) {
			if !a.play.playing || cmd == nil || !strings.Contains(screen(a), "▶ playing") {
				t.Fatalf("p did not start the clock with a ticker")
			}
			if press(a, "p"); a.play.playing {
				t.Error("p again did not pause")
			}
		},
	},
	"+": speedCase(+1),
	"=": speedCase(+1),
	"-": speedCase(-1),
	"_": speedCase(-1),
	"space": {
		setup: func(a *App) { a.lab.Seek(30 * time.Second); a.cost = 2 },
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			f := a.lab.FiredRequests()
			if len(f) != 1 || f[0].At != 30*time.Second || f[0].Cost != 2 || f[0].Key != "default" {
				t.Errorf("space fired %+v, want one request at 30s of cost 2", f)
			}
		},
	},
	"b": {
		// Pressed while playing: the clock stops, so that the burst fires
		// at the time the prompt names.
		setup: func(a *App) { a.lab.Seek(30 * time.Second); press(a, "p") },
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if promptKind(a) != promptBurst || a.play.playing || !strings.Contains(a.prompt.input.Prompt, "at 30s") {
				t.Fatalf("b: prompt %v %q, playing %v", promptKind(a), a.prompt.input.Prompt, a.play.playing)
			}
			a.Update(tickMsg{gen: a.play.gen, at: time.Unix(1, 0)})
			answer(a, "7")
			if f := a.lab.FiredRequests(); len(f) != 7 || f[0].At != 30*time.Second || a.prompt.active() {
				t.Errorf("a burst of 7 at 30s fired %+v", f)
			}
		},
	},
	"c": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if promptKind(a) != promptCost {
				t.Fatal("c did not ask for a cost")
			}
			answer(a, "7")
			press(a, "space")
			if a.cost != 7 || a.lab.FiredRequests()[0].Cost != 7 || !strings.Contains(screen(a), "cost 7") {
				t.Errorf("cost %d after c 7", a.cost)
			}
		},
	},
	"k": {
		scenario: "counter-blind-spot",
		setup:    func(a *App) { a.lab.Seek(90 * time.Second); a.followNote() },
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			// Pinned to early, the counter shows early's exact count: 50
			// (late's would be 150).
			if a.key() != "early" || !strings.Contains(screen(a), "exact last 60s: 50 (est +50)") {
				t.Errorf("k: key %q\n%s", a.key(), screen(a))
			}
		},
	},
	"u": {
		setup: func(a *App) { press(a, "space") },
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if a.lab.FiredCount() != 0 || !strings.Contains(a.status.text, "undid 1 request") {
				t.Errorf("u left %d fired; status %q", a.lab.FiredCount(), a.status.text)
			}
		},
	},
	"r": {
		setup: func(a *App) {
			a.lab.Seek(a.lab.End())
			press(a, "space", "right", "p")
		},
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if a.lab.Now() != 0 || a.lab.FiredCount() != 0 || a.play.playing || a.lab.End() != 125*time.Second {
				t.Errorf("r: now %v, %d fired, playing %v, end %v", a.lab.Now(), a.lab.FiredCount(), a.play.playing, a.lab.End())
			}
		},
	},
	"P": {
		// From 1s, the next moment is the note at 59.9s.
		setup: func(a *App) { a.lab.Seek(time.Second) },
		check: func(t *testing.T, a *App, cmd tea.Cmd) {
			if !a.play.playing || cmd == nil || !a.play.hasTarget || a.play.target != seconds(59.9) {
				t.Errorf("P: playing %v to %v", a.play.playing, a.play.target)
			}
		},
	},
	"m": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if a.play.stopAtNotes || !strings.Contains(screen(a), "no note stops") {
				t.Error("m did not turn the note stops off")
			}
		},
	},
	"t": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if !a.quiz.on || !strings.Contains(screen(a), "quiz on") {
				t.Errorf("t: quiz on %v", a.quiz.on)
			}
		},
	},
	"K": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if promptKind(a) != promptKey {
				t.Fatalf("K: prompt %v", promptKind(a))
			}
			answer(a, "other")
			if a.key() != "other" || a.lab.FiredCount() != 1 {
				t.Errorf("K other: key %q", a.key())
			}
		},
	},
	"e": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if overlayOf(a) != overlayPanel || !strings.Contains(screen(a), "notes and why, whole") {
				t.Errorf("e: overlay %v", overlayOf(a))
			}
		},
	},
	"M": {
		// GCRA has no mistake lanes: M says so and changes nothing. (The
		// lanes M adds are tested in mistakes_test.go.)
		scenario: "gcra-is-token-bucket",
		setup:    func(a *App) { a.focus = 1 },
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if len(a.lab.Lanes()) != 2 || !strings.Contains(a.status.text, "a gcra has no mistake lanes") {
				t.Errorf("M on gcra: %d lanes, status %q", len(a.lab.Lanes()), a.status.text)
			}
		},
	},
	"F": {
		// F on a lane fit cannot fit (Guava's float arithmetic) says so
		// and changes nothing. (The lane F adds: labmode_test.go.)
		scenario: "pay-later",
		setup:    func(a *App) { a.focus = 2 },
		check: func(t *testing.T, a *App, cmd tea.Cmd) {
			settle(a, cmd)
			if len(a.lab.Lanes()) != 3 || !strings.Contains(a.status.text, "fit cannot fit a guava") {
				t.Errorf("F on guava: %d lanes, status %q", len(a.lab.Lanes()), a.status.text)
			}
		},
	},
	"v": {
		// At 100×30 no panel fits: v draws the focused lane's state in the
		// timeline's rows (the panel's toggle: chart_test.go).
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if !a.tl.inlineChart() || !strings.Contains(screen(a), "  state ") {
				t.Errorf("v at 100×30: inline %v\n%s", a.tl.inlineChart(), screen(a))
			}
		},
	},
	"w": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if promptKind(a) != promptPeakWindow {
				t.Fatalf("w: prompt %v", promptKind(a))
			}
			// Typed as it comes, with no clearing: the field starts empty.
			typeText(a, "1s")
			press(a, "enter")
			if a.lab.PeakWindow() != time.Second {
				t.Errorf("w 1s: peak window %v", a.lab.PeakWindow())
			}
		},
	},
	"tab": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if a.focus != 1 || !strings.Contains(screen(a), "why log") {
				t.Errorf("tab: focus %d", a.focus)
			}
		},
	},
	"shift+tab": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if a.focus != 3 || !strings.Contains(screen(a), "why bucket") {
				t.Errorf("shift+tab: focus %d", a.focus)
			}
		},
	},
	"z": zoomCase(50 * time.Millisecond),
	"Z": zoomCase(200 * time.Millisecond),
	"a": overlayCase(overlayAbout, "about this scenario"),
	"o": overlayCase(overlayPicker, "open a canned scenario"),
	"?": overlayCase(overlayHelp, "keys"),
	"s": {
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if promptKind(a) != promptSave || !strings.HasSuffix(a.prompt.shown(), "boundary-mine.yaml") {
				t.Errorf("s: prompt %v, path %q", promptKind(a), a.prompt.shown())
			}
		},
	},
	"q":      quitCase(),
	"ctrl+c": quitCase(),

	// The picker ("@o").
	"up@o":    pickerCase("up", -1),
	"k@o":     pickerCase("k", -1),
	"down@o":  pickerCase("down", +1),
	"j@o":     pickerCase("j", +1),
	"enter@o": pickerCase("enter", 0),
	"esc@o":   pickerCase("esc", 0),
	"o@o":     pickerCase("o", 0),

	// The pages ("@?") scroll with the arrows and the page keys, and close
	// with esc or enter.
	"down@?":   pageCase("down"),
	"up@?":     pageCase("up"),
	"pgdown@?": pageCase("pgdown"),
	"pgup@?":   pageCase("pgup"),
	"esc@?":    pageCase("esc"),
	"enter@?":  pageCase("enter"),
}

func speedCase(dir int) keyCase {
	return keyCase{check: func(t *testing.T, a *App, _ tea.Cmd) {
		if want := speedText(speeds[defaultSpeed+dir]); a.play.speed != defaultSpeed+dir || !strings.Contains(screen(a), want) {
			t.Errorf("speed %v, want %s", speeds[a.play.speed], want)
		}
	}}
}

func zoomCase(want time.Duration) keyCase {
	return keyCase{w: 120, h: 50, check: func(t *testing.T, a *App, _ tea.Cmd) {
		if got := a.tl.zooms[a.tl.zoom]; got != want || !strings.Contains(screen(a), secs(want)+"/column") {
			t.Errorf("zoom %v per column, want %v", got, want)
		}
	}}
}

func overlayCase(o overlay, title string) keyCase {
	return keyCase{check: func(t *testing.T, a *App, _ tea.Cmd) {
		if lines := strings.Split(screen(a), "\n"); overlayOf(a) != o || !strings.HasPrefix(lines[2], title) {
			t.Errorf("overlay %v, want %v with %q", overlayOf(a), o, title)
		}
	}}
}

func quitCase() keyCase {
	return keyCase{check: func(t *testing.T, _ *App, cmd tea.Cmd) {
		if !isQuit(cmd) {
			t.Error("did not quit")
		}
	}}
}

// pickerCase presses key in the picker, opened on the third scenario:
// up and down move the cursor, enter opens the scenario under it, esc
// closes the picker.
func pickerCase(key string, move int) keyCase {
	return keyCase{
		setup: func(a *App) { press(a, "o", "down", "down") },
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			switch key {
			case "enter":
				if overlayOf(a) != overlayNone || a.lab.Scenario().Name != a.picker.items[2].Name {
					t.Errorf("enter opened %s", a.lab.Scenario().Name)
				}
			case "esc", "o":
				if overlayOf(a) != overlayNone || a.lab.Scenario().Name != "boundary" {
					t.Errorf("esc: overlay %v, scenario %s", overlayOf(a), a.lab.Scenario().Name)
				}
			default:
				if overlayOf(a) != overlayPicker || a.picker.cursor != 2+move {
					t.Errorf("%s: cursor %d, want %d", key, a.picker.cursor, 2+move)
				}
			}
		},
	}
}

// pageCase presses key on the help page, scrolled a little first, at 80×24
// where the page is longer than the screen: the arrows and page keys
// scroll it, esc and enter close it.
func pageCase(key string) keyCase {
	var before int
	return keyCase{
		w: 80, h: 24,
		setup: func(a *App) {
			a.Update(keyPress("?"))
			a.pages.view.SetYOffset(3)
			before = a.pages.view.YOffset()
		},
		check: func(t *testing.T, a *App, _ tea.Cmd) {
			if key == "esc" || key == "enter" {
				if overlayOf(a) != overlayNone {
					t.Errorf("%s did not close the help", key)
				}
				return
			}
			up := key == "up" || key == "pgup"
			if overlayOf(a) != overlayHelp || (up && a.pages.view.YOffset() >= before) || (!up && a.pages.view.YOffset() <= before) {
				t.Errorf("%s on the help: overlay %v, offset %d from %d", key, overlayOf(a), a.pages.view.YOffset(), before)
			}
		},
	}
}

// TestEveryKey presses each key of everyKey and checks its effect. A case
// named "KEY@CONTEXT" presses KEY.
func TestEveryKey(t *testing.T) {
	for name, c := range everyKey {
		t.Run(name, func(t *testing.T) {
			scenario := c.scenario
			if scenario == "" {
				scenario = "boundary"
			}
			w, h := 100, 30
			if c.w > 0 {
				w, h = c.w, c.h
			}
			a := newTestApp(t, scenario, w, h)
			if c.setup != nil {
				c.setup(a)
			}
			k, _, _ := strings.Cut(name, "@")
			c.check(t, a, press(a, k))
		})
	}
}

// TestEveryKeyHasACase fails when a binding is added without a case in
// everyKey: every key the help shows, the picker's keys ("KEY@o") and the
// pages' keys ("KEY@?").
func TestEveryKeyHasACase(t *testing.T) {
	km := newKeyMap()
	require := func(name, what string) {
		if _, ok := everyKey[name]; !ok {
			t.Errorf("no test presses %q (%s)", name, what)
		}
	}
	for _, group := range km.Lab.FullHelp() {
		for _, b := range group {
			for _, k := range b.Keys() {
				require(k, b.Help().Desc)
			}
		}
	}
	for _, b := range km.Picker.ShortHelp() {
		for _, k := range b.Keys() {
			require(k+"@o", "picker: "+b.Help().Desc)
		}
	}
	a := newTestApp(t, "boundary", 80, 24)
	a.openPage(helpPage)
	pm := a.pages.view.KeyMap
	for _, b := range []key.Binding{km.Page.Close, km.Page.Choose, pm.Up, pm.Down, pm.PageUp, pm.PageDown} {
		for _, k := range b.Keys() {
			require(k+"@?", "page: "+b.Help().Desc)
		}
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
