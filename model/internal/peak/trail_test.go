package peak

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestTrailMatchesBruteForce adds passages in time order and compares the
// trail's sum with the cost inside (at − w, at] counted from the list.
func TestTrailMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for trial := range 400 {
		w := randomWindow(rng)
		ps := releases(randomAdmissions(rng, 1+rng.IntN(300), false))
		var tr trail
		var br Braid
		for i, x := range ps {
			tr.add(x, w)
			br.Add(x, w)
			var want int64
			for _, y := range ps[:i+1] {
				if y.At > x.At-w {
					want += y.Cost
				}
			}
			if tr.sum != want || br.sum != want {
				t.Fatalf("trial %d, window %v, passage %d at %v: trail sum %d, braid sum %d, want %d", trial, w, i, x.At, tr.sum, br.sum, want)
			}
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
		tr.add(Passage{at, 1}, w)
		tr.add(Passage{at, 1}, w)
	}
	if len(tr.buf) != 0 || tr.sum != 2_000_000 {
		t.Fatalf("regular: %d bytes encoded, sum %d", len(tr.buf), tr.sum)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	tr = trail{}
	at := time.Duration(0)
	for range 1_000_000 {
		at += time.Duration(1 + rng.Int64N(int64(2*time.Millisecond)))
		tr.add(Passage{at, 1}, w)
	}
	if perPoint := float64(len(tr.buf)) / 1e6; perPoint > 5 {
		t.Fatalf("irregular: %.1f bytes per passage", perPoint)
	}
}

// TestTrailUnevenBurstKeepsABitAPassage: a burst whose spread is no
// multiple of its count has gaps of two lengths, a bit each.
func TestTrailUnevenBurstKeepsABitAPassage(t *testing.T) {
	w := 8784 * time.Hour
	var b Braid
	const count = 1_000_000
	spread := count*1440*time.Millisecond + count*39/100
	for i := range int64(count) {
		b.Add(Passage{time.Duration(int64(spread) * i / count), 1}, w)
	}
	if b.sum != count || b.Bytes() > count/8+count/100 {
		t.Fatalf("sum %d, %d bytes encoded for %d passages", b.sum, b.Bytes(), count)
	}
}

// TestTrailTwoStepRunsEncoded: runs of two steps (uneven bursts) between
// others, encoded and read back as the window slides over them.
func TestTrailTwoStepRunsEncoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 500 {
		var ps []Passage
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
				ps = append(ps, Passage{at, 1})
			}
		}
		// The gap between two passages, give or take a nanosecond: a
		// window that ends a nanosecond off one sees it.
		w := ps[rng.IntN(len(ps))].At - ps[rng.IntN(len(ps))].At + time.Duration(rng.IntN(3)-1)
		if w <= 0 {
			w = time.Duration(1+rng.IntN(300)) * time.Millisecond
		}
		var tr trail
		for i, x := range ps {
			tr.add(x, w)
			var want int64
			for _, y := range ps[:i+1] {
				if y.At > x.At-w {
					want += y.Cost
				}
			}
			if tr.sum != want {
				t.Fatalf("trial %d, window %v, passage %d at %v: sum %d, want %d", trial, w, i, x.At, tr.sum, want)
			}
		}
	}
}
