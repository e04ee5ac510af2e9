package scenarios

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// normalise clears what a round trip does not keep: the name and the
// lines, and each log's own temporary copy of its requests.
func normalise(s *Scenario) *Scenario {
	c := *s
	c.Name = ""
	c.keyNumbers = nil // numbered in the order written, which Marshal may change
	c.Traffic = append([]Traffic(nil), s.Traffic...)
	for i := range c.Traffic {
		c.Traffic[i].Line = 0
		c.Traffic[i].keyNo = 0 // numbered in the order written, which Marshal may change
	}
	c.Logs = nil
	for _, l := range s.Logs {
		cl := *l
		cl.Line, cl.Path = 0, "" // a log is written by its absolute path
		cl.replay = nil          // each reading packs its own
		c.Logs = append(c.Logs, &cl)
	}
	c.Expect = append([]Expectation(nil), s.Expect...)
	for i := range c.Expect {
		c.Expect[i].Line = 0
	}
	c.Quiz = append([]QuizMark(nil), s.Quiz...)
	for i := range c.Quiz {
		c.Quiz[i].Line = 0
	}
	return &c
}

// withExtra is s with the extra requests appended as single items.
func withExtra(s *Scenario, extra []Request) *Scenario {
	c := normalise(s)
	for _, r := range extra {
		if r.At >= c.Duration {
			c.Duration = r.At + c.Step
		}
		key := r.Key
		if key == "" {
			key = DefaultKey
		}
		c.Traffic = append(c.Traffic, Traffic{Form: Single, At: r.At, Count: 1, Key: key, Cost: r.Cost})
	}
	return c
}

func roundTrip(t *testing.T, s *Scenario, extra []Request) *Scenario {
	t.Helper()
	out, err := Marshal(s, extra)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("saved.yaml", out)
	if err != nil {
		t.Fatalf("the saved file does not parse: %v\n%s", err, out)
	}
	return back
}

func TestMarshalRoundTrip(t *testing.T) {
	full, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]byte{"full": full,
		"awkward text": []byte(`title: "quote \" backslash \\ unicode é 😀 nbsp\u00a0 zwsp\u200b"
about: "  leading spaces, a\ttab, trailing spaces  \n\n\nthree newlines, no final one"
limiters:
  - {name: "null", algorithm: token-bucket, capacity: 3, rate: 1/1500ms}
  - {name: "123", algorithm: leaky-bucket, queue: 2, rate: 7/3s}
traffic:
  - {at: 1ns, key: "a: b # c"}
  - {at: 1h, count: 2, spread: 1.000000001s, key: "- x", cost: 3}
  - {every: 333333333ns, from: 0.5s, until: 3s, key: "{[,]}"}
  - {at: 2s, key: true}
notes:
  - {at: 0s, text: "multi\nline\n"}
expect:
  - {lane: "null", key: "a: b # c", at: 1ns, outcome: allowed, why: "soft\u00adhyphen"}
  - {lane: "123", from: 1s, until: 2s, delayed: 1}
`),
		// Written back as one item per copy, which reads back the same.
		"accounts": []byte(`title: many accounts
seed: 12345
limiters:
  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}
traffic:
  - {every: 500ms, until: 5s, accounts: 20, stagger: random}
  - {every: 300ms, from: 1s, until: 4s, keys: [alice, "bob: x", "42"], stagger: even}
  - {at: 2s, count: 3, spread: 1s, accounts: 4, key: user, cost: 2}
expect:
  - {lane: b, key: acct-7, until: 5s, admitted: 7}
`),
		"sandbox": []byte("title: nothing happens\nlimiters:\n  - {name: a, algorithm: sliding-counter, limit: 1, window: 1ns}\n"),
	}
	// Abouts that a | block would not read back as written, so that Marshal
	// must quote them, and a title with a character outside the BMP that is
	// not printable.
	for name, about := range map[string]string{
		"about indented first": `"  indented first line\n"`,
		"about trailing space": `"trailing space \nsecond line\n"`,
		"about tab":            `"a\ttab\n"`,
		"about blank first":    `"\nafter a blank line\n"`,
		"about two newlines":   `"ends in a blank line\n\n"`,
	} {
		sources[name] = []byte("title: t \U000E0001\nabout: " + about + "\nlimiters:\n  - {name: a, algorithm: gcra, burst: 1, rate: 1/s}\n")
	}
	for _, info := range List() {
		data, _ := Source(info.Name)
		sources[info.Name] = data
	}
	extra := []Request{{At: 0, Key: "", Cost: 1}, {At: 1500 * time.Millisecond, Key: "learner", Cost: 1}, {At: 1500 * time.Millisecond, Key: "default", Cost: 1}}
	for name, data := range sources {
		t.Run(name, func(t *testing.T) {
			s, err := Parse(name, data)
			if err != nil {
				t.Fatal(err)
			}
			if back := roundTrip(t, s, nil); !reflect.DeepEqual(normalise(back), normalise(s)) {
				t.Errorf("round trip changed the scenario\n got: %+v\nwant: %+v", normalise(back), normalise(s))
			}
			if back := roundTrip(t, s, extra); !reflect.DeepEqual(normalise(back), withExtra(s, extra)) {
				t.Errorf("round trip with extra requests\n got: %+v\nwant: %+v", normalise(back), withExtra(s, extra))
			}
		})
	}
}

func TestMarshalText(t *testing.T) {
	s, err := Canned("shaping-vs-policing")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Marshal(s, []Request{{At: 3 * time.Second, Key: "me", Cost: 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := `title: "Shaping vs policing: delay or reject"
about: |
  Ten requests arrive at once. A policer (token bucket, capacity 5,
  1/s) admits what its tokens cover and rejects the rest on the spot.
  A shaper (leaky bucket, queue 4, 1/s) admits one request now, queues
  four and releases them one per second, and rejects what does not fit
  in the queue.

  Both admit five, but downstream sees five at once from the policer
  and one per second from the shaper.
step: 250ms
duration: 8s
limiters:
  - {name: "policer", algorithm: token-bucket, capacity: 5, rate: 1/s}
  - {name: "shaper", algorithm: leaky-bucket, queue: 4, rate: 1/s}
traffic:
  - {at: 0s, count: 10}
  - {at: 3s, key: "me", cost: 2}
notes:
`
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("Marshal wrote\n%s\nwant it to start with\n%s", out, want)
	}
	if !strings.Contains(string(out), `  - {lane: "policer", peak: 5, peak_window: 1s, why: "a policer passes a burst as it comes"}`) {
		t.Errorf("Marshal wrote\n%s\nwithout the policer's peak expectation", out)
	}
}

func TestMarshalStretchesDuration(t *testing.T) {
	s := parse(t, oneLane+"duration: 10s\ntraffic:\n  - {at: 1s}\nexpect:\n  - {lane: b, admitted: 1}\n")
	extra := []Request{{At: 10 * time.Second, Cost: 1}, {At: 12 * time.Second, Cost: 1}}
	back := roundTrip(t, s, extra)
	if want := 12*time.Second + DefaultStep; back.Duration != want {
		t.Errorf("duration %v, want %v", back.Duration, want)
	}
	// The expectation keeps its window, the old end of the axis.
	if back.Expect[0].Until != 10*time.Second {
		t.Errorf("expectation until %v, want 10s", back.Expect[0].Until)
	}
	if n := back.RequestCount(); n != 3 {
		t.Errorf("RequestCount %d, want 3", n)
	}
}

func TestMarshalWritesARunOfIdenticalRequestsAsOneBurst(t *testing.T) {
	s := parse(t, oneLane+"duration: 10s\ntraffic:\n  - {at: 1s}\n")
	same := Request{At: 2 * time.Second, Key: "k", Cost: 2}
	extra := []Request{same, same, same, {At: 2 * time.Second, Key: "k", Cost: 1}, same}
	data, err := Marshal(s, extra)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "count: 3"); got != 1 {
		t.Fatalf("want one burst of 3 in:\n%s", data)
	}
	back, err := Parse("back.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	var got []Request
	for r := range back.Requests() {
		got = append(got, r)
	}
	want := append([]Request{{At: time.Second, Key: DefaultKey, Cost: 1}}, extra...)
	if !slices.Equal(got, want) {
		t.Fatalf("requests read back:\n%v\nwant\n%v", got, want)
	}
}

func TestMarshalRejects(t *testing.T) {
	s := parse(t, oneLane)
	for _, tt := range []struct {
		extra []Request
		want  string
	}{
		{[]Request{{At: -1, Cost: 1}}, "scenarios: extra request 0 (at -1ns, cost 1): want at ≥ 0 and cost ≥ 1"},
		{[]Request{{At: 0, Cost: 1}, {At: 0, Cost: 0}}, "scenarios: extra request 1 (at 0s, cost 0): want at ≥ 0 and cost ≥ 1"},
		{[]Request{{At: 0, Cost: 11}}, "scenarios: the saved scenario would not load: x.yaml:7:20: traffic[0].cost: cost 11 can never fit lane b (token-bucket capacity 10, rate 2/s admits at most 10)"},
		{[]Request{{At: 0, Key: "a\x00b", Cost: 1}}, "scenarios: the saved scenario would not load: x.yaml:7:19: traffic[0].key: want a key, got the control character U+0000"},
	} {
		out, err := Marshal(s, tt.extra)
		if err == nil || err.Error() != tt.want || out != nil {
			t.Errorf("Marshal(%v) = %q, %v; want error %s", tt.extra, out, err, tt.want)
		}
	}
}

// TestLiteralOK pins the rules literalOK documents. Some are margins that
// the round trip cannot see: the YAML reader keeps a tab, a trailing space
// or a blank first line of a | block, but an editor or another reader may
// not.
func TestLiteralOK(t *testing.T) {
	for s, want := range map[string]bool{
		"one line\n":                true,
		"two\n\nparagraphs\n":       true,
		"first\n  indented later\n": true,
		"no final newline":          false,
		"two final newlines\n\n":    false,
		"\nblank first line\n":      false,
		"  indented first line\n":   false,
		"trailing space \n":         false,
		"a\ttab\n":                  false,
		"a line\u2028separator\n":   false,
		"non-breaking\u00a0space\n": false, // not unicode.IsPrint
	} {
		if got := literalOK(s); got != want {
			t.Errorf("literalOK(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestMarshalWritesAnItemOfCopiesOnce: an item of accounts or keys is saved
// as written, one line for all its copies, so that a scenario of the most
// copies saves and reads back to the same requests.
func TestMarshalWritesAnItemOfCopiesOnce(t *testing.T) {
	for _, traffic := range []string{
		"  - {at: 1s, accounts: 10000}\n",
		"  - {poisson: 1/s, until: 10s, accounts: 7000, key: user}\n  - {every: 1s, until: 10s, keys: [a, \"b: c\"], stagger: even}\n",
	} {
		s, err := Parse("a.yaml", []byte(oneLane+"seed: 5\ntraffic:\n"+traffic))
		if err != nil {
			t.Fatal(err)
		}
		out, err := Marshal(s, nil)
		if err != nil {
			t.Fatalf("%s: %v", strings.TrimSpace(traffic), err)
		}
		_, section, _ := strings.Cut(string(out), "traffic:\n")
		n := 0
		for _, line := range strings.Split(section, "\n") {
			if !strings.HasPrefix(line, "  - ") {
				break
			}
			n++
		}
		if n != strings.Count(traffic, "\n") {
			t.Errorf("%s: saved as %d traffic lines", strings.TrimSpace(traffic), n)
		}
		back, err := Parse("a.yaml", out)
		if err != nil {
			t.Fatal(err)
		}
		a, b := slices.Collect(s.Requests()), slices.Collect(back.Requests())
		if !slices.Equal(a, b) {
			t.Errorf("%s: %d requests read back as %d, or differently", strings.TrimSpace(traffic), len(a), len(b))
		}
	}
}

func TestMarshalWritesTheQuiz(t *testing.T) {
	s := parse(t, oneLane+`traffic:
  - {at: 1s, count: 3, key: k}
notes:
  - {at: 1s, text: "k's turn", key: k, lane: b}
quiz:
  - {at: 1s, request: 3, key: k, lane: b, ask: "Will \"b\" admit it?", why: "two\nlines"}
  - {at: 1s}
expect:
  - {lane: b, admitted: 3}
`)
	out, err := Marshal(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `notes:
  - {at: 1s, text: "k's turn", key: "k", lane: "b"}
quiz:
  - {at: 1s}
  - {at: 1s, request: 3, key: "k", lane: "b", ask: "Will \"b\" admit it?", why: "two\nlines"}
expect:
`
	if !strings.Contains(string(out), want) {
		t.Errorf("Marshal wrote\n%s\nwant it to contain\n%s", out, want)
	}
}
