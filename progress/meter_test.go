package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock moved by hand, which counts how often it is read.
type fakeClock struct {
	t     time.Time
	reads int
}

func (c *fakeClock) now() time.Time {
	c.reads++
	return c.t
}

func newTestMeter(total int64, terminal bool) (*Meter, *bytes.Buffer, *fakeClock) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	return New(&out, total, terminal, WithClock(clock.now)), &out, clock
}

// updateUntilCheck calls Update with the same counts until the call that
// reads the clock, CheckEvery calls after the last one that did.
func updateUntilCheck(m *Meter, lines, bytes int64) {
	for range CheckEvery {
		m.Update(lines, bytes)
	}
}

func TestNothingWrittenWhenNotATerminal(t *testing.T) {
	m, out, clock := newTestMeter(1<<30, false)
	for i := range int64(10) {
		clock.t = clock.t.Add(time.Second)
		updateUntilCheck(m, i*1000, i<<20)
	}
	m.Done()
	if out.Len() != 0 {
		t.Errorf("wrote %q to a writer that is not a terminal", out.String())
	}
	if clock.reads != 1 {
		t.Errorf("read the clock %d times, want only New's", clock.reads)
	}
}

// The line drawn at chosen instants, percent and time left only when the
// total is known.
func TestLineAtInstants(t *testing.T) {
	const MiB = 1 << 20
	for _, tc := range []struct {
		name         string
		total        int64
		elapsed      time.Duration
		lines, bytes int64
		want         string
	}{
		{"the brief's example", 412 * MiB, 1520 * time.Millisecond, 1_234_567, 210*MiB + 300*1024,
			"1,234,567 lines · 210.3 MiB of 412.0 MiB · 812,000 lines/s · 51% · 2s left"},
		{"unknown total: no percent, no time left", 0, 2 * time.Second, 4096, 700_000,
			"4,096 lines · 683.6 KiB · 2,050 lines/s"},
		{"small counts", 2048, 200 * time.Millisecond, 9, 512,
			"9 lines · 512 B of 2.0 KiB · 45 lines/s · 25% · 1s left"},
		{"minutes left", 10 << 30, 10 * time.Second, 50_000_000, 1 << 30,
			"50,000,000 lines · 1.0 GiB of 10.0 GiB · 5,000,000 lines/s · 10% · 1m30s left"},
		{"hours left", 100 << 30, time.Minute, 1_000_000, 1 << 30,
			"1,000,000 lines · 1.0 GiB of 100.0 GiB · 16,700 lines/s · 1% · 1h39m left"},
		{"past the total (it grew)", MiB, time.Second, 10, 2 * MiB,
			"10 lines · 2.0 MiB of 1.0 MiB · 10 lines/s · 100% · 0s left"},
		{"nothing read yet: no time left", MiB, time.Second, 0, 0,
			"0 lines · 0 B of 1.0 MiB · 0 lines/s · 0%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, out, clock := newTestMeter(tc.total, true)
			clock.t = clock.t.Add(tc.elapsed)
			updateUntilCheck(m, tc.lines, tc.bytes)
			if want := "\r" + tc.want + "\x1b[K"; out.String() != want {
				t.Errorf("drew\n%q\nwant\n%q", out.String(), want)
			}
		})
	}
}

// Update reads the clock once every CheckEvery calls, and draws nothing
// in between.
func TestClockReadOnceEveryCheck(t *testing.T) {
	m, out, clock := newTestMeter(0, true)
	for i := range int64(5 * CheckEvery) {
		clock.t = clock.t.Add(time.Second)
		m.Update(i, i)
	}
	if clock.reads != 1+5 {
		t.Errorf("read the clock %d times in %d updates, want 1 in New and 5", clock.reads, 5*CheckEvery)
	}
	if draws := strings.Count(out.String(), "\r"); draws != 5 {
		t.Errorf("drew %d times, want 5", draws)
	}
}

// However often the clock is read, the line is redrawn at most once an
// Interval.
func TestAtMostOneRedrawPerInterval(t *testing.T) {
	m, out, clock := newTestMeter(0, true)
	const step = 30 * time.Millisecond // between two readings of the clock
	for i := range int64(100 * CheckEvery) {
		if m.calls == CheckEvery-1 { // this call reads the clock
			clock.t = clock.t.Add(step)
		}
		m.Update(i, i)
	}
	// 100 readings 30 ms apart span 3 s: a redraw on every 4th reading,
	// the first 120 ms after New.
	if draws := strings.Count(out.String(), "\r"); draws != 25 {
		t.Errorf("drew %d times in 3 s, want 25 (one every 120 ms)", draws)
	}
}

func TestDoneClears(t *testing.T) {
	m, out, clock := newTestMeter(0, true)
	clock.t = clock.t.Add(time.Second)
	updateUntilCheck(m, 10, 10)
	drawn := out.Len()
	m.Done()
	if got := out.String()[drawn:]; got != "\r\x1b[K" {
		t.Errorf("Done wrote %q, want a return and an erase to the line's end", got)
	}
	clock.t = clock.t.Add(time.Second)
	updateUntilCheck(m, 20, 20)
	m.Done()
	if got := out.String()[drawn:]; got != "\r\x1b[K" {
		t.Errorf("after Done, Update and Done wrote %q in all, want nothing more than the clearing", got)
	}
}

func TestDoneWithoutADrawWritesNothing(t *testing.T) {
	m, out, _ := newTestMeter(0, true)
	m.Update(1, 1) // a read too short to draw
	m.Done()
	if out.Len() != 0 {
		t.Errorf("wrote %q, want nothing: no line was drawn", out.String())
	}
}
