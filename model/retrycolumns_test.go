package model

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// TestRetryColumnsMatchACount: a screen's columns of retries, asked at
// every clock of a random walk in two widths (so remembered from one ask
// to the next while the log grows, and through the what-ifs and undos
// that cut it), are what counting the log's entries finds.
func TestRetryColumnsMatchACount(t *testing.T) {
	eachClientScenario(t, func(name string, s *scenarios.Scenario) {
		l := newLab(t, s)
		end := l.End()
		rng := rand.New(rand.NewPCG(5, uint64(len(name))))
		walkClock(t, l, rng, rounds(200, 40), func(step int) {
			now := l.Now()
			for lane := range l.Lanes() {
				for _, dt := range []time.Duration{max(end/97, 1), max(end/13, 1)} {
					for from := time.Duration(0); from <= end; from += dt {
						to := min(from+dt, now+1)
						if from >= to {
							break
						}
						got := l.Retries(lane, from, to)
						if want := retriesByCount(l, lane, from, to); got != want {
							t.Fatalf("%s step %d, at %v pos %d lane %d [%v, %v): %+v, counted %+v", name, step, now, l.Pos(), lane, from, to, got, want)
						}
					}
				}
			}
		})
	})
}

// retriesByCount is Lab.Retries worked out from each of lane's entries
// decided by the clock.
func retriesByCount(l *Lab, lane int, from, to time.Duration) RetrySpan {
	cl := l.engine.clog[lane]
	decided := cl.decided(l.clock.pos, l.clock.now)
	var s RetrySpan
	for j := sort.Search(decided, func(j int) bool { return cl.at(j) >= from }); j < decided; j++ {
		e := cl.ev(j)
		if e.at >= to {
			break
		}
		if e.n > 1 {
			s.Retries++
			if e.ok {
				s.Admitted++
			}
			s.Highest = max(s.Highest, int(e.n))
		}
	}
	return s
}

// TestColumnCountsUpToTheClock: a remembered column counts its retries up
// to the clock's end of it, and counts again as that end moves: a clock
// inside an instant leaves some of the instant's retries undecided in
// the column that ends just after it.
func TestColumnCountsUpToTheClock(t *testing.T) {
	cl := newClientLog(nil)
	for i := range 100 {
		d := algorithms.Decision{Outcome: algorithms.Rejected}
		cl.add(i+1, time.Duration(i/10)*time.Second, &d, &Attempt{N: 2 + i%3, Original: i, Fate: Retrying})
	}
	// The column [3s, 6s): entries 30 to 59.
	const now = 9 * time.Second
	col := cl.columnOf(3*time.Second, 6*time.Second, now)
	if col == nil || col.j0 != 30 || col.j1 != 60 {
		t.Fatalf("column [3s, 6s): %+v, want entries 30 to 60", col)
	}
	for _, c := range []struct{ decided, retries int }{{60, 30}, {55, 25}, {30, 0}, {10, 0}, {100, 30}} {
		if got := col.spanTo(cl, c.decided).Retries; got != c.retries {
			t.Errorf("decided %d: %d retries, want %d", c.decided, got, c.retries)
		}
	}
	if again := cl.columnOf(3*time.Second, 6*time.Second, now); again != col {
		t.Error("the column asked again is not the one remembered")
	}
	if cl.columnOf(3*time.Second, 5*time.Second, now) != nil || cl.columnOf(-3*time.Second, 0, now) != nil {
		t.Error("a span that is no column of its width is remembered")
	}
	// The clock's column, cut at the clock: [0, 4.5s) at 4.5s − 1ns would
	// be a column of width 4.5s, a third width pushing out one in use.
	if cl.columnOf(0, now/2, now/2-1) != nil {
		t.Error("a column reaching past the clock is remembered")
	}
	for _, g := range cl.columns {
		if g != nil && g.dt != 3*time.Second {
			t.Errorf("a column memo of width %v, want only 3s's", g.dt)
		}
	}
}

// TestCutForgetsTheColumnsItReaches: a cut of the log forgets the
// columns that reach the entries it cuts (the one it cuts through, and
// the one whose end's entry it cuts, which a new entry may come before)
// and keeps those wholly before it.
func TestCutForgetsTheColumnsItReaches(t *testing.T) {
	cl := newClientLog(nil)
	add := func(pos int, at time.Duration, ok bool) {
		d := algorithms.Decision{Outcome: algorithms.Rejected}
		if ok {
			d.Outcome = algorithms.Allowed
		}
		cl.add(pos, at, &d, &Attempt{N: 2, Original: pos - 1, Fate: Retrying})
	}
	for i := range 100 {
		add(i+1, time.Duration(i)*100*time.Millisecond, false) // ten a second, refused
	}
	const now = time.Hour
	col := func(c int) *column {
		return cl.columnOf(time.Duration(c)*time.Second, time.Duration(c+1)*time.Second, now)
	}
	for c := range 9 {
		if got := col(c).spanTo(cl, cl.len()); got.Retries != 10 || got.Admitted != 0 {
			t.Fatalf("column %d: %+v, want 10 retries, none admitted", c, got)
		}
	}
	// A cut inside column 3 ([3s, 4s): entries 30 to 39), from 3.5s.
	kept := col(2)
	cl.truncate(36)
	if kept.c1 == 0 {
		t.Error("a column before the cut was forgotten")
	}
	for i := 35; i < 100; i++ {
		add(i+1, time.Duration(i)*100*time.Millisecond, true) // admitted now
	}
	for c, want := range map[int]int{2: 0, 3: 5, 4: 10} {
		if got := col(c).spanTo(cl, cl.len()); got.Retries != 10 || got.Admitted != want {
			t.Errorf("column %d after the cut: %+v, want 10 retries, %d admitted", c, got, want)
		}
	}
	// A cut at column 2's end's entry (30, at 3s): a new entry at 2.95s
	// falls in column 2.
	cl.truncate(31)
	add(31, 2950*time.Millisecond, true)
	add(32, 3*time.Second, true)
	if got := col(2).spanTo(cl, cl.len()); got.Retries != 11 || got.Admitted != 1 {
		t.Errorf("column 2 after a cut at its end: %+v, want 11 retries, 1 admitted", got)
	}
}
