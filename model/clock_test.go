package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"ratelab/scenarios"
)

func TestSeekClampsToTheAxis(t *testing.T) {
	s := randomScenario(t, 8, 50)
	l := newLab(t, s)
	l.Seek(-time.Hour)
	if l.Now() != 0 {
		t.Fatalf("seek before 0 gave %v", l.Now())
	}
	l.Seek(l.End() + time.Hour)
	if l.Now() != l.End() {
		t.Fatalf("seek past the end gave %v, want %v", l.Now(), l.End())
	}
	if _, ok := l.LastDecision(0); !ok {
		t.Fatal("no last decision at the end")
	}
	l.Seek(0)
	if l.Request(0).At == 0 {
		if _, ok := l.LastDecision(0); !ok {
			t.Fatal("a request at 0 is decided at 0")
		}
	}
}

func TestSeekPosMatchesAFreshRunInsideEveryInstant(t *testing.T) {
	t.Run("all six", func(t *testing.T) {
		t.Parallel()
		seekPosMatchesAFreshRun(t, burstTraffic(t, 1, 2*CheckpointEvery+300, allSix, 3))
	})
	t.Run("shapers", func(t *testing.T) {
		t.Parallel()
		seekPosMatchesAFreshRun(t, burstTraffic(t, 2, CheckpointEvery+300, shapers, 2))
	})
}

// seekPosMatchesAFreshRun decides every prefix of the timeline in turn
// (under -short, looks at every third and the whole), reached by SeekPos
// after a random detour, and compares the lab with fresh limiters that
// decided the same requests: position, clock, instant, stats, snapshots,
// last decisions and trailing sums.
func seekPosMatchesAFreshRun(t *testing.T, s *scenarios.Scenario) {
	l := newLab(t, s)
	all, _ := reference(t, s, 0)
	lanes := len(s.Lanes)
	fresh, err := newLanes(LanesOf(s), l.PeakWindow(), nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for p := 0; p <= l.Len(); p++ {
		if p > 0 {
			r := l.Request(p - 1)
			fresh.arrive(r, p-1)
			for lane := range lanes {
				fresh.decide(lane, r)
			}
		}
		if testing.Short() && p%3 != 0 && p != l.Len() {
			continue
		}
		switch rng.IntN(8) { // a detour, so that some positions are reached from elsewhere
		case 0:
			l.Seek(time.Duration(rng.Int64N(int64(l.End()) + 1)))
		case 1:
			l.SeekPos(rng.IntN(l.Len() + 1))
		}
		l.SeekPos(p)
		if l.Pos() != p {
			t.Fatalf("SeekPos(%d): Pos %d", p, l.Pos())
		}
		now := l.Request(max(p-1, 0)).At
		if l.Now() != now {
			t.Fatalf("SeekPos(%d): clock at %v, want %v", p, l.Now(), now)
		}
		var k, m int
		for i := 0; i < l.Len(); i++ {
			if l.Request(i).At == now {
				m++
				if i < p {
					k++
				}
			}
		}
		if gk, gm := l.Instant(); gk != k || gm != m {
			t.Fatalf("SeekPos(%d): instant %d of %d, want %d of %d", p, gk, gm, k, m)
		}
		for lane := range lanes {
			want := fresh.statsAt(lane, now)
			if got := l.Stats(lane); got != want {
				t.Fatalf("SeekPos(%d) lane %d: stats %+v, fresh %+v", p, lane, got, want)
			}
			if p%97 == 0 { // and the peak against a sort and sweep, now and then
				if peak, at := referencePeak(all[:p*lanes], lane, l.PeakWindow(), now); peak != want.Peak || at != want.PeakAt {
					t.Fatalf("SeekPos(%d) lane %d: peak %d at %v, reference %d at %v", p, lane, want.Peak, want.PeakAt, peak, at)
				}
			}
			rec, ok := l.LastDecision(lane)
			if ok != (p > 0) {
				t.Fatalf("SeekPos(%d): last decision %v", p, ok)
			}
			if ok {
				ref := all[(p-1)*lanes+lane]
				if rec.Index != p-1 || rec.Decision.Explain() != ref.Decision.Explain() {
					t.Fatalf("SeekPos(%d) lane %d: last decision %d %q, fresh %q", p, lane, rec.Index, rec.Decision.Explain(), ref.Decision.Explain())
				}
			}
			for _, key := range l.Keys() {
				if got, want := fmt.Sprint(l.Snapshot(lane, key)), fmt.Sprint(fresh.limiters[lane].Snapshot(now, key)); got != want {
					t.Fatalf("SeekPos(%d) lane %d key %s: snapshot %s, fresh %s", p, lane, key, got, want)
				}
				var sum int64
				for i := p - 1; i >= 0 && l.Request(i).At > now-time.Second; i-- {
					if r := all[i*lanes+lane]; r.Request.Key == key && r.Decision.Outcome.Admitted() {
						sum += r.Request.Cost
					}
				}
				if got := l.TrailingAdmitted(lane, key, time.Second); got != sum {
					t.Fatalf("SeekPos(%d) lane %d key %s: trailing %d, want %d", p, lane, key, got, sum)
				}
			}
		}
		if p%13 != 0 {
			continue
		}
		for _, key := range l.Keys() { // key outside: LastDecisionFor caches one key
			want := -1
			for i := p - 1; i >= 0; i-- {
				if l.Request(i).Key == key {
					want = i
					break
				}
			}
			for lane := range lanes {
				got, ok := l.LastDecisionFor(lane, key)
				switch {
				case ok != (want >= 0):
					t.Fatalf("SeekPos(%d) key %s: last decision %v, want %d", p, key, ok, want)
				case ok && (got.Index != want || got.Decision.Explain() != all[want*lanes+lane].Decision.Explain()):
					t.Fatalf("SeekPos(%d) lane %d key %s: last decision %d %q, want %d %q", p, lane, key,
						got.Index, got.Decision.Explain(), want, all[want*lanes+lane].Decision.Explain())
				}
			}
		}
	}
}

func TestSeekPosBoundsAndWholeInstants(t *testing.T) {
	s := parse(t, "title: t\nlimiters:"+allSix+"traffic:\n  - {at: 1s, count: 10}\n  - {at: 2s}\n  - {at: 3s, count: 3}\n")
	l := newLab(t, s)
	for _, c := range []struct {
		p, pos  int
		now     time.Duration
		k, m    int
		comment string
	}{
		{-5, 0, time.Second, 0, 10, "clamped to 0: the first instant, nothing decided"},
		{0, 0, time.Second, 0, 10, "the first instant, nothing decided"},
		{1, 1, time.Second, 1, 10, "request 1 of 10 at 1s"},
		{10, 10, time.Second, 10, 10, "the whole first instant"},
		{11, 11, 2 * time.Second, 1, 1, "the lone request at 2s"},
		{12, 12, 3 * time.Second, 1, 3, "request 1 of 3 at 3s"},
		{14, 14, 3 * time.Second, 3, 3, "the end"},
		{99, 14, 3 * time.Second, 3, 3, "clamped to Len"},
	} {
		l.SeekPos(c.p)
		k, m := l.Instant()
		if l.Pos() != c.pos || l.Now() != c.now || k != c.k || m != c.m {
			t.Errorf("SeekPos(%d) (%s): pos %d, now %v, %d of %d; want %d, %v, %d of %d",
				c.p, c.comment, l.Pos(), l.Now(), k, m, c.pos, c.now, c.k, c.m)
		}
	}
	// Every move but SeekPos decides the whole instant.
	for _, move := range []struct {
		name string
		do   func()
	}{
		{"Seek", func() { l.Seek(time.Second) }},
		{"Step", func() { l.Step(0) }},
		{"Fire", func() { l.Fire("k", 1) }},
		{"Undo", func() { l.Undo() }},
	} {
		l.SeekPos(3)
		move.do()
		if k, m := l.Instant(); k != m || l.Pos() != l.Search(l.Now()) {
			t.Errorf("after SeekPos(3) and %s: %d of %d decided at %v, Pos %d", move.name, k, m, l.Now(), l.Pos())
		}
	}
	l.Seek(1500 * time.Millisecond)
	if k, m := l.Instant(); k != 0 || m != 0 {
		t.Errorf("between instants: %d of %d", k, m)
	}
	empty := newLab(t, parse(t, "title: t\nlimiters:"+allSix))
	empty.SeekPos(3)
	if k, m := empty.Instant(); empty.Pos() != 0 || empty.Now() != 0 || k != 0 || m != 0 {
		t.Errorf("an empty timeline: pos %d, now %v, %d of %d", empty.Pos(), empty.Now(), k, m)
	}
}

// TestClockAlone: the clock over an engine, no lab around it: where each
// move leaves the time, the position, the instant and the latest
// decision; and that it restores the live state from a checkpoint when
// the engine forgot what it was made from.
func TestClockAlone(t *testing.T) {
	// 1s ×3, 2s, 4s ×2, and an axis to 6s.
	s := parse(t, "title: t\nduration: 6s\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 2, rate: 1/s}\n"+
		"traffic:\n  - {at: 1s, count: 3}\n  - {at: 2s}\n  - {at: 4s, count: 2}\n")
	type want struct {
		now      time.Duration
		pos      int
		k, m     int
		last     int // the latest decision's index; −1 for none
		admitted int64
	}
	s1, s2, s4 := time.Second, 2*time.Second, 4*time.Second
	for _, c := range []struct {
		move string
		do   func(c *clock)
		want want
	}{
		{"seek 0", func(c *clock) { c.seek(0) }, want{0, 0, 0, 0, -1, 0}},
		{"seek 1s", func(c *clock) { c.seek(s1) }, want{s1, 3, 3, 3, 2, 2}},
		{"seek before 0", func(c *clock) { c.seek(-time.Hour) }, want{0, 0, 0, 0, -1, 0}},
		{"seek past the end", func(c *clock) { c.seek(time.Hour) }, want{6 * time.Second, 6, 0, 0, 5, 5}},
		{"seek between", func(c *clock) { c.seek(3 * time.Second) }, want{3 * time.Second, 4, 0, 0, 3, 3}},
		{"seekPos inside an instant", func(c *clock) { c.seekPos(2) }, want{s1, 2, 2, 3, 1, 2}},
		{"seekPos 0", func(c *clock) { c.seekPos(0) }, want{s1, 0, 0, 3, -1, 0}},
		{"seekPos past the end", func(c *clock) { c.seekPos(99) }, want{s4, 6, 2, 2, 5, 5}},
		{"seekBefore the second at 4s", func(c *clock) { c.seekBefore(5) }, want{s4, 5, 1, 2, 4, 4}},
		{"seekBefore the first", func(c *clock) { c.seekBefore(0) }, want{s1, 0, 0, 3, -1, 0}},
		{"seekBefore past the end", func(c *clock) { c.seekBefore(6) }, want{s4, 6, 2, 2, 5, 5}},
		{"seek 2s", func(c *clock) { c.seek(s2) }, want{s2, 4, 1, 1, 3, 3}},
	} {
		e := newTestEngine(t, s)
		c1 := newClock(e.tl, e)
		c1.seek(time.Hour) // every move also from elsewhere
		for _, clk := range []*clock{newClock(e.tl, e), c1} {
			c.do(clk)
			k, m := clk.instant()
			last := -1
			if rec, ok := clk.lastDecision(0); ok {
				last = rec.Index
			}
			got := want{clk.now, clk.pos, k, m, last, clk.stats(0).Admitted}
			if got != c.want {
				t.Errorf("%s: %+v, want %+v", c.move, got, c.want)
			}
		}
	}
	e := newTestEngine(t, s)
	c := newClock(e.tl, e)
	c.seek(s4)
	live := c.live
	c.seek(s4)
	if c.live != live {
		t.Error("a seek to where the clock stands restored the live state")
	}
	e.replace(5)
	c.seek(s4)
	if c.live == live || c.gen != e.gen || c.pos != 6 {
		t.Errorf("after the engine forgot from request 5: live state kept (%v), gen %d of %d, pos %d", c.live == live, c.gen, e.gen, c.pos)
	}
}
