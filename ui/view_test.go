package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/scenarios"
)

// checkFrame fails unless the screen has exactly h lines of exactly w cells
// (the too-small screen: at most h lines of at most w cells).
func checkFrame(t *testing.T, a *App, w, h int) string {
	t.Helper()
	out := a.View().Content
	lines := strings.Split(out, "\n")
	if out == "" {
		lines = nil
	}
	if len(lines) > h {
		t.Fatalf("%d×%d: %d lines", w, h, len(lines))
	}
	if !a.lay.tooSmall && len(lines) != h {
		t.Fatalf("%d×%d: %d lines, want %d", w, h, len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w || (!a.lay.tooSmall && lw != w) {
			t.Fatalf("%d×%d: line %d is %d wide: %q", w, h, i, lw, ansi.Strip(l))
		}
	}
	return ansi.Strip(out)
}

func TestTinySizes(t *testing.T) {
	for _, size := range [][2]int{{0, 0}, {1, 1}, {2, 1}, {1, 2}, {10, 5}, {18, 4}, {40, 12}, {49, 40}, {50, 10}, {200, 3}} {
		w, h := size[0], size[1]
		a := newTestApp(t, "boundary", w, h)
		out := checkFrame(t, a, w, h)
		if !a.lay.tooSmall {
			t.Fatalf("%d×%d is not too small for 4 lanes", w, h)
		}
		if w >= 20 && h >= 4 && !strings.Contains(out, "terminal too small") {
			t.Errorf("%d×%d: no too-small message:\n%s", w, h, out)
		}
		if w >= 20 && h >= 4 && !strings.Contains(out, fmt.Sprintf("needs %d×%d", a.lay.needWidth, a.lay.needHeight)) {
			t.Errorf("%d×%d: the message does not say the size needed:\n%s", w, h, out)
		}
		// Keys still work, and q still quits.
		press(a, "space", "right", "?", "esc", "o", "esc", "b", "esc")
		checkFrame(t, a, w, h)
		if a.lab.FiredCount() != 1 || a.lab.Now() != a.step() || overlayOf(a) != overlayNone || a.prompt.active() {
			t.Errorf("%d×%d: the keys did not work: %d fired, now %v, overlay %v, prompt %v",
				w, h, a.lab.FiredCount(), a.lab.Now(), overlayOf(a), a.prompt.active())
		}
		if !isQuit(press(a, "q", "y")) { // y: lose the fired request
			t.Errorf("%d×%d: q does not quit", w, h)
		}
	}
}

// TestEverySize draws every canned scenario at sizes from tiny to huge,
// with every overlay, and checks the frame fills the screen exactly. The
// lessons run in parallel. With -short it draws a sample: two lessons (one
// with clients) at the sizes at the edges of the layouts.
func TestEverySize(t *testing.T) {
	var sizes [][2]int
	for w := 1; w <= 241; w += 24 {
		for h := 1; h <= 73; h += 9 {
			sizes = append(sizes, [2]int{w, h})
		}
	}
	sizes = append(sizes, [2]int{minWidth, 0}, [2]int{minWidth - 1, 60}, [2]int{500, 150})
	lessons := scenarios.List()
	if testing.Short() {
		lessons = []scenarios.Info{{Name: "boundary"}, {Name: "retry-storm"}}
		sizes = [][2]int{{1, 1}, {49, 19}, {73, 28}, {121, 37}, {241, 73}, {minWidth, 0}, {minWidth - 1, 60}, {500, 150}}
	}
	for _, info := range lessons {
		t.Run(info.Name, func(t *testing.T) {
			t.Parallel()
			a := newTestApp(t, info.Name, 80, 24)
			press(a, "d", "space")
			for _, size := range sizes {
				w, h := size[0], size[1]
				if h == 0 {
					h = a.lay.needHeight
				}
				a.Update(tea.WindowSizeMsg{Width: w, Height: h})
				checkFrame(t, a, w, h)
				for _, keys := range [][]string{{"?"}, {"esc", "a"}, {"esc", "o"}, {"esc", "s"}, {"esc", "esc"}} {
					press(a, keys...)
					checkFrame(t, a, w, h)
				}
			}
		})
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
