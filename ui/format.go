package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

// secs writes a time or duration for a cell of the screen, in seconds as
// every time on the screen is written (algorithms.AppendScreenSeconds):
// exact when it is a whole number of milliseconds ("59.9s", "0.25s"), or
// under a second and a whole number of microseconds ("0.0015s", a step of
// 1.5ms); under a millisecond to its three first significant digits
// ("≈0.000833s", "0.000000001s"); else to the millisecond with "≈"
// ("≈59.999s", "≈0.333s"),
// since the exact nine decimals of algorithms.FormatSeconds do not fit a
// lane. A lab's screen writes its instants in its own form (timeForm),
// which is this one unless its requests need more decimals to be told
// apart.
func secs(d time.Duration) string { return string(algorithms.AppendScreenSeconds(nil, d)) }

// maxKeyWidth bounds how much of a request's key a line shows: a key is
// free text, and a long one must not push the cost or a lane's numbers off
// the line.
const maxKeyWidth = 20

// keyText is a key as a line shows it: "customer-1234567890…".
func keyText(k string) string { return ansi.Truncate(k, maxKeyWidth, "…") }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// qty writes a quantity with "≈" when three decimals do not show it exactly.
func qty(q algorithms.Quantity) string {
	if q.Exact() {
		return q.String()
	}
	return "≈" + q.String()
}

// fit pads or cuts a (styled) line to exactly w cells, so that panels line
// up and nothing wraps at the terminal's edge.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		cut := cutAtWord(s, w-1) + "…"
		return cut + strings.Repeat(" ", w-ansi.StringWidth(cut))
	}
	return s + strings.Repeat(" ", w-sw)
}

// cutAtWord is s cut to at most w cells at the end of a word, its styles
// kept, with no mark of the cut: a text shortened to fit ends at a word,
// not inside one. A first word longer than a third of w is cut inside
// (a key, a path) rather than leave the line mostly blank.
func cutAtWord(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	cut := ansi.Strip(ansi.Truncate(s, w, ""))
	rest := strings.TrimPrefix(ansi.Strip(s), cut)
	if !strings.HasPrefix(rest, " ") {
		// Inside a word: back to the space before it.
		i := strings.LastIndexByte(cut, ' ')
		if i < 0 || ansi.StringWidth(cut[:i]) < w/3 {
			return ansi.Truncate(s, w, "")
		}
		cut = cut[:i]
		rest = strings.TrimPrefix(ansi.Strip(s), cut)
	}
	cut = strings.TrimRight(cut, " ")
	// A number whose unit was cut off goes with it ("· 28.2" of
	// "· 28.2 KiB/key"), and so does a separator left at the end.
	if i := strings.LastIndexByte(cut, ' '); i >= 0 && isNumber(cut[i+1:]) && startsWithUnit(rest) {
		cut = strings.TrimRight(cut[:i], " ")
	}
	cut = strings.TrimRight(strings.TrimSuffix(cut, " ·"), " ")
	return ansi.Truncate(s, ansi.StringWidth(cut), "")
}

// isNumber reports whether word is a number as the screen writes one:
// digits with a sign, a decimal point or thousands' commas.
func isNumber(word string) bool {
	digits := false
	for _, r := range word {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case r == '.' || r == ',' || r == '-' || r == '+' || r == '≈':
		default:
			return false
		}
	}
	return digits
}

// startsWithUnit reports whether rest, what a cut leaves off, starts with
// the unit of the number before it: bytes (" KiB/key") or tokens.
func startsWithUnit(rest string) bool {
	word, _, _ := strings.Cut(strings.TrimPrefix(rest, " "), " ")
	word, _, _ = strings.Cut(word, "/")
	switch strings.TrimRight(word, ",;:)") {
	case "B", "KiB", "MiB", "GiB", "TiB", "token", "tokens":
		return true
	}
	return false
}

// pad fills lines up to h lines of w spaces (and cuts them to h).
func pad(lines []string, w, h int) []string {
	for len(lines) < h {
		lines = append(lines, fit("", w))
	}
	return lines[:max(h, 0)]
}

// first returns the first text that fits in w cells, else the last one cut.
func first(texts []string, w int) string {
	for _, t := range texts {
		if ansi.StringWidth(t) <= w {
			return t
		}
	}
	return fit(texts[len(texts)-1], w)
}

// joinFit joins a left and a right part on one line of w cells, the right
// part flush right; the left part is cut first when both do not fit.
func joinFit(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw >= w {
		return fit(right, w)
	}
	return fit(left, w-rw-1) + " " + right
}

// wrap word-wraps text to w cells and returns at most n lines, the last
// ending in "…" when text was cut.
func wrap(text string, w, n int) []string {
	if w <= 0 || n <= 0 {
		return nil
	}
	lines := strings.Split(ansi.Wrap(text, w, ""), "\n")
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] = cutAtWord(strings.TrimRight(lines[n-1], " "), w-2) + " …"
	}
	return lines
}

// readAll ends a line that says less than the whole: e shows the rest.
const readAll = " (e: read all)"

// moreHint ends a text cut to fit its panel: e opens the panel whole.
const moreHint = " …" + readAll

// cutMore is s cut at a word to fit w cells with moreHint after it.
func cutMore(s string, w int) string {
	return cutAtWord(s, max(w-ansi.StringWidth(moreHint), 0)) + moreHint
}

// wrapMore is wrap, but a cut text ends with moreHint, so the learner knows
// the rest is one key away.
func wrapMore(text string, w, n int) []string {
	lines := wrap(text, w, n)
	if len(lines) < n || n <= 0 || !strings.HasSuffix(lines[n-1], "…") {
		return lines
	}
	full := strings.Split(ansi.Wrap(text, w, ""), "\n")
	if len(full) <= n {
		return lines
	}
	last := strings.TrimRight(full[n-1], " ")
	lines[n-1] = cutMore(last, w)
	return lines
}
