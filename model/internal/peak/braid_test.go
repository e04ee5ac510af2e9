package peak

import (
	"testing"
	"time"
)

// TestBraidMergedStreamsKeepNoBytes: five periodic items of different
// periods, merged (no regular step of their own), over a year's window,
// as five strands of one run each, whatever the number of passages.
func TestBraidMergedStreamsKeepNoBytes(t *testing.T) {
	w := 8784 * time.Hour
	periods := []time.Duration{18 * time.Second, 12750 * time.Millisecond, 8250 * time.Millisecond, 7250 * time.Millisecond, 4250 * time.Millisecond}
	n := int64(1_000_000)
	b := mergedBraid(periods, n, w)
	if b.sum != n || len(b.strands) != len(periods) || b.Bytes() > 200 {
		t.Fatalf("%d passages: sum %d, %d strands, %d bytes encoded", n, b.sum, len(b.strands), b.Bytes())
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
		if b.sum != n || b.Bytes() > 200 {
			t.Fatalf("periods %v, %d passages: sum %d, %d strands, %d bytes encoded", periods, n, b.sum, len(b.strands), b.Bytes())
		}
	}
}

// mergedBraid feeds a braid of window w with n passages of cost 1 from
// periodic streams of the given periods, the i-th starting at i ms, merged
// in time order.
func mergedBraid(periods []time.Duration, n int64, w time.Duration) *Braid {
	next := make([]time.Duration, len(periods))
	for i := range next {
		next[i] = time.Duration(i) * time.Millisecond
	}
	b := &Braid{}
	for range n {
		i := 0
		for j := range next {
			if next[j] < next[i] {
				i = j
			}
		}
		b.Add(Passage{next[i], 1}, w)
		next[i] += periods[i]
	}
	return b
}

// BenchmarkBraidAdd is one passage into a year's window (ns per passage,
// and the bytes the braid holds encoded per passage at the end), for
// traffic of each shape.
func BenchmarkBraidAdd(b *testing.B) {
	shapes := map[string]func(i int) time.Duration{
		"regular": func(i int) time.Duration { return time.Duration(i) * 1440 * time.Millisecond },
		"uneven":  func(i int) time.Duration { return time.Duration(int64(i) * 1_440_000_039 / 100) },
		"merged": func(i int) time.Duration {
			// five streams of periods 5, 7, 11, 13, 17 (ms), round robin
			p := []int64{5, 7, 11, 13, 17}[i%5]
			return time.Duration(int64(i/5)*p*int64(time.Millisecond) + int64(i%5))
		},
	}
	for _, name := range []string{"regular", "uneven", "merged"} {
		at := shapes[name]
		b.Run(name, func(b *testing.B) {
			var br Braid
			i := 0
			var last time.Duration
			for b.Loop() {
				x := at(i)
				if x < last { // keep time order for the merged shape
					x = last
				}
				last = x
				br.Add(Passage{x, 1}, 8784*time.Hour)
				i++
			}
			b.ReportMetric(float64(br.Bytes())/float64(i), "bytes/passage")
		})
	}
}

// TestBraidByHand: the window's sum after each passage, worked out by
// hand, and Reset leaving an empty braid that sums like a new one.
func TestBraidByHand(t *testing.T) {
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, c := range []struct {
		name   string
		window time.Duration
		add    []Passage
		sums   []int64 // after each
	}{
		{"one instant", time.Second, []Passage{{0, 1}, {0, 2}, {0, 3}}, []int64{1, 3, 6}},
		{"sliding", time.Second, []Passage{{0, 1}, {ms(500), 1}, {ms(1000), 1}, {ms(1500), 1}}, []int64{1, 2, 2, 2}},
		{"a gap empties it", time.Second, []Passage{{0, 4}, {ms(100), 4}, {ms(5000), 1}}, []int64{4, 8, 1}},
		{"a regular stream", ms(10), []Passage{{0, 1}, {ms(3), 1}, {ms(6), 1}, {ms(9), 1}, {ms(12), 1}, {ms(15), 1}}, []int64{1, 2, 3, 4, 4, 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b Braid
			for round := range 2 {
				for i, x := range c.add {
					b.Add(x, c.window)
					if b.Sum() != c.sums[i] {
						t.Fatalf("round %d, after %d: sum %d, want %d", round, i+1, b.Sum(), c.sums[i])
					}
				}
				if cl := b.Clone(); cl.Sum() != b.Sum() || cl.Bytes() != b.Bytes() {
					t.Fatalf("round %d: the clone sums %d (%d bytes), the braid %d (%d bytes)", round, cl.Sum(), cl.Bytes(), b.Sum(), b.Bytes())
				}
				b.Reset()
				if b.Sum() != 0 {
					t.Fatalf("reset: sum %d", b.Sum())
				}
			}
		})
	}
}
