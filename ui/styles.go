package ui

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// styles are every style the screen uses, built once for a background
// (dark or light) and a colour choice, so that drawing a frame builds none.
//
// Colour never carries meaning alone: every outcome has its glyph (✓ ◷ ✗ ±),
// the focused lane has a heavy border and a ▶, the clock's column is drawn in
// reverse video. With colour off (NO_COLOR) the styles keep only bold,
// faint and reverse, which are attributes, not colours.
type styles struct {
	colour bool

	title   ink // scenario title, panel titles
	text    ink // plain
	muted   ink // labels, secondary numbers
	accent  ink // the clock, the focused lane
	key     ink // key names in hints
	note    ink // narration
	status  ink // the status line
	errText ink // errors in the status line
	http    ink // the HTTP response line

	allowed, delayed, rejected, mixed ink // outcome glyphs and words
	upcoming                          ink // requests not yet reached by the clock
	cursor                            ink // the clock's column on the timeline

	gauge ink // the filled part of a gauge
	track ink // gauge brackets and empty slots

	border      ink
	borderFocus ink

	// help and input style the bubbles (help, textinput).
	help  help.Styles
	input struct{ prompt, text, placeholder lipgloss.Style }
}

// ink is a style reduced to the escape sequences around its text, taken
// once from lipgloss: painting a string is then two concatenations, where
// lipgloss.Style.Render measures and copies each time. A frame paints a few
// hundred strings.
type ink struct{ pre, post string }

func inkOf(s lipgloss.Style) ink {
	const probe = "X"
	pre, post, _ := strings.Cut(s.Render(probe), probe)
	return ink{pre, post}
}

// Render paints s (one line).
func (k ink) Render(s string) string {
	if s == "" || k.pre == "" {
		return s
	}
	return k.pre + s + k.post
}

// palette is a pair of colours, for light and for dark backgrounds: each
// pair is chosen to keep contrast on its own background.
type palette struct {
	fg, muted, accent, key, note, ok, wait, bad, mix, gauge, border color.Color
}

func newPalette(dark bool) palette {
	ld := lipgloss.LightDark(dark)
	c := lipgloss.Color
	return palette{
		fg:     ld(c("#1C1C1C"), c("#E4E4E4")),
		muted:  ld(c("#6C6C6C"), c("#8A8A8A")),
		accent: ld(c("#5F3DC4"), c("#B197FC")),
		key:    ld(c("#3B5BDB"), c("#74C0FC")),
		note:   ld(c("#7A5200"), c("#FFD43B")),
		ok:     ld(c("#1E7B34"), c("#69DB7C")),
		wait:   ld(c("#A15C00"), c("#FFA94D")),
		bad:    ld(c("#C92A2A"), c("#FF6B6B")),
		mix:    ld(c("#A61E4D"), c("#F783AC")),
		gauge:  ld(c("#1971C2"), c("#4DABF7")),
		border: ld(c("#ADB5BD"), c("#495057")),
	}
}

func newStyles(dark, colour bool) *styles {
	plain := lipgloss.NewStyle()
	title, text, muted, accent := plain.Bold(true), plain, plain.Faint(true), plain.Bold(true)
	keyS, note, status, errText, http := plain.Bold(true), plain.Italic(true), plain, plain.Bold(true), plain.Bold(true)
	allowed, delayed, rejected, mixed := plain, plain, plain.Bold(true), plain.Bold(true)
	upcoming, cursor := plain.Faint(true), plain.Reverse(true)
	gaugeS, track := plain, plain.Faint(true)
	border, borderFocus := plain.Faint(true), plain.Bold(true)
	hs := help.Styles{
		ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain.Faint(true),
		FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain,
		Ellipsis: plain.Faint(true),
	}
	if colour {
		p := newPalette(dark)
		title = title.Foreground(p.fg)
		muted = plain.Foreground(p.muted)
		accent = accent.Foreground(p.accent)
		keyS = keyS.Foreground(p.key)
		note = note.Foreground(p.note)
		errText = errText.Foreground(p.bad)
		http = http.Foreground(p.bad)
		allowed = allowed.Foreground(p.ok)
		delayed = delayed.Foreground(p.wait)
		rejected = rejected.Foreground(p.bad)
		mixed = mixed.Foreground(p.mix)
		upcoming = plain.Foreground(p.muted)
		gaugeS = plain.Foreground(p.gauge)
		track = plain.Foreground(p.muted)
		border = plain.Foreground(p.border)
		borderFocus = plain.Foreground(p.accent).Bold(true)
		hs.ShortKey = hs.ShortKey.Foreground(p.key)
		hs.ShortDesc = hs.ShortDesc.Foreground(p.muted)
		hs.ShortSeparator = plain.Foreground(p.border)
		hs.FullKey = hs.FullKey.Foreground(p.key)
		hs.Ellipsis = plain.Foreground(p.muted)
	}
	s := &styles{
		colour: colour,
		title:  inkOf(title), text: inkOf(text), muted: inkOf(muted), accent: inkOf(accent),
		key: inkOf(keyS), note: inkOf(note), status: inkOf(status), errText: inkOf(errText), http: inkOf(http),
		allowed: inkOf(allowed), delayed: inkOf(delayed), rejected: inkOf(rejected), mixed: inkOf(mixed),
		upcoming: inkOf(upcoming), cursor: inkOf(cursor),
		gauge: inkOf(gaugeS), track: inkOf(track),
		border: inkOf(border), borderFocus: inkOf(borderFocus),
		help: hs,
	}
	s.input.prompt, s.input.text, s.input.placeholder = keyS, text, muted
	return s
}
