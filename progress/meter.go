// Package progress shows the progress of a long read, such as a large
// access log's, on one line of a terminal, rewritten in place:
//
//	1,234,567 lines · 210.3 MiB of 412.0 MiB · 812,000 lines/s · 51% · 3s left
//
// A Meter is told the counts so far on every line read (Update) and
// redraws the line at most ten times a second, reading the clock only
// once every CheckEvery updates so that the per-line cost is a counter's
// increment. When its writer is not a terminal it writes nothing at all,
// so a log piped to a file or another program stays clean. A Task shows
// the progress of work counted toward a known total (the explorer's
// timeline being built), told its count every few thousand items.
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
	line
	total int64
	calls int // Updates since the clock was last read
	lines int64
	bytes int64
}

// An Option changes a Meter or a Task from its defaults.
type Option func(*line)

// WithClock makes the Meter or Task read the time from now instead of
// time.Now: tests pass a clock they move by hand.
func WithClock(now func() time.Time) Option {
	return func(l *line) { l.now = now }
}

// WithInterval makes the line redraw at most once every d, the first d
// after it is made, instead of once an Interval.
func WithInterval(d time.Duration) Option {
	return func(l *line) { l.interval = d }
}

// New returns a Meter drawing on w the progress of a read of total bytes
// (0 when the size is unknown: then the line shows no percent and no time
// left). isTerminal says whether w is a terminal, which the caller knows
// (IsTerminal tells for a file); when it is false the Meter writes nothing
// at all. New reads the clock once: the rate is counted from then.
func New(w io.Writer, total int64, isTerminal bool, opts ...Option) *Meter {
	m := &Meter{total: max(total, 0)}
	m.line.start(w, isTerminal, opts)
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
	if t, due := m.due(); due {
		m.buf = appendStatus(m.begin(), m.lines, m.bytes, m.total, t.Sub(m.began))
		m.end(t)
	}
}

// Done clears the line, if one was drawn, leaving the cursor at the start
// of the empty line for what is written next; after it, Update and Done
// write nothing.
func (m *Meter) Done() { m.clear() }

// line is the one line of a terminal a Meter or a Task draws on: it is
// redrawn in place at most once an interval (Interval unless WithInterval
// says otherwise), and cleared when the work is done.
type line struct {
	w        io.Writer
	enabled  bool // w is a terminal, and the line has not been cleared
	now      func() time.Time
	interval time.Duration // the least time between two redraws

	began    time.Time
	lastDraw time.Time
	drawn    bool // the line is on the screen
	buf      []byte
}

// start readies the line on w, reading the clock once: rates are counted
// from then, and the first redraw is an interval later.
func (l *line) start(w io.Writer, isTerminal bool, opts []Option) {
	l.w, l.enabled, l.now, l.interval = w, isTerminal, time.Now, Interval
	for _, o := range opts {
		o(l)
	}
	l.began = l.now()
	l.lastDraw = l.began
}

// due reads the clock and says whether an interval has passed since the
// last redraw.
func (l *line) due() (time.Time, bool) {
	t := l.now()
	return t, t.Sub(l.lastDraw) >= l.interval
}

// begin is the buffer, emptied, with the return to the line's start.
func (l *line) begin() []byte { return append(l.buf[:0], carriageReturn...) }

// end draws the buffer, its status appended after begin, at t.
func (l *line) end(t time.Time) {
	l.lastDraw = t
	l.buf = append(l.buf, eraseToEnd...)
	l.w.Write(l.buf) // a progress line that fails to draw must not stop the work
	l.drawn = true
}

// clear erases the line, if one was drawn; after it nothing is drawn.
func (l *line) clear() {
	if l.enabled && l.drawn {
		io.WriteString(l.w, carriageReturn+eraseToEnd)
	}
	l.enabled, l.drawn = false, false
}
