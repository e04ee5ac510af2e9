// Package progress shows the progress of a long read, such as a large
// access log's, on one line of a terminal, rewritten in place:
//
//	1,234,567 lines · 210.3 MiB of 412.0 MiB · 812,000 lines/s · 51% · 3s left
//
// A Meter is told the counts so far on every line read (Update) and
// redraws the line at most ten times a second, reading the clock only
// once every CheckEvery updates so that the per-line cost is a counter's
// increment. When its writer is not a terminal it writes nothing at all,
// so a log piped to a file or another program stays clean.
package progress

import (
	"io"
	"time"
)

// CheckEvery is how many calls to Update pass between two readings of
// the clock: the line can be redrawn only on those calls.
const CheckEvery = 4096

// Interval is the least time between two redraws of the line.
const Interval = 100 * time.Millisecond

// The control sequences the line is drawn with: back to the line's start,
// and erase from the cursor to the line's end (so a shorter line leaves
// nothing of a longer one behind).
const (
	carriageReturn = "\r"
	eraseToEnd     = "\x1b[K"
)

// A Meter draws a read's progress on one line of a terminal. Make one
// with New; it is not safe for concurrent use.
type Meter struct {
	w       io.Writer
	total   int64
	enabled bool // w is a terminal, and Done has not been called
	now     func() time.Time

	start    time.Time
	lastDraw time.Time
	calls    int // Updates since the clock was last read
	lines    int64
	bytes    int64
	drawn    bool // the line is on the screen
	buf      []byte
}

// An Option changes a Meter from its defaults.
type Option func(*Meter)

// WithClock makes the Meter read the time from now instead of time.Now:
// tests pass a clock they move by hand.
func WithClock(now func() time.Time) Option {
	return func(m *Meter) { m.now = now }
}

// New returns a Meter drawing on w the progress of a read of total bytes
// (0 when the size is unknown: then the line shows no percent and no time
// left). isTerminal says whether w is a terminal, which the caller knows
// (IsTerminal tells for a file); when it is false the Meter writes nothing
// at all. New reads the clock once: the rate is counted from then.
func New(w io.Writer, total int64, isTerminal bool, opts ...Option) *Meter {
	m := &Meter{w: w, total: max(total, 0), enabled: isTerminal, now: time.Now}
	for _, o := range opts {
		o(m)
	}
	m.start = m.now()
	m.lastDraw = m.start
	return m
}

// Update records that lines lines and bytes bytes have been read so far
// (totals, not increments), and redraws the line when it is time: on
// every CheckEvery-th call, if Interval has passed since the last redraw
// (or since New, so a read shorter than that shows nothing). Other calls
// only count, cheap enough for every line of a log. bytes should count
// what total counts (the compressed bytes of a gzipped file whose total
// is its size on disk).
func (m *Meter) Update(lines, bytes int64) {
	if !m.enabled {
		return
	}
	m.lines, m.bytes = lines, bytes
	if m.calls++; m.calls < CheckEvery {
		return
	}
	m.calls = 0
	t := m.now()
	if t.Sub(m.lastDraw) < Interval {
		return
	}
	m.lastDraw = t
	m.buf = append(m.buf[:0], carriageReturn...)
	m.buf = appendStatus(m.buf, m.lines, m.bytes, m.total, t.Sub(m.start))
	m.buf = append(m.buf, eraseToEnd...)
	m.w.Write(m.buf) // a progress line that fails to draw must not stop the read
	m.drawn = true
}

// Done clears the line, if one was drawn, leaving the cursor at the start
// of the empty line for what is written next; after it, Update and Done
// write nothing.
func (m *Meter) Done() {
	if m.enabled && m.drawn {
		io.WriteString(m.w, carriageReturn+eraseToEnd)
	}
	m.enabled, m.drawn = false, false
}
