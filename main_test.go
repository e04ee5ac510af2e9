package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ratelab/scenarios"
)

// ratelab runs the command line and returns its exit status and output.
func ratelab(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = run(args, &out, &errs)
	return code, out.String(), errs.String()
}

func TestListNamesEveryCannedScenario(t *testing.T) {
	code, out, _ := ratelab(t, "list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, info := range scenarios.List() {
		if !strings.Contains(out, info.Name) || !strings.Contains(out, info.Title) {
			t.Errorf("list lacks %s: %s", info.Name, info.Title)
		}
	}
}

func TestShowPrintsTheYAMLThatLoads(t *testing.T) {
	code, out, _ := ratelab(t, "show", "boundary")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := scenarios.Parse("shown.yaml", []byte(out)); err != nil {
		t.Fatalf("the shown YAML does not load: %v", err)
	}
	if code, _, errs := ratelab(t, "show", "nope"); code != 2 || !strings.Contains(errs, `no canned scenario "nope"`) {
		t.Fatalf("show nope: exit %d, %q", code, errs)
	}
}

func TestCheckPassesOnEveryCannedScenario(t *testing.T) {
	var names []string
	for _, info := range scenarios.List() {
		names = append(names, info.Name)
	}
	code, out, errs := ratelab(t, append([]string{"check"}, names...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if got := strings.Count(out, "ok "); got != len(names) {
		t.Fatalf("%d ok lines for %d scenarios:\n%s", got, len(names), out)
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckFailsWithAReason(t *testing.T) {
	path := writeFile(t, "wrong.yaml", `title: wrong
limiters:
  - {name: fixed, algorithm: fixed-window, limit: 2, window: 1s}
traffic:
  - {at: 0s, count: 3}
expect:
  - {lane: fixed, admitted: 3}
`)
	code, out, _ := ratelab(t, "check", path)
	if code != 1 || !strings.Contains(out, "FAIL "+path+":7: expected fixed until 1s: admitted 3; got admitted 2") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestBadInputIsOneLineAndExit2(t *testing.T) {
	broken := writeFile(t, "broken.yaml", "title: broken\nlimiters:\n  - {name: a, algorithm: token-bucket, capacity: 5, rate: fast}\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{broken}, broken + ":3:"}, // the explorer: one line, before any screen
		{[]string{"run", broken}, broken + ":3:"},
		{[]string{"check", broken}, broken + ":3:"},
		{[]string{"run", "--format", "xml", "boundary"}, `unknown format "xml"`},
		{[]string{"run", "--until", "soon", "boundary"}, "run: invalid value"},
		{[]string{"run"}, "usage: ratelab run"},
		{[]string{"run", "no-such-scenario"}, "no-such-scenario"},
		{[]string{"list", "extra"}, "list takes no arguments"},
		{[]string{"check"}, "usage: ratelab check"},
		{[]string{"boundary", "extra"}, "unexpected arguments"},
	} {
		code, out, errs := ratelab(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, errs, c.want)
		}
		if strings.Contains(errs, "goroutine") || strings.Contains(errs, "panic") {
			t.Errorf("%v: stack trace in %q", c.args, errs)
		}
	}
}

func TestRunFormats(t *testing.T) {
	code, out, _ := ratelab(t, "run", "--until", "60s", "boundary")
	if code != 0 {
		t.Fatalf("table: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	// 120 requests before 60s, 4 lanes, one header.
	if len(lines) != 1+120*4 || !strings.Contains(lines[0], "outcome") {
		t.Fatalf("table: %d lines, head %q", len(lines), lines[0])
	}
	if !strings.Contains(lines[1], "59.9s") || !strings.Contains(lines[1], "allowed") || !strings.Contains(lines[1], "≤ limit 120") {
		t.Fatalf("table row: %q", lines[1])
	}

	code, out, _ = ratelab(t, "run", "--format", "json", "--until", "61s", "boundary")
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var prevAt int64
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		for _, field := range []string{"at_ns", "lane", "key", "cost", "outcome", "delay_ns", "retry_after_ns"} {
			if _, ok := rec[field]; !ok {
				t.Fatalf("line %d lacks %s: %s", i, field, line)
			}
		}
		at := int64(rec["at_ns"].(float64))
		if at < prevAt {
			t.Fatalf("line %d goes back in time", i)
		}
		prevAt = at
		if rec["lane"] == "log" && at >= 60e9 && rec["outcome"] != "rejected" {
			t.Fatalf("the log admitted a request at %d ns: %s", at, line)
		}
	}

	code, out, _ = ratelab(t, "run", "--format", "summary", "--peak-window", "2s", "boundary")
	if code != 0 {
		t.Fatalf("summary: exit %d", code)
	}
	for _, want := range []string{"peak per 2s", "fixed", "240 by"} {
		if !strings.Contains(out, want) {
			t.Fatalf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestRunAFile(t *testing.T) {
	path := writeFile(t, "mine.yaml", "title: mine\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}\ntraffic:\n  - {at: 0s, count: 2}\n")
	code, out, _ := ratelab(t, "run", "--format", "summary", path)
	if code != 0 || !regexpLine(out, `b\s+token-bucket capacity 1, rate 1/s\s+2\s+1\s+0\s+1`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func regexpLine(text, pattern string) bool {
	return regexp.MustCompile(`(?m)^` + pattern).MatchString(text)
}

// TestReadmeTranscripts runs every "$ ratelab …" command shown in the README
// and compares its output with the lines shown under it ("| head -N" keeps
// the first N lines).
func TestReadmeTranscripts(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	type transcript struct {
		cmd  string
		want []string
	}
	var ts []transcript
	cur := -1 // the transcript whose output is being read, if any
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inBlock, cur = !inBlock, -1
		case inBlock && strings.HasPrefix(line, "$ ratelab "):
			ts = append(ts, transcript{cmd: strings.TrimPrefix(line, "$ ratelab ")})
			cur = len(ts) - 1
		case line == "":
			cur = -1 // a blank line ends the output
		case cur >= 0:
			ts[cur].want = append(ts[cur].want, line)
		}
	}
	n := 0
	for _, tr := range ts {
		n++
		cmd, head, piped := strings.Cut(tr.cmd, " | head -")
		code, out, errs := ratelab(t, strings.Fields(cmd)...)
		if code != 0 {
			t.Errorf("ratelab %s: exit %d: %s", cmd, code, errs)
			continue
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if piped {
			k, err := strconv.Atoi(head)
			if err != nil {
				t.Fatalf("%q: %v", tr.cmd, err)
			}
			got = got[:min(k, len(got))]
		}
		if strings.Join(got, "\n") != strings.Join(tr.want, "\n") {
			t.Errorf("ratelab %s prints\n%s\nthe README shows\n%s", tr.cmd, strings.Join(got, "\n"), strings.Join(tr.want, "\n"))
		}
	}
	if n < 2 {
		t.Errorf("found %d transcripts in the README, want at least 2", n)
	}
}

// TestDocumentedScenariosCheck: the example scenario files in the README and
// FORMAT.md load, and their expectations hold.
func TestDocumentedScenariosCheck(t *testing.T) {
	for _, doc := range []string{"README.md", "scenarios/FORMAT.md"} {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)
		if len(blocks) == 0 {
			t.Errorf("%s: no yaml block", doc)
		}
		for i, b := range blocks {
			path := writeFile(t, fmt.Sprintf("example-%d.yaml", i), b[1])
			if code, out, errs := ratelab(t, "check", path); code != 0 {
				t.Errorf("%s, yaml block %d: exit %d\n%s%s", doc, i, code, out, errs)
			}
		}
	}
}

// TestReadmeScreenshotIsTheTourGolden keeps the README's text screenshot the
// screen the explorer really draws: the ui's "tour" golden.
func TestReadmeScreenshotIsTheTourGolden(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("ui/testdata/TestGoldenPages/tour.golden")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimRight(string(golden), "\n"), "\n") {
		lines = append(lines, strings.TrimRight(line, " "))
	}
	if shot := "```\n" + strings.Join(lines, "\n") + "\n```"; !strings.Contains(string(readme), shot) {
		t.Fatalf("README.md does not show the tour golden; paste it:\n%s", shot)
	}
}
