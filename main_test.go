package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ratelab/products/registry"
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

// check and run say a config lane's notes on stderr, once each, and keep
// stdout to their output.
func TestConfigLaneNotesOnStderr(t *testing.T) {
	path := writeFile(t, "envoy.yaml", `title: envoy
limiters:
  - {name: edge, config: {product: envoy, text: "token_bucket: {max_tokens: 5, tokens_per_fill: 10, fill_interval: 1s}"}}
traffic:
  - {at: 0s, count: 7}
`)
	const note = "note: edge (envoy): Envoy's local limit is one bucket for every request this Envoy's filter sees, not one a client\n"
	for _, args := range [][]string{{"check", path}, {"run", "--format", "summary", path}} {
		code, out, errs := ratelab(t, args...)
		if code != 0 || strings.Count(errs, note) != 1 || strings.Contains(out, "note:") {
			t.Errorf("%v: exit %d\n%s\nstderr:\n%s", args, code, out, errs)
		}
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

// failingCheck is a scenario's lanes, traffic and one expectation that
// does not hold (a fixed window of 2 asked to admit 3), after its title.
const failingCheck = `limiters:
  - {name: fixed, algorithm: fixed-window, limit: 2, window: 1s}
traffic:
  - {at: 0s, count: 3}
expect:
  - {lane: fixed, admitted: 3}
`

func TestCheckFailsWithAReason(t *testing.T) {
	path := writeFile(t, "wrong.yaml", "title: wrong\n"+failingCheck)
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
		{[]string{"run", "--until", "soon", "boundary"}, `run: --until: want a Go duration such as 1.5s or 0s, got "soon"`},
		{[]string{"run", "--until", "61", "boundary"}, "run: --until: want a Go duration such as 1.5s or 0s (a number needs a unit), got 61"},
		{[]string{"run", "--until", "-1s", "boundary"}, `run: --until: want a Go duration such as 1.5s or 0s, got "-1s"`},
		{[]string{"run", "boundary", "--peak-window=0s"}, `run: --peak-window: want a positive Go duration such as 60s, got "0s"`},
		{[]string{"run", "boundary", "--peak-window", "0"}, `run: --peak-window: want a positive Go duration such as 60s (a number needs a unit), got 0`},
		{[]string{"--fromat", "json"}, "unknown flag --fromat"},
		{[]string{"run", "boundary", "--until"}, "run: --until needs a value"},
		{[]string{"run", "boundary", "--fromat", "json"}, "run: unknown flag --fromat"},
		{[]string{"run", "--by-key", "boundary"}, "run: --by-key needs --format summary"},
		{[]string{"run", "--format", "json", "boundary", "--by-key"}, "run: --by-key needs --format summary"},
		{[]string{"run", "--by-key=maybe", "--format", "summary", "boundary"}, `run: --by-key: want true or false, got "maybe"`},
		{[]string{"run", "boundary", "dashboard"}, "usage: ratelab run"},
		{[]string{"run", "--", "--format", "summary", "boundary"}, "usage: ratelab run"}, // after --, operands
		{[]string{"check", "--strict", "boundary"}, "check: unknown flag --strict"},
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

// TestRunFlagsGoAnywhere: flags before, between or after the scenario, in any
// order, with one dash or two, "--flag value" or "--flag=value", give what
// the flags-first command line gives; "--" ends the flags.
func TestRunFlagsGoAnywhere(t *testing.T) {
	for _, c := range []struct {
		canonical []string
		variants  [][]string
	}{
		{[]string{"run", "--format", "summary", "boundary"}, [][]string{
			{"run", "boundary", "--format", "summary"},
			{"run", "boundary", "--format=summary"},
			{"run", "boundary", "-format", "summary"},
			{"run", "--format", "summary", "--", "boundary"},
		}},
		{[]string{"run", "--format", "json", "--until", "60.05s", "--peak-window", "2s", "boundary"}, [][]string{
			{"run", "--until", "60.05s", "boundary", "--format", "json", "--peak-window", "2s"},
			{"run", "--peak-window=2s", "boundary", "--until=60.05s", "--format=json"},
		}},
		{[]string{"run", "--format", "summary", "--by-key", "counter-blind-spot"}, [][]string{
			{"run", "counter-blind-spot", "--by-key", "--format", "summary"},
			{"run", "--by-key=true", "counter-blind-spot", "--format", "summary"},
		}},
		{[]string{"check", "boundary", "dashboard"}, [][]string{
			{"check", "boundary", "--", "dashboard"},
		}},
	} {
		code, want, errs := ratelab(t, c.canonical...)
		if code != 0 || want == "" {
			t.Fatalf("%q: exit %d, %s", c.canonical, code, errs)
		}
		for _, args := range c.variants {
			if code, out, errs := ratelab(t, args...); code != 0 || out != want {
				t.Errorf("%q: exit %d, %s\n%s\nwant what %q prints:\n%s", args, code, errs, out, c.canonical, want)
			}
		}
	}
}

func TestHelpAfterACommand(t *testing.T) {
	for _, args := range [][]string{
		{"--help"},
		{"run", "-h"},
		{"run", "boundary", "--help"},
		{"run", "--format", "summary", "-help"},
		{"check", "-h"},
		{"help"},
		{"list", "--help"},
		{"show", "-h"},
		{"boundary", "--help"}, // the explorer's command line too
		{"-h", "boundary"},
	} {
		code, out, errs := ratelab(t, args...)
		if code != 0 || errs != "" || !strings.Contains(out, "usage:") || !strings.Contains(out, "--by-key") {
			t.Errorf("%q: exit %d, stderr %q, stdout\n%s", args, code, errs, out)
		}
	}
}

// The usage text names every product import, export and explain read, in
// lines of at most 80 columns.
func TestHelpNamesEveryProduct(t *testing.T) {
	_, out, _ := ratelab(t, "--help")
	for _, name := range registry.Names() {
		if !regexp.MustCompile(`[ ,]` + regexp.QuoteMeta(name) + `[,\n]`).MatchString(out) {
			t.Errorf("the help does not name %s", name)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
}

// TestDurationFlagsSpeakLikeScenarioFiles: a bad --until gets the words a
// scenario file gets for the same value of an expectation's `from` (a time,
// zero allowed), and a bad --peak-window those for `until` (positive).
func TestDurationFlagsSpeakLikeScenarioFiles(t *testing.T) {
	for _, value := range []string{"61", "0", "soon", "-1s", "0s", "9000h", "1.5", "[1s]"} {
		for _, c := range []struct{ flag, field string }{{"--until", "from"}, {"--peak-window", "until"}} {
			path := writeFile(t, "flag.yaml", `title: flag
limiters:
  - {name: a, algorithm: token-bucket, capacity: 1, rate: 1/s}
traffic:
  - {at: 0s}
expect:
  - lane: a
    admitted: 1
    `+c.field+`: `+value+"\n")
			_, err := scenarios.Load(path)
			fileWords := ""
			if err != nil {
				var ok bool
				if _, fileWords, ok = strings.Cut(err.Error(), "expect[0]."+c.field+": "); !ok {
					t.Fatalf("%s: %s: %v", c.field, value, err)
				}
			}
			code, _, errs := ratelab(t, "run", c.flag, value, "boundary")
			if fileWords == "" { // the file takes it, so does the flag
				if code != 0 {
					t.Errorf("%s %s: exit %d, %s; the file's %s takes it", c.flag, value, code, errs, c.field)
				}
				continue
			}
			if want := "ratelab: run: " + c.flag + ": " + fileWords + "\n"; code != 2 || errs != want {
				t.Errorf("%s %s: exit %d, %q; want %q", c.flag, value, code, errs, want)
			}
		}
	}
}

// TestRunWithoutTraffic: a scenario with no request still prints the table's
// header, and every lane's summary row with zeros; JSON Lines prints no line.
func TestRunWithoutTraffic(t *testing.T) {
	path := writeFile(t, "sandbox.yaml", `title: sandbox
limiters:
  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}
  - {name: fixed, algorithm: fixed-window, limit: 2, window: 10s}
`)
	foot := "peak: the largest admitted cost passing in any trailing 10s window (a delayed request passes on release)"
	stateFoot := "state/key: the most bytes one key's state took after a request (a sliding log's grows with its recent admissions)"
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", path}, []string{"             t  lane   key  cost  outcome   wait          why"}},
		{[]string{"run", "--format", "json", path}, nil},
		{[]string{"run", "--format", "summary", path}, []string{
			"lane   policy                             requests  admitted  delayed  rejected  peak per 10s  state/key",
			"b      token-bucket capacity 1, rate 1/s         0         0        0         0  0                   0 B",
			"fixed  fixed-window limit 2 per 10s              0         0        0         0  0                   0 B",
			foot,
			stateFoot,
		}},
		{[]string{"run", "--format", "summary", "--by-key", path}, []string{
			"lane  key  policy  requests  admitted  delayed  rejected  peak per 10s",
			foot,
		}},
		// --until before the first request: the same as no traffic.
		{[]string{"run", "--until", "59s", "boundary"}, []string{"             t  lane     key      cost  outcome   wait          why"}},
	} {
		code, out, errs := ratelab(t, c.args...)
		want := strings.Join(c.want, "\n")
		if want != "" {
			want += "\n"
		}
		if code != 0 || out != want {
			t.Errorf("%q: exit %d, %s\n%q\nwant\n%q", c.args, code, errs, out, want)
		}
	}
}

// TestRunSummaryByKey: one row per lane per key, keys in the order their
// first request arrives (not sorted, not file order), each key's own peak;
// --until leaves out the keys that arrive later.
func TestRunSummaryByKey(t *testing.T) {
	path := writeFile(t, "keys.yaml", `title: keys
limiters:
  - {name: log, algorithm: sliding-log, limit: 2, window: 10s}
  - {name: shaper, algorithm: leaky-bucket, queue: 1, rate: 1/s}
traffic:
  - {at: 5s, count: 3, key: alice}
  - {at: 1s, count: 3, key: zed}
  - {at: 9s, key: bob, cost: 2}
`)
	for _, c := range []struct {
		args []string
		rows []string
	}{
		{[]string{"run", "--format", "summary", "--by-key", path}, []string{
			`lane\s+key\s+policy\s+requests\s+admitted\s+delayed\s+rejected\s+peak per 10s`,
			`log\s+zed\s+sliding-log limit 2 per 10s\s+3\s+2\s+0\s+1\s+2 by 1s`,
			`log\s+alice\s+sliding-log limit 2 per 10s\s+3\s+2\s+0\s+1\s+2 by 5s`,
			`log\s+bob\s+sliding-log limit 2 per 10s\s+1\s+1\s+0\s+0\s+2 by 9s`,
			`shaper\s+zed\s+leaky-bucket queue 1, rate 1/s\s+3\s+2\s+1\s+1\s+2 by 2s`,
			`shaper\s+alice\s+leaky-bucket queue 1, rate 1/s\s+3\s+2\s+1\s+1\s+2 by 6s`,
			`shaper\s+bob\s+leaky-bucket queue 1, rate 1/s\s+1\s+1\s+0\s+0\s+2 by 9s`, // cost 2 fits queue 1 + the pipe at once
			`peak: `,
		}},
		{[]string{"run", "--format", "summary", "--by-key", "--until", "9s", path}, []string{
			`lane\s+key\s+policy`,
			`log\s+zed\s`,
			`log\s+alice\s`,
			`shaper\s+zed\s`,
			`shaper\s+alice\s`,
			`peak: `,
		}},
	} {
		code, out, errs := ratelab(t, c.args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || len(lines) != len(c.rows) {
			t.Errorf("%q: exit %d, %s\n%s\nwant %d lines", c.args, code, errs, out, len(c.rows))
			continue
		}
		for i, row := range c.rows {
			if !regexp.MustCompile(`^` + row).MatchString(lines[i]) {
				t.Errorf("%q, line %d: %q does not match %q", c.args, i, lines[i], row)
			}
		}
	}
}

// TestUntilZeroRunsNoRequest: --until 0 stops before the first request at
// or after 0, which is every request, as the README promises (0 used to
// mean "no limit" and print them all).
func TestUntilZeroRunsNoRequest(t *testing.T) {
	// float-drift's first requests arrive at 0s: --until 1ns runs them.
	_, upTo1ns, _ := ratelab(t, "run", "--until", "1ns", "float-drift")
	lines := strings.SplitAfter(upTo1ns, "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], "0s  bucket") {
		t.Fatalf("--until 1ns float-drift:\n%s", upTo1ns)
	}
	header := lines[0]
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--until", "0", "float-drift"}, header},
		{[]string{"run", "--until=0s", "float-drift"}, header},
		{[]string{"run", "--until", "0s", "--format", "json", "float-drift"}, ""},
		{[]string{"run", "--until", "0", "--format", "summary", "--by-key", "float-drift"}, "" +
			"lane  key  policy  requests  admitted  delayed  rejected  peak per 1s\n" +
			"peak: the largest admitted cost passing in any trailing 1s window (a delayed request passes on release)\n"},
	} {
		code, out, errs := ratelab(t, c.args...)
		if code != 0 || out != c.want {
			t.Errorf("%q: exit %d, %s\n%q\nwant\n%q", c.args, code, errs, out, c.want)
		}
	}
	code, out, _ := ratelab(t, "run", "--until", "0", "--format", "summary", "boundary")
	if code != 0 || !regexpLine(out, `fixed\s+fixed-window limit 120 per 60s\s+0\s+0\s+0\s+0\s+0\s+0 B$`) {
		t.Errorf("summary: exit %d\n%s", code, out)
	}
}

// TestCheckGoesOnPastABrokenFile: a broken file among several gets its
// error on stderr, the files after it are still checked, and the exit
// status is 2 (it used to stop at the broken file without a word about the
// rest).
func TestCheckGoesOnPastABrokenFile(t *testing.T) {
	broken := writeFile(t, "broken.yaml", "title: broken\n")
	failing := writeFile(t, "failing.yaml", "title: failing\n"+failingCheck)
	for _, c := range []struct {
		args          []string
		code          int
		stdout, lines []string // lines: stderr's
	}{
		{[]string{"check", "boundary", broken, "dashboard"}, 2,
			[]string{"ok   boundary:", "ok   dashboard:"}, []string{"ratelab: " + broken + ":1:1: missing limiters"}},
		{[]string{"check", broken, failing, broken}, 2,
			[]string{"FAIL " + failing + ":7:"}, []string{"ratelab: " + broken + ":1:1:", "ratelab: " + broken + ":1:1:"}},
		{[]string{"check", failing, "boundary"}, 1, []string{"FAIL " + failing + ":7:", "ok   boundary:"}, nil},
	} {
		code, out, errs := ratelab(t, c.args...)
		outLines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		errLines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		if errs == "" {
			errLines = nil
		}
		ok := code == c.code && len(outLines) == len(c.stdout) && len(errLines) == len(c.lines)
		for i := 0; ok && i < len(c.stdout); i++ {
			ok = strings.HasPrefix(outLines[i], c.stdout[i])
		}
		for i := 0; ok && i < len(c.lines); i++ {
			ok = strings.HasPrefix(errLines[i], c.lines[i])
		}
		if !ok {
			t.Errorf("%q: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", c.args, code, c.code, out, errs)
		}
	}
}

// TestCheckFailureIsOneLine: an expectation's why that spans lines, or a
// file name holding a line break, cannot make a failure span lines and
// fake a "FAIL file:1:" line of its own.
func TestCheckFailureIsOneLine(t *testing.T) {
	path := writeFile(t, "why.yaml", `title: why
limiters:
  - {name: fixed, algorithm: fixed-window, limit: 2, window: 1s}
traffic:
  - {at: 0s, count: 3}
expect:
  - lane: fixed
    admitted: 3
    why: |
      one line,
      FAIL why.yaml:1: a line that is not a failure
`)
	code, out, _ := ratelab(t, "check", path)
	want := "FAIL " + path + ":7: expected fixed until 1s: admitted 3; got admitted 2 (one line, FAIL why.yaml:1: a line that is not a failure )\n"
	if code != 1 || out != want {
		t.Errorf("exit %d\n%q\nwant\n%q", code, out, want)
	}
}

// TestOneLine: what a file or its name may hold never breaks a line or
// reorders a terminal's display.
func TestOneLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"two\nlines\r\nand\ta tab", "two lines  and a tab"},
		{"bell\a and escape \x1b[2J", `bell\a and escape \x1b[2J`},
		{"abc\u202edef \u2066x\u2069 \u200f", `abc\u202edef \u2066x\u2069 \u200f`},
		{"שלום ✓ ≈0s", "שלום ✓ ≈0s"},
	} {
		if got := oneLine(c.in); got != c.want {
			t.Errorf("oneLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestOutputWriteErrorsExit2: a command whose output cannot be written
// says so and exits 2, where list, check and help used to exit 0.
func TestOutputWriteErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"list"},
		{"help"},
		{"--help"},
		{"run", "-h"},
		{"show", "boundary"},
		{"check", "boundary"},
		{"run", "boundary"},
		{"run", "--format", "summary", "--by-key", "boundary"},
	} {
		var errs bytes.Buffer
		code := run(args, failingWriter{}, &errs)
		if want := "ratelab: writing the output: no space left on device\n"; code != 2 || !strings.HasSuffix(errs.String(), want) || strings.Count(errs.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", args, code, errs.String(), want)
		}
	}
}
