package algorithms

import (
	"testing"
	"time"
)

// TestHeldBytesOfTheNewLanes: a key's state figure counts what the lanes
// beyond the textbook keep beside their struct: the attempt log's attempts
// (rejected ones too) and its admissions, the collapsing log's members (one
// per millisecond, however many admissions collapsed into it), and
// x/time/rate's two limiters.
func TestHeldBytesOfTheNewLanes(t *testing.T) {
	item := sizeOf[logItem]()
	for _, c := range []struct {
		p     Policy
		times []time.Duration
		held  int64 // beyond the struct of an unseen key
	}{
		// 5 attempts, 2 admitted: 5 + 2 entries.
		{Policy{Algorithm: AttemptLog, Limit: 2, Window: sec}, []time.Duration{0, ms, 2 * ms, 3 * ms, 4 * ms}, 7 * item},
		// 3 admissions in one millisecond, one in the next: 2 members.
		{Policy{Algorithm: CollapsingLog, Limit: 10, Window: sec}, []time.Duration{0, 1, 2, ms}, 2 * item},
		{Policy{Algorithm: XTimeRate, Burst: 3, Rate: Rate{1, sec}}, []time.Duration{0, 1}, xtimeratePair},
	} {
		ks := NewKeys()
		l, err := NewWithKeys(c.p, ks)
		if err != nil {
			t.Fatal(err)
		}
		unseen := l.KeyBytes(0, ks.Key("nobody"))
		for _, at := range c.times {
			l.DecideKey(at, ks.Key("k"), 1)
		}
		last := c.times[len(c.times)-1]
		if got := l.KeyBytes(last, ks.Key("k")) - unseen; got != c.held {
			t.Errorf("%v: %d bytes held beside the struct, want %d", c.p, got, c.held)
		}
		// A window later the logs hold nothing any more; x/time/rate
		// keeps its limiters.
		after, want := l.KeyBytes(last+sec, ks.Key("k"))-unseen, int64(0)
		if c.p.Algorithm == XTimeRate {
			want = xtimeratePair
		}
		if after != want {
			t.Errorf("%v: %d bytes held a window after the last request, want %d", c.p, after, want)
		}
	}
}
