package model

import (
	"testing"
	"time"
)

// TestStatsForPassagesOutOfArrivalOrder: on racy gateways that each
// shape from a stale copy of the key's state, a key's later request may
// pass before an earlier one (here 6 do, on guava and on nginx); the key's
// peak, extended as the clock moves on, still counts its passages in time
// order.
func TestStatsForPassagesOutOfArrivalOrder(t *testing.T) {
	s := parse(t, `title: t
limiters:
  - {name: guava, algorithm: guava, rate: 2/s, gateways: 3, store: racy, store_latency: 300ms}
  - {name: nginx, algorithm: nginx-limit-req, rate: 2r/s, burst: 50, gateways: 3, store: racy, store_latency: 300ms}
traffic:
  - {at: 0s, count: 30, spread: 3s, key: a}
  - {at: 0s, count: 20, spread: 5s, key: b}
  - {at: 4s, count: 30, spread: 1s, key: a}
`)
	l := newLab(t, s)
	for _, w := range []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, 700 * time.Millisecond, 3 * time.Second} {
		if err := l.SetPeakWindow(w); err != nil {
			t.Fatal(err)
		}
		l.Seek(0)
		testStatsForAlongTheClock(t, l)
	}
}

// testStatsForAlongTheClock moves l's clock on by 250ms steps to the end,
// checking every key's stats in every lane against the key's requests
// decided alone.
func testStatsForAlongTheClock(t *testing.T, l *Lab) {
	t.Helper()
	for now := l.Now(); now <= l.End(); now += 250 * time.Millisecond {
		l.Seek(now)
		for _, key := range []string{"a", "b"} {
			for lane := range l.Lanes() {
				want, peak, at := keyAlone(t, l, lane, key)
				if got := l.StatsFor(lane, key); got != want || got.Peak != peak || got.PeakAt != at {
					t.Fatalf("window %v at %v lane %d key %s: %+v; alone %+v, peak %d at %v", l.PeakWindow(), now, lane, key, got, want, peak, at)
				}
			}
		}
	}
}
