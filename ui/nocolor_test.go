package ui

import (
	"image/color"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

var sgr = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// colourCodes lists the SGR sequences in s that set a colour: 30–39,
// 40–49, 90–97, 100–107, and the extended 38/48/58 forms.
func colourCodes(s string) []string {
	var found []string
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		params := strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' })
		for _, p := range params {
			n, err := strconv.Atoi(p)
			if err != nil {
				continue
			}
			if (n >= 30 && n <= 39) || (n >= 40 && n <= 49) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) || n == 58 {
				found = append(found, m[0])
				break
			}
		}
	}
	return found
}

// TestNoColor draws every screen with NoColor and finds no colour; the same
// screens with colour do have some, so the check can fail.
func TestNoColor(t *testing.T) {
	for _, noColor := range []bool{true, false} {
		a := newTestApp(t, "shaping-vs-policing", 120, 40)
		a.opts.NoColor = noColor
		a.setStyles()
		var all strings.Builder
		for _, keys := range [][]string{{"right"}, {"space", "tab"}, {"?"}, {"esc", "a"}, {"esc", "o"}, {"esc", "b"}, {"esc", "s"}, {"esc"}} {
			press(a, keys...)
			all.WriteString(a.View().Content)
		}
		codes := colourCodes(all.String())
		if noColor && len(codes) > 0 {
			t.Errorf("NoColor: %d colour sequences, e.g. %q", len(codes), codes[0])
		}
		if !noColor && len(codes) == 0 {
			t.Error("with colour: no colour sequence at all (is the check broken?)")
		}
		if noColor && !strings.Contains(all.String(), "\x1b[") {
			t.Error("NoColor: no attributes at all; the focus and cursor need reverse and bold")
		}
	}
}

// TestNoColorEnv checks that Run's options follow NO_COLOR (any non-empty
// value).
func TestNoColorEnv(t *testing.T) {
	for _, c := range []struct {
		env  string
		want bool
	}{{"", false}, {"1", true}, {"0", true}, {"false", true}} {
		t.Setenv("NO_COLOR", c.env)
		if got := withEnvironment(Options{}).NoColor; got != c.want {
			t.Errorf("NO_COLOR=%q: NoColor %v, want %v", c.env, got, c.want)
		}
	}
}

// TestBackground picks the palette for a light terminal when the terminal
// reports its background, and keeps NoColor colourless whatever it says.
func TestBackground(t *testing.T) {
	a := newTestApp(t, "boundary", 100, 30)
	dark := a.View().Content
	a.Update(tea.BackgroundColorMsg{Color: color.White})
	if a.dark {
		t.Fatal("a white background is taken for dark")
	}
	if light := a.View().Content; light == dark {
		t.Error("the light palette draws the same as the dark one")
	}
	a.opts.NoColor = true
	a.Update(tea.BackgroundColorMsg{Color: color.Black})
	if codes := colourCodes(a.View().Content); len(codes) > 0 {
		t.Errorf("NoColor after a background report: %q", codes[0])
	}
}
