package ui

import (
	"strconv"
	"time"

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

// tick schedules the next frame. It is the only reader of the wall clock:
// the time arrives in the message.
func (a *App) tick() tea.Cmd {
	gen := a.tickGen
	return tea.Tick(frameInterval, func(t time.Time) tea.Msg { return tickMsg{gen: gen, at: t} })
}

// play starts the clock; from the end it starts again at 0.
func (a *App) play() tea.Cmd {
	if a.lab.Now() >= a.lab.End() {
		a.lab.Seek(0)
		a.setStatus("from the start")
	}
	a.playing = true
	a.tickGen++
	a.lastTick, a.carry = time.Time{}, 0
	return a.tick()
}

// pause stops the clock. No ticker runs while paused: the stale one that
// may still be in flight is ignored by its generation.
func (a *App) pause() {
	a.playing = false
	a.tickGen++
}

// onTick advances the clock by speed × the wall time since the last frame,
// and stops at the end.
func (a *App) onTick(msg tickMsg) tea.Cmd {
	if !a.playing || msg.gen != a.tickGen {
		return nil
	}
	elapsed := frameInterval
	if !a.lastTick.IsZero() {
		elapsed = min(max(msg.at.Sub(a.lastTick), 0), maxFrameGap)
	}
	a.lastTick = msg.at
	a.advance(time.Duration(float64(elapsed) * speeds[a.speed]))
	if a.lab.Now() >= a.lab.End() {
		a.pause()
		a.setStatus("reached the end · p plays again from 0")
		return nil
	}
	return a.tick()
}

// advance moves the clock forward by d while playing, onto whole
// milliseconds (or whole nanoseconds when the step is finer), carrying the
// rest to the next frame: the numbers on screen then stay exact ("1.254s
// in", not "≈1.254s in") and no time is lost.
func (a *App) advance(d time.Duration) {
	q := time.Duration(1)
	if a.step()%time.Millisecond == 0 {
		q = time.Millisecond
	}
	target := a.lab.Now() + a.carry + d
	aligned := target / q * q
	a.carry = target - aligned
	if aligned > a.lab.Now() {
		a.lab.Seek(aligned)
	}
}
