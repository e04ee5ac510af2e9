package algorithms

import "time"

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
