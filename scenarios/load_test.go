package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestParseErrors reads every file of testdata/errors, whose first line is
// "# want: " and the exact error Parse must return.
func TestParseErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/errors/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Each case the brief lists must have a file.
	for _, name := range []string{
		"unknown-field", "wrong-type-limit", "bad-duration", "bad-rate", "unknown-algorithm",
		"duplicate-lane", "bad-lane-name", "zero-lanes", "nine-lanes", "cost-too-big",
		"mixed-forms", "too-many-requests",
		// What docs/format.md refuses, which the loader once accepted.
		"rate-period-too-long", "yaml-1-3", "rate-with-spaces", "poisson-rate-with-spaces",
		"title-line-separator", "title-byte-order-mark", "title-noncharacter", "note-paragraph-separator",
		"dashes-after-document", "ends-after-document", "end-before-document",
		"key-tilde", "key-empty", "expect-key-null", "too-many-decisions",
	} {
		if _, err := os.Stat(filepath.Join("testdata", "errors", name+".yaml")); err != nil {
			t.Errorf("missing case: %v", err)
		}
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("first line %q does not start with \"# want: \"", first)
			}
			s, err := Parse(name, data)
			if s != nil {
				t.Errorf("Parse returned a scenario beside the error")
			}
			if err == nil {
				t.Fatalf("Parse succeeded, want %s", want)
			}
			if err.Error() != want {
				t.Errorf("error\n got: %s\nwant: %s", err, want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error is a %T, want *Error", err)
			}
		})
	}
}

func TestFileSizeLimit(t *testing.T) {
	ok := []byte(oneLane)
	big := append([]byte(oneLane), bytes.Repeat([]byte("# padding\n"), MaxFileSize/10)...)
	if len(big) <= MaxFileSize {
		t.Fatalf("test file of %d bytes is not too large", len(big))
	}
	const want = "big.yaml: file is larger than 1048576 bytes (1 MiB), the limit for a scenario"
	if _, err := Parse("big.yaml", big); err == nil || err.Error() != want {
		t.Errorf("Parse: got %v, want %s", err, want)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || err.Error() != strings.Replace(want, "big.yaml", path, 1) {
		t.Errorf("Load: got %v, want %s", err, want)
	}
	// Exactly at the limit is fine.
	exact := append(ok, bytes.Repeat([]byte("#"), MaxFileSize-len(ok))...)
	if err := os.WriteFile(path, exact, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("Load of exactly %d bytes: %v", len(exact), err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want ErrNotExist", err)
	}
}

// TestLoadRefusesWhatIsNotARegularFile: a named pipe with no writer, which
// blocked Load for ever, and a directory are refused at once.
func TestLoadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, fifo + ": a named pipe, not a scenario file: want a regular YAML file"},
		{dir, dir + ": a directory, not a scenario file: want a regular YAML file"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(c.path)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || err.Error() != c.want {
				t.Errorf("Load(%s) = %v, want %s", c.path, err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Load(%s) still waits after 5s", c.path)
		}
	}
}

// TestHostileButValidShapes: the cases of issue 7 that the loader got wrong,
// each with the error it must give now (or "" when the file must load).
func TestHostileButValidShapes(t *testing.T) {
	longKey := strings.Repeat("k", 170)
	tests := []struct {
		name, yaml, want string
	}{
		{"byte order mark", "\ufeff" + oneLane, ""},
		{"byte order mark, error columns as shown", "\ufefftitle: t\nlimiters: 1\n", "x.yaml:2:11: limiters: want a list of 1 to 8 limiters, got 1"},
		{"%YAML 1.2 directive", "%YAML 1.2\n---\n" + oneLane, ""},
		{"%YAML 1.1 directive and a comment", "# made by hand\n%YAML 1.1\n--- # the scenario\n" + oneLane + "...\n", ""},
		{"%YAML 2.0 directive", "%YAML 2.0\n---\n" + oneLane, `x.yaml:1:7: invalid YAML: unknown YAML version "2.0"`},
		{"%TAG directive", "%TAG ! tag:x,2000:\n---\n" + oneLane, "x.yaml:1:1: the YAML directive %TAG is not supported (only %YAML 1.1 or 1.2)"},
		{"directive without ---", "%YAML 1.2\n" + oneLane, "x.yaml:1:1: invalid YAML: a directive (%YAML) must be followed by a line of --- before the document"},
		{"directive then two documents", "%YAML 1.2\n---\n" + oneLane + "---\ntitle: u\n", "x.yaml:7:1: want one YAML document, found a second one"},
		{"a long unknown key past column 160", oneLane + longKey + ": 1\n",
			`x.yaml:4:1: unknown field of 170 characters, not a field name (is this a scenario file?); want one of title, about, step, duration, seed, watch, limiters, clients, traffic, notes, quiz, expect`},
		{"a key: value mistake past column 160", oneLane + "about: " + strings.Repeat("word ", 34) + "and: more\n",
			"x.yaml:4:8: invalid YAML: mapping value is not allowed in this context"},
		{"nesting past column 160 is still refused", "title: t\nx:\n" + nestedBlock(90),
			"x.yaml:83:162: invalid YAML: nested too deeply (indented past column 160)"},
		{"plus sign on a whole number", strings.Replace(oneLane, "capacity: 10", "capacity: +10", 1),
			"x.yaml:3:50: limiters[0].capacity: want a positive whole number (at most 2^40), got +10"},
		{"plus sign on a count", oneLane + "traffic:\n  - {at: 0s, count: +3}\n",
			"x.yaml:5:21: traffic[0].count: want a whole number from 1 to 20000000, got +3"},
		{"right-to-left override in the title", "title: \"abc\u202edef\"\n",
			"x.yaml:1:8: title: want a title, got the bidirectional formatting character U+202E, which would reorder the text around it on a terminal"},
		{"right-to-left isolate in a key", oneLane + "traffic:\n  - {at: 1s, key: \"a\u2067b\"}\n",
			"x.yaml:5:19: traffic[0].key: want a key, got the bidirectional formatting character U+2067, which would reorder the text around it on a terminal"},
		{"right-to-left mark in a note", oneLane + "notes:\n  - {at: 1s, text: \"a\u200fb\"}\n",
			"x.yaml:5:20: notes[0].text: want the note's text, got the bidirectional formatting character U+200F, which would reorder the text around it on a terminal"},
		{"right-to-left text itself is fine", "title: \"שלום עולם\"\n" + oneLane[len("title: t\n"):], ""},
		{"a mapping of too many fields", oneLane + "x:\n" + manyKeys(" ", 65),
			"x.yaml:69:2: invalid YAML: a mapping of more than 64 fields (no mapping of a scenario has more than 23)"},
		{"a flow mapping of too many fields", oneLane + "x: {" + manyKeys("", 65) + "}\n",
			"x.yaml:4:510: invalid YAML: a mapping of more than 64 fields (no mapping of a scenario has more than 23)"},
		{"many one-field mappings are fine", oneLane + "traffic:\n" + strings.Repeat("- at: 1s\n", 200), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(tt.yaml))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case tt.want == "":
				if s.Title == "" || len(s.Lanes) != 1 {
					t.Fatalf("Parse = %+v", s)
				}
			case err == nil:
				t.Fatalf("Parse succeeded, want %s", tt.want)
			case err.Error() != tt.want:
				t.Errorf("error\n got: %s\nwant: %s", err, tt.want)
			}
		})
	}
}

// nestedBlock is n block mappings, each inside the one before.
func nestedBlock(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat(" ", 2*i+1), i)
	}
	return b.String()
}

// manyKeys is n fields "kI: v", each after indent and, in flow (indent ""),
// separated by commas.
func manyKeys(indent string, n int) string {
	var b strings.Builder
	for i := range n {
		if indent == "" {
			fmt.Fprintf(&b, "k%d: v, ", i)
		} else {
			fmt.Fprintf(&b, "%sk%d: v\n", indent, i)
		}
	}
	return b.String()
}

// hugeShapes are 1 MiB files made of one dense YAML shape each: the YAML
// library needs 200 to 450 MB to read any of them.
func hugeShapes() map[string]string {
	fill := func(prefix, unit, suffix string) string {
		n := (MaxFileSize - len(oneLane) - len(prefix) - len(suffix)) / len(unit)
		return oneLane + prefix + strings.Repeat(unit, n) + suffix
	}
	return map[string]string{
		"flow items":       fill("traffic:\n", "- {at: 1s}\n", ""),
		"block items":      fill("traffic:\n", "- at: 1s\n", ""),
		"flow scalars":     fill("notes: [", "1,", "]\n"),
		"flow punctuation": fill("notes: [", "[],", "]\n"),
		"null entries":     fill("notes:\n", "- \n", ""),
		"aliases":          fill("notes: [", "*a,", "]\n"),
		"comments":         fill("", "#\n", ""), // a comment is a token too
	}
}

// TestHugeShapesAreRefusedCheaply: each 1 MiB file of tokens is refused
// with the token limit's error, before the YAML library allocates for it.
func TestHugeShapesAreRefusedCheaply(t *testing.T) {
	for name, text := range hugeShapes() {
		data := []byte(text)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Parse("huge.yaml", data)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "more than 100000 YAML tokens") {
			t.Errorf("%s: %v, want the token limit", name, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: refusing it allocated %d KB, want under 1 MB", name, alloc>>10)
		}
	}
}

// largestAccepted are files just under the token limit, one dense shape
// each, that load: the most the YAML library is ever handed.
func largestAccepted() map[string]string {
	fill := func(prefix, unit string, tokens int) string {
		n := (MaxTokens - 40) / tokens
		return oneLane + prefix + strings.Repeat(unit, n)
	}
	return map[string]string{
		"flow items":            fill("traffic:\n", "- {at: 1s}\n", 6),
		"block items":           fill("traffic:\n", "- at: 1s\n", 4),
		"block items, 3 fields": fill("traffic:\n", "- at: 1s\n  key: k\n  cost: 2\n", 10),
		"notes":                 fill("notes:\n", "- {at: 1s, text: a note}\n", 10),
		"expectations":          oneLane + "traffic: [{at: 0s}]\n" + fill("expect:\n", "- {lane: b, admitted: 1}\n", 10)[len(oneLane):],
		"comments":              fill("", "# note\n", 1),
		"about, 1 MiB":          oneLane + "about: |\n" + strings.Repeat("  Plain prose, as a lesson's about text has it: line after line.\n", (MaxFileSize-len(oneLane)-10)/66),
	}
}

// BenchmarkParseLargestAccepted reports what reading each of the largest
// files that load allocates in all (alloc-MB/op) and the most it keeps
// live at once, sampled (peak-live-MB).
func BenchmarkParseLargestAccepted(b *testing.B) {
	for name, text := range largestAccepted() {
		data := []byte(text)
		b.Run(name, func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				peak = max(peak, peakLive(b, func() {
					if _, err := Parse("big.yaml", data); err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-MB")
		})
	}
}

// peakLive runs f and returns the largest heap in use seen while it ran,
// above the heap in use before, sampled every 200µs.
func peakLive(t testing.TB, f func()) uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapInuse
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return max(peak, base) - base
}

// TestLargestAcceptedFilesStaySmall: every largest file that loads keeps
// less than 80 MB live while it is read (about 50 MB measured; before the
// token limit, a 1 MiB file that loads took 300 MB: see the README). With
// -short it reads only the block items, which kept the most when measured.
func TestLargestAcceptedFilesStaySmall(t *testing.T) {
	files := largestAccepted()
	if testing.Short() {
		files = map[string]string{"block items": files["block items"]}
	}
	for name, text := range files {
		data := []byte(text)
		var err error
		peak := peakLive(t, func() { _, err = Parse("big.yaml", data) })
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if peak > 80<<20 {
			t.Errorf("%s: %d MB live while reading it, want under 80 MB", name, peak>>20)
		}
	}
}

// BenchmarkLoadManyKeys reads tools/many-keys.yaml: ten items of 10,000
// accounts each, 100,000 traffic items once expanded.
func BenchmarkLoadManyKeys(b *testing.B) {
	for b.Loop() {
		if _, err := Load("../tools/many-keys.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}
