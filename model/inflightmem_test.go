package model

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"ratelab/algorithms"
)

// inFlightLanes are shapers that a burst at 0s fills with a million
// requests in flight, and how many bytes their peak trackers may hold for
// them: a few runs at a regular step (Guava and nginx release every
// millisecond exactly), a run per key (a hundred keys' bursts of 10,000),
// and for x/time/rate's reserve, whose float64 arithmetic puts some
// releases a nanosecond early (gaps of 1 ms, 1 ms − 1 ns and 1 ms + 1 ns),
// about a bit per request.
var inFlightLanes = []struct {
	name, lane, traffic string
	most                int64
}{
	{"x-time-rate-reserve", "{name: reserve, algorithm: x-time-rate-reserve, burst: 1, rate: 1/ms}", oneBurst, 1 << 19},
	{"guava", "{name: guava, algorithm: guava, rate: 1000/s}", oneBurst, 4096},
	{"nginx", "{name: nginx, algorithm: nginx-limit-req, rate: 1000r/s, burst: 100000000}", oneBurst, 4096},
	{"guava-100-keys", "{name: guava, algorithm: guava, rate: 1000/s}", hundredBursts(), 100 * 512},
}

const oneBurst = "  - {at: 0s, count: 1000000}\n"

func hundredBursts() string {
	var y strings.Builder
	for k := range 100 {
		fmt.Fprintf(&y, "  - {at: 0s, count: 10000, key: k%d}\n", k)
	}
	return y.String()
}

// TestInFlightReleasesCostNoHeapEntryEach is issue 17 at a twentieth of its
// size: a million requests at 0s into a shaper (whose own state is a few
// numbers a key) are a million releases in flight. The peak tracker held one
// 16-byte heap entry for each (more with the slice's growth): Run's heap
// grew to tens of MB, and the lab's trackers held 16 MB each. Now Run
// holds what the tracker's runs take, and so do the lab's trackers.
func TestInFlightReleasesCostNoHeapEntryEach(t *testing.T) {
	if testing.Short() {
		t.Skip("a million requests a lane")
	}
	for _, c := range inFlightLanes {
		t.Run(c.name, func(t *testing.T) {
			s := parse(t, "title: in flight\nlimiters:\n  - "+c.lane+"\ntraffic:\n"+c.traffic)
			heap, _ := peakHeap(func() {
				if _, err := Run(s, Options{}, nil); err != nil {
					t.Fatal(err)
				}
			})
			if heap > 4<<20 {
				t.Errorf("Run's heap grew by %d bytes for 1,000,000 requests in flight", heap)
			}
			l := newLab(t, s) // its clock at 0: every request decided, all but one in flight
			for name, ls := range map[string]*lanes{"frontier": l.frontier, "live": l.live} {
				if n := ls.peaks[0].cloneBytes(); n > c.most {
					t.Errorf("the lab's %s tracker holds %d bytes for 1,000,000 requests in flight, want at most %d", name, n, c.most)
				}
			}
		})
	}
}

// TestCheckInFlightReleasesCostNoHeapEntryEach: Check measuring a peak
// on such a lane kept each release due in a 24-byte queue entry (a
// million in flight: tens of MB); it keeps the first duePlain plainly and
// the rest grouped as the peak tracker does.
func TestCheckInFlightReleasesCostNoHeapEntryEach(t *testing.T) {
	if testing.Short() {
		t.Skip("a million requests")
	}
	for _, c := range inFlightLanes {
		t.Run(c.name, func(t *testing.T) {
			s := parse(t, "title: in flight\nlimiters:\n  - "+c.lane+"\ntraffic:\n"+c.traffic+
				"expect:\n  - {lane: "+c.lane[len("{name: "):strings.Index(c.lane, ",")]+", peak: 2, peak_window: 1ms}\n")
			heap, _ := peakHeap(func() {
				if _, err := Check(s); err != nil {
					t.Fatal(err)
				}
			})
			if heap > 4<<20 {
				t.Errorf("Check's heap grew by %d bytes for 1,000,000 requests in flight", heap)
			}
		})
	}
}

// BenchmarkInFlightMemory reports what a million requests in flight cost
// on each shaper (a burst at 0s into one key; for guava-100-keys, a hundred keys'
// bursts of 10,000 one after the other): the heap the lanes hold once
// every request is decided (B/in-flight: the limiter's state, a leaky
// bucket's queue of 24 bytes a request included, and the peak tracker),
// and the peak tracker's own part (tracker-B/in-flight, as cloneBytes
// counts it).
func BenchmarkInFlightMemory(b *testing.B) {
	const n = 1_000_000
	type lane struct{ name, lane, traffic string }
	cases := []lane{{"leaky-bucket", "{name: shaper, algorithm: leaky-bucket, queue: 1000000000, rate: 1/ms}", oneBurst}}
	for _, c := range inFlightLanes {
		cases = append(cases, lane{c.name, c.lane, c.traffic})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := parse(b, "title: in flight\nlimiters:\n  - "+c.lane+"\ntraffic:\n"+c.traffic)
			defs := LanesOf(s)
			var held uint64
			var tracker int64
			for b.Loop() {
				before := heapInUse()
				ls, err := newLanes(defs, DefaultPeakWindow(defs), nil, s.Duration, nil)
				if err != nil {
					b.Fatal(err)
				}
				var d algorithms.Decision
				var a Attempt
				i := 0
				for r := range s.Requests() {
					ls.arrive(r, i)
					ls.decideInto(0, r, &d, &a)
					i++
				}
				if after := heapInUse(); after > before {
					held = after - before
				}
				tracker = ls.peaks[0].cloneBytes()
				runtime.KeepAlive(ls)
			}
			b.ReportMetric(float64(held)/n, "B/in-flight")
			b.ReportMetric(float64(tracker)/n, "tracker-B/in-flight")
		})
	}
}
