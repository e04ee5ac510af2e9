package ui

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// speeds are the play speeds, virtual seconds per wall-clock second, from
// slow motion to fast-forward.
var speeds = []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}

// defaultSpeed is the index of ×1 in speeds.
const defaultSpeed = 3

// frameInterval is the play ticker's period: about 30 frames a second.
const frameInterval = time.Second / 30

// maxFrameGap caps the wall time one frame may advance, so that a
// suspended terminal (ctrl+z) or a slow frame does not jump the clock.
const maxFrameGap = 250 * time.Millisecond

func speedText(s float64) string {
	return "×" + strconv.FormatFloat(s, 'f', -1, 64)
}

// tickMsg is one frame of play. gen tells the ticker of the current play
// from a ticker left over by an earlier one (pause then play within a
// frame would otherwise run two).
type tickMsg struct {
	gen int
	at  time.Time
}

// playback is the clock's motion: playing or paused, the speed, and where
// play stops by itself. While playing it stops at each note (unless the
// learner turned that off), at the "next moment" it was asked to reach, and
// at the end. Its time arrives in tickMsg (the pacer, compute.go, is the
// only other reader of the wall clock: it times the deciding).
type playback struct {
	ctx     *programContext
	playing bool
	speed   int // index into speeds
	gen     int
	// lastTick is the wall time of the previous frame while playing; carry
	// is virtual time owed to the clock, less than a millisecond.
	lastTick time.Time
	carry    time.Duration
	// stopAtNotes pauses play on reaching a note; on by default.
	stopAtNotes bool
	// target, when set, is the moment (a note or a disagreement) that play
	// runs to and stops at, whatever the speed.
	target    time.Duration
	hasTarget bool
	// quizAt, when set, is the time of the quiz's next question among the
	// requests not yet decided that arrive by to; askQuiz asks it, putting
	// the clock there.
	quizAt  func(to time.Duration) (time.Duration, bool)
	askQuiz func(to time.Duration)
}

type playKeys struct{ Play, ToMoment, Faster, Slower, StopNotes key.Binding }

func newPlayback(ctx *programContext) playback {
	return playback{ctx: ctx, speed: defaultSpeed, stopAtNotes: true}
}

// keys are the playback's bindings, from the shared key map.
func (p *playback) keys() playKeys {
	k := p.ctx.keys.Lab
	return playKeys{k.Play, k.ToMoment, k.Faster, k.Slower, k.StopNotes}
}

// update handles playback's keys; handled is false for any other key.
func (p *playback) update(msg tea.KeyPressMsg, say *statusLine) (cmd tea.Cmd, handled bool) {
	k := p.keys()
	switch {
	case key.Matches(msg, k.Play):
		if p.playing {
			p.pause()
			return nil, true
		}
		return p.start(say), true
	case key.Matches(msg, k.ToMoment):
		return p.toNextMoment(say), true
	case key.Matches(msg, k.Faster):
		p.speed = min(p.speed+1, len(speeds)-1)
	case key.Matches(msg, k.Slower):
		p.speed = max(p.speed-1, 0)
	case key.Matches(msg, k.StopNotes):
		p.stopAtNotes = !p.stopAtNotes
		if p.stopAtNotes {
			say.set("play now stops at each note")
		} else {
			say.set("play now runs through the notes (m again stops at them)")
		}
	default:
		return nil, false
	}
	return nil, true
}

// start plays the clock; from the end it starts again at 0.
func (p *playback) start(say *statusLine) tea.Cmd {
	lab := p.ctx.lab
	if lab.Now() >= lab.End() {
		p.ctx.toStart()
		say.set("from the start")
	}
	p.playing, p.hasTarget = true, false
	p.gen++
	p.lastTick, p.carry = time.Time{}, 0
	return p.tick()
}

// toNextMoment plays, at the current speed, to the next note or point where
// the lanes disagree, and stops there.
func (p *playback) toNextMoment(say *statusLine) tea.Cmd {
	lab := p.ctx.lab
	t, ok := lab.NextMoment(lab.Now())
	if !ok {
		say.set("no note or disagreement after " + p.ctx.secs(lab.Now()))
		return nil
	}
	cmd := p.start(say)
	p.target, p.hasTarget = t, true
	say.set("playing to the next moment, at " + p.ctx.secs(t))
	return cmd
}

// pause stops the clock. No ticker runs while paused: the stale one that
// may still be in flight is ignored by its generation.
func (p *playback) pause() {
	p.playing, p.hasTarget = false, false
	p.gen++
}

// tick schedules the next frame.
func (p *playback) tick() tea.Cmd {
	gen := p.gen
	return tea.Tick(frameInterval, func(t time.Time) tea.Msg { return tickMsg{gen: gen, at: t} })
}

// onTick advances the clock by speed × the wall time since the last frame,
// stopping at a note, the target moment, a quiz question or the end; it
// says why it stopped.
func (p *playback) onTick(msg tickMsg, say *statusLine) tea.Cmd {
	if !p.playing || msg.gen != p.gen {
		return nil
	}
	elapsed := frameInterval
	if !p.lastTick.IsZero() {
		elapsed = min(max(msg.at.Sub(p.lastTick), 0), maxFrameGap)
	}
	p.lastTick = msg.at
	lab := p.ctx.lab
	if t, ok := p.skipTo(); ok {
		from := lab.Now()
		lab.Seek(t)
		p.carry = 0
		say.set("skipped " + p.ctx.secs(from) + " to " + p.ctx.secs(t) + ": nothing arrives or leaves in between · p pauses")
		return p.tick()
	}
	from := lab.Now()
	to := p.advanceTo(time.Duration(float64(elapsed) * speeds[p.speed]))
	// A frame decides requests for at most sliceBudget beyond what the
	// lab has: on a dense timeline play runs as fast as deciding allows,
	// and every frame is drawn and every key read.
	if !p.ctx.decide(lab.Search(to), sliceBudget) {
		if c := lab.Computed(); c > 0 {
			to = max(from, lab.Request(c-1).At)
			p.carry = 0
		}
	}
	// Of the stops in (from, to] — a quiz question, a note, the moment P
	// plays to — the earliest wins; at one instant the question first,
	// since it comes before the request is decided.
	stop, why := to+1, ""
	if p.quizAt != nil {
		if t, ok := p.quizAt(to); ok {
			stop, why = t, "quiz"
		}
	}
	if p.stopAtNotes {
		if t, ok := noteBetween(lab.Scenario().Notes, from, to); ok && t < stop {
			stop, why = t, "note"
		}
	}
	if p.hasTarget && p.target <= to && p.target < stop {
		stop, why = max(p.target, from), "target"
	}
	switch why {
	case "quiz":
		p.pause()
		p.askQuiz(to)
		say.clear() // the question speaks for itself; "playing to …" would not be true
		return nil
	case "note":
		lab.Seek(stop)
		p.pause()
		say.set("stopped at the note at " + p.ctx.secs(stop) + " · p plays on · m turns these stops off")
		return nil
	case "target":
		lab.Seek(stop)
		p.pause()
		say.set("stopped at " + p.ctx.secs(stop) + " · P plays to the next moment")
		return nil
	}
	lab.Seek(to)
	if lab.Now() >= lab.End() {
		p.pause()
		say.set("reached the end · p plays again from 0")
		return nil
	}
	return p.tick()
}

// skipLead is how much wall time of play an empty stretch keeps before
// the next event, and skipMin how much it must last to be skipped.
const (
	skipLead = time.Second
	skipMin  = 3 * time.Second
)

// skipTo is where play jumps to over an empty stretch: when nothing
// happens for more than skipMin of play at this speed (no request
// arrives, no retry, no delayed request leaves a queue, no note, no
// moment P plays to), the clock goes to skipLead of play before the next
// thing that does, so that a minute of nothing (boundary's first) is not
// watched. The lanes' state still moves with the clock (a bucket refills
// over the jump), exactly as if played.
func (p *playback) skipTo() (time.Duration, bool) {
	lab := p.ctx.lab
	now := lab.Now()
	if k, m := lab.Instant(); k < m {
		return 0, false // requests at this instant are still to come
	}
	next := lab.End()
	if t, ok := lab.NextRequest(now); ok {
		next = min(next, t)
	}
	if t, ok := lab.NextRetry(now); ok {
		next = min(next, t)
	}
	notes := lab.Scenario().Notes
	if t, ok := noteAt(notes, currentNote(notes, now)+1); ok {
		next = min(next, t)
	}
	if p.hasTarget {
		next = min(next, p.target)
	}
	speed := speeds[p.speed]
	lead := time.Duration(float64(skipLead) * speed)
	if next-now <= time.Duration(float64(skipMin)*speed) {
		return 0, false
	}
	for lane := range lab.Lanes() {
		if lab.Released(lane, now+1, next) > 0 {
			return 0, false // a queue empties in between: the out row moves
		}
	}
	return next - lead, true
}

// advanceTo is where the clock goes after d of play: onto whole
// milliseconds (or whole nanoseconds when the step is finer), carrying the
// rest to the next frame, so that the numbers on screen stay exact
// ("1.254s in", not "≈1.254s in") and no time is lost.
func (p *playback) advanceTo(d time.Duration) time.Duration {
	q := time.Duration(1)
	if p.ctx.step()%time.Millisecond == 0 {
		q = time.Millisecond
	}
	now := p.ctx.lab.Now()
	target := now + p.carry + d
	aligned := target / q * q
	p.carry = target - aligned
	return max(aligned, now)
}

// text is the play state and speed: "▶ playing ×10", "‖ paused ×1"; a
// "no note stops" mark when play runs through notes.
func (p *playback) text() string {
	st := p.ctx.st
	speed := speedText(speeds[p.speed])
	var s string
	switch {
	case p.playing:
		s = st.accent.Render("▶ playing " + speed)
	case p.ctx.lab.Now() >= p.ctx.lab.End():
		s = st.muted.Render("■ at the end ") + speed
	default:
		s = st.muted.Render("‖ paused ") + speed
	}
	if !p.stopAtNotes {
		s += st.muted.Render(" · no note stops")
	}
	return s
}
