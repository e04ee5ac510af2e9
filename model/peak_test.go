package model

import (
	"maps"
	"math/rand/v2"
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

func releases(xs []admission) []passage {
	ps := make([]passage, len(xs))
	for i, x := range xs {
		ps[i] = passage{x.at + x.delay, x.cost}
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

// TestTrailMatchesBruteForce adds passages in time order and compares the
// trail's sum with the cost inside (at − w, at] counted from the list.
func TestTrailMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for trial := range 400 {
		w := randomWindow(rng)
		ps := releases(randomAdmissions(rng, 1+rng.IntN(300), false))
		var tr trail
		var br braid
		for i, x := range ps {
			tr.add(x, w)
			br.add(x, w)
			var want int64
			for _, y := range ps[:i+1] {
				if y.at > x.at-w {
					want += y.cost
				}
			}
			if tr.sum != want || br.sum != want {
				t.Fatalf("trial %d, window %v, passage %d at %v: trail sum %d, braid sum %d, want %d", trial, w, i, x.at, tr.sum, br.sum, want)
			}
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
		p := peakTracker{window: w}
		for i, x := range xs {
			p.admit(x.at, x.delay, x.cost, 0)
			if rng.IntN(20) == 0 || i == len(xs)-1 {
				cut := x.at + time.Duration(rng.IntN(30))*time.Millisecond
				var due []passage
				for _, y := range releases(xs[:i+1]) {
					if y.at <= cut {
						due = append(due, y)
					}
				}
				wantPeak, wantAt := bruteForcePeak(due, w)
				if got, gotAt := p.peakBy(cut); got != wantPeak || gotAt != wantAt {
					t.Fatalf("trial %d, window %v, after %d: peakBy(%v) = %d at %v, brute force %d at %v", trial, w, i+1, cut, got, gotAt, wantPeak, wantAt)
				}
			}
		}
		wantPeak, wantAt := bruteForcePeak(releases(xs), w)
		if got, gotAt := p.peakBy(endOfTime); got != wantPeak || gotAt != wantAt {
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
		whole := peakTracker{window: w}
		for _, x := range xs[:cut] {
			whole.admit(x.at, x.delay, x.cost, 0)
		}
		re := peakTracker{window: w, peak: whole.peak, peakAt: whole.peakAt, admitted: whole.admitted, lastAdmit: whole.lastAdmit}
		last := re.lastAdmit
		for _, x := range xs[:cut] {
			r := passage{x.at + x.delay, x.cost}
			switch {
			case r.at > last:
				re.push(r, 0)
			case r.at > last-w:
				re.refill(x.at, r, 0)
			}
		}
		re.refilled()
		// The sums may differ: the whole tracker drops what left the
		// window only at the next passage, which comes after last.
		if got, want := flightContents(&re.pending), flightContents(&whole.pending); !maps.Equal(got, want) {
			t.Fatalf("trial %d: refilled pending %v, whole %v", trial, got, want)
		}
		for _, x := range xs[cut:] {
			whole.admit(x.at, x.delay, x.cost, 0)
			re.admit(x.at, x.delay, x.cost, 0)
			if re.peak != whole.peak || re.peakAt != whole.peakAt {
				t.Fatalf("trial %d, window %v, refilled after %d: peak %d at %v, whole %d at %v", trial, w, cut, re.peak, re.peakAt, whole.peak, whole.peakAt)
			}
		}
		gp, ga := whole.peakBy(endOfTime)
		if rp, ra := re.peakBy(endOfTime); rp != gp || ra != ga {
			t.Fatalf("trial %d: refilled peak %d at %v, whole %d at %v", trial, rp, ra, gp, ga)
		}
	}
}

// TestTrailRegularTrafficKeepsNoBytes: a year-long window over a million
// regular passages (two per instant, as two interleaved keys give) holds
// one run, and a million irregular ones a few bytes each.
func TestTrailRegularTrafficKeepsNoBytes(t *testing.T) {
	w := 8784 * time.Hour
	var tr trail
	for i := range 1_000_000 {
		at := time.Duration(i) * 1440 * time.Millisecond
		tr.add(passage{at, 1}, w)
		tr.add(passage{at, 1}, w)
	}
	if len(tr.buf) != 0 || tr.sum != 2_000_000 {
		t.Fatalf("regular: %d bytes encoded, sum %d", len(tr.buf), tr.sum)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	tr = trail{}
	at := time.Duration(0)
	for range 1_000_000 {
		at += time.Duration(1 + rng.Int64N(int64(2*time.Millisecond)))
		tr.add(passage{at, 1}, w)
	}
	if perPoint := float64(len(tr.buf)) / 1e6; perPoint > 5 {
		t.Fatalf("irregular: %.1f bytes per passage", perPoint)
	}
}

// TestTrailUnevenBurstKeepsABitAPassage: a burst whose spread is no
// multiple of its count has gaps of two lengths, a bit each.
func TestTrailUnevenBurstKeepsABitAPassage(t *testing.T) {
	w := 8784 * time.Hour
	var b braid
	const count = 1_000_000
	spread := count*1440*time.Millisecond + count*39/100
	for i := range int64(count) {
		b.add(passage{time.Duration(int64(spread) * i / count), 1}, w)
	}
	if b.sum != count || b.bytes() > count/8+count/100 {
		t.Fatalf("sum %d, %d bytes encoded for %d passages", b.sum, b.bytes(), count)
	}
}

// TestBraidMergedStreamsKeepNoBytes: five periodic items of different
// periods, merged (no regular step of their own), over a year's window,
// as five strands of one run each, whatever the number of passages.
func TestBraidMergedStreamsKeepNoBytes(t *testing.T) {
	w := 8784 * time.Hour
	periods := []time.Duration{18 * time.Second, 12750 * time.Millisecond, 8250 * time.Millisecond, 7250 * time.Millisecond, 4250 * time.Millisecond}
	n := int64(1_000_000)
	b := mergedBraid(periods, n, w)
	if b.sum != n || len(b.strands) != len(periods) || b.bytes() > 200 {
		t.Fatalf("%d passages: sum %d, %d strands, %d bytes encoded", n, b.sum, len(b.strands), b.bytes())
	}
}

// TestTrailTwoStepRunsEncoded: runs of two steps (uneven bursts) between
// others, encoded and read back as the window slides over them.
func TestTrailTwoStepRunsEncoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 500 {
		var ps []passage
		at := time.Duration(0)
		for range 2 + rng.IntN(6) {
			count := 2 + rng.Int64N(100)
			spread := count*int64(time.Millisecond) + rng.Int64N(count)
			if rng.IntN(3) == 0 {
				spread = count * int64(time.Millisecond) // a regular run
			}
			start := at + time.Duration(1+rng.IntN(3))*time.Millisecond
			for i := range count {
				at = start + time.Duration(spread*i/count)
				ps = append(ps, passage{at, 1})
			}
		}
		// The gap between two passages, give or take a nanosecond: a
		// window that ends a nanosecond off one sees it.
		w := ps[rng.IntN(len(ps))].at - ps[rng.IntN(len(ps))].at + time.Duration(rng.IntN(3)-1)
		if w <= 0 {
			w = time.Duration(1+rng.IntN(300)) * time.Millisecond
		}
		var tr trail
		for i, x := range ps {
			tr.add(x, w)
			var want int64
			for _, y := range ps[:i+1] {
				if y.at > x.at-w {
					want += y.cost
				}
			}
			if tr.sum != want {
				t.Fatalf("trial %d, window %v, passage %d at %v: sum %d, want %d", trial, w, i, x.at, tr.sum, want)
			}
		}
	}
}

// TestBraidFewMergedStreamsKeepNoBytes: two, three and four periodic
// streams of short periods (a strand alone at first must still move on,
// or strands form on sub-steps and the window fills with loose
// passages), over a year's window, keep O(maxStrands) whatever the
// number of passages.
func TestBraidFewMergedStreamsKeepNoBytes(t *testing.T) {
	w := 8784 * time.Hour
	for _, periods := range [][]time.Duration{
		{7 * time.Millisecond, 5 * time.Millisecond},
		{7 * time.Millisecond, 5 * time.Millisecond, 3 * time.Millisecond},
		{7 * time.Millisecond, 5 * time.Millisecond, 3 * time.Millisecond, 11 * time.Millisecond},
	} {
		n := int64(100_000)
		b := mergedBraid(periods, n, w)
		if b.sum != n || b.bytes() > 200 {
			t.Fatalf("periods %v, %d passages: sum %d, %d strands, %d bytes encoded", periods, n, b.sum, len(b.strands), b.bytes())
		}
	}
}

// mergedBraid feeds a braid of window w with n passages of cost 1 from
// periodic streams of the given periods, the i-th starting at i ms, merged
// in time order.
func mergedBraid(periods []time.Duration, n int64, w time.Duration) *braid {
	next := make([]time.Duration, len(periods))
	for i := range next {
		next[i] = time.Duration(i) * time.Millisecond
	}
	b := &braid{}
	for range n {
		i := 0
		for j := range next {
			if next[j] < next[i] {
				i = j
			}
		}
		b.add(passage{next[i], 1}, w)
		next[i] += periods[i]
	}
	return b
}
