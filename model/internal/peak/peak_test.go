package peak

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// admission is one admitted request for the peak tests: arrival, delay, cost.
type admission struct {
	at, delay time.Duration
	cost      int64
}

// randomAdmissions mixes what makes the trail's runs and what breaks them:
// regular steps (one cost or two interleaved), bursts at one instant,
// random gaps, costs changing inside a run, and delays.
func randomAdmissions(rng *rand.Rand, n int, delayed bool) []admission {
	var xs []admission
	at := time.Duration(rng.IntN(5)) * time.Millisecond
	add := func(cost int64) {
		d := time.Duration(0)
		if delayed && rng.IntN(3) == 0 {
			d = time.Duration(rng.IntN(40)) * time.Millisecond
		}
		xs = append(xs, admission{at, d, cost})
	}
	for len(xs) < n {
		cost := int64(1 + rng.IntN(3))
		switch rng.IntN(8) {
		case 6: // an uneven burst: the i-th at ⌊i × spread / count⌋
			count := 1 + rng.Int64N(80)
			spread := count*(1+rng.Int64N(4)) + rng.Int64N(count)
			if rng.IntN(2) == 0 {
				spread *= int64(time.Millisecond / 4)
			}
			start := at
			for i := range count {
				at = start + time.Duration(spread*i/count)
				add(cost)
			}
		case 7: // a step that wanders by a nanosecond, up and down
			step := time.Duration(2 + rng.IntN(5))
			for range 1 + rng.IntN(80) {
				if rng.IntN(4) == 0 {
					step += time.Duration(rng.IntN(3) - 1)
					step = max(step, 1)
				}
				at += step
				add(cost)
			}
		case 5: // several regular streams of different steps, merged
			var ats []time.Duration
			for range 2 + rng.IntN(10) {
				step := time.Duration(1+rng.IntN(9)) * time.Millisecond
				first := at + time.Duration(rng.IntN(5))*time.Millisecond
				for k := range 1 + rng.IntN(20) {
					ats = append(ats, first+time.Duration(k)*step)
				}
			}
			slices.Sort(ats)
			for _, a := range ats {
				at = a
				add(cost)
			}
		case 0: // a regular run
			step := time.Duration(1+rng.IntN(7)) * time.Millisecond
			for range 1 + rng.IntN(30) {
				at += step
				add(cost)
			}
		case 1: // a burst at one instant
			at += time.Duration(rng.IntN(3)) * time.Millisecond
			for range 1 + rng.IntN(6) {
				add(cost)
			}
		case 2: // two interleaved regular streams: two per instant
			step := time.Duration(1+rng.IntN(5)) * time.Millisecond
			for range 1 + rng.IntN(20) {
				at += step
				add(cost)
				add(cost)
			}
		case 3: // a regular step whose cost changes now and then
			step := time.Duration(1+rng.IntN(5)) * time.Millisecond
			for range 1 + rng.IntN(20) {
				at += step
				add(int64(1 + rng.IntN(2)))
			}
		default: // irregular gaps, some of them nanoseconds, some long
			for range 1 + rng.IntN(10) {
				switch rng.IntN(4) {
				case 0:
					at += time.Duration(rng.IntN(3))
				case 1:
					at += time.Duration(rng.IntN(200)) * time.Millisecond
				default:
					at += time.Duration(rng.Int64N(int64(20 * time.Millisecond)))
				}
				add(cost)
			}
		}
	}
	return xs[:n]
}

func releases(xs []admission) []Passage {
	ps := make([]Passage, len(xs))
	for i, x := range xs {
		ps[i] = Passage{x.at + x.delay, x.cost}
	}
	return ps
}

func randomWindow(rng *rand.Rand) time.Duration {
	switch rng.IntN(4) {
	case 0:
		return time.Duration(1 + rng.IntN(3)) // nanoseconds: every instant alone
	case 1:
		return 8784 * time.Hour // everything inside
	}
	return time.Duration(1+rng.IntN(100)) * time.Millisecond
}

// bruteForcePeak is the largest total cost with release time in (t − w, t]
// over every t, by trying every release as the window's end.
func bruteForcePeak(xs []Passage, w time.Duration) (peak int64, at time.Duration) {
	for _, end := range xs {
		var sum int64
		for _, x := range xs {
			if x.At > end.At-w && x.At <= end.At {
				sum += x.Cost
			}
		}
		if sum > peak || (sum == peak && end.At < at) {
			peak, at = sum, end.At
		}
	}
	return peak, at
}

func TestPeakTrackerMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial := range 300 {
		w := time.Duration(1+rng.IntN(50)) * time.Millisecond
		var p Tracker
		p.window = w
		var releases []Passage
		at := time.Duration(0)
		n := 1 + rng.IntN(60)
		for range n {
			at += time.Duration(rng.IntN(20)) * time.Millisecond
			delay := time.Duration(0)
			if rng.IntN(3) == 0 {
				delay = time.Duration(rng.IntN(40)) * time.Millisecond
			}
			cost := int64(1 + rng.IntN(4))
			p.Admit(at, delay, cost, 0)
			releases = append(releases, Passage{at + delay, cost})
		}
		// Mid-way, at or after the last admission (as peakBy requires) but
		// while delayed requests may still wait: peakBy counts only what
		// was released by then, and leaves p alone.
		cut := at + time.Duration(rng.IntN(30))*time.Millisecond
		var early []Passage
		for _, x := range releases {
			if x.At <= cut {
				early = append(early, x)
			}
		}
		before := p.peak
		wantPeak, wantAt := bruteForcePeak(early, w)
		if got, gotAt := p.PeakBy(cut); got != wantPeak || gotAt != wantAt {
			t.Fatalf("trial %d: peakBy(%v) = %d at %v, brute force %d at %v", trial, cut, got, gotAt, wantPeak, wantAt)
		}
		wantPeak, wantAt = bruteForcePeak(releases, w)
		gotPeak, gotAt := p.PeakBy(endOfTime)
		if gotPeak != wantPeak || gotAt != wantAt {
			t.Fatalf("trial %d: peak %d at %v, brute force %d at %v", trial, gotPeak, gotAt, wantPeak, wantAt)
		}
		if p.peak != before {
			t.Fatalf("trial %d: peakBy changed the tracker", trial)
		}
	}
}

// TestPeakTrackerRandomTraces compares the tracker with brute force on
// traces with runs, bursts, irregular gaps and delays, at the end and
// mid-way (peakBy a time while delayed requests still wait).
func TestPeakTrackerRandomTraces(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := range 400 {
		w := randomWindow(rng)
		xs := randomAdmissions(rng, 1+rng.IntN(200), rng.IntN(2) == 0)
		p := Tracker{window: w}
		for i, x := range xs {
			p.Admit(x.at, x.delay, x.cost, 0)
			if rng.IntN(20) == 0 || i == len(xs)-1 {
				cut := x.at + time.Duration(rng.IntN(30))*time.Millisecond
				var due []Passage
				for _, y := range releases(xs[:i+1]) {
					if y.At <= cut {
						due = append(due, y)
					}
				}
				wantPeak, wantAt := bruteForcePeak(due, w)
				if got, gotAt := p.PeakBy(cut); got != wantPeak || gotAt != wantAt {
					t.Fatalf("trial %d, window %v, after %d: peakBy(%v) = %d at %v, brute force %d at %v", trial, w, i+1, cut, got, gotAt, wantPeak, wantAt)
				}
			}
		}
		wantPeak, wantAt := bruteForcePeak(releases(xs), w)
		if got, gotAt := p.PeakBy(endOfTime); got != wantPeak || gotAt != wantAt {
			t.Fatalf("trial %d, window %v: peak %d at %v, brute force %d at %v", trial, w, got, gotAt, wantPeak, wantAt)
		}
	}
}

// TestPeakTrackerRefill rebuilds a tracker as the lab's restore does (the
// peak and latest admission kept, the window refilled from the admissions
// in arrival order) at a random point, and checks that it then goes on
// exactly as the tracker that saw everything.
func TestPeakTrackerRefill(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for trial := range 400 {
		w := randomWindow(rng)
		xs := randomAdmissions(rng, 2+rng.IntN(200), rng.IntN(2) == 0)
		cut := 1 + rng.IntN(len(xs)-1)
		whole := Tracker{window: w}
		for _, x := range xs[:cut] {
			whole.Admit(x.at, x.delay, x.cost, 0)
		}
		re := Tracker{window: w, peak: whole.peak, peakAt: whole.peakAt, admitted: whole.admitted, lastAdmit: whole.lastAdmit}
		last := re.lastAdmit
		for _, x := range xs[:cut] {
			r := Passage{x.at + x.delay, x.cost}
			switch {
			case r.At > last:
				re.Push(r, 0)
			case r.At > last-w:
				re.Refill(x.at, r, 0)
			}
		}
		re.Refilled()
		// The sums may differ: the whole tracker drops what left the
		// window only at the next passage, which comes after last.
		if got, want := flightContents(&re.pending), flightContents(&whole.pending); !maps.Equal(got, want) {
			t.Fatalf("trial %d: refilled pending %v, whole %v", trial, got, want)
		}
		for _, x := range xs[cut:] {
			whole.Admit(x.at, x.delay, x.cost, 0)
			re.Admit(x.at, x.delay, x.cost, 0)
			if re.peak != whole.peak || re.peakAt != whole.peakAt {
				t.Fatalf("trial %d, window %v, refilled after %d: peak %d at %v, whole %d at %v", trial, w, cut, re.peak, re.peakAt, whole.peak, whole.peakAt)
			}
		}
		gp, ga := whole.PeakBy(endOfTime)
		if rp, ra := re.PeakBy(endOfTime); rp != gp || ra != ga {
			t.Fatalf("trial %d: refilled peak %d at %v, whole %d at %v", trial, rp, ra, gp, ga)
		}
	}
}

// TestPeakTrackerCloneSharesNothing: a clone of a tracker (a braid of
// strands, loose passages, pending releases) and the tracker go on with
// different passages, and each ends as a tracker fed its own passages alone.
func TestPeakTrackerCloneSharesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 50 {
		window := time.Duration(1+rng.IntN(5000)) * time.Millisecond
		xs := randomAdmissions(rng, 3000, trial%2 == 0)
		cut := len(xs) / 2
		feed := func(p *Tracker, xs []admission) {
			for _, x := range xs {
				p.Admit(x.at, x.delay, x.cost, 0)
			}
		}
		a := Tracker{window: window}
		feed(&a, xs[:cut])
		b := a.Clone()
		// a goes on with the rest; b with the rest shifted by a
		// different cost, then both are compared with fresh trackers.
		other := make([]admission, len(xs)-cut)
		for i, x := range xs[cut:] {
			x.cost = x.cost%3 + 1
			other[i] = x
		}
		feed(&a, xs[cut:])
		feed(&b, other)
		fa := Tracker{window: window}
		feed(&fa, xs)
		fb := Tracker{window: window}
		feed(&fb, append(append([]admission(nil), xs[:cut]...), other...))
		for _, c := range []struct {
			name      string
			got, want *Tracker
		}{{"original", &a, &fa}, {"clone", &b, &fb}} {
			gp, ga := c.got.PeakBy(endOfTime)
			wp, wa := c.want.PeakBy(endOfTime)
			if gp != wp || ga != wa || c.got.kept.sum != c.want.kept.sum {
				t.Fatalf("trial %d %s: peak %d at %v sum %d, fresh %d at %v sum %d", trial, c.name, gp, ga, c.got.kept.sum, wp, wa, c.want.kept.sum)
			}
		}
	}
}

// TestPeakTrackerCloneCopiesEverySlice walks a tracker and its clone field
// by field (fields added later included) and fails where both hold the same
// array, pointer or map: what one then changes in place, the other would
// see.
func TestPeakTrackerCloneCopiesEverySlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	p := Tracker{window: time.Hour}
	xs := randomAdmissions(rng, 5000, true)
	for i, x := range xs {
		p.Admit(x.at, x.delay, x.cost, int64(i%3)) // several sources: a map of groups
	}
	// And a release out of its source's order, loose.
	last := xs[len(xs)-1].at
	p.Push(Passage{last + time.Hour, 1}, 0)
	p.Push(Passage{last + time.Minute, 1}, 0)
	c := p.Clone()
	shared := 0
	var walk func(path string, a, b reflect.Value)
	walk = func(path string, a, b reflect.Value) {
		switch a.Kind() {
		case reflect.Slice:
			if a.Cap() > 0 && a.Pointer() == b.Pointer() {
				t.Errorf("%s: the clone shares the array", path)
				shared++
			}
			for i := range min(a.Len(), b.Len()) {
				walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		case reflect.Pointer, reflect.Map:
			if !a.IsNil() && a.Pointer() == b.Pointer() {
				t.Errorf("%s: the clone shares the %s", path, a.Kind())
			}
			if a.Kind() == reflect.Pointer && !a.IsNil() && !b.IsNil() {
				walk(path+".*", a.Elem(), b.Elem())
			}
		case reflect.Struct:
			for i := range a.NumField() {
				walk(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
			}
		case reflect.Array:
			for i := range a.Len() {
				walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		}
	}
	walk("Tracker", reflect.ValueOf(p), reflect.ValueOf(c))
	if p.kept.Bytes() == 0 || p.pending.Bytes() == 0 || p.pending.more == nil || len(p.pending.more.slot) == 0 || len(p.pending.more.loose) == 0 {
		t.Fatalf("the tracker keeps %d bytes and %d pending: nothing to share", p.kept.Bytes(), p.pending.Bytes())
	}
}

// TestTrackerByHand: small cases worked out by hand, through the API
// alone: the peak and the end of the first window that reached it, with
// what is pending counted by PeakBy and not by Peak.
func TestTrackerByHand(t *testing.T) {
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	type admit struct {
		at, delay time.Duration
		cost      int64
	}
	for _, c := range []struct {
		name         string
		window       time.Duration
		admits       []admit
		by           time.Duration // PeakBy's time
		peak, byPeak int64
		peakAt, byAt time.Duration
	}{
		{name: "nothing", window: time.Second, by: time.Second},
		{name: "one", window: time.Second, admits: []admit{{ms(300), 0, 4}}, by: ms(300), peak: 4, peakAt: ms(300), byPeak: 4, byAt: ms(300)},
		// (−0.5s, 0.5s] holds 1 + 2; (0s, 1s] holds 2 + 1: the first wins.
		{name: "first window wins", window: time.Second, admits: []admit{{0, 0, 1}, {ms(500), 0, 2}, {ms(1000), 0, 1}},
			by: ms(1000), peak: 3, peakAt: ms(500), byPeak: 3, byAt: ms(500)},
		// The window is (t − w, t]: a passage exactly w before leaves.
		{name: "a window's start is open", window: time.Second, admits: []admit{{0, 0, 5}, {ms(1000), 0, 5}},
			by: ms(1000), peak: 5, peakAt: 0, byPeak: 5, byAt: 0},
		// Delayed to 2s: pending at 1s, passed by 2s with the one at 1.5s.
		{name: "delayed", window: time.Second, admits: []admit{{0, ms(2000), 3}, {ms(1500), 0, 1}},
			by: ms(2000), peak: 1, peakAt: ms(1500), byPeak: 4, byAt: ms(2000)},
		{name: "delayed, not yet released", window: time.Second, admits: []admit{{0, ms(2000), 3}, {ms(1500), 0, 1}},
			by: ms(1999), peak: 1, peakAt: ms(1500), byPeak: 1, byAt: ms(1500)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := NewTracker(c.window)
			for _, a := range c.admits {
				p.Admit(a.at, a.delay, a.cost, 0)
			}
			if got, at := p.Peak(); got != c.peak || at != c.peakAt {
				t.Errorf("Peak %d at %v, want %d at %v", got, at, c.peak, c.peakAt)
			}
			if got, at := p.PeakBy(c.by); got != c.byPeak || at != c.byAt {
				t.Errorf("PeakBy(%v) %d at %v, want %d at %v", c.by, got, at, c.byPeak, c.byAt)
			}
			if last, ok := p.LastAdmit(); ok != (len(c.admits) > 0) || ok && last != c.admits[len(c.admits)-1].at {
				t.Errorf("LastAdmit %v, %v", last, ok)
			}
			if p.Window() != c.window {
				t.Errorf("Window %v", p.Window())
			}
			// A clone measures alike; a tracker cut to its peak keeps it.
			cl := p.Clone()
			if got, at := cl.PeakBy(c.by); got != c.byPeak || at != c.byAt {
				t.Errorf("the clone's PeakBy(%v) %d at %v, want %d at %v", c.by, got, at, c.byPeak, c.byAt)
			}
			po := p.PeakOnly()
			if got, at := po.Peak(); got != c.peak || at != c.peakAt {
				t.Errorf("PeakOnly's Peak %d at %v, want %d at %v", got, at, c.peak, c.peakAt)
			}
		})
	}
}
