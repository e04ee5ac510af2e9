package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// pages are the documentation's Markdown files: the README and this
// directory's.
func pages(t *testing.T) []string {
	t.Helper()
	here, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(here) == 0 {
		t.Fatal("no *.md beside the docs package")
	}
	return append([]string{"../README.md"}, here...)
}

var (
	linkRe    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	fenceRe   = regexp.MustCompile("(?ms)^```.*?^```")
	codeRe    = regexp.MustCompile("`[^`\n]*`")
	headingRe = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *#* *$`)
)

// TestLinks: every relative link of the README and the docs names a file
// that exists, and a heading that exists in it (GitHub's anchors).
func TestLinks(t *testing.T) {
	n := 0
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := codeRe.ReplaceAllString(fenceRe.ReplaceAllString(string(data), ""), "``")
		for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if frag == "" || info.IsDir() {
				continue
			}
			anchors, err := anchorsOf(path)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors[frag] {
				t.Errorf("%s: link %s: %s has no heading #%s", page, target, path, frag)
			}
		}
	}
	if n < 20 {
		t.Errorf("found %d relative links; the pages link to each other more than that", n)
	}
}

// anchorsOf is the fragments GitHub gives path's headings.
func anchorsOf(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := fenceRe.ReplaceAllString(string(data), "")
	anchors := map[string]bool{}
	for _, m := range headingRe.FindAllStringSubmatch(text, -1) {
		s := slug(m[1])
		a := s
		for i := 1; anchors[a]; i++ {
			a = fmt.Sprintf("%s-%d", s, i)
		}
		anchors[a] = true
	}
	return anchors, nil
}

// slug is GitHub's anchor for a heading: lower case, spaces made hyphens,
// everything but letters, digits, hyphens and underscores dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestSpeaksToAUser: the pages speak to someone using ratelab, not of how
// it was made: no issue numbers, no "the issues were silent".
func TestSpeaksToAUser(t *testing.T) {
	words := regexp.MustCompile(`(?i)\b(issues?|session|we made)\b`)
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := words.FindString(line); m != "" {
				t.Errorf("%s:%d says %q: %s", page, i+1, m, line)
			}
		}
	}
}
