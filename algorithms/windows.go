package algorithms

import (
	"fmt"
	"time"
	"unsafe"
)

// windowCounts is the state of a fixed window and of a sliding counter: the
// admitted cost in the current window, aligned to t = 0, and in the one
// before it.
type windowCounts struct {
	win       int64 // index of the current window: ⌊last / Window⌋
	cur, prev int64 // admitted cost in windows win and win − 1
	last      time.Duration
}

func startWindow(now, window time.Duration) windowCounts {
	return windowCounts{win: floorDiv(int64(now), int64(window)), last: now}
}

// roll moves s to the window holding now (≥ s.last): the current count
// becomes the previous one when now is in the next window, and both are
// zero when a whole window passed with nothing admitted.
func (s windowCounts) roll(now, window time.Duration) windowCounts {
	w := floorDiv(int64(now), int64(window))
	switch {
	case w == s.win+1:
		s.prev, s.cur = s.cur, 0
	case w != s.win:
		s.prev, s.cur = 0, 0
	}
	s.win, s.last = w, now
	return s
}

// windowCur, windowPrev and windowLast are bits for a windowCounts'
// words, as a stack records them (see recordedWords). Its fourth, win, is
// never recorded: it is the window of last, worked out again
// (rebuildWindow).
var (
	windowCur  = wordBit(unsafe.Offsetof(windowCounts{}.cur))
	windowPrev = wordBit(unsafe.Offsetof(windowCounts{}.prev))
	windowLast = wordBit(unsafe.Offsetof(windowCounts{}.last))
)

// rebuildWindow works out s.win again from s.last, as startWindow and
// roll keep it: the window of the last request.
func rebuildWindow(s *windowCounts, window time.Duration) {
	s.win = floorDiv(int64(s.last), int64(window))
}

// windowCountsForm is the fixed window's and the two-window sliding
// counter's state: count, the cost admitted in the window holding last
// (window number ⌊last / window⌋, aligned to t = 0); prev, the cost
// admitted in the window before that one; last, the time of the latest
// request in ns (a late request is decided at it). The window's number is
// not kept: last gives it. The fixed window decides on count alone; prev is
// what its picture shows beside it.
var windowCountsForm = StateForm{Fields: []string{"count", "prev", "last"}}

func (s *windowCounts) encode() State {
	return State{Fields: []int64{s.cur, s.prev, int64(s.last)}}
}

// decodeWindowCounts is the state st stands for under p, or why it cannot
// be one: a count below 0 or above the limit, a previous window before t =
// 0 with a count, or a state fits rejects (the sliding counter's estimate
// at last above the limit: every admission keeps it at most the limit, and
// it never rises with time).
func decodeWindowCounts(st State, p *Policy, fits func(cur, prev, e, cost int64) bool) (windowCounts, error) {
	s := windowCounts{cur: st.Fields[0], prev: st.Fields[1], last: time.Duration(st.Fields[2])}
	if s.cur < 0 || s.cur > p.Limit || s.prev < 0 || s.prev > p.Limit || s.last < 0 {
		return s, fmt.Errorf("%s state %v out of range: counts from 0 to the limit %d, last ≥ 0", p.Algorithm, st.Fields, p.Limit)
	}
	w := int64(p.Window)
	s.win = floorDiv(int64(s.last), w)
	if s.win == 0 && s.prev != 0 {
		return s, fmt.Errorf("%s state %v: a previous window's count at %s, in the first window", p.Algorithm, st.Fields, FormatSeconds(s.last))
	}
	if fits != nil && !fits(s.cur, s.prev, int64(s.last)-s.win*w, 0) {
		return s, fmt.Errorf("%s state %v: the estimate at %s is above the limit %d", p.Algorithm, st.Fields, FormatSeconds(s.last), p.Limit)
	}
	return s, nil
}
