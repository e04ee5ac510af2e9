package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The documentation the tests below hold to what ratelab does: the README,
// the pages in docs/ and the scenario format. Their counts are what the
// pages held when the tests were written; a page may move an example to
// another, but the examples may not shrink away unnoticed.
const (
	leastTranscripts  = 8 // "$ ratelab …" lines with their output
	leastYAMLExamples = 8 // ```yaml blocks: whole scenario files
)

// documentation is the Markdown files whose examples are run: README.md,
// and every docs/*.md (format.md among them).
func documentation(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md")
	}
	return append([]string{"README.md"}, pages...)
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// transcript is a command shown in a page's code block ("$ ratelab ARGS")
// and the lines shown under it, up to a blank line or the block's end.
type transcript struct {
	page string
	line int
	cmd  string
	want []string
}

func transcriptsOf(page, text string) []transcript {
	var ts []transcript
	cur := -1 // the transcript whose output is being read, if any
	inBlock := false
	for i, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock, cur = !inBlock, -1
		case inBlock && strings.HasPrefix(line, "$ ratelab "):
			ts = append(ts, transcript{page: page, line: i + 1, cmd: strings.TrimPrefix(line, "$ ratelab ")})
			cur = len(ts) - 1
		case line == "":
			cur = -1 // a blank line ends the output
		case cur >= 0:
			ts[cur].want = append(ts[cur].want, line)
		}
	}
	return ts
}

// TestDocumentedTranscripts runs every "$ ratelab …" command shown in the
// documentation and compares its output with the lines shown under it
// ("| head -N" keeps the first N lines, "| sed -n A,Bp" lines A to B).
func TestDocumentedTranscripts(t *testing.T) {
	n := 0
	for _, page := range documentation(t) {
		ts := transcriptsOf(page, readDoc(t, page))
		n += len(ts)
		if len(ts) > 0 {
			t.Logf("%s: %d transcripts", page, len(ts))
		}
		for _, tr := range ts {
			cmd, first, last := pipedLines(t, tr)
			code, out, errs := ratelab(t, strings.Fields(cmd)...)
			if code != 0 {
				t.Errorf("%s:%d: ratelab %s: exit %d: %s", tr.page, tr.line, cmd, code, errs)
				continue
			}
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			got = got[min(first-1, len(got)):min(last, len(got))]
			if strings.Join(got, "\n") != strings.Join(tr.want, "\n") {
				t.Errorf("%s:%d: ratelab %s prints\n%s\nthe page shows\n%s", tr.page, tr.line, tr.cmd, strings.Join(got, "\n"), strings.Join(tr.want, "\n"))
			}
		}
	}
	if n < leastTranscripts {
		t.Errorf("found %d transcripts in %v, want at least %d", n, documentation(t), leastTranscripts)
	}
	if len(transcriptsOf("README.md", readDoc(t, "README.md"))) == 0 {
		t.Error("the README shows no transcript")
	}
}

// pipedLines reads the pipe a transcript's command may end with: "|
// head -N" keeps lines 1 to N, "| sed -n A,Bp" lines A to B; without one,
// every line is kept (last is then the largest int).
func pipedLines(t *testing.T, tr transcript) (cmd string, first, last int) {
	t.Helper()
	bad := func(err error) {
		t.Fatalf("%s:%d: %q: %v", tr.page, tr.line, tr.cmd, err)
	}
	if cmd, head, ok := strings.Cut(tr.cmd, " | head -"); ok {
		n, err := strconv.Atoi(head)
		if err != nil {
			bad(err)
		}
		return cmd, 1, n
	}
	if cmd, sed, ok := strings.Cut(tr.cmd, " | sed -n "); ok {
		a, b, _ := strings.Cut(strings.TrimSuffix(sed, "p"), ",")
		first, err1 := strconv.Atoi(a)
		last, err2 := strconv.Atoi(b)
		if err := errors.Join(err1, err2); err != nil || first < 1 || last < first {
			bad(fmt.Errorf("not a range of lines A,Bp with 1 ≤ A ≤ B: %v", err))
		}
		return cmd, first, last
	}
	return tr.cmd, 1, math.MaxInt
}

// TestDocumentedScenariosCheck: the example scenario files (```yaml
// blocks) of the documentation load, and their expectations hold.
func TestDocumentedScenariosCheck(t *testing.T) {
	blockRe := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	n := 0
	for _, page := range documentation(t) {
		blocks := blockRe.FindAllStringSubmatch(readDoc(t, page), -1)
		n += len(blocks)
		if len(blocks) > 0 {
			t.Logf("%s: %d yaml blocks", page, len(blocks))
		}
		for i, b := range blocks {
			path := writeFile(t, fmt.Sprintf("example-%d.yaml", i), b[1])
			if code, out, errs := ratelab(t, "check", path); code != 0 {
				t.Errorf("%s, yaml block %d: exit %d\n%s%s", page, i, code, out, errs)
			}
		}
	}
	if n < leastYAMLExamples {
		t.Errorf("found %d yaml blocks in %v, want at least %d", n, documentation(t), leastYAMLExamples)
	}
}

// TestReadmeScreenshotIsTheTourGolden keeps the text screenshot of the
// README and of docs/explorer.md the screen the explorer really draws: the
// ui's "tour" golden.
func TestReadmeScreenshotIsTheTourGolden(t *testing.T) {
	golden := readDoc(t, "ui/testdata/TestGoldenPages/tour.golden")
	var lines []string
	for _, line := range strings.Split(strings.TrimRight(golden, "\n"), "\n") {
		lines = append(lines, strings.TrimRight(line, " "))
	}
	shot := "```\n" + strings.Join(lines, "\n") + "\n```"
	for _, page := range []string{"README.md", "docs/explorer.md"} {
		if !strings.Contains(readDoc(t, page), shot) {
			t.Errorf("%s does not show the tour golden; paste it:\n%s", page, shot)
		}
	}
}
