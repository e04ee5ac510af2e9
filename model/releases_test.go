package model

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// TestReleasedMatchesALoop compares Released with a walk over the decided
// requests, for random ranges (before, around and after Now), through seeks,
// steps inside instants, what-ifs, undos and resets.
func TestReleasedMatchesALoop(t *testing.T) {
	t.Parallel()
	for _, s := range []*scenarios.Scenario{
		randomTraffic(t, 21, 3*CheckpointEvery, shapers, 2),
		burstTraffic(t, 22, 2*CheckpointEvery, shapers, 2),
		burstTraffic(t, 23, CheckpointEvery, allSix, 3),
	} {
		l := newLab(t, s)
		rng := rand.New(rand.NewPCG(21, 21))
		// walk counts over a fresh run of the timeline as it stands.
		var recs []Record
		gen := uint64(0)
		walk := func(lane int, from, to time.Duration) int64 {
			if gen != l.engine.gen {
				recs = freshRun(t, l)
				gen = l.engine.gen
			}
			var n int64
			for i := range l.Pos() {
				r := recs[i*len(s.Lanes)+lane]
				if at := r.Request.At + r.Decision.Delay; r.Decision.Outcome == algorithms.Delayed && from <= at && at < to {
					n++
				}
			}
			return n
		}
		for step := range rounds(150, 50) {
			switch rng.IntN(8) {
			case 0:
				l.FireBurst("k1", 1, 1+rng.IntN(300))
			case 1:
				l.Undo()
			case 2:
				if step%40 == 0 {
					l.Reset()
				}
			case 3, 4:
				l.SeekPos(rng.IntN(l.Len() + 1))
			default:
				l.Seek(time.Duration(rng.Int64N(int64(l.End()) + 1)))
			}
			for range 4 {
				lane := rng.IntN(len(s.Lanes))
				from := l.Now() + time.Duration(rng.Int64N(int64(6*time.Second))) - 3*time.Second
				to := from + time.Duration(rng.Int64N(int64(2*time.Second)))
				switch rng.IntN(10) {
				case 0:
					from, to = 0, l.End()+time.Hour
				case 1, 2, 3: // bounds on releases, to catch an off-by-one
					walk(lane, 0, 0)
					if len(recs) > 0 {
						a, b := recs[rng.IntN(len(recs))], recs[rng.IntN(len(recs))]
						from, to = a.Request.At+a.Decision.Delay, b.Request.At+b.Decision.Delay
					}
				}
				if got, want := l.Released(lane, from, to), walk(lane, from, to); got != want {
					t.Fatalf("%s step %d at %v (pos %d): lane %d released in [%v, %v): %d, a walk gives %d",
						s.Title, step, l.Now(), l.Pos(), lane, from, to, got, want)
				}
			}
		}
	}
}

// TestReleasedShowsTheShapersPace: a burst of 11 into a leaky bucket of
// queue 10 at 2/s comes out one every half second, including the releases
// still ahead of the clock; the token bucket releases nothing.
func TestReleasedShowsTheShapersPace(t *testing.T) {
	s := parse(t, `title: t
limiters:
  - {name: policer, algorithm: token-bucket, capacity: 10, rate: 2/s}
  - {name: shaper,  algorithm: leaky-bucket, queue: 10,    rate: 2/s}
traffic:
  - {at: 0s, count: 11}
`)
	l := newLab(t, s)
	half := 500 * time.Millisecond
	for _, c := range []struct {
		pos      int
		from, to time.Duration
		want     int64
	}{
		{11, 0, 5 * time.Second, 9},                // releases at 0.5s … 4.5s: the first went at once
		{11, 0, 5*time.Second + 1, 10},             // … and 5s
		{11, half, half + 1, 1},                    // one per half second
		{11, half + 1, 2 * half, 0},                // none between
		{11, 5 * time.Second, 10 * time.Second, 1}, // 5s itself
		{3, 0, time.Hour, 2},                       // only the decided requests: the 2nd and 3rd
		{0, 0, time.Hour, 0},
		{11, time.Second, time.Second, 0}, // an empty range
		{11, 2 * time.Second, time.Second, 0},
	} {
		l.SeekPos(c.pos)
		if got := l.Released(1, c.from, c.to); got != c.want {
			t.Errorf("pos %d: shaper released in [%v, %v): %d, want %d", c.pos, c.from, c.to, got, c.want)
		}
		if got := l.Released(0, c.from, c.to); got != 0 {
			t.Errorf("the token bucket released %d", got)
		}
	}
}

// manyKeysShaper is n requests, one a millisecond, from 200 keys in turn
// (each at 5/s), into the six algorithms: the shaper delays a good part of
// them (2/s a key), so that its releases are spread over every block.
func manyKeysShaper(b testing.TB, n int) *scenarios.Scenario {
	var sb strings.Builder
	sb.WriteString("title: many keys\nlimiters:\n" +
		"  - {name: fixed,   algorithm: fixed-window,    limit: 120, window: 60s}\n" +
		"  - {name: log,     algorithm: sliding-log,     limit: 120, window: 60s}\n" +
		"  - {name: counter, algorithm: sliding-counter, limit: 120, window: 60s}\n" +
		"  - {name: bucket,  algorithm: token-bucket,    capacity: 10, rate: 2/s}\n" +
		"  - {name: gcra,    algorithm: gcra,            burst: 10,    rate: 2/s}\n" +
		"  - {name: shaper,  algorithm: leaky-bucket,    queue: 10,    rate: 2/s}\ntraffic:\n")
	const keys = 200
	for k := range keys {
		fmt.Fprintf(&sb, "  - {every: %dms, from: %dms, until: %dms, key: k%d}\n", keys, k, n, k)
	}
	s, err := scenarios.Parse("many.yaml", []byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkReleasedFrame is one frame's worth of Released calls: 150
// timeline columns over a 100,000-request timeline, zoomed out to the whole
// run and zoomed in around the clock, in the million-request scenario's
// lanes: one key, 200 keys (a good part of the requests delayed), and every
// request at one instant (every block within the shaper's reach).
func BenchmarkReleasedFrame(b *testing.B) {
	data, err := os.ReadFile("../tools/million.yaml")
	if err != nil {
		b.Fatal(err)
	}
	one := parse(b, strings.Replace(string(data), "until: 1000s", "until: 100s", 1))
	for _, c := range []struct {
		name string
		s    *scenarios.Scenario
	}{
		{"one key", one},
		{"200 keys", manyKeysShaper(b, 100_000)},
		{"one instant", parse(b, strings.Replace(string(data), "every: 1ms, until: 1000s", "at: 1s, count: 100000", 1))},
	} {
		l := newLab(b, c.s)
		if l.Len() != 100_000 {
			b.Fatalf("%d requests", l.Len())
		}
		lane := len(c.s.Lanes) - 1
		l.Seek(l.End())
		l.Seek(l.Request(l.Len() * 2 / 3).At)
		for _, span := range []time.Duration{l.End(), 10 * time.Second} {
			b.Run(fmt.Sprintf("%s/span %s", c.name, span), func(b *testing.B) {
				const cols = 150
				from := max(0, l.Now()-span/2)
				if span == l.End() {
					from = 0
				}
				dt := span / cols
				var n int64
				for b.Loop() {
					for c := range cols {
						n += l.Released(lane, from+time.Duration(c)*dt, from+time.Duration(c+1)*dt)
					}
				}
				if n == 0 {
					b.Fatal("nothing released")
				}
			})
		}
	}
}
