package model

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

const quizLanes = `title: t
duration: 10s
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 3, rate: 1/s}
`

func TestQuizIndex(t *testing.T) {
	s := parse(t, quizLanes+`traffic:
  - {at: 0s, count: 2, key: a}
  - {at: 1s, count: 2, key: a}
  - {at: 1s, key: b}
  - {at: 1s, count: 2, key: a}
  - {at: 2s}
`)
	// Timeline: 0:a 1:a | 2:a 3:a 4:b 5:a 6:a | 7:default
	l := newLab(t, s)
	sec := time.Second
	for _, tt := range []struct {
		q    scenarios.QuizMark
		want int
		ok   bool
	}{
		{scenarios.QuizMark{At: 0, Request: 1}, 0, true},
		{scenarios.QuizMark{At: 0, Request: 2}, 1, true},
		{scenarios.QuizMark{At: 0, Request: 3}, -1, false},
		{scenarios.QuizMark{At: sec, Request: 1}, 2, true},
		{scenarios.QuizMark{At: sec, Request: 3}, 4, true},
		{scenarios.QuizMark{At: sec, Request: 5}, 6, true},
		{scenarios.QuizMark{At: sec, Request: 6}, -1, false},
		{scenarios.QuizMark{At: sec, Request: 1, Key: "b"}, 4, true},
		{scenarios.QuizMark{At: sec, Request: 2, Key: "b"}, -1, false},
		{scenarios.QuizMark{At: sec, Request: 3, Key: "a"}, 5, true},
		{scenarios.QuizMark{At: sec, Request: 4, Key: "a"}, 6, true},
		{scenarios.QuizMark{At: sec, Request: 5, Key: "a"}, -1, false},
		{scenarios.QuizMark{At: sec, Request: 1, Key: "default"}, -1, false},
		{scenarios.QuizMark{At: 2 * sec, Request: 1, Key: "default"}, 7, true},
		{scenarios.QuizMark{At: sec + 1, Request: 1}, -1, false},
		{scenarios.QuizMark{At: sec - 1, Request: 1}, -1, false},
		{scenarios.QuizMark{At: 9 * sec, Request: 1}, -1, false},
		{scenarios.QuizMark{At: sec, Request: 0}, -1, false},
		{scenarios.QuizMark{At: -1, Request: 1}, -1, false},
	} {
		i, ok := l.QuizIndex(tt.q)
		if i != tt.want || ok != tt.ok {
			t.Errorf("QuizIndex(%s) = %d, %v; want %d, %v", tt.q.String(), i, ok, tt.want, tt.ok)
		}
	}
	// A request the learner fires at the instant comes after the scenario's:
	// it is the instant's last, and the marks before it keep their indices.
	if _, err := l.FireAt(sec, "b", 1); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		q    scenarios.QuizMark
		want int
	}{
		{scenarios.QuizMark{At: sec, Request: 5}, 6},
		{scenarios.QuizMark{At: sec, Request: 6}, 7},
		{scenarios.QuizMark{At: sec, Request: 2, Key: "b"}, 7},
		{scenarios.QuizMark{At: 2 * sec, Request: 1}, 8},
	} {
		if i, ok := l.QuizIndex(tt.q); i != tt.want || !ok {
			t.Errorf("after firing: QuizIndex(%s) = %d, %v; want %d", tt.q.String(), i, ok, tt.want)
		}
		if i, _ := l.QuizIndex(tt.q); l.Request(i).At != tt.q.At {
			t.Errorf("QuizIndex(%s) is a request at %v", tt.q.String(), l.Request(i).At)
		}
	}
}

// TestQuizIndexMatchesCheck: in every canned lesson, each mark exists for
// check and names, in the lab, a request at its instant with its key.
func TestQuizIndexMatchesCheck(t *testing.T) {
	for _, info := range lessons() {
		s, err := scenarios.Canned(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(s.Quiz); n < 2 || n > 5 {
			t.Errorf("%s marks %d moments to predict, want 2 to 5", info.Name, n)
		}
		failures, err := Check(s)
		if err != nil || len(failures) > 0 {
			t.Errorf("%s: check: %v %v", info.Name, failures, err)
		}
		l := newLab(t, s)
		for _, q := range s.Quiz {
			i, ok := l.QuizIndex(q)
			if !ok {
				t.Errorf("%s: quiz mark %s names no request in the lab", info.Name, q.String())
				continue
			}
			if r := l.Request(i); r.At != q.At || (q.Key != "" && r.Key != q.Key) {
				t.Errorf("%s: quiz mark %s names request %d, %+v", info.Name, q.String(), i, r)
			}
			if q.Ask == "" || q.Why == "" {
				t.Errorf("%s: quiz mark %s needs both ask and why", info.Name, q.String())
			}
		}
	}
}

func TestCheckReportsMissingQuizMoments(t *testing.T) {
	s := parse(t, quizLanes+`traffic:
  - {at: 0s, count: 3, key: a}
  - {at: 1s, key: b}
quiz:
  - {at: 0s, request: 3}
  - {at: 0s, request: 4, ask: "one too many"}
  - {at: 1s, key: a, lane: bucket}
  - {at: 2s}
  - {at: 1s, request: 2, key: b}
expect:
  - {lane: bucket, at: 0s, admitted: 3}
  - {lane: bucket, at: 0s, admitted: 2}
`)
	failures, err := Check(s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range failures {
		got = append(got, f.Error())
	}
	// In file order: the quiz list comes before the expectations here.
	want := []string{
		"test.yaml:10: quiz mark at 0s, request 4: no such request; only 3 requests arrive at 0s",
		`test.yaml:11: quiz mark at 1s, key "a", lane bucket: no such request; no request with key "a" arrives at 1s`,
		"test.yaml:12: quiz mark at 2s: no such request; no request arrives at 2s",
		`test.yaml:13: quiz mark at 1s, request 2, key "b": no such request; only 1 request with key "b" arrives at 1s`,
		"test.yaml:16: expected bucket at 0s: admitted 2; got admitted 3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f := failures[0]; f.Quiz == nil || f.Quiz.Line != 10 || f.Quiz.Ask != "one too many" || f.Expectation.Lane != "" {
		t.Errorf("failure 0: %+v", f)
	}
	// Not read from a file: no lines, so the marks come after the
	// expectations, in the quiz list's order.
	s.Name = "mine"
	for i := range s.Quiz {
		s.Quiz[i].Line = 0
	}
	for i := range s.Expect {
		s.Expect[i].Line = 0
	}
	failures, _ = Check(s)
	if len(failures) != 5 || failures[0].Quiz != nil || failures[1].Quiz == nil || failures[1].Error() != "mine: quiz mark at 0s, request 4: no such request; only 3 requests arrive at 0s" {
		t.Errorf("failures of a scenario without lines: %v", failures)
	}
}

func TestGrade(t *testing.T) {
	ms := time.Millisecond
	allowed := algorithms.Decision{Outcome: algorithms.Allowed}
	delayed := algorithms.Decision{Outcome: algorithms.Delayed, Delay: 4500 * ms}
	rejected := func(retry time.Duration) algorithms.Decision {
		return algorithms.Decision{Outcome: algorithms.Rejected, RetryAfter: retry}
	}
	guess := func(o algorithms.Outcome) Guess { return Guess{Outcome: o} }
	retry := func(d time.Duration) Guess { return Guess{Outcome: algorithms.Rejected, RetryAfter: d, HasRetry: true} }
	for _, tt := range []struct {
		name          string
		d             algorithms.Decision
		g             Guess
		right, close_ bool
	}{
		{"allowed, guessed allowed", allowed, guess(algorithms.Allowed), true, false},
		{"allowed, guessed rejected", allowed, guess(algorithms.Rejected), false, false},
		{"allowed, guessed delayed", allowed, guess(algorithms.Delayed), false, false},
		{"delayed, guessed delayed", delayed, guess(algorithms.Delayed), true, false},
		{"delayed, guessed allowed", delayed, guess(algorithms.Allowed), false, false},
		{"rejected, no retry guessed", rejected(time.Second), guess(algorithms.Rejected), true, false},
		{"rejected, guessed allowed", rejected(time.Second), guess(algorithms.Allowed), false, false},
		{"retry exact", rejected(time.Second), retry(time.Second), true, true},
		// 25% of 1s is 250ms, bounds included.
		{"retry 25% late", rejected(time.Second), retry(1250 * ms), true, true},
		{"retry just past 25% late", rejected(time.Second), retry(1250*ms + 1), true, false},
		{"retry 25% early", rejected(time.Second), retry(750 * ms), true, true},
		{"retry just past 25% early", rejected(time.Second), retry(750*ms - 1), true, false},
		// Below 400ms the floor of 100ms is wider than 25%.
		{"short retry, 100ms off", rejected(250 * ms), retry(350 * ms), true, true},
		{"short retry, past 100ms off", rejected(250 * ms), retry(350*ms + 1), true, false},
		{"10ms retry, guessed 0", rejected(10 * ms), retry(0), true, true},
		{"60s retry, guessed 45s", rejected(60 * time.Second), retry(45 * time.Second), true, true},
		{"60s retry, guessed 44.9s", rejected(60 * time.Second), retry(44900 * ms), true, false},
		{"negative guess", rejected(50 * ms), retry(-ms), true, false},
		{"huge guess", rejected(time.Second), retry(algorithms.Never - 1), true, false},
		// A wait guessed beside a wrong outcome is still graded on its own.
		{"retry with outcome allowed", rejected(time.Second), Guess{Outcome: algorithms.Allowed, RetryAfter: time.Second, HasRetry: true}, false, true},
		// Nothing to guess: never fits, or not rejected.
		{"never fits", rejected(algorithms.Never), retry(time.Hour), true, false},
		{"never fits, guessed Never", rejected(algorithms.Never), retry(algorithms.Never), true, false},
		{"allowed, a retry guessed", allowed, retry(0), false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			right, close_ := Grade(tt.d, tt.g)
			if right != tt.right || close_ != tt.close_ {
				t.Errorf("Grade(%s retry %v, %+v) = %v, %v; want %v, %v", tt.d.Outcome, tt.d.RetryAfter, tt.g, right, close_, tt.right, tt.close_)
			}
		})
	}
}

func TestRetryTolerance(t *testing.T) {
	for _, tt := range []struct{ retry, want time.Duration }{
		{0, 100 * time.Millisecond},
		{10 * time.Millisecond, 100 * time.Millisecond},
		{400 * time.Millisecond, 100 * time.Millisecond},
		{401 * time.Millisecond, 100250 * time.Microsecond},
		{time.Minute, 15 * time.Second},
	} {
		if got := RetryTolerance(tt.retry); got != tt.want {
			t.Errorf("RetryTolerance(%v) = %v, want %v", tt.retry, got, tt.want)
		}
	}
	if HasRetry(algorithms.Decision{Outcome: algorithms.Rejected, RetryAfter: algorithms.Never}) || HasRetry(algorithms.Decision{Outcome: algorithms.Delayed, Delay: time.Second}) ||
		!HasRetry(algorithms.Decision{Outcome: algorithms.Rejected, RetryAfter: 1}) {
		t.Error("HasRetry")
	}
}
