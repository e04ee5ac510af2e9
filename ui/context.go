package ui

import (
	"time"

	"ratelab/model"
	"ratelab/scenarios"
)

// programContext is what every mode and component of the explorer shares,
// in the manner of soft-serve's common.Common and gh-dash's ProgramContext:
// the lab being explored, the options, the key bindings (every group of
// keys.go), the styles, the layout of the current terminal size, and the
// learner's choices that several panels read (the focused lane, the shown
// key, the cost of a fired request). The root model owns it; the root and
// its modes change it, the components read it through a pointer.
type programContext struct {
	lab  *model.Lab
	opts Options
	keys keyMap
	st   *styles
	lay  layout

	focus  int   // the lane whose decision the why panel explains
	keyIdx int   // index into lab.Keys() of the key shown and fired; -1 follows the last request
	cost   int64 // cost of a fired request
	// asked is the key of the request a quiz question waits on ("" when
	// none): the lanes show its state, not the latest request's.
	asked string
	// quizzing is the quiz while it is on (nil when off): ] and [ stop at
	// its moments as at the notes, and while an answer's reveal stands the
	// lanes show its request's key (revealedKey).
	quizzing *quiz
	// chart is the learner's choice of the chart of states over time
	// (chart.go).
	chart chartShow

	// pace sizes the chunks in which long work is done (compute.go).
	pace pacer

	// timeForm is how the screen writes times (timeform.go), worked out
	// for formFor.
	timeForm timeForm
	formFor  formKey
}

// step is how far one keypress moves the clock.
func (c *programContext) step() time.Duration {
	if s := c.lab.Scenario().Step; s > 0 {
		return s
	}
	return scenarios.DefaultStep
}

// key is the key whose state the lanes show and for which space fires: the
// one the learner pinned with k, else the key of the latest request, so
// that the lanes' state and their last verdict are about the same client.
func (c *programContext) key() string {
	keys := c.lab.Keys()
	if c.asked != "" { // a question is about its request's key, whatever is pinned
		return c.asked
	}
	if k, ok := c.quizzing.revealedKey(); ok {
		return k // the reveal stands: its request's key
	}
	if c.keyIdx >= 0 && c.keyIdx < len(keys) {
		return keys[c.keyIdx]
	}
	if rec, ok := c.lab.LastDecision(0); ok {
		return rec.Request.Key
	}
	if len(keys) > 0 {
		return keys[0]
	}
	return scenarios.DefaultKey
}

// pinned reports whether the learner pinned a key with k (or fired as a
// new key), rather than following the latest request's.
func (c *programContext) pinned() bool { return c.keyIdx >= 0 && c.keyIdx < len(c.lab.Keys()) }

// pin shows key in the lanes, if the timeline has it; it reports whether.
func (c *programContext) pin(key string) bool {
	for i, k := range c.lab.Keys() {
		if k == key {
			c.keyIdx = i
			return true
		}
	}
	return false
}

// nextNote and prevNote find the first note after t and the last before
// it, as Lab.NextRequest and Lab.PrevRequest find requests. A note at the
// clock whose instant is not wholly decided (the opening screen before a
// page load at 0s, or n partway through) comes first: it speaks of that
// instant's outcome, which ] then shows. With the quiz on, the instants
// its marks name are stops too (a question after the last note, as
// memory-price's at 66s and 80s), and a question still waiting at the
// clock's instant comes first (quiz.nextMoment): the seek there asks it.
func (c *programContext) nextNote(t time.Duration) (time.Duration, bool) {
	notes := c.lab.Scenario().Notes
	i := currentNote(notes, t)
	if k, m := c.lab.Instant(); i >= 0 && notes[i].At == t && t == c.lab.Now() && k < m {
		return t, true
	}
	at, ok := noteAt(notes, i+1)
	if c.quizzing != nil {
		if q, found := c.quizzing.nextMoment(t); found && (!ok || q < at) {
			at, ok = q, true
		}
	}
	return at, ok
}

// noteAtClock reports whether a note stands at the clock's instant.
func (c *programContext) noteAtClock() bool {
	for _, n := range c.lab.Scenario().Notes {
		if n.At == c.lab.Now() {
			return true
		}
	}
	return false
}

func (c *programContext) prevNote(t time.Duration) (time.Duration, bool) {
	notes := c.lab.Scenario().Notes
	at, ok := noteAt(notes, currentNote(notes, t-1))
	if c.quizzing != nil {
		if q, found := c.quizzing.prevMoment(t); found && (!ok || q > at) {
			at, ok = q, true
		}
	}
	return at, ok
}

// toStart puts the clock at 0 before anything is decided: when requests
// arrive at 0s (a page load), the lanes show the state before the first of
// them, and n decides them one by one.
func (c *programContext) toStart() {
	if c.lab.Len() > 0 && c.lab.Request(0).At == 0 {
		c.lab.SeekPos(0) // without deciding the instant first
		return
	}
	c.lab.Seek(0)
}
