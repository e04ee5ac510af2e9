package scenarios

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestQuizErrors(t *testing.T) {
	const lanes = oneLane + "traffic:\n  - {at: 1s, count: 3, key: k}\n"
	tests := []struct {
		name, quiz, want string
	}{
		{"missing at", "  - {lane: b}\n", "x.yaml:7:5: quiz[0]: missing at: want the time of the request to predict, such as 60s"},
		{"bare number at", "  - {at: 1}\n", "x.yaml:7:10: quiz[0].at: want a Go duration such as 1.5s or 0s (a number needs a unit), got 1"},
		{"at the end of the axis", "  - {at: 6s}\n", "x.yaml:7:10: quiz[0].at: 6s is not before the end of the time axis (duration 6s)"},
		{"request 0", "  - {at: 1s, request: 0}\n", "x.yaml:7:23: quiz[0].request: want a whole number from 1 to 20000000, got 0"},
		{"request as text", "  - {at: 1s, request: first}\n", `x.yaml:7:23: quiz[0].request: want a whole number from 1 to 20000000, got "first"`},
		{"unknown lane", "  - {at: 1s, lane: c}\n", `x.yaml:7:20: quiz[0].lane: no lane is called "c"; the lanes are b`},
		{"blank lane", "  - {at: 1s, lane: \"\"}\n", "x.yaml:7:20: quiz[0].lane: want the name of a lane, got blank text"},
		{"unknown key", "  - {at: 1s, key: nobody}\n", `x.yaml:7:19: quiz[0].key: no request has key "nobody"`},
		{"key on two lines", "  - {at: 1s, key: \"a\\nb\"}\n", "x.yaml:7:19: quiz[0].key: want a key on one line, got a line break"},
		{"typo", "  - {at: 1s, asc: why?}\n", `x.yaml:7:14: quiz[0]: unknown field "asc"; did you mean ask?`},
		{"not a list", "  {at: 1s}\n", "x.yaml:7:3: quiz: want a list of quiz marks such as {at: 60s, lane: log}, got a mapping"},
		{"not a mapping", "  - 1s\n", `x.yaml:7:5: quiz[0]: want a quiz mark such as {at: 60s, lane: log, ask: ...}, got "1s"`},
		{"control character in ask", "  - {at: 1s, ask: \"a\\u0007\"}\n", "x.yaml:7:19: quiz[0].ask: want a question or hint, got the control character U+0007"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(lanes+"quiz:\n"+tt.quiz))
			if err == nil || s != nil {
				t.Fatalf("Parse = %v, %v; want error %s", s, err, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tt.want)
			}
		})
	}
}

// TestQuizLoads: a mark whose moment does not exist still loads (check
// reports it), the default request is 1 and the list is sorted by time,
// then request, keeping file order among equals.
func TestQuizLoads(t *testing.T) {
	s := parse(t, oneLane+`traffic:
  - {at: 1s, count: 3, key: k}
quiz:
  - {at: 2s, ask: "nothing arrives at 2s"}
  - {at: 1s, request: 9}
  - {at: 1s, key: k, lane: b, why: "multi\nline"}
  - {at: 0s, request: 2}
  - {at: 1s, request: 1}
  - {at: 1s}
`)
	type mark struct {
		at      time.Duration
		request int
		line    int
	}
	var got []mark
	for _, q := range s.Quiz {
		got = append(got, mark{q.At, q.Request, q.Line})
	}
	want := []mark{{0, 2, 10}, {time.Second, 1, 9}, {time.Second, 1, 11}, {time.Second, 1, 12}, {time.Second, 9, 8}, {2 * time.Second, 1, 7}}
	if len(got) != len(want) {
		t.Fatalf("marks %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mark %d: %v, want %v", i, got[i], want[i])
		}
	}
	if q := s.Quiz[1]; q.Key != "k" || q.Lane != "b" || q.Why != "multi\nline" {
		t.Errorf("mark 1: %+v", q)
	}
	if n := s.CountAt(2*time.Second, ""); n != 0 {
		t.Errorf("CountAt(2s) = %d", n)
	}
}

// TestNoteNamesKeyAndLane: a note may name the key and the lane it speaks
// of; each must exist, as a quiz mark's must.
func TestNoteNamesKeyAndLane(t *testing.T) {
	const lanes = oneLane + "traffic:\n  - {at: 1s, count: 3, key: k}\n"
	s := parse(t, lanes+"notes:\n  - {at: 1s, text: \"k's turn\", key: k, lane: b}\n  - {at: 2s, text: all}\n")
	if got, want := s.Notes, []Note{{At: time.Second, Text: "k's turn", Key: "k", Lane: "b"}, {At: 2 * time.Second, Text: "all"}}; !slices.Equal(got, want) {
		t.Errorf("notes %+v, want %+v", got, want)
	}
	for _, tt := range []struct{ name, note, want string }{
		{"unknown lane", "  - {at: 1s, text: t, lane: c}\n", `x.yaml:7:29: notes[0].lane: no lane is called "c"; the lanes are b`},
		{"blank lane", "  - {at: 1s, text: t, lane: \"\"}\n", "x.yaml:7:29: notes[0].lane: want the name of a lane, got blank text"},
		{"unknown key", "  - {at: 1s, text: t, key: nobody}\n", `x.yaml:7:28: notes[0].key: no request has key "nobody"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(lanes+"notes:\n"+tt.note))
			if err == nil || s != nil || err.Error() != tt.want {
				t.Errorf("Parse = %v, %v; want error\n%s", s, err, tt.want)
			}
		})
	}
}

// TestWatchState: `watch: state` is read, written back, and anything else
// refused.
func TestWatchState(t *testing.T) {
	s := parse(t, "title: t\nwatch: state\n"+strings.TrimPrefix(oneLane, "title: t\n")+"traffic:\n  - {at: 0s}\n")
	if !s.WatchState {
		t.Fatal("watch: state not read")
	}
	out, err := Marshal(s, nil)
	if err != nil || !strings.Contains(string(out), "\nwatch: state\n") {
		t.Errorf("Marshal: %v\n%s", err, out)
	}
	if _, err := Parse("x.yaml", []byte("title: t\nwatch: peak\n"+strings.TrimPrefix(oneLane, "title: t\n"))); err == nil || !strings.Contains(err.Error(), `watch: want state (the lanes' state bytes), got "peak"`) {
		t.Errorf("watch: peak: %v", err)
	}
}

// TestExpectationWaitsAndLatenciesRoundTrip: retry_after, wait and the
// latency percentiles are read and written back as they were given.
func TestExpectationWaitsAndLatenciesRoundTrip(t *testing.T) {
	s := parse(t, oneLane+"traffic:\n  - {at: 0s, count: 20}\nexpect:\n  - {lane: b, at: 0s, retry_after: 1, wait: 500ms}\n  - {lane: b, latency_p50: 0s, latency_p95: 1.5s, latency_p99: 2s}\n")
	out, err := Marshal(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"retry_after: 1, wait: 500ms", "latency_p50: 0s, latency_p95: 1.5s, latency_p99: 2s"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("Marshal lacks %q:\n%s", want, out)
		}
	}
	back, err := Parse("x.yaml", out)
	if err != nil || *back.Expect[1].LatencyP95 != 1500*time.Millisecond || *back.Expect[0].Wait != 500*time.Millisecond {
		t.Errorf("read back: %v", err)
	}
}

// TestExpectationStateErrors: state_per_key and state_total are whole
// numbers of bytes, and state_total, the state at until, takes no from.
func TestExpectationStateErrors(t *testing.T) {
	const lanes = oneLane + "traffic:\n  - {at: 1s, key: k}\nexpect:\n"
	tests := []struct {
		name, expect, want string
	}{
		{"negative", "  - {lane: b, state_per_key: -1}\n",
			"x.yaml:7:30: expect[0].state_per_key: want a whole number from 0 to 1125899906842624, got -1"},
		{"above 1 PiB", "  - {lane: b, state_total: 1125899906842625}\n",
			"x.yaml:7:28: expect[0].state_total: want a whole number from 0 to 1125899906842624, got 1125899906842625"},
		{"a size for people", "  - {lane: b, state_per_key: 2.9KiB}\n",
			`x.yaml:7:30: expect[0].state_per_key: want a whole number from 0 to 1125899906842624, got "2.9KiB"`},
		{"a fraction", "  - {lane: b, state_total: 32.5}\n",
			"x.yaml:7:28: expect[0].state_total: want a whole number from 0 to 1125899906842624, got 32.5"},
		{"state_total with from", "  - {lane: b, from: 1s, state_total: 80}\n",
			"x.yaml:7:15: expect[0].from: state_total is the state at until, whatever arrived before from: give it without from (or at: for one instant)"},
		{"state_total with from 0s", "  - {lane: b, key: k, from: 0s, until: 2s, admitted: 1, state_total: 80}\n",
			"x.yaml:7:23: expect[0].from: state_total is the state at until, whatever arrived before from: give it without from (or at: for one instant)"},
		{"state_total and at and from", "  - {lane: b, at: 1s, from: 1s, state_total: 80}\n",
			"x.yaml:7:23: expect[0].from: at selects the requests of one instant and cannot be combined with from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(lanes+tt.expect))
			if err == nil || s != nil {
				t.Fatalf("Parse = %v, %v; want error %s", s, err, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tt.want)
			}
		})
	}
}

// TestExpectationStatesRoundTrip: state_per_key and state_total are read
// as bytes, with from (state_per_key only), at and until, and written back
// as they were given.
func TestExpectationStatesRoundTrip(t *testing.T) {
	s := parse(t, oneLane+"traffic:\n  - {at: 0s, count: 20, key: k}\nexpect:\n"+
		"  - {lane: b, from: 1s, state_per_key: 16}\n  - {lane: b, key: k, at: 0s, state_per_key: 16, state_total: 16}\n  - {lane: b, until: 2s, state_total: 0}\n")
	out, err := Marshal(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"from: 1s, state_per_key: 16}", "at: 0s, state_per_key: 16, state_total: 16}", "until: 2s, state_total: 0}"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("Marshal lacks %q:\n%s", want, out)
		}
	}
	back, err := Parse("x.yaml", out)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	for i, want := range []struct{ perKey, total *int64 }{{int64p(16), nil}, {int64p(16), int64p(16)}, {nil, int64p(0)}} {
		e := back.Expect[i]
		if !equalp(e.StatePerKey, want.perKey) || !equalp(e.StateTotal, want.total) {
			t.Errorf("expect[%d] read back: state_per_key %v, state_total %v", i, e.StatePerKey, e.StateTotal)
		}
	}
}

// equalp reports whether a and b are both nil or point to equal numbers.
func equalp(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// TestExpectFieldsDocumented: every field of an expectation has a row in
// docs/format.md's table of them, and every row there is a field.
func TestExpectFieldsDocumented(t *testing.T) {
	data, err := os.ReadFile("../docs/format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Expectations\n")
	if !ok {
		t.Fatal("docs/format.md has no Expectations section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var documented []string
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(line[1:], "|")
		for _, name := range strings.Split(first, ",") {
			documented = append(documented, strings.Trim(strings.TrimSpace(name), "`"))
		}
	}
	want := slices.Clone(expectFields)
	slices.Sort(want)
	slices.Sort(documented)
	if !slices.Equal(documented, want) {
		t.Errorf("docs/format.md documents the expectation fields\n%v\nthe decoder reads\n%v", documented, want)
	}
}
