package scenarios

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// oneLane is the start of a file of one lane, b, for the tests to add to.
const oneLane = "title: t\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 10, rate: 2/s}\n"

// parse parses yaml as x.yaml, failing the test on an error.
func parse(t *testing.T, yaml string) *Scenario {
	t.Helper()
	s, err := Parse("x.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func int64p(v int64) *int64 { return &v }

func durationp(d time.Duration) *time.Duration { return &d }

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
	for i := range got.Traffic {
		got.Traffic[i].keyNo = 0 // TestKeyNumbers
	}
	got.keyNumbers = nil
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
			"x.yaml:4:1: unknown field \"zzzzzzzz\"; want one of title, about, step, duration, seed, watch, limiters, clients, traffic, notes, quiz, expect"},
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

// TestManyKeysLoadQuickly: a file whose items of accounts name 100,000 keys
// loads in a fraction of a second. Checking the keys that its expectations
// and quiz marks name once compared every key with every other: 26 s.
func TestManyKeysLoadQuickly(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100,000 copies")
	}
	var b strings.Builder
	b.WriteString(oneLane + "traffic:\n")
	for i := range 10 {
		fmt.Fprintf(&b, "  - {at: 1s, accounts: 10000, key: k%d}\n", i)
	}
	b.WriteString("expect:\n  - {lane: b, key: k9-10000, admitted: 1}\nquiz:\n  - {at: 1s, key: k0-1}\n")
	start := time.Now()
	s := parse(t, b.String())
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Parse took %v", took)
	}
	if len(s.Traffic) != MaxTrafficItems || len(s.Keys()) != MaxTrafficItems {
		t.Errorf("%d items, %d keys", len(s.Traffic), len(s.Keys()))
	}
}
