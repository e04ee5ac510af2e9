package progress

import (
	"io"
	"strconv"
	"time"
)

// A Task draws the progress of work counted toward a known total on one
// line of a terminal, rewritten in place:
//
//	building the timeline · 8,000,000 of 20,000,000 requests · 40% · 1s left
//
// Unlike a Meter it reads the clock on every Update, so it is told the
// count every few thousand items, not every item; it redraws at most once
// an Interval (or WithInterval's), and draws nothing for work shorter than
// that. It writes
// nothing at all when its writer is not a terminal. Make one with
// NewTask; it is not safe for concurrent use.
type Task struct {
	line
	what, unit string
	total      int64
}

// NewTask returns a Task drawing on w the progress of what ("building the
// timeline") over total items named unit ("requests"). isTerminal says
// whether w is a terminal; when it is false the Task writes nothing.
// NewTask reads the clock once: the time left is counted from then.
func NewTask(w io.Writer, what string, total int64, unit string, isTerminal bool, opts ...Option) *Task {
	t := &Task{what: what, unit: unit, total: max(total, 0)}
	t.line.start(w, isTerminal, opts)
	return t
}

// Update records that done of the total items are done, and redraws the
// line if an interval (Interval, or WithInterval's) has passed since the
// last redraw (or since NewTask).
func (t *Task) Update(done int64) {
	if !t.enabled {
		return
	}
	if now, due := t.due(); due {
		t.buf = appendTask(t.begin(), t.what, done, t.total, t.unit, now.Sub(t.began))
		t.end(now)
	}
}

// Done clears the line, if one was drawn, leaving the cursor at the start
// of the empty line; after it, Update and Done write nothing.
func (t *Task) Done() { t.clear() }

// appendTask appends a Task's status: what, the count of the total, the
// percent, and the time left at the rate so far (left out before any item
// is done or any time has passed).
func appendTask(b []byte, what string, done, total int64, unit string, elapsed time.Duration) []byte {
	b = append(b, what...)
	b = append(b, separator...)
	b = appendGrouped(b, done)
	b = append(b, " of "...)
	b = appendGrouped(b, total)
	b = append(b, ' ')
	b = append(b, unit...)
	if total <= 0 {
		return b
	}
	done = min(done, total)
	b = append(b, separator...)
	b = strconv.AppendInt(b, done*100/total, 10)
	b = append(b, '%')
	if secs := elapsed.Seconds(); done > 0 && secs > 0 {
		b = append(b, separator...)
		b = appendLeft(b, float64(total-done)/(float64(done)/secs))
		b = append(b, " left"...)
	}
	return b
}
