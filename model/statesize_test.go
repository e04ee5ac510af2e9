package model

import (
	"testing"
	"time"
)

// TestKeyStateBytes: at the clock, a sliding log's state for a key under
// steady overload grows with its limit (an entry per admission in the
// window) and empties a window after the traffic stops; the counters' and
// the bucket's stay the same whatever their limits. Run's KeyBytes is the
// largest a key reached.
func TestKeyStateBytes(t *testing.T) {
	s := parse(t, `title: t
duration: 3m
limiters:
  - {name: log10, algorithm: sliding-log, limit: 10, window: 60s}
  - {name: log1000, algorithm: sliding-log, limit: 1000, window: 60s}
  - {name: counter10, algorithm: sliding-counter, limit: 10, window: 60s}
  - {name: counter1000, algorithm: sliding-counter, limit: 1000, window: 60s}
  - {name: subs, algorithm: sliding-counter, limit: 1000, window: 60s, sub_windows: 60}
  - {name: bucket, algorithm: token-bucket, capacity: 1000, rate: 1000/min}
traffic:
  - {every: 10ms, until: 90s}
`)
	l := newLab(t, s)
	const entry, logState = 24, 56
	for _, c := range []struct {
		at   time.Duration
		want []int64
	}{
		{0, []int64{logState + entry, logState + entry, 32, 32, 48 + 61*8, 16}}, // the request at 0 is decided
		{90 * time.Second, []int64{logState + 10*entry, logState + 1000*entry, 32, 32, 48 + 61*8, 16}},
		{150*time.Second + time.Millisecond, []int64{logState, logState, 32, 32, 48 + 61*8, 16}},
	} {
		l.Seek(c.at)
		for lane, want := range c.want {
			if got := l.KeyStateBytes(lane, "default"); got != want {
				t.Errorf("at %v lane %s: %d B/key, want %d", c.at, s.Lanes[lane].Name, got, want)
			}
		}
	}
	if got := l.KeyStateBytes(0, "nobody"); got != logState {
		t.Errorf("a key never seen: %d B, want %d", got, logState)
	}
	stats, err := Run(s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for lane, want := range []int64{logState + 10*entry, logState + 1000*entry, 32, 32, 48 + 61*8, 16} {
		if got := stats[lane].KeyBytes; got != want {
			t.Errorf("Run's lane %s: KeyBytes %d, want %d", s.Lanes[lane].Name, got, want)
		}
	}
}

// TestRunMeasuresStateThatRejectionsGrow: the attempt log's state grows
// with the attempts it refuses; the run's largest per-key figure is at
// least what the lab shows at the last request.
func TestRunMeasuresStateThatRejectionsGrow(t *testing.T) {
	s := parse(t, `title: t
limiters:
  - {name: attempts, algorithm: attempt-log, limit: 5, window: 10s}
traffic:
  - {every: 100ms, until: 9s}
`)
	stats, err := Run(s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lab, err := New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	lab.Seek(8900 * time.Millisecond)
	if at := lab.KeyStateBytes(0, "default"); stats[0].KeyBytes < at {
		t.Errorf("the run's largest state %d B is below the lab's %d B at the last request", stats[0].KeyBytes, at)
	}
}
