package scenarios

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
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
		// Issue 17: what FORMAT.md refuses, which the loader accepted.
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

const oneLane = "title: t\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 10, rate: 2/s}\n"

func TestParseInlineErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"not utf-8", "title: caf\xe9\n", "x.yaml:1:11: the file is not valid UTF-8"},
		{"not a mapping", "- a\n", "x.yaml:1:1: want a mapping with title, limiters and traffic, got a list"},
		{"missing limiters", "title: t\n", "x.yaml:1:1: missing limiters: want a list of 1 to 8 limiters"},
		{"null limiters", "title: t\nlimiters:\n", "x.yaml:2:1: limiters: want a list of 1 to 8 limiters, got nothing"},
		{"octal-looking number", strings.Replace(oneLane, "capacity: 10", "capacity: 010", 1),
			"x.yaml:3:50: limiters[0].capacity: want a positive whole number (at most 2^40), got 010"},
		{"hex number", strings.Replace(oneLane, "capacity: 10", "capacity: 0x10", 1),
			"x.yaml:3:50: limiters[0].capacity: want a positive whole number (at most 2^40), got 0x10"},
		{"float", strings.Replace(oneLane, "capacity: 10", "capacity: 1.5", 1),
			"x.yaml:3:50: limiters[0].capacity: want a positive whole number (at most 2^40), got 1.5"},
		{"huge number", strings.Replace(oneLane, "capacity: 10", "capacity: 99999999999999999999", 1),
			"x.yaml:3:50: limiters[0].capacity: want a positive whole number (at most 2^40), got 99999999999999999999, which is far too large"},
		{"capacity above 2^40", strings.Replace(oneLane, "capacity: 10", "capacity: 2000000000000", 1),
			"x.yaml:3:50: limiters[0].capacity: want a positive whole number (at most 2^40), got 2000000000000"},
		{"policy overflow", strings.Replace(oneLane, "capacity: 10, rate: 2/s", "capacity: 1000000000000, rate: 1/1h", 1),
			"x.yaml:3:5: limiters[0]: capacity 1000000000000 × rate period 1h is too large for exact arithmetic (at most 2^62 ns)"},
		{"rate without unit", strings.Replace(oneLane, "rate: 2/s", "rate: 2", 1),
			"x.yaml:3:60: limiters[0].rate: want a rate N/D such as 2/s, 120/min or 1/500ms, got 2"},
		{"negative duration", oneLane + "step: -1s\n", `x.yaml:4:7: step: want a positive Go duration such as 60s, got "-1s"`},
		{"zero step", oneLane + "step: 0s\n", `x.yaml:4:7: step: want a positive Go duration such as 60s, got "0s"`},
		{"duration too long", oneLane + "duration: 9000h\n", `x.yaml:4:11: duration: want a positive Go duration such as 60s of at most 8784h (a year), got "9000h"`},
		{"periodic until before from", oneLane + "traffic:\n  - {every: 1s, from: 2s, until: 2s}\n",
			"x.yaml:5:34: traffic[0].until: want a time after from (2s), got 2s"},
		{"spread without count", oneLane + "traffic:\n  - {at: 1s, spread: 1s}\n",
			"x.yaml:5:14: traffic[0].spread: spread needs count (a burst is at + count, optionally spread)"},
		{"zero count", oneLane + "traffic:\n  - {at: 1s, count: 0}\n",
			"x.yaml:5:21: traffic[0].count: want a whole number from 1 to 20000000, got 0"},
		{"zero cost", oneLane + "traffic:\n  - {at: 1s, cost: 0}\n",
			"x.yaml:5:20: traffic[0].cost: want a positive whole number (at most 2^40), got 0"},
		{"empty key", oneLane + "traffic:\n  - {at: 1s, key: \"\"}\n",
			`x.yaml:5:19: traffic[0].key: want a key of 1 to 64 bytes, got ""`},
		{"bare number time", oneLane + "traffic:\n  - {at: 5}\n",
			"x.yaml:5:10: traffic[0].at: want a Go duration such as 1.5s or 0s (a number needs a unit), got 5"},
		{"single request at the end", oneLane + "duration: 1s\ntraffic:\n  - {at: 1s}\n",
			"x.yaml:6:5: traffic[0]: it arrives at 1s, not before the end of the time axis (duration 1s)"},
		{"note without text", oneLane + "notes:\n  - {at: 1s}\n", "x.yaml:5:5: notes[0]: missing text: want the note's text"},
		{"blank note", oneLane + "notes:\n  - {at: 1s, text: \" \"}\n", "x.yaml:5:20: notes[0].text: want the note's text, got blank text"},
		{"unknown outcome", oneLane + "expect:\n  - {lane: b, outcome: maybe}\n",
			`x.yaml:5:24: expect[0].outcome: want allowed, delayed or rejected, got "maybe"`},
		{"outcome delayed on a bucket", oneLane + "expect:\n  - {lane: b, outcome: delayed}\n",
			"x.yaml:5:24: expect[0].outcome: lane b is a token-bucket, which never delays a request"},
		{"peak without window", oneLane + "expect:\n  - {lane: b, peak: 3}\n",
			"x.yaml:5:5: expect[0]: missing peak_window: want the length of the window peak is measured in, such as 1s"},
		{"window without peak", oneLane + "expect:\n  - {lane: b, peak_window: 3s}\n",
			"x.yaml:5:28: expect[0].peak_window: peak_window needs peak"},
		{"until past duration", oneLane + "duration: 5s\nexpect:\n  - {lane: b, until: 1h, admitted: 1}\n",
			"x.yaml:6:22: expect[0].until: 1h is past the end of the time axis (duration 5s)"},
		{"at past duration", oneLane + "duration: 5s\nexpect:\n  - {lane: b, at: 5s, admitted: 1}\n",
			"x.yaml:6:19: expect[0].at: 5s is not before the end of the time axis (duration 5s)"},
		{"from past duration", oneLane + "duration: 5s\nexpect:\n  - {lane: b, from: 5s, admitted: 1}\n",
			"x.yaml:6:21: expect[0].from: 5s is not before the end of the time axis (duration 5s)"},
		{"until before from", oneLane + "expect:\n  - {lane: b, from: 2s, until: 1s, admitted: 1}\n",
			"x.yaml:5:32: expect[0].until: want a time after from (2s), got 1s"},
		{"negative count", oneLane + "expect:\n  - {lane: b, admitted: -1}\n",
			"x.yaml:5:25: expect[0].admitted: want a whole number from 0 to 20000000, got -1"},
		{"tag", oneLane + "step: !!str 1s\n", "x.yaml:4:7: step: YAML tags (!!type) are not supported"},
		{"alias", oneLane + "about: *a\n", "x.yaml:4:8: about: YAML anchors and aliases (&name, *name) are not supported"},
		{"merge key", "title: t\n<<: {a: 1}\n", "x.yaml:2:1: YAML merge keys (<<) are not supported"},
		{"unterminated string", "title: \"t\n", "x.yaml:1:8: invalid YAML: could not find end character of double-quoted text"},
		{"deep block nesting", "title: t\nx: " + strings.Repeat("- ", 100) + "1\n",
			"x.yaml:2:162: invalid YAML: nested too deeply (indented past column 160)"},
		{"tab indentation", "title: t\nlimiters:\n\t- {name: b, algorithm: token-bucket, capacity: 10, rate: 2/s}\n",
			`x.yaml:3:1: invalid YAML: found character '\t' that cannot start any token`},
		{"control character in a key", oneLane + "traffic:\n  - {at: 1s, key: \"a\\u0007b\"}\n",
			"x.yaml:5:19: traffic[0].key: want a key, got the control character U+0007"},
		{"key too long", oneLane + "traffic:\n  - {at: 1s, key: " + strings.Repeat("k", 65) + "}\n",
			`x.yaml:5:19: traffic[0].key: want a key of 1 to 64 bytes, got "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…"`},
		{"unknown field like no known one", oneLane + "zzzzzzzz: 1\n",
			"x.yaml:4:1: unknown field \"zzzzzzzz\"; want one of title, about, step, duration, seed, limiters, clients, traffic, notes, quiz, expect"},
		{"note without at", oneLane + "notes:\n  - {text: x}\n", "x.yaml:5:5: notes[0]: missing at: want the time to show the note, such as 60s"},
		{"accounts 0", oneLane + "traffic:\n  - {at: 1s, accounts: 0}\n",
			"x.yaml:5:24: traffic[0].accounts: want a whole number from 1 to 10000, got 0"},
		{"accounts above 10000", oneLane + "traffic:\n  - {every: 1s, until: 2s, accounts: 10001}\n",
			"x.yaml:5:38: traffic[0].accounts: want a whole number from 1 to 10000, got 10001"},
		{"accounts and keys", oneLane + "traffic:\n  - {at: 1s, accounts: 2, keys: [a, b]}\n",
			"x.yaml:5:27: traffic[0].keys: keys and accounts cannot be mixed (accounts names its copies acct-1 …, keys names each)"},
		{"keys and key", oneLane + "traffic:\n  - {at: 1s, keys: [a, b], key: c}\n",
			"x.yaml:5:28: traffic[0].key: key cannot be mixed with keys (keys gives each copy its key)"},
		{"duplicate in keys", oneLane + "traffic:\n  - {at: 1s, keys: [alice, bob, alice]}\n",
			`x.yaml:5:33: traffic[0].keys[2]: key "alice" appears twice in keys (first as keys[0])`},
		{"empty keys", oneLane + "traffic:\n  - {at: 1s, keys: []}\n",
			"x.yaml:5:20: traffic[0].keys: want a list of 1 to 10000 distinct keys such as [alice, bob], got none"},
		{"keys not a list", oneLane + "traffic:\n  - {at: 1s, keys: a}\n",
			`x.yaml:5:20: traffic[0].keys: want a list of 1 to 10000 distinct keys such as [alice, bob], got "a"`},
		{"empty key in keys", oneLane + "traffic:\n  - {at: 1s, keys: [\"\"]}\n",
			`x.yaml:5:21: traffic[0].keys[0]: want a key of 1 to 64 bytes, got ""`},
		{"control character in keys", oneLane + "traffic:\n  - {at: 1s, keys: [a, \"b\\u0007\"]}\n",
			"x.yaml:5:24: traffic[0].keys[1]: want a key, got the control character U+0007"},
		{"list in keys", oneLane + "traffic:\n  - {at: 1s, keys: [a, [b]]}\n",
			"x.yaml:5:24: traffic[0].keys[1]: want a key, got a list"},
		{"stagger on a single request", oneLane + "traffic:\n  - {at: 1s, accounts: 2, stagger: even}\n",
			"x.yaml:5:27: traffic[0].stagger: stagger needs every (a periodic item): only a periodic item's copies can start at offsets within every"},
		{"stagger on a burst", oneLane + "traffic:\n  - {at: 1s, count: 3, accounts: 2, stagger: random}\n",
			"x.yaml:5:37: traffic[0].stagger: stagger needs every (a periodic item): only a periodic item's copies can start at offsets within every"},
		{"stagger without copies", oneLane + "traffic:\n  - {every: 1s, until: 2s, stagger: even}\n",
			"x.yaml:5:28: traffic[0].stagger: stagger needs accounts or keys (the copies to stagger)"},
		{"unknown stagger", oneLane + "traffic:\n  - {every: 1s, until: 2s, accounts: 2, stagger: sideways}\n",
			`x.yaml:5:50: traffic[0].stagger: want one of none, even, random, got "sideways"`},
		{"accounts key too long", oneLane + "traffic:\n  - {every: 1s, until: 2s, accounts: 10000, key: " + strings.Repeat("k", 59) + "}\n",
			`x.yaml:5:50: traffic[0].key: want a key of 1 to 58 bytes with accounts: 10000 (its last copy's key would be "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…", 65 bytes)`},
		{"too many items through accounts", oneLane + "traffic:\n" + strings.Repeat("  - {at: 0s, accounts: 10000}\n", 11),
			"x.yaml:15:5: traffic[10]: the traffic expands to more than 100000 items, counting an item of accounts or keys as its copies (110000 with this item)"},
		{"costs above 2^62 through accounts", "title: t\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 1099511627776, rate: 1/1ns}\n" +
			"traffic:\n  - {at: 0s, count: 4096, cost: 1099511627776, accounts: 1025}\n", // 2^12 × 2^40 × 1025 > 2^62
			"x.yaml:5:33: traffic[0]: the requests' costs add up to more than 2^62"},
		{"costs above 2^62", "title: t\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 1099511627776, rate: 1/1ns}\n" +
			"traffic:\n  - {at: 0s, count: 4194304, cost: 1099511627776}\n  - {at: 1s}\n", // 2^22 × 2^40, then one more
			"x.yaml:6:5: traffic[1]: the requests' costs add up to more than 2^62"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(tt.yaml))
			if err == nil || s != nil {
				t.Fatalf("Parse = %v, %v; want error %s", s, err, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tt.want)
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

func TestRequestCountLimit(t *testing.T) {
	tests := []struct {
		traffic string
		ok      bool
	}{
		{"  - {at: 0s, count: 20000000}\n", true},
		{"  - {every: 1ns, until: 20ms}\n", true},
		{"  - {every: 1ns, until: 20000001ns}\n", false},
		{"  - {at: 0s, count: 10000000}\n  - {every: 2ns, until: 20ms}\n", true},
		{"  - {at: 0s, count: 10000000}\n  - {every: 2ns, until: 20000001ns}\n", false},
		{"  - {every: 1ns, until: 8784h}\n", false}, // 3e16: counted, not expanded
		// Through accounts and keys: the copies' requests count.
		{"  - {at: 0s, count: 2000, accounts: 10000}\n", true},
		{"  - {at: 0s, count: 2000, accounts: 10000}\n  - {at: 1s}\n", false},
		{"  - {every: 1ns, until: 10ms, keys: [a, b]}\n", true},
		{"  - {every: 1ns, until: 10000001ns, keys: [a, b]}\n", false},
		{"  - {every: 1ms, until: 2s, accounts: 10000}\n", true},
		{"  - {every: 1ms, until: 2001ms, accounts: 10000}\n", false},
		// Staggered, a copy whose offset passes the last request has one
		// fewer: copy i starts i × 100ns later, so the 5000 copies from
		// 0.5ms on have 1999 requests, the first 5000 have 2000.
		{"  - {every: 1ms, until: 1999500us, accounts: 10000, stagger: even}\n  - {at: 0s, count: 5000}\n", true},
		{"  - {every: 1ms, until: 1999500us, accounts: 10000, stagger: even}\n  - {at: 0s, count: 5001}\n", false},
		{"  - {every: 1ns, until: 8784h, accounts: 10000}\n", false}, // 3e20: past 64 bits, counted
	}
	// Every case that loads expands to exactly MaxRequests.
	for _, tt := range tests {
		start := time.Now()
		s, err := Parse("x.yaml", []byte(oneLane+"traffic:\n"+tt.traffic))
		if time.Since(start) > time.Second {
			t.Errorf("%q: Parse took %v; it must count, not expand", tt.traffic, time.Since(start))
		}
		if tt.ok {
			if err != nil {
				t.Errorf("%q: %v", tt.traffic, err)
			} else if n := s.RequestCount(); n != MaxRequests {
				t.Errorf("%q: RequestCount = %d", tt.traffic, n)
			}
		} else if err == nil || !strings.Contains(err.Error(), "expands to more than 20000000 requests") {
			t.Errorf("%q: got %v, want the request limit", tt.traffic, err)
		}
	}
}

func int64p(v int64) *int64 { return &v }

func outcomep(o algorithms.Outcome) *algorithms.Outcome { return &o }

// TestParseScenario checks a file using every field against the exact
// Scenario it decodes to.
func TestParseScenario(t *testing.T) {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse("full.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	want := &Scenario{
		Name:     "full.yaml",
		Title:    "Every field: 'quoted', # not a comment",
		About:    "First line.\n  Indented line.\n\nAfter a blank line.\n",
		Step:     250 * ms,
		Duration: 90 * time.Second,
		Lanes: []Lane{
			{Name: "fixed", Policy: algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: 120, Window: time.Minute}},
			{Name: "log", Policy: algorithms.Policy{Algorithm: algorithms.SlidingLog, Limit: 10, Window: 1500 * ms}},
			{Name: "counter", Policy: algorithms.Policy{Algorithm: algorithms.SlidingCounter, Limit: 5, Window: time.Second}},
			{Name: "bucket-1", Policy: algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 120, Per: time.Minute}}},
			{Name: "gcra", Policy: algorithms.Policy{Algorithm: algorithms.GCRA, Burst: 10, Rate: algorithms.Rate{N: 1, Per: 500 * ms}}},
			{Name: "shaper", Policy: algorithms.Policy{Algorithm: algorithms.LeakyBucket, Queue: 4, Rate: algorithms.Rate{N: 3, Per: 2 * time.Second}}},
		},
		Traffic: []Traffic{
			{Form: Single, At: 0, Count: 1, Key: DefaultKey, Cost: 1, Line: 17},
			{Form: Burst, At: 59900 * ms, Count: 120, Spread: 100 * ms, Key: "seller-842", Cost: 1, Line: 18},
			{Form: Burst, At: 30 * time.Second, Count: 3, Key: "42", Cost: 2, Line: 19},
			{Form: Periodic, Every: 500 * ms, Until: 30 * time.Second, Count: 60, Key: DefaultKey, Cost: 1, Line: 20},
			{Form: Periodic, Every: 7 * time.Second, From: time.Second, Until: 22 * time.Second, Count: 3, Key: "b: c", Cost: 1, Line: 21},
		},
		Notes: []Note{
			{At: 0, Text: "Start."},
			{At: 60 * time.Second, Text: "Written first, at 60s."},
			{At: 60 * time.Second, Text: "Written second, at 60s:\nsame time, file order."},
			{At: 90 * time.Second, Text: "The end."},
		},
		// Sorted by time, then request; equal marks keep file order.
		Quiz: []QuizMark{
			{At: 0, Request: 1, Ask: "A block of text,\non two lines.\n", Line: 39},
			{At: 30 * time.Second, Request: 1, Key: "b: c", Line: 44},
			{At: 30 * time.Second, Request: 2, Line: 43},
			{At: 30 * time.Second, Request: 3, Key: "42", Line: 38},
			{At: 60 * time.Second, Request: 1, Lane: "log", Ask: "Does the log remember the first burst?", Why: "Its 120 requests are younger than 60s.", Line: 37},
		},
		Expect: []Expectation{
			{Lane: "fixed", Until: 61 * time.Second, Admitted: int64p(240), Line: 31},
			{Lane: "fixed", From: 59 * time.Second, Until: 90 * time.Second, Allowed: int64p(1), Rejected: int64p(0), Why: "why not", Line: 32},
			{Lane: "shaper", Key: "seller-842", From: 60 * time.Second, Until: 60*time.Second + 1, Instant: true, Outcome: outcomep(algorithms.Delayed), Line: 33},
			{Lane: "log", Until: 90 * time.Second, Peak: int64p(10), PeakWindow: 1500 * ms, Delayed: int64p(0), Line: 34},
			{Lane: "gcra", Until: 90 * time.Second, Outcome: outcomep(algorithms.Allowed), Line: 35},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse mismatch\n got: %+v\nwant: %+v", got, want)
		for i := range max(len(got.Traffic), len(want.Traffic)) {
			if i >= len(got.Traffic) || i >= len(want.Traffic) || !reflect.DeepEqual(got.Traffic[i], want.Traffic[i]) {
				t.Errorf("traffic[%d] differs", i)
			}
		}
	}
	if keys := got.Keys(); !reflect.DeepEqual(keys, []string{DefaultKey, "b: c", "42", "seller-842"}) {
		t.Errorf("Keys = %q", keys)
	}
}

func TestDefaults(t *testing.T) {
	const lanes = "title: t\nlimiters:\n" +
		"  - {name: fixed, algorithm: fixed-window, limit: 120, window: 60s}\n" +
		"  - {name: counter, algorithm: sliding-counter, limit: 120, window: 60s}\n" + // horizon 120s
		"  - {name: bucket, algorithm: token-bucket, capacity: 10, rate: 3/s}\n" // horizon ⌈10/3 s⌉
	tests := []struct {
		name, rest     string
		step, duration time.Duration
	}{
		{"no traffic: the longest horizon", "", DefaultStep, 120 * time.Second},
		{"last request plus the longest horizon",
			"traffic:\n  - {at: 59.9s, count: 3, spread: 100ms}\n  - {at: 1s}\n",
			DefaultStep, 59966666666 + 120*time.Second}, // last at 59.9s + ⌊2×100ms/3⌋
		{"a later note counts too", "traffic:\n  - {at: 1s}\nnotes:\n  - {at: 200s, text: x}\n", DefaultStep, 320 * time.Second},
		{"periodic: the last request, not until", "traffic:\n  - {every: 7s, until: 20s}\n", DefaultStep, 14*time.Second + 120*time.Second},
		{"explicit", "step: 1s\nduration: 10s\ntraffic:\n  - {at: 1s}\n", time.Second, 10 * time.Second},
		{"capped at MaxTime", "traffic:\n  - {at: 8783h59m}\n", DefaultStep, MaxTime},
		{"zero times are fine", "traffic:\n  - {at: 0}\n  - {at: 0s, count: 2, spread: 0}\n  - {every: 1s, from: 0, until: 2s}\n", DefaultStep, time.Second + 120*time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(lanes+tt.rest))
			if err != nil {
				t.Fatal(err)
			}
			if s.Step != tt.step || s.Duration != tt.duration {
				t.Errorf("step, duration = %v, %v; want %v, %v", s.Step, s.Duration, tt.step, tt.duration)
			}
		})
	}
	s, err := Parse("x.yaml", []byte(oneLane))
	if err != nil {
		t.Fatal(err)
	}
	if want := 5 * time.Second; s.Duration != want { // capacity 10 at 2/s
		t.Errorf("token bucket only: duration %v, want %v", s.Duration, want)
	}
	s, err = Parse("x.yaml", []byte("title: t\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 10, rate: 3/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := 3333333334 * time.Nanosecond; s.Duration != want { // 10/3 s rounded up
		t.Errorf("horizon 10/3 s: duration %v, want %v", s.Duration, want)
	}
}

func TestExpectationSelects(t *testing.T) {
	e := Expectation{From: time.Second, Until: 2 * time.Second}
	for _, tt := range []struct {
		r    Request
		want bool
	}{
		{Request{At: time.Second - 1}, false},
		{Request{At: time.Second}, true},
		{Request{At: 2*time.Second - 1}, true},
		{Request{At: 2 * time.Second}, false},
	} {
		if got := e.Selects(tt.r); got != tt.want {
			t.Errorf("from 1s until 2s selects %v: %v, want %v", tt.r.At, got, tt.want)
		}
	}
	e = Expectation{From: time.Second, Until: time.Second + 1, Instant: true, Key: "a"}
	if !e.Selects(Request{At: time.Second, Key: "a"}) || e.Selects(Request{At: time.Second, Key: "b"}) || e.Selects(Request{At: time.Second + 1, Key: "a"}) {
		t.Error("at 1s with key a selects wrongly")
	}
	want := `fixed key "a" at 1s: admitted 3, peak 4 per 2s, every request rejected`
	e.Lane, e.Admitted, e.Peak, e.PeakWindow, e.Outcome = "fixed", int64p(3), int64p(4), 2*time.Second, outcomep(algorithms.Rejected)
	if got := e.String(); got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	for _, tt := range []struct {
		e    Expectation
		want string
	}{
		{Expectation{Lane: "fixed", Until: 61 * time.Second, Admitted: int64p(240)}, "fixed until 61s: admitted 240"},
		{Expectation{Lane: "shaper", From: time.Second, Until: 2 * time.Second, Allowed: int64p(1), Delayed: int64p(0), Rejected: int64p(2)},
			"shaper from 1s until 2s: allowed 1, delayed 0, rejected 2"},
	} {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("String = %q, want %q", got, tt.want)
		}
	}
}

func TestFormString(t *testing.T) {
	for f, want := range map[Form]string{Single: "single", Burst: "burst", Periodic: "periodic", 7: "Form(7)"} {
		if got := f.String(); got != want {
			t.Errorf("Form(%d).String() = %q, want %q", uint8(f), got, want)
		}
	}
}

// TestParseAccounts checks that an item of accounts or keys decodes to one
// ordinary item per copy, in order, with only its key (and, staggered, its
// from and count) changed.
func TestParseAccounts(t *testing.T) {
	ms := time.Millisecond
	periodic := func(key string, from time.Duration, count int64) Traffic {
		return Traffic{Form: Periodic, Every: 500 * ms, From: from, Until: 2 * time.Second, Count: count, Key: key, Cost: 1}
	}
	tests := []struct {
		name, traffic string
		want          []Traffic
	}{
		{"accounts", "  - {at: 1s, accounts: 3}\n", []Traffic{
			{Form: Single, At: time.Second, Count: 1, Key: "acct-1", Cost: 1},
			{Form: Single, At: time.Second, Count: 1, Key: "acct-2", Cost: 1},
			{Form: Single, At: time.Second, Count: 1, Key: "acct-3", Cost: 1},
		}},
		{"accounts with key", "  - {at: 1s, count: 4, spread: 1s, accounts: 2, key: user, cost: 2}\n", []Traffic{
			{Form: Burst, At: time.Second, Spread: time.Second, Count: 4, Key: "user-1", Cost: 2},
			{Form: Burst, At: time.Second, Spread: time.Second, Count: 4, Key: "user-2", Cost: 2},
		}},
		{"one account", "  - {every: 500ms, until: 2s, accounts: 1}\n", []Traffic{periodic("acct-1", 0, 4)}},
		{"keys", "  - {every: 500ms, until: 2s, keys: [alice, bob, 42]}\n", []Traffic{
			periodic("alice", 0, 4), periodic("bob", 0, 4), periodic("42", 0, 4),
		}},
		{"stagger none", "  - {every: 500ms, until: 2s, accounts: 2, stagger: none}\n", []Traffic{
			periodic("acct-1", 0, 4), periodic("acct-2", 0, 4),
		}},
		{"stagger even", "  - {every: 500ms, from: 0s, until: 2s, keys: [a, b, c], stagger: even}\n", []Traffic{
			periodic("a", 0, 4), periodic("b", 166666666, 4), periodic("c", 333333333, 4), // ⌊i × 500ms / 3⌋
		}},
		{"stagger even, one fewer", "  - {every: 500ms, from: 100ms, until: 1700ms, keys: [a, b, c], stagger: even}\n", []Traffic{
			// a at 0.1, 0.6, 1.1, 1.6s; b from 0.266…s and c from 0.433…s
			// reach 1.7s after three requests.
			{Form: Periodic, Every: 500 * ms, From: 100 * ms, Until: 1700 * ms, Count: 4, Key: "a", Cost: 1},
			{Form: Periodic, Every: 500 * ms, From: 266666666, Until: 1700 * ms, Count: 3, Key: "b", Cost: 1},
			{Form: Periodic, Every: 500 * ms, From: 433333333, Until: 1700 * ms, Count: 3, Key: "c", Cost: 1},
		}},
		{"stagger drops a copy with no request", "  - {every: 1s, until: 500ms, accounts: 4, stagger: even}\n", []Traffic{
			// offsets 0, 250ms, 500ms, 750ms: acct-3 and acct-4 start at or after until.
			{Form: Periodic, Every: time.Second, Until: 500 * ms, Count: 1, Key: "acct-1", Cost: 1},
			{Form: Periodic, Every: time.Second, From: 250 * ms, Until: 500 * ms, Count: 1, Key: "acct-2", Cost: 1},
		}},
		{"beside plain items", "  - {at: 0s}\n  - {at: 1s, keys: [x, y]}\n  - {at: 2s, key: z}\n", []Traffic{
			{Form: Single, Count: 1, Key: DefaultKey, Cost: 1},
			{Form: Single, At: time.Second, Count: 1, Key: "x", Cost: 1},
			{Form: Single, At: time.Second, Count: 1, Key: "y", Cost: 1},
			{Form: Single, At: 2 * time.Second, Count: 1, Key: "z", Cost: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parse(t, oneLane+"traffic:\n"+tt.traffic)
			got := slices.Clone(s.Traffic)
			for i := range got {
				// The copies' shared item as written is for Marshal
				// (TestMarshalWritesAnItemOfCopiesOnce).
				got[i].Line, got[i].group = 0, nil
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("traffic\n got: %+v\nwant: %+v", got, tt.want)
			}
		})
	}

	// Every copy keeps its item's line, and the time axis reaches past the
	// latest copy's last request.
	s := parse(t, oneLane+"traffic:\n  - {every: 1s, until: 10s, accounts: 4, stagger: even}\n")
	for _, c := range s.Traffic {
		if c.Line != 5 {
			t.Errorf("copy %s: line %d, want 5", c.Key, c.Line)
		}
	}
	if want := 9750*ms + 5*time.Second; s.Duration != want { // the last copy's last request, + the bucket's 5s horizon
		t.Errorf("duration %v, want %v", s.Duration, want)
	}
	if got, want := s.Keys(), []string{"acct-1", "acct-2", "acct-3", "acct-4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
}
