package model

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// QuizIndex is the index in the lab's timeline of the request quiz mark q
// names: among the requests arriving at exactly q.At (only those with key
// q.Key when it is set), the q.Request-th, in timeline order. ok is false
// when the timeline has no such request. Requests the learner fired count
// too: they sit after the scenario's own at the same instant.
//
// It costs one binary search, plus a scan of the instant's requests when
// q.Key is set.
func (l *Lab) QuizIndex(q scenarios.QuizMark) (i int, ok bool) {
	if q.Request < 1 || q.At < 0 {
		return -1, false
	}
	lo, hi := l.timeline.search(q.At-1), l.timeline.search(q.At) // the requests at exactly q.At
	if q.Key == "" {
		if q.Request > hi-lo {
			return -1, false
		}
		return lo + q.Request - 1, true
	}
	n := 0
	for i := lo; i < hi; i++ {
		if l.timeline.request(i).Key == q.Key {
			if n++; n == q.Request {
				return i, true
			}
		}
	}
	return -1, false
}

// checkQuiz appends to failures (the expectations' failures of s, in file
// order) one Failure for each quiz mark whose request s's traffic lacks, and
// returns them all in file order: by line, or with the marks after the
// expectations when s was not read from a file. It counts each marked instant's requests
// from the traffic items' formulas, without replaying anything.
func checkQuiz(s *scenarios.Scenario, failures []Failure) []Failure {
	added := false
	for i := range s.Quiz {
		q := s.Quiz[i] // a copy: a Failure does not alias the scenario
		n := s.CountAt(q.At, q.Key)
		if n >= int64(q.Request) {
			continue
		}
		with, at := "", algorithms.FormatDuration(q.At)
		if q.Key != "" {
			with = fmt.Sprintf(" with key %q", q.Key)
		}
		var got string
		switch n {
		case 0:
			got = fmt.Sprintf("no request%s arrives at %s", with, at)
		case 1:
			got = fmt.Sprintf("only 1 request%s arrives at %s", with, at)
		default:
			got = fmt.Sprintf("only %d requests%s arrive at %s", n, with, at)
		}
		failures = append(failures, Failure{Scenario: s.Name, Quiz: &q, Got: got})
		added = true
	}
	line := func(f Failure) int {
		if f.Quiz != nil {
			return f.Quiz.Line
		}
		return f.Expectation.Line
	}
	if added && !slices.ContainsFunc(failures, func(f Failure) bool { return line(f) == 0 }) {
		slices.SortStableFunc(failures, func(a, b Failure) int { return cmp.Compare(line(a), line(b)) })
	}
	return failures
}

// quizError is Error for a quiz mark's failure:
// "dashboard.yaml:41: quiz mark at 0s, request 11: no such request; only 10 requests arrive at 0s".
func (f Failure) quizError() string {
	where := f.Scenario
	if f.Quiz.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, f.Quiz.Line)
	}
	return fmt.Sprintf("%s: quiz mark %s: no such request; %s", where, f.Quiz.String(), f.Got)
}

// Guess is a learner's prediction of one lane's decision on one request.
type Guess struct {
	Outcome algorithms.Outcome
	// RetryAfter is the guessed wait before a retry would fit, meaningful
	// when HasRetry is set (a rejection was predicted with a wait).
	RetryAfter time.Duration
	HasRetry   bool
}

// MinRetryTolerance is the smallest margin a retry guess is graded with.
const MinRetryTolerance = 100 * time.Millisecond

// RetryTolerance is how far a guess of the wait retry may be from it and
// still be close: a quarter of retry, but at least MinRetryTolerance (so a
// wait of 10ms is guessed right by anything up to 110ms, and one of 60s
// by anything from 45s to 75s).
func RetryTolerance(retry time.Duration) time.Duration {
	return max(retry/4, MinRetryTolerance)
}

// HasRetry reports whether d has a retry wait to guess: it is a rejection
// of a request that could fit later. A rejection that can never fit (its
// cost exceeds what the lane can ever admit) has none.
func HasRetry(d algorithms.Decision) bool {
	return d.Outcome == algorithms.Rejected && d.RetryAfter != algorithms.Never
}

// Grade compares a guess with the decision d. outcomeRight is whether the
// guessed outcome is d's. retryClose is whether the guess carries a retry
// wait (g.HasRetry), d has one to guess (HasRetry), and the guess is within
// RetryTolerance(d.RetryAfter) of it, either side, bounds included. It is
// false whenever there is no wait to compare, however the outcome was
// guessed; a negative guess is never close.
func Grade(d algorithms.Decision, g Guess) (outcomeRight, retryClose bool) {
	outcomeRight = g.Outcome == d.Outcome
	if !g.HasRetry || !HasRetry(d) || g.RetryAfter < 0 {
		return outcomeRight, false
	}
	off := g.RetryAfter - d.RetryAfter // both in [0, MaxInt64): no overflow
	if off < 0 {
		off = -off
	}
	return outcomeRight, off <= RetryTolerance(d.RetryAfter)
}
