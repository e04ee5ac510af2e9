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

// TestDurationsReadInSeconds: a duration under a millisecond reads as
// every time of the screen does, in seconds to its three first significant
// digits: a rate's interval (GCRA's T, the leaky bucket's pace, redis_rate's
// T), a time in a fixed window and an explanation's elapsed time, never
// "833.333µs" nor "0.000833333s".
func TestDurationsReadInSeconds(t *testing.T) {
	a := newYAMLApp(t, "title: fast\nstep: 1s\nlimiters:\n"+
		"  - {name: gcra, algorithm: gcra, burst: 2, rate: 1200/s}\n"+
		"  - {name: leaky, algorithm: leaky-bucket, queue: 2, rate: 1200/s}\n"+
		"  - {name: redis, algorithm: redis-rate, burst: 2, rate: 1200/s}\n"+
		"  - {name: fixed, algorithm: fixed-window, limit: 500, window: 1s}\n"+
		"  - {name: bucket, algorithm: token-bucket, capacity: 2, rate: 120/min}\n"+
		"traffic:\n  - {at: 1s, count: 3, spread: 2500us}\n", 200, 60)
	seekTo(a, time.Second+2500*time.Microsecond/3)
	requireScreen(t, a, "T ≈0.000833s", "1 per ≈0.000833s", "· ≈0.000833s in", "≈0.000833s × 120/min")
	out := screen(a)
	for _, not := range []string{"µs", "0.000833333s", "0.000833334s"} {
		if strings.Contains(out, not) {
			t.Errorf("the screen shows %q:\n%s", not, out)
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
		{"a number keeps its unit", fit("✓1200 ✗10800 · 28.2 KiB/key", 23), "✓1200 ✗10800…          "},
		{"a number without a unit stays", fit("retry at 60s · peak 120 per 1s", 24), "retry at 60s · peak 120…"},
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

// TestTimeFormSecs: a form writes a time exactly when its decimals hold
// it (or it is under a second and whole microseconds, or under a
// millisecond), else rounded to them with "≈"; the usual form is the
// screen's millisecond, the exact one every digit.
func TestTimeFormSecs(t *testing.T) {
	for _, c := range []struct {
		f    timeForm
		d    time.Duration
		want string
	}{
		{screenForm, 60100 * time.Millisecond, "60.1s"},
		{screenForm, 0, "0s"},
		{screenForm, 60099166666, "≈60.099s"},
		{exactForm, 60*time.Second + 10*time.Microsecond, "60.00001s"},
		{exactForm, 500 * time.Microsecond, "0.0005s"},
		{screenForm, 2500 * time.Millisecond, "2.5s"},
		{4, 60003333333, "≈60.0033s"},
		{4, 60002500000, "60.0025s"},
		{4, 2009500000, "2.0095s"},
		{4, 990500000, "0.9905s"},
		{4, 2009550000, "≈2.0096s"},
		{4, 833333, "≈0.000833s"}, // under a millisecond: three significant digits
		{6, -1500 * time.Microsecond, "-0.0015s"},
	} {
		if got := c.f.secs(c.d); got != c.want {
			t.Errorf("form %d: secs(%v) = %q, want %q", c.f, c.d, got, c.want)
		}
	}
}

// TestFormOf: a lab's screen takes the fewest decimals, from the
// millisecond, at which its requests' instants read apart; every digit
// when it steps under a millisecond.
func TestFormOf(t *testing.T) {
	for _, c := range []struct {
		step, traffic string
		want          timeForm
	}{
		{"100ms", "  - {at: 1s, count: 3, spread: 100ms}\n", screenForm},
		{"100us", "  - {at: 1s, count: 3, spread: 100ms}\n", exactForm},
		{"100ms", "  - {at: 1s, count: 3, spread: 1ms}\n", 4},           // 1s, 1.000333…, 1.000666…
		{"100ms", "  - {at: 1.0001s}\n  - {at: 1.0002s}\n", 4},          // 0.1ms apart
		{"100ms", "  - {at: 1.0005s}\n  - {at: 3s}\n", screenForm},      // off the millisecond, alone
		{"100ms", "  - {at: 1.000001s}\n  - {at: 1.000002s}\n", 6},      // a microsecond apart
		{"100ms", "  - {at: 1.000000001s}\n  - {at: 1s}\n", screenForm}, // a nanosecond is one instant
	} {
		a := newYAMLApp(t, "title: times\nstep: "+c.step+"\nlimiters:\n  - {name: log, algorithm: sliding-log, limit: 2, window: 1s}\n"+
			"traffic:\n"+c.traffic, 120, 40)
		if got := a.form(); got != c.want {
			t.Errorf("step %s, %q: form %d, want %d", c.step, c.traffic, got, c.want)
		}
	}
}

// TestExplainInTheForm: a form writes an explanation's times as it writes
// a time alone (secs), asking algorithms for them at its decimals rather
// than reading the exact text back: a window that starts before 0 reads
// "≈-0.0033s", as secs writes it, not "-≈0.0033s"; counts, a rate's "1s"
// and words are left alone; the usual form is algorithms.ScreenTimes and
// the exact one the command line's text.
func TestExplainInTheForm(t *testing.T) {
	l, err := algorithms.New(algorithms.Policy{Algorithm: algorithms.SlidingLog, Limit: 1, Window: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	l.Decide(0, "k", 1)
	d := l.Decide(time.Minute-10*time.Millisecond/3, "k", 1)
	for _, c := range []struct {
		f    timeForm
		want string
	}{
		{4, "recent = cost admitted in (" + timeForm(4).secs(-10*time.Millisecond/3) + ", ≈59.9967s] = 1; 1 + cost 1 = 2 > limit 1 → rejected; 1 must expire: the admissions up to 0s free 1 at 0s + 60s = 60s; retry after 60s − ≈59.9967s = ≈0.0033s"},
		{screenForm, string(d.AppendExplainTimes(nil, algorithms.ScreenTimes))},
		{exactForm, d.Explain()},
	} {
		if got := c.f.explain(d); got != c.want {
			t.Errorf("form %d:\n got  %s\n want %s", c.f, got, c.want)
		}
	}
	if got := timeForm(4).secs(-10 * time.Millisecond / 3); got != "≈-0.0033s" {
		t.Errorf("secs = %q", got)
	}
}

// TestWhyTimesAsTheHeader: the why panel writes an explanation's times as
// the header writes the clock, in the lab's form: to the fewest decimals
// that tell its requests apart ("≈1.0007s", not "1.000666666s" nor
// "≈1.001s" beside a request at "≈1s"), and with every digit where the
// scenario steps by less than a millisecond, as the clock then does (the
// why panel's heading too, and the boxes: TestBoxTimesTellInstantsApart);
// the command line's exact text is algorithms' (TestExplainTimesEveryAlgorithm).
func TestWhyTimesAsTheHeader(t *testing.T) {
	for _, c := range []struct {
		step      string
		want, not string
	}{
		{"100ms", "admitted in (≈0.000667s, ≈1.0007s]", "1.000666666s"},
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

// TestBoxTimesTellInstantsApart: where requests come 0.1ms apart, a lane
// box writes its verdict's time, its retry and its state's times with the
// digits that tell them apart, as the clock and the why panel do, whether
// the scenario steps under a millisecond or not: two requests 0.1ms apart
// never read as one instant ("≈1s").
func TestBoxTimesTellInstantsApart(t *testing.T) {
	for _, c := range []struct {
		step      string
		want, not []string
	}{
		{"100us", []string{"rejected at 1.0003s · retry at 2.0001s (in 0.9998s)", "oldest leaves at 2.0001s"}, []string{"≈1s", "≈2s"}},
		{"100ms", []string{"rejected at 1.0003s · retry at 2.0001s (in 0.9998s)", "oldest leaves at 2.0001s"}, []string{"≈1s", "≈2s"}},
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

// TestFormFollowsTheClock: a lab of many requests takes its form from the
// requests near the clock, so that a key costs no scan of millions: two
// requests 0.1ms apart at 19.5s ask for 4 decimals there, not at the start.
func TestFormFollowsTheClock(t *testing.T) {
	a := newYAMLApp(t, "title: times\nstep: 100ms\nlimiters:\n  - {name: log, algorithm: sliding-log, limit: 2, window: 1s}\n"+
		"traffic:\n  - {every: 1ms, from: 0s, until: 20s}\n  - {at: 19.5001s}\n", 120, 40)
	if a.lab.Len() < 4*formBlock {
		t.Fatalf("%d requests: too few for blocks apart", a.lab.Len())
	}
	if got := a.form(); got != screenForm {
		t.Errorf("at the start: form %d, want %d", got, screenForm)
	}
	seekTo(a, 19500*time.Millisecond+100*time.Microsecond)
	if got := a.form(); got != 4 {
		t.Errorf("at 19.5001s: form %d, want 4", got)
	}
	requireScreen(t, a, "t = 19.5001s")
}
