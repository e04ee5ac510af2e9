package fit

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The ring of packed requests, grown and wrapped from its smallest size,
// with gaps from 0 to 2^50 ns (varints of 1 to 8 bytes), gives each
// window's largest cost as a sum over the requests does.
func TestLogTrackAgainstSums(t *testing.T) {
	windows := []time.Duration{1, 1000, time.Millisecond, time.Second, time.Hour}
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		l := newLogTrack(len(windows))
		var ats []time.Duration
		var costs []int64
		at := time.Duration(0)
		for range 2000 {
			switch rng.IntN(4) {
			case 0:
			case 1:
				at += time.Duration(rng.Int64N(1 << uint(rng.IntN(50)+1)))
			default:
				at += time.Duration(rng.Int64N(int64(time.Millisecond)))
			}
			c := 1 + rng.Int64N(1<<uint(rng.IntN(20)))
			ats, costs = append(ats, at), append(costs, c)
			l.add(at, c, windows)
		}
		for w, win := range windows {
			var want int64
			for i := range ats {
				var sum int64
				for j := i; j >= 0 && ats[j] > ats[i]-win; j-- {
					sum += costs[j]
				}
				want = max(want, sum)
			}
			if got := l.tails[w].max; got != want {
				t.Errorf("seed %d, window %s: %d, want %d", seed, win, got, want)
			}
		}
	}
}
