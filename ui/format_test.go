package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ratelab/algorithms"
)

func TestSecs(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1500 * time.Millisecond, "1.5s"},
		{59*time.Second + 999*time.Millisecond + 166666, "≈59.999s"},
		{500 * time.Microsecond, "0.0005s"},
		{1500 * time.Microsecond, "0.0015s"},
		{999*time.Millisecond + 1, "≈0.999s"},
		{333333334, "≈0.333s"},
		{1, "0.000000001s"},
		{-250 * time.Microsecond, "-0.00025s"},
		{time.Second + 1, "≈1s"},
	} {
		if got := secs(c.d); got != c.want {
			t.Errorf("secs(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestSubMillisecondStep: a scenario stepping 250µs labels its step and its
// timeline exactly, not "≈0s".
func TestSubMillisecondStep(t *testing.T) {
	a := newYAMLApp(t, "title: fine\nstep: 250us\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1000/s}\ntraffic:\n  - {every: 500us, until: 20ms}\n", 120, 40)
	requireScreen(t, a, "steps 0.00025s", "0.00025s/column")
	if out := screen(a); strings.Contains(out, "≈0s") {
		t.Errorf("the screen shows ≈0s:\n%s", out)
	}
}

func TestQuantityDuration(t *testing.T) {
	for _, c := range []struct {
		q    algorithms.Quantity
		want string
	}{
		{algorithms.Quantity{Num: 1000, Den: 3}, "≈333ns"},
		{algorithms.Quantity{Num: 2500000, Den: 3}, "≈833.333µs"},
		{algorithms.Quantity{Num: 1e9, Den: 3}, "≈0.333s"},
		{algorithms.Quantity{Num: 5e8, Den: 1}, "0.5s"},
		{algorithms.Quantity{Num: 0, Den: 0}, "0s"},
	} {
		if got := quantityDuration(c.q); got != c.want {
			t.Errorf("quantityDuration(%v/%v) = %q, want %q", c.q.Num, c.q.Den, got, c.want)
		}
	}
}

// TestCutsEndAtAWord: a text shortened to fit (fit, wrap, wrapMore) ends
// at the end of a word with its mark, never inside one, unless its first
// word alone is longer than a third of the width; its styles are kept.
func TestCutsEndAtAWord(t *testing.T) {
	for _, c := range []struct {
		name, got, want string
	}{
		{"fit", fit("the admissions up to 0s free one", 20), "the admissions up…  "},
		{"fit at a space", fit("the admissions up to", 15), "the admissions…"},
		{"fit fits", fit("short", 8), "short   "},
		{"fit one long word", fit("rl:v1:{bucket:alice-and-bob}", 12), "rl:v1:{buck…"},
		{"fit styled", ansi.Strip(fit("\x1b[1mbold words\x1b[0m and more", 14)), "bold words…   "},
		{"wrap", strings.Join(wrap("one two three four five six seven", 10, 2), "|"), "one two|three …"},
		{"wrapMore", strings.Join(wrapMore("the log must wait for the oldest admission to leave its window", 30, 2), "|"),
			"the log must wait for the|oldest … (e: read all)"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
	if got := fit("\x1b[1mbold words\x1b[0m and more", 14); !strings.Contains(got, "\x1b[1m") {
		t.Errorf("fit dropped the style: %q", got)
	}
}

// TestClockText: the header's clock is written as every other time on the
// screen, and a step under a millisecond shows every digit it moves.
func TestClockText(t *testing.T) {
	for _, c := range []struct {
		now, step time.Duration
		want      string
	}{
		{60100 * time.Millisecond, 100 * time.Millisecond, "60.1s"},
		{0, 100 * time.Millisecond, "0s"},
		{60099166666, 100 * time.Millisecond, "≈60.099s"},
		{60*time.Second + 10*time.Microsecond, 10 * time.Microsecond, "60.00001s"},
		{500 * time.Microsecond, 10 * time.Microsecond, "0.0005s"},
		{2500 * time.Millisecond, 250 * time.Millisecond, "2.5s"},
	} {
		if got := clockText(c.now, c.step); got != c.want {
			t.Errorf("clockText(%v, step %v) = %q, want %q", c.now, c.step, got, c.want)
		}
	}
}

// TestWhyTimesAsTheHeader: the why panel writes an explanation's times as
// the header writes the clock, to the millisecond ("≈1.001s", not
// "1.000666666s"), and with every digit where the scenario steps by less
// than a millisecond, as the clock then does (the why panel's heading
// too, and the boxes: TestBoxTimesTellInstantsApart); the command line's exact
// text is algorithms' (TestExplainTimesEveryAlgorithm).
func TestWhyTimesAsTheHeader(t *testing.T) {
	for _, c := range []struct {
		step      string
		want, not string
	}{
		{"100ms", "admitted in (0.000666666s, ≈1.001s]", "1.000666666s"},
		{"100us", "admitted in (0.000666666s, 1.000666666s]", "request at ≈1.001s"},
	} {
		a := newYAMLApp(t, "title: times\nstep: "+c.step+"\nlimiters:\n  - {name: log, algorithm: sliding-log, limit: 2, window: 1s}\n"+
			"traffic:\n  - {at: 1s, count: 3, spread: 1ms}\n", 120, 40)
		a.lab.Seek(a.lab.End())
		requireScreen(t, a, c.want)
		if out := screen(a); strings.Contains(out, c.not) {
			t.Errorf("step %s: the screen shows %s:\n%s", c.step, c.not, out)
		}
	}
}

// TestBoxTimesTellInstantsApart: in a scenario stepping under a
// millisecond, a lane box writes its verdict's time, its retry and its
// state's times with every digit, as the clock and the why panel do, so
// that two requests 0.1ms apart do not read as one instant ("≈1.001s");
// stepping by whole milliseconds they keep the screen's millisecond.
func TestBoxTimesTellInstantsApart(t *testing.T) {
	for _, c := range []struct {
		step      string
		want, not []string
	}{
		{"100us", []string{"rejected at 1.0003s · retry at 2.0001s (in 0.9998s)", "oldest leaves at 2.0001s"}, []string{"≈1s", "≈2s"}},
		{"100ms", []string{"rejected at ≈1s · retry at ≈2s", "oldest leaves at ≈2s"}, nil},
	} {
		a := newYAMLApp(t, "title: times\nstep: "+c.step+"\nlimiters:\n  - {name: log, algorithm: sliding-log, limit: 2, window: 1s}\n"+
			"traffic:\n  - {at: 1.0001s}\n  - {at: 1.0002s}\n  - {at: 1.0003s}\n", 120, 40)
		a.lab.Seek(1000300 * time.Microsecond)
		requireScreen(t, a, c.want...)
		out := screen(a)
		for _, n := range c.not {
			if strings.Contains(out, n) {
				t.Errorf("step %s: the screen shows %q:\n%s", c.step, n, out)
			}
		}
	}
}

// TestLessonInstantsTellApart: collapsing-members' requests come 0.5ms
// apart, so its screen writes every time with the digits that tell them
// apart, one format for the clock, the boxes and the why panel: the
// request at 2.0095s and its retry 0.9905s later, never "≈2.01s" beside
// "0.9905s".
func TestLessonInstantsTellApart(t *testing.T) {
	a := newTestApp(t, "collapsing-members", 80, 24)
	a.lab.Seek(2010 * time.Millisecond)
	requireScreen(t, a, "request at 2.0095s", "(1.0095s, 2.0095s]", "3s − 2.0095s = 0.9905s")
	if out := screen(a); strings.Contains(out, "≈2.01s") {
		t.Errorf("the screen rounds a request's instant to ≈2.01s:\n%s", out)
	}
}
