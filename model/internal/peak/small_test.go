package peak

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestSmallIsTracker feeds a Small and a Tracker the same admissions —
// regular, irregular, bursts at one instant, delays in release order and
// out of it — and wants the same peak from both after each one.
func TestSmallIsTracker(t *testing.T) {
	for seed := range uint64(400) {
		rng := rand.New(rand.NewPCG(seed, 7))
		w := time.Duration(1+rng.IntN(50)) * time.Millisecond
		delays := seed % 4 // 0 none, 1 in release order, 2 any, 3 rare and in order
		tr := NewTracker(w)
		var s Small
		var enc []byte
		var d Small
		var shelf []Small
		var other Small // another key's, regular
		other.Admit(time.Millisecond, 0, 1, 0, w)
		otherEnc := other.Append(nil, &shelf)
		at, release := time.Duration(0), time.Duration(0)
		step := time.Duration(rng.IntN(5)) * time.Millisecond
		for i := range 300 {
			switch rng.IntN(4) {
			case 0: // same instant
			case 1:
				at += time.Duration(rng.IntN(20)) * time.Millisecond
			default:
				at += step
			}
			cost := int64(1)
			if rng.IntN(5) == 0 {
				cost = int64(1 + rng.IntN(3))
			}
			var delay time.Duration
			switch delays {
			case 1:
				if rng.IntN(2) == 0 {
					release = max(release, at) + time.Duration(rng.IntN(3))*time.Millisecond
					delay = release - at
				}
			case 2:
				delay = time.Duration(rng.IntN(30)) * time.Millisecond
			case 3:
				if rng.IntN(20) == 0 {
					release = max(release, at) + 5*time.Millisecond
					delay = release - at
				}
			}
			if delay == 0 && release > at {
				delay = 0 // an admission passing at once before pending ones: out of order
			}
			tr.Admit(at, delay, cost, Source(0, 0))
			s.Admit(at, delay, cost, Source(0, 0), w)
			if seed%2 == 0 {
				// Kept encoded between admissions, as RunKeys keeps it,
				// and loaded into a Small that held another key's
				// between: its runs are not written over.
				enc = s.Append(enc[:0], &shelf)
				if n := d.Load(append(enc, 9, 9), shelf); n != len(enc) {
					t.Fatalf("seed %d: Load read %d bytes of %d", seed, n, len(enc))
				}
				d.Append(enc[:0], &shelf)
				d.Load(otherEnc, shelf)
				d.CopyFrom(&other)
				d.Load(enc, shelf)
				s = d
			}
			p1, a1 := tr.PeakBy(at)
			p2, a2 := s.PeakBy(at, w)
			if p1 != p2 || a1 != a2 {
				t.Fatalf("seed %d, admission %d: peak %d at %v, Tracker's %d at %v", seed, i, p2, a2, p1, a1)
			}
		}
		p1, a1 := tr.PeakBy(endOfTime)
		p2, a2 := s.PeakBy(endOfTime, w)
		if p1 != p2 || a1 != a2 {
			t.Fatalf("seed %d, the end: peak %d at %v, Tracker's %d at %v", seed, p2, a2, p1, a1)
		}
	}
}

// TestSmallRegularIsSmall: a key's regular requests, a window's worth and
// more, cost a few bytes, whatever their number.
func TestSmallRegularIsSmall(t *testing.T) {
	var s Small
	for i := range 1000 {
		s.Admit(500*time.Millisecond+time.Duration(i)*time.Second, 0, 1, 0, time.Minute)
	}
	if b := s.Bytes(); b > 16 {
		t.Errorf("1000 regular passages hold %d bytes beside the Small, want ≤ 16", b)
	}
	if p, at := s.PeakBy(endOfTime, time.Minute); p != 60 || at != 59500*time.Millisecond {
		t.Errorf("peak %d at %v, want 60 at 59.5s", p, at)
	}
}

// BenchmarkSmallAdmit admits a key's regular requests into a Small.
func BenchmarkSmallAdmit(b *testing.B) {
	var s Small
	at := time.Duration(0)
	for b.Loop() {
		at += time.Second
		s.Admit(at, 0, 1, 0, time.Minute)
	}
}
