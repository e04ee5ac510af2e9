package peak

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"ratelab/internal/minheap"
)

// flightContents is the cost f holds at each instant.
func flightContents(f *InFlight) map[time.Duration]int64 {
	out := map[time.Duration]int64{}
	r := f.reader()
	for {
		x, ok := r.next(endOfTime)
		if !ok {
			return out
		}
		out[x.At] += x.Cost
	}
}

// flightPush is one push of the random traces: a passage and its source.
type flightPush struct {
	x   Passage
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
			pushes = append(pushes, flightPush{Passage{rel, cost}, int64(i)})
			arrivals = append(arrivals, at)
		}
	}
	return pushes[:n], arrivals[:n]
}

// sourced is a passage and its source, as PopBy returns them.
type sourced struct {
	Passage
	src int64
}

// TestInFlightMatchesAHeap pushes random releases of several sources (some
// out of their source's order) into an InFlight and into a heap of
// passages, as the tracker kept them before, taking what is due by random
// times between pushes: both give the same cost of each source at the
// same instants, in time order, and the reader reads exactly what popBy
// then takes.
func TestInFlightMatchesAHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 1))
	for trial := range 300 {
		pushes, arrivals := randomFlights(rng, 1+rng.IntN(2000))
		var f InFlight
		var h []minheap.Entry[sourced] // the reference: a plain heap by time
		takeBoth := func(by time.Duration) {
			if got, want := f.DueBy(by), len(h) > 0 && h[0].At <= by; got != want {
				t.Fatalf("trial %d: dueBy(%v) = %v, heap %v", trial, by, got, want)
			}
			r := f.reader()
			var read []Passage
			var got []sourced
			for {
				x, ok := r.next(by)
				if !ok {
					break
				}
				read = append(read, x)
			}
			for {
				x, src, ok := f.PopBy(by)
				if !ok {
					break
				}
				got = append(got, sourced{x, src})
			}
			if len(read) != len(got) {
				t.Fatalf("trial %d: the reader read %v, popBy took %v", trial, read, got)
			}
			for i := range got {
				if read[i] != got[i].Passage {
					t.Fatalf("trial %d: the reader read %v, popBy took %v", trial, read, got)
				}
			}
			var want []sourced
			for len(h) > 0 && h[0].At <= by {
				var x minheap.Entry[sourced]
				x, h = minheap.Pop(h)
				want = append(want, x.V)
			}
			if !slices.IsSortedFunc(got, func(a, b sourced) int { return int(a.At - b.At) }) {
				t.Fatalf("trial %d: taken out of time order: %v", trial, got)
			}
			// The same cost of each source at each instant.
			sum := func(xs []sourced) map[sourced]int64 {
				m := map[sourced]int64{}
				for _, x := range xs {
					m[sourced{Passage{x.At, 0}, x.src}] += x.Cost
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
			f.Push(p.x, p.src)
			h = minheap.Push(h, minheap.Entry[sourced]{At: p.x.At, V: sourced{p.x, p.src}})
			if rng.IntN(200) == 0 { // a clone goes on alike and shares nothing
				c := f.Clone()
				if !maps.Equal(flightContents(&c), flightContents(&f)) {
					t.Fatalf("trial %d: the clone holds %v, the original %v", trial, flightContents(&c), flightContents(&f))
				}
				c.Push(Passage{endOfTime - 1, 1}, 99)
				for c.Held() {
					c.PopBy(endOfTime)
				}
			}
		}
		takeBoth(endOfTime)
		if f.Held() || len(h) > 0 {
			t.Fatalf("trial %d: left %v, the heap %v", trial, flightContents(&f), h)
		}
	}
}

// heapTracker is the peak tracker as it was, its pending releases in a
// heap: the reference for the tracker that groups them.
type heapTracker struct {
	window     time.Duration
	kept       Braid
	pending    []minheap.Entry[Passage] // a heap by time
	peak       int64
	peakAt     time.Duration
	admitCount int
}

func (p *heapTracker) Admit(at, delay time.Duration, cost int64) {
	for len(p.pending) > 0 && p.pending[0].At <= at {
		var x minheap.Entry[Passage]
		x, p.pending = minheap.Pop(p.pending)
		p.pass(x.V)
	}
	if delay > 0 {
		p.pending = minheap.Push(p.pending, minheap.Entry[Passage]{At: at + delay, V: Passage{at + delay, cost}})
		return
	}
	p.pass(Passage{at, cost})
}

func (p *heapTracker) pass(x Passage) {
	p.kept.Add(x, p.window)
	if p.kept.sum > p.peak {
		p.peak, p.peakAt = p.kept.sum, x.At
	}
}

func (p *heapTracker) PeakBy(t time.Duration) (int64, time.Duration) {
	var due []Passage
	for _, x := range p.pending {
		if x.At <= t {
			due = append(due, x.V)
		}
	}
	slices.SortStableFunc(due, func(a, b Passage) int { return int(a.At - b.At) })
	peak, peakAt := p.peak, p.peakAt
	sum := p.kept.sum
	c := p.kept.cursor()
	dueHead := 0
	for _, x := range due {
		cut := x.At - p.window
		sum -= c.evict(cut)
		for due[dueHead].At <= cut {
			sum -= due[dueHead].Cost
			dueHead++
		}
		sum += x.Cost
		if sum > peak {
			peak, peakAt = sum, x.At
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
		p := Tracker{window: w}
		ref := heapTracker{window: w}
		for i, x := range pushes {
			if rng.IntN(4) == 0 { // an admission passing at once
				p.Admit(arrivals[i], 0, x.x.Cost, x.src)
				ref.Admit(arrivals[i], 0, x.x.Cost)
			}
			p.Admit(arrivals[i], x.x.At-arrivals[i], x.x.Cost, x.src)
			ref.Admit(arrivals[i], x.x.At-arrivals[i], x.x.Cost)
			if p.peak != ref.peak || p.peakAt != ref.peakAt || p.kept.sum != ref.kept.sum {
				t.Fatalf("trial %d, window %v, after %d: peak %d at %v sum %d, the heap tracker %d at %v sum %d", trial, w, i+1, p.peak, p.peakAt, p.kept.sum, ref.peak, ref.peakAt, ref.kept.sum)
			}
			if rng.IntN(30) == 0 {
				by := arrivals[i] + time.Duration(rng.Int64N(int64(50*time.Millisecond)))
				gp, ga := p.PeakBy(by)
				wp, wa := ref.PeakBy(by)
				if gp != wp || ga != wa {
					t.Fatalf("trial %d, window %v, after %d: peakBy(%v) %d at %v, the heap tracker %d at %v", trial, w, i+1, by, gp, ga, wp, wa)
				}
			}
		}
		gp, ga := p.PeakBy(endOfTime)
		wp, wa := ref.PeakBy(endOfTime)
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
	regular := InFlight{}
	for k := range n {
		regular.Push(Passage{time.Duration(k) * time.Millisecond, 1}, 0)
	}
	// x/time/rate at 3/s: at k/r rounded, gaps of 333,333,333 and
	// 333,333,334 ns.
	twoSteps := InFlight{}
	for k := range int64(n) {
		twoSteps.Push(Passage{time.Duration(k * int64(time.Second) / 3), 1}, 0)
	}
	keys := InFlight{}
	for k := range n {
		key := k % 1000
		keys.Push(Passage{time.Duration(key)*time.Microsecond + time.Duration(k/1000)*time.Second, 1}, Source(key, 0))
	}
	for _, c := range []struct {
		name string
		f    *InFlight
		most int64
	}{{"regular", &regular, 512}, {"two steps", &twoSteps, n/8 + 512}, {"keys", &keys, 1000 * 512}} {
		if got := c.f.Bytes(); got > c.most {
			t.Errorf("%s: %d bytes for %d releases in flight, want at most %d", c.name, got, n, c.most)
		}
		prev, count := time.Duration(-1), 0
		for {
			x, _, ok := c.f.PopBy(endOfTime)
			if !ok {
				break
			}
			if x.At <= prev {
				t.Fatalf("%s: %v taken after %v", c.name, x.At, prev)
			}
			prev = x.At
			count += int(x.Cost)
		}
		if count != n {
			t.Errorf("%s: took %d of %d", c.name, count, n)
		}
	}
}

// TestInFlightByHand: passages come out in release order, those of one
// source at one instant together, one passage out of its source's order
// loose, and nothing before it is due.
func TestInFlightByHand(t *testing.T) {
	type pop struct {
		x   Passage
		src int64
	}
	for _, c := range []struct {
		name string
		push []pop
		by   time.Duration
		want []pop
	}{
		{"empty", nil, endOfTime, nil},
		{"one source", []pop{{Passage{1, 1}, 0}, {Passage{2, 1}, 0}, {Passage{2, 3}, 0}}, endOfTime,
			[]pop{{Passage{1, 1}, 0}, {Passage{2, 4}, 0}}},
		{"not yet due", []pop{{Passage{5, 1}, 0}, {Passage{9, 1}, 0}}, 8,
			[]pop{{Passage{5, 1}, 0}}},
		{"two sources merged", []pop{{Passage{1, 1}, 7}, {Passage{4, 1}, 7}, {Passage{2, 2}, 9}, {Passage{3, 2}, 9}}, endOfTime,
			[]pop{{Passage{1, 1}, 7}, {Passage{2, 2}, 9}, {Passage{3, 2}, 9}, {Passage{4, 1}, 7}}},
		{"out of order", []pop{{Passage{5, 1}, 0}, {Passage{3, 2}, 0}, {Passage{6, 1}, 0}}, endOfTime,
			[]pop{{Passage{3, 2}, 0}, {Passage{5, 1}, 0}, {Passage{6, 1}, 0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f InFlight
			for _, p := range c.push {
				f.Push(p.x, p.src)
			}
			if f.Held() != (len(c.push) > 0) {
				t.Fatalf("Held %v with %d pushed", f.Held(), len(c.push))
			}
			if due := f.DueBy(c.by); due != (len(c.want) > 0) {
				t.Fatalf("DueBy(%v) %v", c.by, due)
			}
			var got []pop
			for {
				x, src, ok := f.PopBy(c.by)
				if !ok {
					break
				}
				got = append(got, pop{x, src})
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("took %v, want %v", got, c.want)
			}
		})
	}
}
