package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestTrailingAdmittedIsTheExactWindow(t *testing.T) {
	s := parse(t, `title: t
limiters:
  - {name: counter, algorithm: sliding-counter, limit: 100, window: 10s}
traffic:
  - {at: 1s, count: 4, key: a}
  - {at: 5s, count: 2, key: a}
  - {at: 6s, count: 7, key: b}
`)
	l := newLab(t, s)
	for _, c := range []struct {
		now  time.Duration
		key  string
		want int64
	}{
		{5 * time.Second, "a", 6},
		{11 * time.Second, "a", 2}, // the 1s requests left at exactly 11s: (1s, 11s]
		{10*time.Second + 999*time.Millisecond, "a", 6},
		{11 * time.Second, "b", 7},
		{11 * time.Second, "nobody", 0},
	} {
		l.Seek(c.now)
		if got := l.TrailingAdmitted(0, c.key, 10*time.Second); got != c.want {
			t.Errorf("at %v key %s: %d, want %d", c.now, c.key, got, c.want)
		}
	}
}

// TestTrailingAdmittedMatchesALoop checks the running sums against a walk
// over the window, through seeks, what-ifs, bursts, undos and a reset.
func TestTrailingAdmittedMatchesALoop(t *testing.T) {
	t.Parallel()
	s := randomScenario(t, 13, 3*CheckpointEvery)
	l := newLab(t, s)
	rng := rand.New(rand.NewPCG(13, 13))
	walk := func(lane int, key string, window time.Duration) int64 {
		var sum int64
		for i := l.Search(l.Now()) - 1; i >= 0 && l.Request(i).At > l.Now()-window; i-- {
			if r := l.Request(i); r.Key == key && l.Outcome(lane, i).Admitted() {
				sum += r.Cost
			}
		}
		return sum
	}
	for step := range rounds(300, 100) {
		switch rng.IntN(6) {
		case 0:
			l.FireBurst("k1", 1, 1+rng.IntN(300))
		case 1:
			l.Undo()
		case 2:
			if step%50 == 0 {
				l.Reset()
			}
		default:
			l.Seek(time.Duration(rng.Int64N(int64(l.End()) + 1)))
		}
		lane := rng.IntN(len(s.Lanes))
		key := []string{"k0", "k1", "k2", "nobody"}[rng.IntN(4)]
		window := time.Duration(1+rng.IntN(5000)) * time.Millisecond
		if got, want := l.TrailingAdmitted(lane, key, window), walk(lane, key, window); got != want {
			t.Fatalf("step %d at %v: lane %d key %s window %v: %d, a walk gives %d", step, l.Now(), lane, key, window, got, want)
		}
	}
}
