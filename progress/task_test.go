package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func newTestTask(total int64, terminal bool) (*Task, *bytes.Buffer, *fakeClock) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)}
	return NewTask(&out, "building the timeline", total, "requests", terminal, WithClock(clock.now)), &out, clock
}

func TestTaskLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		total   int64
		elapsed time.Duration
		done    int64
		want    string
	}{
		{"the package's example", 20_000_000, 400 * time.Millisecond, 8_000_000,
			"building the timeline · 8,000,000 of 20,000,000 requests · 40% · 1s left"},
		{"nothing done yet: no time left", 1000, time.Second, 0,
			"building the timeline · 0 of 1,000 requests · 0%"},
		{"past the total", 1000, time.Second, 1500,
			"building the timeline · 1,500 of 1,000 requests · 100% · 0s left"},
		{"no total: no percent", 0, time.Second, 5,
			"building the timeline · 5 of 0 requests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task, out, clock := newTestTask(tc.total, true)
			clock.t = clock.t.Add(tc.elapsed)
			task.Update(tc.done)
			if want := "\r" + tc.want + "\x1b[K"; out.String() != want {
				t.Errorf("drew\n%q\nwant\n%q", out.String(), want)
			}
		})
	}
}

// A Task reads the clock on every Update but redraws at most once an
// Interval, the first an Interval after NewTask; Done clears a drawn line
// and silences the Task.
func TestTaskRedrawsOnceAnInterval(t *testing.T) {
	task, out, clock := newTestTask(1000, true)
	for i := range int64(100) {
		clock.t = clock.t.Add(30 * time.Millisecond)
		task.Update(i)
	}
	if clock.reads != 101 {
		t.Errorf("read the clock %d times, want 101 (NewTask and each Update)", clock.reads)
	}
	// 100 updates 30 ms apart span 3 s: a redraw every 4th, the first 120 ms after NewTask.
	if draws := strings.Count(out.String(), "\r"); draws != 25 {
		t.Errorf("drew %d times in 3 s, want 25", draws)
	}
	drawn := out.Len()
	task.Done()
	clock.t = clock.t.Add(time.Second)
	task.Update(999)
	task.Done()
	if got := out.String()[drawn:]; got != "\r\x1b[K" {
		t.Errorf("Done and what follows wrote %q, want only the clearing", got)
	}
}

func TestTaskSilentOffATerminalAndWhenShort(t *testing.T) {
	task, out, clock := newTestTask(1000, false)
	clock.t = clock.t.Add(time.Second)
	task.Update(10)
	task.Done()
	short, out2, clock2 := newTestTask(1000, true)
	clock2.t = clock2.t.Add(Interval - time.Millisecond)
	short.Update(1000)
	short.Done()
	if out.Len()+out2.Len() != 0 {
		t.Errorf("wrote %q off a terminal and %q for work shorter than an Interval, want nothing", out, out2)
	}
}

// WithInterval sets the least time between redraws, the first included.
func TestTaskWithInterval(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)}
	task := NewTask(&out, "x", 100, "items", true, WithClock(clock.now), WithInterval(40*time.Millisecond))
	for i := range int64(10) {
		clock.t = clock.t.Add(20 * time.Millisecond)
		task.Update(i)
	}
	if draws := strings.Count(out.String(), "\r"); draws != 5 {
		t.Errorf("drew %d times in 200 ms at one every 40 ms, want 5", draws)
	}
}
