package algorithms

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// The screen's form of a time, at 3 decimals and more: exact where it has
// no more digits (or is small), else "≈" and rounded, halves away from 0.
func TestAppendRoundSeconds(t *testing.T) {
	for _, tt := range []struct {
		d        time.Duration
		near     bool
		decimals int
		want     string
	}{
		{60*sec + 99166666, false, 3, "≈60.099s"},
		{60*sec + 99166666, false, 4, "≈60.0992s"},
		{60*sec + 99166666, false, 9, "60.099166666s"},
		{60*sec + 99166666, true, 9, "≈60.099166666s"}, // a fraction's nearest ns stays ≈
		{99166666, false, 3, "≈0.099s"},
		{59900 * ms, false, 3, "59.9s"},
		{1500 * time.Microsecond, false, 3, "0.0015s"}, // a step of 1.5ms under a second
		{1*sec + 1500*time.Microsecond, false, 3, "≈1.002s"},
		{333, false, 3, "0.000000333s"}, // under a microsecond: every digit
		{333, true, 3, "≈0.000000333s"},
		{833333, false, 3, "≈0.000833s"}, // under a millisecond: three significant digits
		{833333, true, 9, "≈0.000833333s"},
		{833000, true, 3, "≈0.000833s"},
		{2500 * time.Microsecond / 10 * 10, false, 3, "0.0025s"},
		{1*sec + 2500*time.Microsecond, false, 3, "≈1.003s"}, // half away from zero
		{-(1*sec + 2500*time.Microsecond), false, 3, "≈-1.003s"},
		{0, false, 3, "0s"},
	} {
		if got := string(appendRoundSeconds(nil, tt.d, tt.near, tt.decimals)); got != tt.want {
			t.Errorf("appendRoundSeconds(%d, %v, %d) = %q, want %q", tt.d, tt.near, tt.decimals, got, tt.want)
		}
	}
	if got := string(AppendScreenSeconds(nil, 60*sec+99166666)); got != "≈60.099s" {
		t.Errorf("AppendScreenSeconds = %q", got)
	}
}

// An explanation in ScreenTimes is the exact one with each time written as
// the screen writes it: to the millisecond, or with the decimals that tell
// its different times apart, for all its times alike.
func TestExplainScreenTimes(t *testing.T) {
	burst := func(l Limiter, n int, from, every time.Duration) Decision {
		var d Decision
		for i := range n {
			d = l.Decide(from+time.Duration(i)*every, "k", 1)
		}
		return d
	}
	for _, tt := range []struct {
		name        string
		d           func() Decision
		exact, want string
	}{
		{"boundary's sliding log", func() Decision { return boundaryLog(t) },
			"recent = cost admitted in (0.099166666s, 60.099166666s] = 120; 120 + cost 1 = 121 > limit 120 → rejected; 1 must expire: the admissions up to 59.9s free 1 at 59.9s + 60s = 119.9s; retry after 119.9s − 60.099166666s = 59.800833334s",
			"recent = cost admitted in (≈0.099s, ≈60.099s] = 120; 120 + cost 1 = 121 > limit 120 → rejected; 1 must expire: the admissions up to 59.9s free 1 at 59.9s + 60s = 119.9s; retry after 119.9s − ≈60.099s = ≈59.801s"},
		{"whole milliseconds read the same", func() Decision {
			l := mustNew(t, Policy{Algorithm: FixedWindow, Limit: 1, Window: sec})
			return burst(l, 2, 100*ms, 250*ms)
		},
			"window [0s, 1s): count 1 + cost 1 = 2 > limit 1 → rejected; retry after 1s − 0.35s = 0.65s",
			"window [0s, 1s): count 1 + cost 1 = 2 > limit 1 → rejected; retry after 1s − 0.35s = 0.65s"},
		{"two instants a third of a ms apart get a fourth decimal", func() Decision {
			l := mustNew(t, Policy{Algorithm: FixedWindow, Limit: 1, Window: sec})
			burst(l, 1, 0, 0)
			return l.Decide(sec-time.Millisecond/3, "k", 1)
		},
			"window [0s, 1s): count 1 + cost 1 = 2 > limit 1 → rejected; retry after 1s − 0.999666667s = 0.000333333s",
			"window [0s, 1s): count 1 + cost 1 = 2 > limit 1 → rejected; retry after 1s − ≈0.9997s = ≈0.000333s"},
		{"GCRA's fraction of a nanosecond", func() Decision {
			l := mustNew(t, Policy{Algorithm: GCRA, Burst: 1, Rate: Rate{3, sec}})
			return burst(l, 2, sec, 0)
		},
			"new TAT = max(TAT ≈1.333333333s, now 1s) + 1 × ≈0.333333333s = ≈1.666666667s; allow at = ≈1.666666667s − 1 × ≈0.333333333s = ≈1.333333333s > now 1s → rejected; retry after ≈1.333333333s − 1s = 0.333333334s",
			"new TAT = max(TAT ≈1.333s, now 1s) + 1 × ≈0.333s = ≈1.667s; allow at = ≈1.667s − 1 × ≈0.333s = ≈1.333s > now 1s → rejected; retry after ≈1.333s − 1s = ≈0.333s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.d()
			if got := d.Explain(); got != tt.exact {
				t.Errorf("exact:\n got  %s\n want %s", got, tt.exact)
			}
			if got := string(d.AppendExplainTimes(nil, ScreenTimes)); got != tt.want {
				t.Errorf("screen:\n got  %s\n want %s", got, tt.want)
			}
			// After text already in the buffer, which stays as it was.
			if got := string(d.AppendExplainTimes([]byte("why: "), ScreenTimes)); got != "why: "+tt.want {
				t.Errorf("after a prefix:\n got  %s", got)
			}
		})
	}
}

// boundaryLog is boundary's sliding log refusing the last of 120 requests
// spread over 100ms at 59.9s and 120 more at 60s, as the lesson's.
func boundaryLog(t *testing.T) Decision {
	l := mustNew(t, Policy{Algorithm: SlidingLog, Limit: 120, Window: 60 * sec})
	var d Decision
	for _, from := range []time.Duration{59900 * ms, 60 * sec} {
		for i := range time.Duration(120) {
			d = l.Decide(from+i*100*ms/120, "k", 1)
		}
	}
	return d
}

// TimesAt writes an explanation's times at a screen's decimals, with its
// sign before the "≈" as AppendSecondsAt writes a time alone, and with more
// decimals where two of its own times would read the same; at 3 it is
// ScreenTimes, at 9 ExactTimes.
func TestExplainTimesAt(t *testing.T) {
	boundary := func() Decision { return boundaryLog(t) }
	beforeZero := func() Decision { // its window starts before 0
		l := mustNew(t, Policy{Algorithm: SlidingLog, Limit: 1, Window: 60 * sec})
		l.Decide(0, "k", 1)
		return l.Decide(60*sec-10*ms/3, "k", 1)
	}
	apart := func() Decision { // 1s and ≈0.99997s are one at 4 decimals
		l := mustNew(t, Policy{Algorithm: FixedWindow, Limit: 1, Window: sec})
		l.Decide(0, "k", 1)
		return l.Decide(sec-ms/30, "k", 1)
	}
	for _, tt := range []struct {
		d        func() Decision
		decimals int
		want     string
	}{
		{boundary, 4, "recent = cost admitted in (≈0.0992s, ≈60.0992s] = 120; 120 + cost 1 = 121 > limit 120 → rejected; 1 must expire: the admissions up to 59.9s free 1 at 59.9s + 60s = 119.9s; retry after 119.9s − ≈60.0992s = ≈59.8008s"},
		{boundary, 6, "recent = cost admitted in (≈0.099167s, ≈60.099167s] = 120; 120 + cost 1 = 121 > limit 120 → rejected; 1 must expire: the admissions up to 59.9s free 1 at 59.9s + 60s = 119.9s; retry after 119.9s − ≈60.099167s = ≈59.800833s"},
		{beforeZero, 4, "recent = cost admitted in (≈-0.0033s, ≈59.9967s] = 1; 1 + cost 1 = 2 > limit 1 → rejected; 1 must expire: the admissions up to 0s free 1 at 0s + 60s = 60s; retry after 60s − ≈59.9967s = ≈0.0033s"},
		{apart, 4, "window [0s, 1s): count 1 + cost 1 = 2 > limit 1 → rejected; retry after 1s − ≈0.99997s = ≈0.0000333s"},
	} {
		d := tt.d()
		if got := string(d.AppendExplainTimes(nil, TimesAt(tt.decimals))); got != tt.want {
			t.Errorf("at %d decimals:\n got  %s\n want %s", tt.decimals, got, tt.want)
		}
		for _, same := range []struct {
			decimals int
			t        Times
		}{{2, ScreenTimes}, {3, ScreenTimes}, {9, ExactTimes}, {12, ExactTimes}} {
			if got, want := string(d.AppendExplainTimes(nil, TimesAt(same.decimals))), string(d.AppendExplainTimes(nil, same.t)); got != want {
				t.Errorf("TimesAt(%d):\n got  %s\n want %s", same.decimals, got, want)
			}
		}
	}
	for _, c := range []struct {
		d        time.Duration
		decimals int
		want     string
		shown    time.Duration
	}{
		{60*sec + 99166666, 4, "≈60.0992s", 60*sec + 99200000},
		{-3333333, 4, "≈-0.0033s", -3300000},
		{2*sec + 9500*time.Microsecond, 4, "2.0095s", 2*sec + 9500*time.Microsecond},
		{833333, 4, "≈0.000833s", 833000}, // under a millisecond: three significant digits
		{833333, 7, "≈0.0008333s", 833300},
		{33333, 3, "≈0.0000333s", 33300},
		{1500, 3, "0.0000015s", 1500}, // whole microseconds under a second: exact
		{1234, 3, "≈0.00000123s", 1230},
		{999, 3, "0.000000999s", 999},
		{999999, 3, "≈0.001s", time.Millisecond},
		{-833333, 3, "≈-0.000833s", -833000},
	} {
		if got := string(AppendSecondsAt(nil, c.d, c.decimals)); got != c.want {
			t.Errorf("AppendSecondsAt(%d, %d) = %q, want %q", c.d, c.decimals, got, c.want)
		}
		if got := SecondsAt(c.d, c.decimals); got != c.shown {
			t.Errorf("SecondsAt(%d, %d) = %d, want %d", c.d, c.decimals, got, c.shown)
		}
	}
}

// A duration held as a Quantity of nanoseconds reads as a time does, in
// seconds at the decimals, its fraction of a nanosecond marked with "≈".
func TestAppendQuantitySecondsAt(t *testing.T) {
	for _, c := range []struct {
		q        Quantity
		decimals int
		want     string
	}{
		{Quantity{2500000, 3}, 3, "≈0.000833s"}, // GCRA's T at 1200/s
		{Quantity{2500000, 3}, 9, "≈0.000833333s"},
		{Quantity{1000, 3}, 3, "≈0.000000333s"},
		{Quantity{2000, 3}, 3, "≈0.000000667s"}, // the nearest nanosecond, halves up
		{Quantity{1e9, 3}, 3, "≈0.333s"},
		{Quantity{1e9, 3}, 4, "≈0.3333s"},
		{Quantity{5e8, 1}, 3, "0.5s"},
		{Quantity{1e9, 2}, 3, "0.5s"},
		{Quantity{3, 2}, 3, "≈0.000000002s"},
		{Quantity{}, 3, "0s"},
	} {
		if got := string(AppendQuantitySecondsAt(nil, c.q, c.decimals)); got != c.want {
			t.Errorf("AppendQuantitySecondsAt(%d/%d, %d) = %q, want %q", c.q.Num, c.q.Den, c.decimals, got, c.want)
		}
	}
}

// Every explanation of every algorithm (and stack) reads the same in
// ExactTimes as AppendExplain's, byte for byte (the command line's text);
// in ScreenTimes it leaves no mark behind, differs only where a time has
// more than three decimals, and allocates nothing in a reused buffer.
func TestExplainTimesEveryAlgorithm(t *testing.T) {
	var ds []Decision
	for _, a := range Algorithms {
		for _, p := range describedPolicies(a) {
			ds = append(ds, explainTrace(t, mustNew(t, p))...)
			if p.MaxDelay() == 0 {
				ds = append(ds, explainTrace(t, mustStack(t, Layer{Name: "each", Policy: p},
					Layer{Name: "total", Policy: Policy{Algorithm: FixedWindow, Limit: 3, Window: sec}, AllKeys: true}))...)
			}
		}
	}
	var buf []byte
	for _, d := range ds {
		exact := d.Explain()
		if got := string(d.AppendExplainTimes(nil, ExactTimes)); got != exact {
			t.Fatalf("ExactTimes:\n got  %s\n want %s", got, exact)
		}
		buf = d.AppendExplainTimes(buf[:0], ScreenTimes)
		if bytes.IndexByte(buf, timeMark) >= 0 {
			t.Fatalf("a time mark left in %q", buf)
		}
		if !strings.Contains(exact, "≈") && !hasFineTime(exact) && string(buf) != exact {
			t.Fatalf("no time finer than a ms, yet the screen's text differs:\n exact  %s\n screen %s", exact, buf)
		}
	}
	i := 0
	if allocs := testing.AllocsPerRun(len(ds), func() {
		buf = ds[i%len(ds)].AppendExplainTimes(buf[:0], ScreenTimes)
		i++
	}); allocs != 0 {
		t.Errorf("%.2f allocations an explanation in ScreenTimes", allocs)
	}
	// times fills padding: a Decision is no larger than before it.
	if size := unsafe.Sizeof(Decision{}); size > 96 {
		t.Errorf("a Decision takes %d bytes, was 96", size)
	}
}

// hasFineTime reports whether text holds a number of seconds with more than
// three decimals ("0.0991s").
func hasFineTime(text string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '(' || r == '[' || r == ',' }) {
		f = strings.TrimRight(f, ";:)]")
		if i := strings.IndexByte(f, '.'); i >= 0 && strings.HasSuffix(f, "s") {
			digits := strings.TrimSuffix(f[i+1:], "s")
			if len(digits) > 3 {
				return true
			}
		}
	}
	return false
}
