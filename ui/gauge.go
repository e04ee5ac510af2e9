package ui

import (
	"math"
	"strings"

	"ratelab/algorithms"
)

// eighths are the left-aligned partial blocks: a gauge moves by an eighth of
// a cell, so a refilling bucket grows smoothly while the clock runs.
var eighths = [8]string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// gauge draws frac (clamped to [0, 1]) of width cells between [ and ]. It
// rounds down, so a gauge looks full only when it is full. frac comes from
// Quantity.Float64: it draws, it never decides.
func gauge(st *styles, frac float64, width int) string {
	if width < 1 {
		return ""
	}
	frac = min(max(frac, 0), 1)
	n := int(frac * float64(width*8))
	full, part := n/8, n%8
	var b strings.Builder
	b.WriteString(strings.Repeat("█", full))
	b.WriteString(eighths[part])
	rest := width - full
	if part > 0 {
		rest--
	}
	return st.track.Render("[") + st.gauge.Render(b.String()) + strings.Repeat(" ", rest) + st.track.Render("]")
}

// levels draw how much of a sliding log's window one cell of its strip holds.
var levels = [9]string{" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"}

// logStrip draws the interval (now − window, now] in width cells with the
// log's admissions where they happened, each cell's height its share of the
// busiest cell's cost: the learner sees the log slide and the old entries
// fall off its left end.
func logStrip(st *styles, s algorithms.SlidingLogSnapshot, width int) string {
	if width < 1 || s.Window <= 0 {
		return ""
	}
	cells := make([]int64, width)
	from := s.Now - s.Window
	var busiest int64
	for _, e := range s.Entries {
		// The entry's offset lies in (0, window]: cell ⌈offset/window × width⌉ − 1.
		c := int(math.Ceil(float64(e.At-from)/float64(s.Window)*float64(width))) - 1
		c = min(max(c, 0), width-1)
		cells[c] += e.Cost
		busiest = max(busiest, cells[c])
	}
	var b strings.Builder
	for _, v := range cells {
		switch {
		case v == 0:
			b.WriteString("·")
		default:
			b.WriteString(levels[max(1, int(v*8/busiest))])
		}
	}
	return st.track.Render("(") + st.gauge.Render(b.String()) + st.track.Render("]")
}

// slots draws a leaky bucket's queue as one cell per slot, ■ taken and □
// free, when the queue fits in width; else a gauge.
func slots(st *styles, waiting, queue int64, width int) string {
	if queue > int64(width) || queue <= 0 {
		return gauge(st, fraction(waiting, queue), width-2)
	}
	taken := min(waiting, queue)
	return st.gauge.Render(strings.Repeat("■", int(taken))) + st.track.Render(strings.Repeat("□", int(queue-taken)))
}
