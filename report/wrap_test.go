package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapped(t *testing.T) {
	for _, c := range []struct{ text, indent, want string }{
		{"short", "  ", "short\n"},
		{strings.Repeat("word ", 20), "  ", "word word word word word word word word word word word word word word word word\n  word word word word\n"},
		{"a " + strings.Repeat("x", 90) + " b", "    ", "a\n    " + strings.Repeat("x", 90) + "\n    b\n"},
		{"  leading   and   inner   spaces  ", "", "leading and inner spaces\n"},
	} {
		got := Wrapped("", c.text, c.indent)
		if got != c.want {
			t.Errorf("Wrapped(%q):\n%q\nwant\n%q", c.text, got, c.want)
		}
		for _, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > lineWidth && !strings.Contains(line, strings.Repeat("x", 90)) {
				t.Errorf("a line of %d columns: %q", n, line)
			}
		}
	}
}

// A prefix counts in the first line's columns.
func TestWrappedAfterAPrefix(t *testing.T) {
	got := Wrapped("    1/h  ", strings.Repeat("word ", 18), "         ")
	want := "    1/h  word word word word word word word word word word word word word word\n         word word word word\n"
	if got != want {
		t.Errorf("%q\nwant\n%q", got, want)
	}
}
