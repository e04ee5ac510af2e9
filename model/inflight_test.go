package model

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// flightContents is the cost f holds at each instant.
func flightContents(f *inFlight) map[time.Duration]int64 {
	out := map[time.Duration]int64{}
	r := f.reader()
	for {
		x, ok := r.next(endOfTime)
		if !ok {
			return out
		}
		out[x.at] += x.cost
	}
}

// flightPush is one push of the random traces: a passage and its source.
type flightPush struct {
	x   passage
	src int64
}

// randomFlights is n releases in arrival order from a few sources, as
// shapers give them: each source releases at its own step (regular, two
// adjacent steps as k/r rounded gives, or irregular) once it has a queue,
// at the arrival when it has none, several at one instant now and then,
// and, rarely, a release earlier than its source's latest (out of order).
// arrivals[i] is the arrival of the i-th.
func randomFlights(rng *rand.Rand, n int) (pushes []flightPush, arrivals []time.Duration) {
	type shaper struct {
		next      time.Duration
		step      time.Duration
		num, den  int64 // a step of num/den ns, rounded down at each point
		k         int64
		irregular bool
	}
	sources := make([]shaper, 1+rng.IntN(12))
	for i := range sources {
		s := &sources[i]
		switch rng.IntN(3) {
		case 0:
			s.step = time.Duration(1+rng.IntN(5)) * time.Millisecond
		case 1:
			s.den = int64(2 + rng.IntN(5))
			s.num = int64(time.Millisecond)*int64(1+rng.IntN(3)) + rng.Int64N(s.den)
		default:
			s.irregular = true
		}
	}
	at := time.Duration(rng.IntN(5)) * time.Millisecond
	for len(pushes) < n {
		if rng.IntN(3) == 0 {
			at += time.Duration(rng.Int64N(int64(3 * time.Millisecond)))
		}
		i := rng.IntN(len(sources))
		s := &sources[i]
		rel := max(s.next, at)
		switch {
		case s.num > 0:
			if rel == at {
				s.k, s.next = 0, at // the queue was empty: a new run from here
			}
			s.k++
			rel = s.next + time.Duration(s.k*s.num/s.den) - time.Duration((s.k-1)*s.num/s.den)
			s.next = rel
		case s.irregular:
			s.next = rel + time.Duration(rng.Int64N(int64(4*time.Millisecond)))
		default:
			s.next = rel + s.step
		}
		if rng.IntN(50) == 0 {
			rel -= time.Duration(rng.Int64N(int64(10 * time.Millisecond))) // out of order
			rel = max(rel, at)
		}
		cost := int64(1)
		if rng.IntN(8) == 0 {
			cost = int64(1 + rng.IntN(3))
		}
		for range 1 + min(rng.IntN(12), 2)*rng.IntN(2) { // sometimes two or three at once
			pushes = append(pushes, flightPush{passage{rel, cost}, int64(i)})
			arrivals = append(arrivals, at)
		}
	}
	return pushes[:n], arrivals[:n]
}

// TestInFlightMatchesAHeap pushes random releases of several sources (some
// out of their source's order) into an inFlight and into a heap of
// passages, as the tracker kept them before, taking what is due by random
// times between pushes: both give the same cost of each source at the
// same instants, in time order, and the reader reads exactly what popBy
// then takes.
func TestInFlightMatchesAHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	for trial := range 300 {
		pushes, arrivals := randomFlights(rng, 1+rng.IntN(2000))
		var f inFlight
		var h []loosePassage
		takeBoth := func(by time.Duration) {
			if got, want := f.dueBy(by), len(h) > 0 && h[0].at <= by; got != want {
				t.Fatalf("trial %d: dueBy(%v) = %v, heap %v", trial, by, got, want)
			}
			r := f.reader()
			var read []passage
			var got []loosePassage
			for {
				x, ok := r.next(by)
				if !ok {
					break
				}
				read = append(read, x)
			}
			for {
				x, src, ok := f.popBy(by)
				if !ok {
					break
				}
				got = append(got, loosePassage{x, src})
			}
			if len(read) != len(got) {
				t.Fatalf("trial %d: the reader read %v, popBy took %v", trial, read, got)
			}
			for i := range got {
				if read[i] != got[i].passage {
					t.Fatalf("trial %d: the reader read %v, popBy took %v", trial, read, got)
				}
			}
			var want []loosePassage
			for len(h) > 0 && h[0].at <= by {
				var x loosePassage
				x, h = heapPop(h)
				want = append(want, x)
			}
			if !slices.IsSortedFunc(got, func(a, b loosePassage) int { return int(a.at - b.at) }) {
				t.Fatalf("trial %d: taken out of time order: %v", trial, got)
			}
			// The same cost of each source at each instant.
			sum := func(xs []loosePassage) map[loosePassage]int64 {
				m := map[loosePassage]int64{}
				for _, x := range xs {
					m[loosePassage{passage{x.at, 0}, x.src}] += x.cost
				}
				return m
			}
			if !maps.Equal(sum(got), sum(want)) {
				t.Fatalf("trial %d: by %v took %v, the heap %v", trial, by, got, want)
			}
		}
		for i, p := range pushes {
			if rng.IntN(10) == 0 {
				takeBoth(arrivals[i] + time.Duration(rng.IntN(3))*time.Millisecond)
			}
			f.push(p.x, p.src)
			h = heapPush(h, loosePassage{p.x, p.src})
			if rng.IntN(200) == 0 { // a clone goes on alike and shares nothing
				c := f.clone()
				if !maps.Equal(flightContents(&c), flightContents(&f)) {
					t.Fatalf("trial %d: the clone holds %v, the original %v", trial, flightContents(&c), flightContents(&f))
				}
				c.push(passage{endOfTime - 1, 1}, 99)
				for c.held() {
					c.popBy(endOfTime)
				}
			}
		}
		takeBoth(endOfTime)
		if f.held() || len(h) > 0 {
			t.Fatalf("trial %d: left %v, the heap %v", trial, flightContents(&f), h)
		}
	}
}

// heapTracker is the peak tracker as it was, its pending releases in a
// heap: the reference for the tracker that groups them.
type heapTracker struct {
	window     time.Duration
	kept       braid
	pending    []passage
	peak       int64
	peakAt     time.Duration
	admitCount int
}

func (p *heapTracker) admit(at, delay time.Duration, cost int64) {
	for len(p.pending) > 0 && p.pending[0].at <= at {
		var x passage
		x, p.pending = heapPop(p.pending)
		p.pass(x)
	}
	if delay > 0 {
		p.pending = heapPush(p.pending, passage{at + delay, cost})
		return
	}
	p.pass(passage{at, cost})
}

func (p *heapTracker) pass(x passage) {
	p.kept.add(x, p.window)
	if p.kept.sum > p.peak {
		p.peak, p.peakAt = p.kept.sum, x.at
	}
}

func (p *heapTracker) peakBy(t time.Duration) (int64, time.Duration) {
	var due []passage
	for _, x := range p.pending {
		if x.at <= t {
			due = append(due, x)
		}
	}
	slices.SortStableFunc(due, func(a, b passage) int { return int(a.at - b.at) })
	peak, peakAt := p.peak, p.peakAt
	sum := p.kept.sum
	c := p.kept.cursor()
	dueHead := 0
	for _, x := range due {
		cut := x.at - p.window
		sum -= c.evict(cut)
		for due[dueHead].at <= cut {
			sum -= due[dueHead].cost
			dueHead++
		}
		sum += x.cost
		if sum > peak {
			peak, peakAt = sum, x.at
		}
	}
	return peak, peakAt
}

// TestPeakTrackerMatchesTheHeapTracker feeds the tracker and the heap
// tracker the same random admissions of several sources (delays out of
// order included) and compares their peaks and window sums after every
// admission, and peakBy at random times on the way.
func TestPeakTrackerMatchesTheHeapTracker(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2))
	for trial := range 300 {
		w := randomWindow(rng)
		pushes, arrivals := randomFlights(rng, 1+rng.IntN(2000))
		p := peakTracker{window: w}
		ref := heapTracker{window: w}
		for i, x := range pushes {
			if rng.IntN(4) == 0 { // an admission passing at once
				p.admit(arrivals[i], 0, x.x.cost, x.src)
				ref.admit(arrivals[i], 0, x.x.cost)
			}
			p.admit(arrivals[i], x.x.at-arrivals[i], x.x.cost, x.src)
			ref.admit(arrivals[i], x.x.at-arrivals[i], x.x.cost)
			if p.peak != ref.peak || p.peakAt != ref.peakAt || p.kept.sum != ref.kept.sum {
				t.Fatalf("trial %d, window %v, after %d: peak %d at %v sum %d, the heap tracker %d at %v sum %d", trial, w, i+1, p.peak, p.peakAt, p.kept.sum, ref.peak, ref.peakAt, ref.kept.sum)
			}
			if rng.IntN(30) == 0 {
				by := arrivals[i] + time.Duration(rng.Int64N(int64(50*time.Millisecond)))
				gp, ga := p.peakBy(by)
				wp, wa := ref.peakBy(by)
				if gp != wp || ga != wa {
					t.Fatalf("trial %d, window %v, after %d: peakBy(%v) %d at %v, the heap tracker %d at %v", trial, w, i+1, by, gp, ga, wp, wa)
				}
			}
		}
		gp, ga := p.peakBy(endOfTime)
		wp, wa := ref.peakBy(endOfTime)
		if gp != wp || ga != wa {
			t.Fatalf("trial %d, window %v: peak %d at %v, the heap tracker %d at %v", trial, w, gp, ga, wp, wa)
		}
	}
}

// TestInFlightGroupsBySource: a million releases of one regular run, of
// two adjacent steps, and of a thousand keys each regular, interleaved,
// cost a few words, a bit each, and a group per key; out of order ones
// go loose, and come out in time order all the same.
func TestInFlightGroupsBySource(t *testing.T) {
	const n = 1_000_000
	regular := inFlight{}
	for k := range n {
		regular.push(passage{time.Duration(k) * time.Millisecond, 1}, 0)
	}
	// x/time/rate at 3/s: at k/r rounded, gaps of 333,333,333 and
	// 333,333,334 ns.
	twoSteps := inFlight{}
	for k := range int64(n) {
		twoSteps.push(passage{time.Duration(k * int64(time.Second) / 3), 1}, 0)
	}
	keys := inFlight{}
	for k := range n {
		key := k % 1000
		keys.push(passage{time.Duration(key)*time.Microsecond + time.Duration(k/1000)*time.Second, 1}, source(key, 0))
	}
	for _, c := range []struct {
		name string
		f    *inFlight
		most int64
	}{{"regular", &regular, 512}, {"two steps", &twoSteps, n/8 + 512}, {"keys", &keys, 1000 * 512}} {
		if got := c.f.bytes(); got > c.most {
			t.Errorf("%s: %d bytes for %d releases in flight, want at most %d", c.name, got, n, c.most)
		}
		prev, count := time.Duration(-1), 0
		for {
			x, _, ok := c.f.popBy(endOfTime)
			if !ok {
				break
			}
			if x.at <= prev {
				t.Fatalf("%s: %v taken after %v", c.name, x.at, prev)
			}
			prev = x.at
			count += int(x.cost)
		}
		if count != n {
			t.Errorf("%s: took %d of %d", c.name, count, n)
		}
	}
}
