package report

import (
	"strings"
	"unicode/utf8"
)

// lineWidth is the columns a line of prose takes at most: a terminal's
// 80, so that nothing a command prints wraps where the terminal chooses.
const lineWidth = 80

// Wrapped is prefix and text, the text broken at spaces into lines of at
// most lineWidth columns (the first counting the prefix), each ending in a
// newline, the lines after the first indented by indent. A word longer
// than a line stands alone on its line.
func Wrapped(prefix, text, indent string) string {
	var b strings.Builder
	b.WriteString(prefix)
	col := utf8.RuneCountInString(prefix)
	for i, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case col+1+n > lineWidth:
			b.WriteString("\n")
			b.WriteString(indent)
			col = utf8.RuneCountInString(indent)
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	b.WriteByte('\n')
	return b.String()
}
