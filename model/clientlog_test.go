package model

import (
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// TestClientLogSpans checks the log's entries, spans and searches against
// a plain list of what was added, through appends and truncations: its
// times all coded (a log without a timeline), its attempts of every
// number, its pos steps small and large.
func TestClientLogSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	cl := newClientLog(nil)
	cl.pageCap = 64 // pages of a few chunks
	var ref []clientEvent
	var at time.Duration
	pos := 1
	for round := range 20000 {
		if rng.IntN(500) == 0 && pos > 1 {
			pos -= rng.IntN(min(pos-1, 300) + 1)
			cl.truncate(pos)
			for len(ref) > 0 && int(ref[len(ref)-1].pos) >= pos {
				ref = ref[:len(ref)-1]
			}
			if n := len(ref); n > 0 {
				at = ref[n-1].at
			}
		}
		at += time.Duration(rng.IntN(3))
		if rng.IntN(40) == 0 {
			at += time.Duration(rng.IntN(3)) * time.Second // whole seconds, as Retry-After's
		}
		pos += rng.IntN(2)
		if rng.IntN(300) == 0 {
			pos += rng.IntN(100000)
		}
		n := 1 + rng.IntN(3)
		if rng.IntN(150) == 0 {
			n = 12 // rare: a truncation must forget it
		}
		d := algorithms.Decision{Outcome: algorithms.Rejected}
		if rng.IntN(3) == 0 || n == 1 {
			d.Outcome = algorithms.Allowed
		}
		orig := pos
		if n > 1 {
			orig = pos - 1 - rng.IntN(min(pos, 1+rng.IntN(2000)))
		}
		a := Attempt{N: n, Original: orig, Fate: Retrying}
		if n == 1 {
			a.Fate, a.Latency = Served, 1
		}
		cl.add(pos, at, &d, &a)
		ref = append(ref, clientEvent{at: at, pos: int32(pos), orig: int32(orig), n: uint8(n), ok: d.Outcome.Admitted()})
		if cl.len() != len(ref) {
			t.Fatalf("round %d: %d entries, want %d", round, cl.len(), len(ref))
		}
		if round%7 != 0 {
			continue
		}
		for range 3 {
			if j := rng.IntN(len(ref)); cl.ev(j) != ref[j] {
				t.Fatalf("round %d: entry %d of %d is %+v, want %+v", round, j, len(ref), cl.ev(j), ref[j])
			}
		}
		j0 := rng.IntN(len(ref) + 1)
		for k := range 4 {
			// Anywhere, then on from the last span's end, as a screen's
			// columns ask, then back.
			if k == 3 {
				j0 = rng.IntN(j0 + 1)
			}
			j1 := j0 + rng.IntN(len(ref)-j0+1)
			var want RetrySpan
			for _, e := range ref[j0:j1] {
				if e.n > 1 {
					want.Retries++
					if e.ok {
						want.Admitted++
					}
					want.Highest = max(want.Highest, int(e.n))
				}
			}
			if got := cl.span(j0, j1); got != want {
				t.Fatalf("round %d, span [%d, %d) of %d: %+v, counted %+v", round, j0, j1, len(ref), got, want)
			}
			j0 = j1
		}
		p := rng.IntN(pos + 2)
		if got, want := cl.search(p), sort.Search(len(ref), func(j int) bool { return int(ref[j].pos) >= p }); got != want {
			t.Fatalf("round %d: %d entries before pos %d, counted %d", round, got, p, want)
		}
		tt := time.Duration(rng.Int64N(int64(at) + 3))
		for range 4 {
			// In order, as a screen's columns ask, and anywhere.
			if rng.IntN(3) == 0 {
				tt = time.Duration(rng.Int64N(int64(at) + 3))
			} else {
				tt += time.Duration(rng.Int64N(int64(at)/4 + 3))
			}
			want := 0
			for want < len(ref) && ref[want].at < tt {
				want++
			}
			if got := cl.before(tt); got != want {
				t.Fatalf("round %d: %d entries before %v, counted %d", round, got, tt, want)
			}
		}
	}
}

// TestClientLogIsTheDecisions: every lane's log, read back, is the retries
// and served waits a replay of every decision makes, in order, on each
// kind of client, through what-ifs and undos.
func TestClientLogIsTheDecisions(t *testing.T) {
	// Many chunks: backoffs of every jitter and Retry-After, through
	// several gateways too.
	const many = `
title: many retries
seed: 3
clients:
  - {name: full, retry: backoff, attempts: 5, base: 10ms, cap: 1s, jitter: full}
  - {name: equal, retry: backoff, attempts: 4, base: 7ms, factor: 3, jitter: equal}
  - {name: none, retry: backoff, attempts: 3, base: 5ms}
  - {name: after, retry: retry-after, attempts: 3}
  - {name: once, retry: at-once, attempts: 3}
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 10, rate: 20/s}
  - {name: log, algorithm: sliding-log, limit: 30, window: 1s}
  - {name: shaper, algorithm: leaky-bucket, queue: 5, rate: 50/s}
traffic:
  - {every: 1ms, until: 4s, client: full}
  - {every: 3ms, until: 4s, client: equal, key: e}
  - {every: 5ms, until: 4s, client: none, key: n}
  - {every: 7ms, until: 4s, client: after, key: a}
  - {every: 11ms, until: 4s, client: once, key: o}
`
	for _, name := range append(slices.Sorted(maps.Keys(clientScenarios)), "many") {
		var l *Lab
		if name == "many" {
			s, err := scenarios.Parse("many.yaml", []byte(many))
			if err != nil {
				t.Fatal(err)
			}
			l = newLab(t, s)
		} else {
			l = newLab(t, clientScenario(t, name))
		}
		rng := rand.New(rand.NewPCG(7, uint64(len(name))))
		for step := range 6 {
			if step > 0 {
				if rng.IntN(2) == 0 {
					if _, err := l.FireAt(time.Duration(rng.Int64N(int64(l.End())+1)), "k", 1); err != nil {
						t.Fatal(err)
					}
				} else {
					l.Undo()
				}
			}
			e := l.engine
			e.ensure(l.Len())
			want := make([][]clientEvent, len(e.defs))
			e.replay(0, l.Len(), endOfTime, func(r Record) bool {
				if a := &r.Attempt; a.N > 1 || a.Fate == Served && a.Latency > 0 {
					want[r.Lane] = append(want[r.Lane], clientEvent{at: r.Request.At, orig: int32(a.Original), n: uint8(a.N), ok: r.Decision.Outcome.Admitted()})
				}
				return true
			})
			for lane, cl := range e.clog {
				if cl.len() != len(want[lane]) {
					t.Fatalf("%s step %d lane %d: %d entries, the replay %d", name, step, lane, cl.len(), len(want[lane]))
				}
				last := int32(0)
				for j, w := range want[lane] {
					got := cl.ev(j)
					if got.pos < last || got.pos < got.orig || got.n == 1 && got.pos != got.orig {
						t.Fatalf("%s step %d lane %d entry %d: pos %d after %d, original %d", name, step, lane, j, got.pos, last, got.orig)
					}
					last, got.pos = got.pos, 0
					if got != w {
						t.Fatalf("%s step %d lane %d entry %d: %+v, the replay %+v", name, step, lane, j, got, w)
					}
				}
			}
		}
	}
}

// spanByReplay is spanFrom as a replay of the decisions computes it.
func spanByReplay(l *Lab, from time.Duration) []spanReplay {
	e, c := l.engine, l.clock
	sp := make([]spanReplay, len(e.defs))
	e.replay(l.timeline.searchBefore(from), c.pos, c.now, func(r Record) bool {
		d := &r.Decision
		if r.Request.At < from || !d.Outcome.Admitted() || r.Attempt.Cancelled {
			return true
		}
		k, _ := l.timeline.keys.lookup(r.Request.Key)
		lane := &sp[r.Lane]
		lane.passed = append(lane.passed, passing{r.Request.At, k, r.Request.Cost})
		if d.Delay > 0 {
			lane.releases = append(lane.releases, r.Request.At+d.Delay)
		}
		return true
	})
	for _, lane := range sp {
		slices.Sort(lane.releases)
	}
	return sp
}

// cancellingScenario has retries that wait in a queue past their deadline
// and give it back.
const cancellingScenario = `
title: cancelling retries
duration: 30s
limiters:
  - {name: queue, algorithm: leaky-bucket, queue: 10, rate: 2/s}
  - {name: reserve, algorithm: x-time-rate-reserve, burst: 2, rate: 2/s}
clients:
  - {name: rc, retry: backoff, attempts: 4, base: 500ms, deadline: 3s, cancel: true}
traffic:
  - {at: 0s, count: 11}
  - {at: 100ms, count: 5, client: rc}
  - {every: 700ms, from: 4s, until: 12s, client: rc, key: b}
  - {at: 6s, count: 11}
`

// eachClientScenario calls f with every scenario of clientScenarios and
// cancellingScenario, by name.
func eachClientScenario(t *testing.T, f func(name string, s *scenarios.Scenario)) {
	t.Helper()
	for _, name := range append(slices.Sorted(maps.Keys(clientScenarios)), "cancelling") {
		var s *scenarios.Scenario
		if name == "cancelling" {
			var err error
			if s, err = scenarios.Parse("cancelling.yaml", []byte(cancellingScenario)); err != nil {
				t.Fatal(err)
			}
		} else {
			s = clientScenario(t, name)
		}
		f(name, s)
	}
}

// walkClock moves l's clock steps times at random, as a learner does (to
// a request, far, a little on or back) and fires and undoes what-ifs,
// calling check after each move with its number.
func walkClock(t *testing.T, l *Lab, rng *rand.Rand, steps int, check func(step int)) {
	t.Helper()
	for step := range steps {
		switch rng.IntN(10) {
		case 0:
			l.SeekPos(rng.IntN(l.Len() + 1))
		case 1:
			// A burst from a key the traffic sends, so that the what-if
			// moves its retries.
			key := l.Request(rng.IntN(l.Len())).Key
			at := time.Duration(rng.Int64N(int64(l.End()) + 1))
			for range 1 + rng.IntN(5) {
				if _, err := l.FireAt(at, key, 1); err != nil {
					t.Fatal(err)
				}
			}
		case 2:
			l.Undo()
		case 3, 4, 5:
			l.Seek(time.Duration(rng.Int64N(int64(l.End()) + 1)))
		default: // a little on or back, as play and steps go
			l.Seek(l.Now() + time.Duration(rng.Int64N(int64(time.Second))) - 200*time.Millisecond)
		}
		check(step)
	}
}

// TestSpanFromMatchesAReplay: what passed each lane from a time on, read
// from the outcomes and the clients' logs, is what a replay finds, at
// random clocks, through what-ifs and undos.
func TestSpanFromMatchesAReplay(t *testing.T) {
	eachClientScenario(t, func(name string, s *scenarios.Scenario) {
		l := newLab(t, s)
		rng := rand.New(rand.NewPCG(3, uint64(len(name))))
		walkClock(t, l, rng, rounds(200, 40), func(step int) {
			from := time.Duration(rng.Int64N(int64(l.Now()) + 2))
			if rng.IntN(4) == 0 {
				from = 0
			}
			l.caches.spans = nil
			want := spanByReplay(l, from)
			for lane := range want {
				if got := l.spanFrom(lane, from); !slices.Equal(got.passed, want[lane].passed) || !slices.Equal(got.releases, want[lane].releases) {
					t.Fatalf("%s step %d, at %v pos %d from %v lane %d:\npassed %v\nreplay %v\nreleases %v\nreplay   %v", name, step, l.Now(), l.Pos(), from, lane,
						got.passed, want[lane].passed, got.releases, want[lane].releases)
				}
			}
		})
	})
}

// TestServedOnceReleased: at the clock a request admitted into a queue
// counts as served only once released; until then it is queued (not
// retrying), the same for every key's totals and one key's.
func TestServedOnceReleased(t *testing.T) {
	s, err := scenarios.Parse("queue.yaml", []byte(`title: queue
limiters:
  - {name: leaky, algorithm: leaky-bucket, queue: 4, rate: 1/s}
clients:
  - {name: once, retry: give-up}
traffic:
  - {at: 0s, count: 5, client: once, key: k}
`))
	if err != nil {
		t.Fatal(err)
	}
	lab := newLab(t, s)
	for _, c := range []struct {
		at             time.Duration
		served, queued int64
	}{
		{0, 1, 4}, {2500 * time.Millisecond, 3, 2}, {4 * time.Second, 5, 0},
	} {
		lab.Seek(c.at)
		for _, st := range []Stats{lab.Stats(0), lab.StatsFor(0, "k")} {
			if st.Served != c.served || st.Queued != c.queued || st.Pending() != 0 {
				t.Errorf("at %v: served %d, queued %d, retrying %d; want %d, %d, 0", c.at, st.Served, st.Queued, st.Pending(), c.served, c.queued)
			}
		}
		if n := lab.Stats(0).Latency.N; n != c.served {
			t.Errorf("at %v: latency over %d requests, want the %d served", c.at, n, c.served)
		}
	}
}

// TestClientLogForgetsAnswersOnTruncation: a log truncated and grown back
// to the same length with other entries answers for the new ones, not
// from what it remembered.
func TestClientLogForgetsAnswersOnTruncation(t *testing.T) {
	for _, n := range []int{10, 64, 200} {
		cl := newClientLog(nil)
		add := func(pos int, at time.Duration, ok bool) {
			d := algorithms.Decision{Outcome: algorithms.Rejected}
			if ok {
				d.Outcome = algorithms.Allowed
			}
			cl.add(pos, at, &d, &Attempt{N: 2 + pos%3, Original: pos - 1, Fate: Retrying})
		}
		for i := range n {
			add(i+1, time.Duration(i)*time.Second, false)
		}
		at := time.Duration(n/2) * time.Second
		j, s := cl.before(at), cl.span(0, n)
		if j != n/2 || s.Retries != n || s.Admitted != 0 {
			t.Fatalf("%d entries: %d before %v, span %+v", n, j, at, s)
		}
		cl.truncate(1) // every entry, all of pos 1 or more
		for i := range n {
			add(i+1, time.Duration(i)*time.Millisecond, true) // all before at now
		}
		if j, s := cl.before(at), cl.span(0, n); j != n || s.Admitted != n {
			t.Errorf("%d entries again: %d before %v (want %d), span %+v (want %d admitted)", n, j, at, n, s, n)
		}
	}
}

// latencyByRecount is Lab.latency worked out from every wait up to the
// clock.
func latencyByRecount(l *Lab, lane int, served int64) (Latency, int64) {
	cl := l.engine.clog[lane]
	j := cl.decided(l.clock.pos, l.clock.now)
	var waits latencyCounts
	var queued int64
	for _, w := range cl.waits {
		if int(w.j) >= j {
			break
		}
		if l.timeline.at(int(w.orig))+w.latency > l.clock.now {
			queued++ // admitted, released after the clock
			continue
		}
		waits.add(w.latency)
	}
	return waits.latency(served - queued), queued
}

// TestLatencyMatchesARecount: each lane's latency at the clock, kept as
// the clock moves, is what counting every wait up to it again gives, at
// random clocks near and far, through what-ifs and undos.
func TestLatencyMatchesARecount(t *testing.T) {
	eachClientScenario(t, func(name string, s *scenarios.Scenario) {
		l := newLab(t, s)
		rng := rand.New(rand.NewPCG(4, uint64(len(name))))
		walkClock(t, l, rng, rounds(300, 60), func(step int) {
			for lane := range l.Lanes() {
				l.caches.latencies = latencyCache{}
				served := l.clock.stats(lane).Served
				lat, queued := l.latency(lane, served)
				if wantLat, wantQueued := latencyByRecount(l, lane, served); lat != wantLat || queued != wantQueued {
					t.Fatalf("%s step %d, at %v pos %d lane %d: latency %+v, %d queued; counted again %+v, %d", name, step, l.Now(), l.Pos(), lane, lat, queued, wantLat, wantQueued)
				}
			}
		})
	})
}
