package ui

import (
	"time"

	"ratelab/algorithms"
	"ratelab/model"
)

// The lab's keys that move the clock to somewhere worth seeing: the next
// or previous request, disagreement or note. Where they land, model finds;
// the explorer seeks there and says what is there.

// jump moves the clock to where find says, or reports none; it reports
// whether it moved.
func (m *labMode) jump(a *App, find func(time.Duration) (time.Duration, bool), none string) bool {
	t, ok := find(a.lab.Now())
	if !ok {
		a.status.set(none)
		return false
	}
	a.lab.Seek(t)
	return true
}

// nextRequest moves one request on, to Lab.NextStop: the next request of
// the clock's instant, the next request's instant with only its first
// request decided, or a lane's retries before it. In quiz mode a marked
// request is asked about before it is decided.
func (m *labMode) nextRequest(a *App) {
	lab := a.lab
	switch s := lab.NextStop(); s.Kind {
	case model.NoStop:
		a.status.set("no request after " + a.secs(lab.Now()))
	case model.RetryStop:
		lab.Seek(s.At)
		m.sayRetries(a, s.At)
	default:
		// A question among the requests n decides (the stop's, and those
		// of its instant before it) is asked first.
		if a.quiz.stopBetween(lab.Pos(), s.Pos) {
			return
		}
		lab.SeekPos(s.Pos)
		m.sayInstant(a)
	}
}

// prevRequest moves one request back, to Lab.PrevStop: the previous
// request of the instant, onto the latest request decided when the clock
// stands past it, before the first request of the instant, or a lane's
// retries after it.
func (m *labMode) prevRequest(a *App) {
	lab := a.lab
	switch s := lab.PrevStop(); s.Kind {
	case model.NoStop:
		a.status.set("no request before " + a.secs(lab.Now()))
	case model.RetryStop:
		lab.Seek(s.At)
		m.sayRetries(a, s.At)
	default:
		lab.SeekPos(s.Pos)
		m.sayInstant(a)
	}
}

// sayRetries says the clock stands where only retries are decided.
func (m *labMode) sayRetries(a *App, t time.Duration) {
	a.status.set("retries at " + a.secs(t) + " · n next · N previous")
}

// sayInstant names the request the clock stands on when its instant holds
// several: "request 3 of 10 at 0s · n next · N previous".
func (m *labMode) sayInstant(a *App) {
	if text := instantText(a); text != "" {
		a.status.set(text + " · n next · N previous")
	}
}

// instantText is "request 3 of 10 at 0s" (or "before request 1 of 10 at
// 0s") when the clock's instant holds several requests; "" otherwise.
// While a question is asked it names the request asked about, the next:
// "before request 4 of 10 at 0s".
func instantText(a *App) string {
	lab := a.lab
	k, m := lab.Instant()
	if m < 2 {
		return ""
	}
	if k == 0 || a.quiz.asking() { // the question's request is the next, undecided
		return "before request " + algorithms.Thousands(int64(k+1)) + " of " + algorithms.Thousands(int64(m)) + " at " + a.secs(lab.Now())
	}
	return "request " + algorithms.Thousands(int64(k)) + " of " + algorithms.Thousands(int64(m)) + " at " + a.secs(lab.Now())
}

// jumpSplit moves to the next or previous request the lanes disagree on
// and says how they disagree.
func (m *labMode) jumpSplit(a *App, find func(time.Duration) (time.Duration, bool), dir string) {
	if m.jump(a, find, "the lanes agree on every request "+dir+" "+a.secs(a.lab.Now())) {
		a.status.set(splitText(a, a.lab.Now()))
	}
}
