package scenarios

import (
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
