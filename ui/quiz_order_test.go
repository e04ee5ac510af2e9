package ui

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"ratelab/scenarios"
)

// quizLessons are the canned lessons that mark quiz moments.
func quizLessons(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, c := range scenarios.List() {
		s, err := scenarios.Canned(c.Name)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Quiz) > 0 {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		t.Fatal("no canned lesson marks a quiz moment")
	}
	return names
}

// answerAll answers the open question, every lane "admitted" and a retry
// guess "1s", and returns the marks it answered.
func answerAll(a *App) []*scenarios.QuizMark {
	group := append([]*scenarios.QuizMark(nil), a.quiz.group...)
	for a.quiz.asking() {
		if a.quiz.stage == quizRetry {
			answer(a, "1s")
			continue
		}
		press(a, "a")
	}
	return group
}

// markOrder is the position of each mark asked in the lesson's quiz list.
func markOrder(a *App, asked []*scenarios.QuizMark) []int {
	var order []int
	for _, m := range asked {
		for i := range a.lab.Scenario().Quiz {
			if &a.lab.Scenario().Quiz[i] == m {
				order = append(order, i)
			}
		}
	}
	return order
}

// answerWalking presses key at most limit times, answering every question
// it brings, until the status line starts with end; it returns the marks
// asked, in order.
func answerWalking(a *App, key, end string, limit int) []*scenarios.QuizMark {
	var asked []*scenarios.QuizMark
	for range limit {
		press(a, key)
		if a.quiz.asking() {
			asked = append(asked, answerAll(a)...)
			continue
		}
		if strings.HasPrefix(a.status.text, end) {
			break
		}
	}
	return asked
}

// wantOrder is the positions of the lesson's quiz marks in the order of
// the requests they name on the timeline; marks of one request in the
// list's order.
func wantOrder(a *App) []int {
	quiz := a.lab.Scenario().Quiz
	order := make([]int, len(quiz))
	for i := range order {
		order[i] = i
	}
	at := func(i int) int {
		idx, ok := a.lab.QuizIndex(quiz[i])
		if !ok {
			return a.lab.Len()
		}
		return idx
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(at(i), at(j)) })
	return order
}

// TestQuizAsksEveryMarkInOrder: playing through a lesson with the quiz on
// asks every mark of its quiz list, in the order of the requests they name
// on the timeline: two marks on one request (sliding-estimate's counter
// and log at 90s) are one question asking both lanes, each with its hint,
// and two on one instant are asked one after the other in the timeline's
// order (costly-requests' lookup, then the export after it; global-cap's
// acct-2, its first request, then its tenth, which the file lists first). Each reveal shows
// the asked request's key in the lanes and its decision in the why panel
// (costly-requests' 4s showed the export's key and its request at 3s after
// the lookup's answer; global-cap's 30s a greedy request at 29.995s).
func TestQuizAsksEveryMarkInOrder(t *testing.T) {
	for _, name := range quizLessons(t) {
		t.Run(name, func(t *testing.T) {
			a := newTestApp(t, name, 100, 30)
			press(a, "t")
			a.play.speed = len(speeds) - 1
			press(a, "m") // only the quiz stops play
			var asked []*scenarios.QuizMark
			for i := 0; a.lab.Now() < a.lab.End() && i < 100; i++ {
				press(a, "p")
				playUntilPaused(t, a, 100000)
				if !a.quiz.asking() {
					break
				}
				for j, l := range a.quiz.lanes {
					if m := a.quiz.asks[j]; m.Lane != "" && a.lab.Lanes()[l].Name != m.Lane {
						t.Errorf("lane %s asked under the mark of lane %s", a.lab.Lanes()[l].Name, m.Lane)
					}
				}
				r := a.lab.Request(a.quiz.index)
				asked = append(asked, answerAll(a)...)
				if got := a.key(); got != r.Key {
					t.Errorf("at %v: after the answer the lanes show key %q, want the asked request's %q", r.At, got, r.Key)
				}
				v := laneViews(a.programContext)[a.focus]
				if !v.hasLast || v.last.Request.At != r.At || v.last.Request.Key != r.Key {
					t.Errorf("at %v: after the answer the why panel explains the request at %v key %q, want the asked one (key %q)", r.At, v.last.Request.At, v.last.Request.Key, r.Key)
				}
				if s := screen(a); !strings.Contains(s, "key "+keyText(r.Key)) {
					t.Errorf("at %v: the screen does not name key %s after the answer:\n%s", r.At, r.Key, s)
				}
			}
			if got, want := markOrder(a, asked), wantOrder(a); !slices.Equal(got, want) {
				t.Errorf("asked the marks %v, want %v", got, want)
			}
		})
	}
}

// TestQuizBracketsStopAtQuestions: with the quiz on, ] reaches every
// question (memory-price's at 66s and 80s came after its last note, and ]
// said "no note after 60s"), in the timeline's order, and says there is
// nothing after the last only when nothing is; [ then goes back through
// every question's instant.
func TestQuizBracketsStopAtQuestions(t *testing.T) {
	for _, name := range quizLessons(t) {
		t.Run(name, func(t *testing.T) {
			a := newTestApp(t, name, 100, 30)
			press(a, "t")
			asked := answerWalking(a, "]", "no note after", 200)
			if got, want := markOrder(a, asked), wantOrder(a); !slices.Equal(got, want) {
				t.Errorf("] asked the marks %v, want %v (status %q)", got, want, a.status.text)
			}
			marks := a.lab.Scenario().Quiz
			for i := len(marks) - 1; i >= 0; i-- {
				if i < len(marks)-1 && marks[i].At == marks[i+1].At {
					continue
				}
				for j := 0; a.lab.Now() > marks[i].At && j < 50; j++ {
					press(a, "[")
				}
				if a.lab.Now() != marks[i].At {
					t.Errorf("[ passed the question at %v: the clock at %v", marks[i].At, a.lab.Now())
				}
			}
		})
	}
}

// TestQuizScoreOnce: after each answer the score line is on the screen
// once (it was under the why panel's heading and again on the status
// line, sometimes in two forms), and an "(e: read all)" on the screen is
// never cut itself (burst-admits-eleven's 0s at 80×24 ended "(e: read…").
func TestQuizScoreOnce(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}} {
		walkQuizzes(t, size[0], size[1], func(string, *App) {}, func(name string, a *App, _ *scenarios.QuizMark) {
			s := screen(a)
			if n := strings.Count(s, "score "); n != 1 {
				t.Errorf("%s at %d×%d, %v: the score is on the screen %d times:\n%s", name, size[0], size[1], a.lab.Now(), n, s)
			}
			if strings.Count(s, "(e: read") != strings.Count(s, "(e: read all)") {
				t.Errorf("%s at %d×%d, %v: a cut \"(e: read all)\":\n%s", name, size[0], size[1], a.lab.Now(), s)
			}
		})
	}
}

// TestQuizRevealLineKeepsItsMarker: the status line's short reveal, too
// long for the width, is cut before its "(e: read all)", never in it.
func TestQuizRevealLineKeepsItsMarker(t *testing.T) {
	q := quiz{
		revealedText:  strings.Repeat("score 7 of 10 right: ✓ nginx admitted it · ", 4),
		revealedShort: "score 7 of 10 right: ✓ nginx, redis-cell · ✗ bucket, redis-rate, x-time-rate" + readAll,
	}
	for w := 30; w <= 100; w++ {
		line := q.revealLine(w)
		if !strings.HasSuffix(line, readAll) || len([]rune(line)) > w {
			t.Errorf("at width %d: %q", w, line)
		}
	}
}

// TestQuizExactRetryIsExact: a retry guess equal to the wait reads as
// exact, not close.
func TestQuizExactRetryIsExact(t *testing.T) {
	b := newTestApp(t, "finer-sub-windows", 100, 30)
	press(b, "t")
	b.play.speed = len(speeds) - 1
	press(b, "m", "p")
	playUntilPaused(t, b, 100000)
	if !b.quiz.asking() || b.quiz.mark().Lane != "counter" {
		t.Fatalf("no question on lane counter at 60.5s")
	}
	press(b, "r")
	answer(b, "0.1s") // the lesson's expectation: retry in 0.1s
	for b.quiz.asking() {
		press(b, "a")
	}
	if !strings.Contains(b.quiz.revealedText, "your retry 0.1s was exact") || strings.Contains(b.quiz.revealedText, "was close") {
		t.Errorf("an exact retry guess: %q", b.quiz.revealedText)
	}
}

// TestQuizNWalksInOrder: n, one request at a time, asks the marks in the
// timeline's order too (costly-requests' lookup at 4s, then the export
// after it, which the file lists first).
func TestQuizNWalksInOrder(t *testing.T) {
	for _, name := range []string{"costly-requests", "burst-admits-eleven", "sliding-estimate", "store-outage"} {
		t.Run(name, func(t *testing.T) {
			a := newTestApp(t, name, 100, 30)
			press(a, "t")
			asked := answerWalking(a, "n", "no request after", 5000)
			if got, want := markOrder(a, asked), wantOrder(a); !slices.Equal(got, want) {
				t.Errorf("n asked the marks %v, want %v", got, want)
			}
		})
	}
}
