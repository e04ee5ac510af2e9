package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/scenarios"
)

// TestQuizThroughALesson: the quiz stops at each of the dashboard's marks,
// takes the answers and keeps the score; rewinding and playing again does
// not ask twice.
func TestQuizThroughALesson(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	press(a, "t")
	if !a.quiz.on || len(a.quiz.marks) != len(a.lab.Scenario().Quiz) {
		t.Fatalf("quiz on %v with %d marks", a.quiz.on, len(a.quiz.marks))
	}
	a.play.speed = len(speeds) - 1
	press(a, "m") // only the quiz stops play
	asked := 0
	for a.lab.Now() < a.lab.End() {
		press(a, "p")
		playUntilPaused(t, a, 100000)
		if !a.quiz.asking() {
			break
		}
		asked++
		k, _ := a.lab.Instant()
		if a.lab.Pos() != a.quiz.index || k != a.lab.Pos()-a.lab.Search(a.lab.Now()-1) {
			t.Fatalf("the quiz asks about request %d with %d decided", a.quiz.index, a.lab.Pos())
		}
		requireScreen(t, a, "quiz", "What will")
		if a.status.text != "" {
			t.Errorf("the status line says %q over a question", a.status.text)
		}
		for a.quiz.asking() {
			if a.quiz.stage == quizRetry {
				answer(a, "1s")
				continue
			}
			press(a, "a")
		}
		if !strings.Contains(a.status.text, "score") {
			t.Fatalf("no score after an answer: %q", a.status.text)
		}
	}
	if asked != len(a.lab.Scenario().Quiz) {
		t.Errorf("asked at %d moments, want %d", asked, len(a.lab.Scenario().Quiz))
	}
	if a.quiz.asked == 0 || a.quiz.right == 0 || a.quiz.right == a.quiz.asked {
		t.Errorf("score %d of %d: answering \"admitted\" everywhere should be right sometimes, not always", a.quiz.right, a.quiz.asked)
	}
	press(a, "g", "p")
	playUntilPaused(t, a, 100000)
	if a.quiz.asking() {
		t.Error("a moment answered was asked again after rewinding")
	}
	score := fmt.Sprintf("%d of %d right", a.quiz.right, a.quiz.asked)
	if !strings.Contains(screen(a), "quiz "+score) {
		t.Errorf("the header does not say the score %q", score)
	}
	press(a, "t")
	if a.quiz.on || !strings.Contains(a.status.text, "final score "+score) {
		t.Errorf("t did not end the quiz with its score %q: %q", score, a.status.text)
	}
	press(a, "t", "t")
	if a.quiz.on || !strings.Contains(a.status.text, "final score none: nothing was asked") {
		t.Errorf("t on and off with nothing asked: %q", a.status.text)
	}
}

// TestQuizAsksBeforeTheDecision: while the question is open the request is
// undecided and the lanes show the state before it.
func TestQuizAsksBeforeTheDecision(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	press(a, "t")
	a.lab.SeekPos(0)
	press(a, "n")
	if !a.quiz.asking() {
		// The first mark is the 10th request at 0s: n on the way asks there.
		for i := 0; i < 12 && !a.quiz.asking(); i++ {
			press(a, "n")
		}
	}
	if !a.quiz.asking() || a.lab.Pos() != a.quiz.index {
		t.Fatalf("asking %v at request %d with %d decided", a.quiz.asking(), a.quiz.index, a.lab.Pos())
	}
	if _, ok := a.Update(tea.KeyPressMsg{Code: 'x', Text: "x"}); ok == nil && !strings.Contains(a.status.text, "answer with a, d or r") {
		t.Errorf("another key: %q", a.status.text)
	}
}

// TestQuizMarksFollowFiredRequests: a request fired before a marked moment
// shifts the timeline; the quiz still asks about the marked request.
func TestQuizMarksFollowFiredRequests(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	press(a, "t")
	a.lab.Seek(250 * time.Millisecond)
	press(a, "space") // before the poll at 0.5s that the lesson marks
	a.lab.Seek(400 * time.Millisecond)
	press(a, "l", "l") // the step crosses 0.5s
	if !a.quiz.asking() {
		t.Fatal("crossing the marked poll did not ask")
	}
	if r := a.lab.Request(a.quiz.index); r.At != 500*time.Millisecond || a.lab.Fired(a.quiz.index) {
		t.Errorf("asked about the request at %v (fired %v), want the poll at 0.5s", r.At, a.lab.Fired(a.quiz.index))
	}
}

// TestQuizEveryRequestWithoutMarks: a scenario that marks nothing asks at
// every request; after a rewind the answered ones are passed over and the
// next unanswered one is asked.
func TestQuizEveryRequestWithoutMarks(t *testing.T) {
	a := newYAMLApp(t, "title: q\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}\ntraffic:\n  - {every: 500ms, until: 3s}\n", 100, 30)
	press(a, "t")
	for want := 0; want < 2; want++ {
		press(a, "n")
		if !a.quiz.asking() || a.quiz.index != want {
			t.Fatalf("n: asking %v about request %d, want %d", a.quiz.asking(), a.quiz.index, want)
		}
		press(a, "a")
	}
	press(a, "g", "L", "L", "L") // 3s: past the two answered and beyond
	if !a.quiz.asking() || a.quiz.index != 2 {
		t.Errorf("after the rewind: asking %v about request %d, want 2", a.quiz.asking(), a.quiz.index)
	}
}

// TestNInQuizModeDecidesOneRequest: n in quiz mode decides one request when
// it is no moment to ask about (found in a review).
func TestNInQuizModeDecidesOneRequest(t *testing.T) {
	a := newTestApp(t, "dashboard", 100, 30)
	press(a, "t", "n")
	if a.lab.Pos() != 1 || a.quiz.asking() {
		t.Errorf("n: %d decided, asking %v; want 1 and no question", a.lab.Pos(), a.quiz.asking())
	}
}

// TestQuizRejectionAndRetry: d and r answer too; r asks when a retry would
// fit, and a close guess counts.
func TestQuizRejectionAndRetry(t *testing.T) {
	a := newTestApp(t, "shaping-vs-policing", 100, 30)
	press(a, "t")
	// Questions until one is on a refusal, so that r and a retry guess
	// are answered.
	for q := 0; a.quiz.retryAsked == 0; q++ {
		if q == 20 {
			t.Fatal("20 questions and none on a refusal")
		}
		stepToAQuestion(t, a, 12)
		answerRightlyOff(t, a, 0.5) // within the tolerance, not exact
	}
	if a.quiz.right != a.quiz.asked || a.quiz.asked == 0 {
		t.Errorf("right answers scored %d of %d", a.quiz.right, a.quiz.asked)
	}
	if a.quiz.retryClose != a.quiz.retryAsked || !strings.Contains(a.quiz.revealedText, "was close (") {
		t.Errorf("close retry guesses scored %d of %d; the reveal: %s", a.quiz.retryClose, a.quiz.retryAsked, a.quiz.revealedText)
	}
}

// TestQuizWithholdsTheNote: while a question waits, a note at its
// request's instant (which tells what the lanes do) is neither in the
// lower panel nor on the whole panel (e); the answer brings it. Every
// canned lesson whose quiz meets a note at its instant is walked.
func TestQuizWithholdsTheNote(t *testing.T) {
	met := 0
	for _, c := range scenarios.List() {
		a := newTestApp(t, c.Name, 100, 30)
		if len(a.lab.Scenario().Quiz) == 0 || len(a.lab.Scenario().Notes) == 0 {
			continue
		}
		press(a, "t")
		a.play.speed = len(speeds) - 1
		press(a, "m") // only the quiz stops play
		for a.lab.Now() < a.lab.End() {
			press(a, "p")
			playUntilPaused(t, a, 100000)
			if !a.quiz.asking() {
				break
			}
			at := a.lab.Request(a.quiz.index).At
			var withheld []string
			for _, n := range a.lab.Scenario().Notes {
				if n.At == at {
					withheld = append(withheld, firstRunes(noteLine(n), 30))
				}
			}
			for _, n := range withheld {
				met++
				k, m := a.lab.Instant()
				if s := screen(a); strings.Contains(s, n) || !strings.Contains(s, withheldLine(at, m-k)) {
					t.Errorf("%s at %v: the question shows its note %q (or not the line in its place):\n%s", c.Name, at, n, s)
				}
				press(a, "e")
				if s := screen(a); strings.Contains(s, n) {
					t.Errorf("%s at %v: e shows the note %q before the answer:\n%s", c.Name, at, n, s)
				}
				press(a, "esc")
			}
			for a.quiz.asking() {
				if a.quiz.stage == quizRetry {
					answer(a, "1s")
					continue
				}
				press(a, "r")
			}
			if _, more := a.quiz.next(a.lab.Pos(), a.lab.Search(at)); more {
				continue // another question at the instant still waits
			}
			if k, m := a.lab.Instant(); k < m {
				// The answer on an early request of the instant: the note,
				// which tells what all of them did, waits for the rest,
				// which ] decides.
				s := screen(a)
				for _, n := range withheld {
					if strings.Contains(s, n) || !strings.Contains(s, undecidedLine(at, k, m)) {
						t.Errorf("%s at %v: with %d of %d requests decided the answer shows the note %q (or not the line in its place):\n%s", c.Name, at, k, m, n, s)
					}
				}
				press(a, "]")
			}
			for _, n := range withheld {
				if s := screen(a); !strings.Contains(s, n) {
					t.Errorf("%s at %v: the answer and ] do not bring the note %q:\n%s", c.Name, at, n, s)
				}
			}
		}
	}
	if met == 0 {
		t.Fatal("no canned lesson has a note at a question's instant: the test tests nothing")
	}
}

// TestQuizWithholdsTheNoteBeforeItsQuestion: with the quiz on, a note at
// an instant whose question is on a later request of it stays hidden while
// the clock steps through the instant (dashboard's 0s note tells what the
// page load's tenth request gets; the question is on that request), in the
// lower panel and on the whole panel (e); the answer brings it.
func TestQuizWithholdsTheNoteBeforeItsQuestion(t *testing.T) {
	a := newTestApp(t, "dashboard", 80, 24)
	a.openPage(aboutPage)
	press(a, "]", "t") // the 0s note, then the quiz on
	note := firstRunes(noteLine(a.lab.Scenario().Notes[0]), 30)
	if a.quiz.asking() || !a.quiz.on || a.lab.Pos() != 0 {
		t.Fatalf("] then t: asking %v, quiz on %v, %d requests decided; want the quiz on before the page load", a.quiz.asking(), a.quiz.on, a.lab.Pos())
	}
	for i := 0; !a.quiz.asking(); i++ {
		if i > 10 {
			t.Fatal("no question within the page load")
		}
		s := screen(a)
		if k, m := a.lab.Instant(); strings.Contains(s, note) || !strings.Contains(s, withheldLine(0, m-k)) {
			t.Fatalf("before request %d of the page load, with its question on the tenth, the note shows:\n%s", a.lab.Pos()+1, s)
		}
		press(a, "e")
		if s := screen(a); strings.Contains(s, note) {
			t.Fatalf("before request %d, e shows the note:\n%s", a.lab.Pos()+1, s)
		}
		press(a, "esc", "n")
	}
	if got := a.quiz.index; got != 9 {
		t.Fatalf("the question is on request %d, want the tenth", got+1)
	}
	for a.quiz.asking() {
		press(a, "a")
	}
	if s := screen(a); !strings.Contains(s, note) {
		t.Errorf("the answer does not bring the note:\n%s", s)
	}
}

// firstRunes is s's first n runes.
func firstRunes(s string, n int) string {
	r := []rune(s)
	return string(r[:min(n, len(r))])
}

// walkQuizzes plays every lesson with quiz marks at w×h, its quiz on and
// play at full speed, answering each question "admitted" (a retry guess
// "1s"): asked sees each question before its answer, revealed each reveal
// with each of its marks (the marks on one request are one question).
func walkQuizzes(t *testing.T, w, h int, asked func(name string, a *App), revealed func(name string, a *App, mark *scenarios.QuizMark)) {
	t.Helper()
	for _, c := range scenarios.List() {
		a := newTestApp(t, c.Name, w, h)
		if len(a.lab.Scenario().Quiz) == 0 {
			continue
		}
		press(a, "t")
		a.play.speed = len(speeds) - 1
		press(a, "m")
		for a.lab.Now() < a.lab.End() {
			press(a, "p")
			playUntilPaused(t, a, 100000)
			if !a.quiz.asking() {
				break
			}
			group := append([]*scenarios.QuizMark(nil), a.quiz.group...)
			for a.quiz.asking() {
				asked(c.Name, a)
				if a.quiz.stage == quizRetry {
					answer(a, "1s")
					continue
				}
				press(a, "a")
			}
			if len(group) == 0 {
				revealed(c.Name, a, nil)
			}
			for _, mark := range group {
				revealed(c.Name, a, mark) // each mark answered: its why on the screen
			}
		}
	}
}

// TestQuizRevealSaysItsWhy: after each answer at 80×24, the lesson's
// explanation of the moment (of each of its marks, in turn) is on the
// screen whole, or begins there and says "(e: read all)"; never dropped
// unsaid.
func TestQuizRevealSaysItsWhy(t *testing.T) {
	reveals := 0
	walkQuizzes(t, 80, 24, func(string, *App) {}, func(name string, a *App, mark *scenarios.QuizMark) {
		if mark == nil || mark.Why == "" {
			return
		}
		reveals++
		s := screen(a)
		// The question's why: its marks' whys, one after the other (the
		// marks on one request are one question).
		why := a.quiz.revealedWhy
		words := strings.Fields(why)
		start := strings.Join(words[:min(3, len(words))], " ")
		if !strings.Contains(why, mark.Why) || !noteWhole(s, why) && (!strings.Contains(strings.Join(strings.Fields(s), " "), start) || !strings.Contains(s, "(e: read all)")) {
			t.Errorf("%s: the reveal at %v drops its why %q:\n%s", name, mark.At, mark.Why, s)
		}
	})
	if reveals == 0 {
		t.Fatal("no reveal with a why was reached")
	}
}

// TestQuizWholeAtLargerSizes walks every lesson's quiz at 120×40 and
// 200×60 as TestQuizRevealSaysItsWhy does at 80×24, and checks that there
// nothing of it is cut: each question with its lesson's hint, then the
// reveal, how every answer went and the lesson's why, all whole.
func TestQuizWholeAtLargerSizes(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {200, 60}} {
		questions, reveals := 0, 0
		asked := func(name string, a *App) {
			questions++
			s := screen(a)
			if mark := a.quiz.mark(); mark != nil && mark.Ask != "" && !noteWhole(s, mark.Ask) {
				t.Errorf("%s at %d×%d: the question at %v cuts its hint %q:\n%s", name, size[0], size[1], mark.At, mark.Ask, s)
			}
			if !strings.Contains(s, "What will ") && !strings.Contains(s, "When would the same request fit, from now?") {
				t.Errorf("%s at %d×%d: no whole question at %v:\n%s", name, size[0], size[1], a.lab.Now(), s)
			}
		}
		walkQuizzes(t, size[0], size[1], asked, func(name string, a *App, mark *scenarios.QuizMark) {
			reveals++
			s := unhyphenated(screen(a))
			if !noteWhole(s, a.quiz.revealedText) {
				// Too long for the lower panel beside the lesson's why:
				// the status names the lanes right and wrong, and e
				// shows the whole of it.
				if !noteWhole(s, a.quiz.revealedShort) {
					t.Errorf("%s at %d×%d: the reveal at %v is cut, %q:\n%s", name, size[0], size[1], a.lab.Now(), a.quiz.revealedText, s)
				}
				press(a, "e")
				if page := unhyphenated(screen(a)); !noteWhole(page, a.quiz.revealedText) {
					t.Errorf("%s at %d×%d: e does not show the reveal at %v whole:\n%s", name, size[0], size[1], a.lab.Now(), page)
				}
				press(a, "esc")
			}
			if mark != nil && mark.Why != "" && !noteWhole(s, mark.Why) {
				t.Errorf("%s at %d×%d: the reveal at %v cuts its why %q:\n%s", name, size[0], size[1], mark.At, mark.Why, s)
			}
		})
		if questions == 0 || reveals == 0 {
			t.Fatalf("%d×%d: %d questions, %d reveals", size[0], size[1], questions, reveals)
		}
	}
}

// unhyphenated joins the words a wrap broke after a hyphen
// ("express-" / "rate-limit"), so that noteWhole reads them as one.
func unhyphenated(screen string) string {
	return regexp.MustCompile(`-[ \t]*\n[ \t]*`).ReplaceAllString(screen, "-")
}

// TestQuizScoresARetryGuess: a rejection answered with its exact wait is
// scored right and close, and the score says so in those words.
func TestQuizScoresARetryGuess(t *testing.T) {
	a := newTestApp(t, "attempts-counted", 100, 30)
	press(a, "t")
	stepToAQuestion(t, a, 20)
	answerRightly(t, a)
	if a.quiz.retryAsked == 0 {
		t.Fatal("no retry guess was scored at the lesson's first question")
	}
	want := fmt.Sprintf("%d of %d right, retry waits %d of %d close", a.quiz.asked, a.quiz.asked, a.quiz.retryAsked, a.quiz.retryAsked)
	if got := a.quiz.scoreText(); got != want {
		t.Errorf("score %q, want %q", got, want)
	}
}

// answerRightly answers every lane of the open question with what it
// will do, and a rejection with its exact wait.
func answerRightly(t *testing.T, a *App) {
	t.Helper()
	answerRightlyOff(t, a, 0)
}

// answerRightlyOff is answerRightly with each retry guess off the exact
// wait by off times the tolerance.
func answerRightlyOff(t *testing.T, a *App, off float64) {
	t.Helper()
	for a.quiz.asking() {
		lane := a.quiz.lane()
		a.lab.SeekPos(a.quiz.index + 1)
		rec, _ := a.lab.LastDecision(lane)
		a.lab.SeekPos(a.quiz.index)
		switch d := rec.Decision; d.Outcome {
		case algorithms.Delayed:
			press(a, "d")
		case algorithms.Rejected:
			press(a, "r")
			if promptKind(a) != promptRetry {
				t.Fatal("r did not ask when a retry would fit")
			}
			answer(a, algorithms.FormatDuration(d.RetryAfter+time.Duration(off*float64(model.RetryTolerance(d.RetryAfter)))))
		default:
			press(a, "a")
		}
	}
}

// stepToAQuestion steps (n) until the quiz asks, at most n times.
func stepToAQuestion(t *testing.T, a *App, n int) {
	t.Helper()
	for i := 0; i < n && !a.quiz.asking(); i++ {
		press(a, "n")
	}
	if !a.quiz.asking() {
		t.Fatal("no question")
	}
}

// TestQuizHeaderNamesTheRequestAsked: during a question on a later
// request of an instant, the header names that request, as the question
// does ("before request 2 of 3"), not the one decided before it. The
// canned lessons' quizzes are walked to the first such question.
func TestQuizHeaderNamesTheRequestAsked(t *testing.T) {
	for _, c := range scenarios.List() {
		a := newTestApp(t, c.Name, 100, 30)
		if len(a.lab.Scenario().Quiz) == 0 {
			continue
		}
		press(a, "t")
		for range 50 {
			for i := 0; i < 1000 && !a.quiz.asking() && a.lab.Pos() < a.lab.Len(); i++ {
				press(a, "n")
			}
			if !a.quiz.asking() {
				break
			}
			if k, m := a.lab.Instant(); k > 0 && m > 1 {
				head := ansi.Strip(strings.Join(a.headerBlock(100, 2), "\n"))
				want := "before request " + algorithms.Thousands(int64(k+1)) + " of " + algorithms.Thousands(int64(m)) + " at"
				if !strings.Contains(head, want) {
					t.Fatalf("%s: asking about request %d of %d, the header reads:\n%s\nwant %q", c.Name, k+1, m, head, want)
				}
				return
			}
			answerRightly(t, a)
		}
	}
	t.Fatal("no canned quiz asks about a later request of an instant")
}

// TestQuizOnIsSaidWholeAt80: t's message, with the lesson's questions
// and with every request asked, fits an 80-column screen whole.
func TestQuizOnIsSaidWholeAt80(t *testing.T) {
	for _, c := range []struct {
		a    *App
		want string
	}{
		{newTestApp(t, "attempts-counted", 80, 24), "quiz on: step (n) or play and predict when the lesson asks · t ends the quiz"},
		{newYAMLApp(t, "title: q\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}\ntraffic:\n  - {every: 500ms, until: 3s}\n", 80, 24),
			"quiz on: step (n) or play and predict every request · t ends the quiz"},
	} {
		press(c.a, "t")
		if s := screen(c.a); !strings.Contains(s, c.want) {
			t.Errorf("t's message is not whole at 80x24, want %q:\n%s", c.want, s)
		}
	}
}
