package scenarios

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// itemTimes collects mergeTimes(most) as (item, time) pairs.
func itemTimes(s *Scenario, most int) [][2]int64 {
	var out [][2]int64
	s.mergeTimes(most, func(item int, at time.Duration) bool {
		out = append(out, [2]int64{int64(item), int64(at)})
		return true
	})
	return out
}

// referenceItemTimes is reference with each request's item: every item
// expanded in turn, sorted stably by time.
func referenceItemTimes(s *Scenario) [][2]int64 {
	var out [][2]int64
	for item, t := range s.Traffic {
		for i := range t.Count {
			out = append(out, [2]int64{int64(item), int64(t.Time(i))})
		}
	}
	slices.SortStableFunc(out, func(a, b [2]int64) int { return cmp.Compare(a[1], b[1]) })
	return out
}

// manyItems is n random items (randomTraffic's, and poisson items of
// random sorted times), scaled in time by scale, so that traffic of up to a
// year and of many equal times both occur.
func manyItems(rng *rand.Rand, n int, scale time.Duration) []Traffic {
	ts := randomTraffic(rng, n)
	for i := range ts {
		t := &ts[i]
		if rng.IntN(8) == 0 {
			times := make([]time.Duration, rng.IntN(6))
			for j := range times {
				times[j] = time.Duration(rng.IntN(50)) * 10 * time.Millisecond
			}
			slices.Sort(times)
			*t = Traffic{Form: Poisson, times: times, Count: int64(len(times)), Key: t.Key, Cost: t.Cost}
		}
		t.At, t.Spread, t.Every, t.From, t.Until = t.At*scale, t.Spread*scale, t.Every*scale, t.From*scale, t.Until*scale
		for j := range t.times {
			t.times[j] *= scale
		}
	}
	return ts
}

// TestMergeOrdersManyItems: whichever way merge goes (a heap for few items;
// a calendar for many, its windows sorted, or merged through a heap when
// one holds more than most), it yields every request in time order, ties
// in item order, as expanding every item and sorting stably does; and it
// stops when told.
func TestMergeOrdersManyItems(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 120 {
		n := rng.IntN(400)
		// Scales from 1 (many equal times) to 20,000,000 (the grid's 500 ms
		// become up to a year: the windows' width is capped by the items'
		// bits).
		scale := []time.Duration{1, 3, 1000, 20_000_000}[trial%4]
		s := &Scenario{Traffic: manyItems(rng, n, scale)}
		want := referenceItemTimes(s)
		for _, most := range []int{0, 7, 100, calendarMost} {
			got := itemTimes(s, most)
			if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Fatalf("trial %d (%d items, scale %d, most %d): %d requests, want %d\ngot  %v\nwant %v",
					trial, n, scale, most, len(got), len(want), firstFew(got), firstFew(want))
			}
		}
		if len(want) == 0 {
			continue
		}
		stop := rng.IntN(len(want)) + 1
		var got [][2]int64
		s.mergeTimes(50, func(item int, at time.Duration) bool {
			got = append(got, [2]int64{int64(item), int64(at)})
			return len(got) < stop
		})
		if !reflect.DeepEqual(got, want[:stop]) {
			t.Fatalf("trial %d: stopped at %d, got %d requests", trial, stop, len(got))
		}
	}
}

// cannedLessons are every canned lesson, read.
func cannedLessons(t *testing.T) []*Scenario {
	var lessons []*Scenario
	for _, info := range List() {
		s, err := Canned(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		lessons = append(lessons, s)
	}
	return lessons
}

// firstFew is the first few of xs, for a failure message.
func firstFew(xs [][2]int64) [][2]int64 { return xs[:min(len(xs), 12)] }

// TestItemTimesAreRequestsOfItems: ItemTimes yields RequestsOfItems'
// items and times, on every canned lesson and on 100,000 staggered keys.
func TestItemTimesAreRequestsOfItems(t *testing.T) {
	scenarios := append(cannedLessons(t), parse(t, oneLane+"seed: 5\ntraffic:\n"+
		strings.Repeat("  - {every: 1s, until: 10s, accounts: 10000, stagger: random}\n", 4)+
		"  - {at: 3s, count: 300000, spread: 2s, key: burst}\n"+
		strings.Repeat("  - {every: 1s, until: 10s, accounts: 10000, key: k, stagger: even}\n", 4)))
	for i, s := range scenarios {
		var want [][2]int64
		for item, r := range s.RequestsOfItems() {
			if item < len(s.Traffic) { // ItemTimes yields the items' requests, not a log's
				want = append(want, [2]int64{int64(item), int64(r.At)})
			}
		}
		var got [][2]int64
		for item, at := range s.ItemTimes() {
			got = append(got, [2]int64{int64(item), int64(at)})
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scenario %d: ItemTimes differs from RequestsOfItems", i)
		}
		if i == len(scenarios)-1 && !reflect.DeepEqual(want, referenceItemTimes(s)) {
			t.Fatalf("100,000 keys: not in the reference order")
		}
	}
}

// TestBefore: before(at) counts the requests before at, for each form,
// at every instant around each request.
func TestBefore(t *testing.T) {
	for _, tr := range []Traffic{
		{Form: Single, At: 5, Count: 1},
		{Form: Burst, At: 5, Count: 4},
		{Form: Burst, At: 5, Spread: 3, Count: 7},
		{Form: Burst, At: 5, Spread: 10, Count: 3},
		{Form: Burst, At: 0, Spread: MaxTime, Count: MaxRequests},
		{Form: Periodic, From: 2, Every: 3, Until: 12, Count: periodicCount(2, 12, 3)},
		{Form: Poisson, times: []time.Duration{1, 1, 4, 9}, Count: 4},
		{Form: Poisson},
	} {
		t.Run(fmt.Sprintf("%v %+v", tr.Form, tr), func(t *testing.T) {
			var probes []int64 // indexes of the requests probed around
			for i := range min(tr.Count, 40) {
				probes = append(probes, i, tr.Count-1-i)
			}
			for _, i := range probes {
				for _, d := range []time.Duration{-1, 0, 1} {
					at := tr.Time(i) + d
					// The requests before at: a binary search, as times never
					// decrease.
					want := int64(0)
					for lo, hi := int64(0), tr.Count; lo < hi; {
						m := lo + (hi-lo)/2
						if tr.Time(m) < at {
							lo, want = m+1, m+1
						} else {
							hi = m
						}
					}
					if got := tr.before(at); got != want {
						t.Errorf("before(%d) = %d, want %d", at, got, want)
					}
				}
			}
			if got := tr.before(-1 << 62); got != 0 {
				t.Errorf("before(−∞) = %d", got)
			}
			if got := tr.before(1 << 62); got != tr.Count {
				t.Errorf("before(+∞) = %d, want %d", got, tr.Count)
			}
		})
	}
}

// TestRadixSort sorts random keys of every width as slices.Sort does.
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, width := range []int{0, 1, 10, 11, 12, 33, 47, 63, 64} {
		for _, n := range []int{0, 1, 2, 100, 5000} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = rng.Uint64() >> (64 - width) >> (width / 64) // below 2^width
				if width == 0 {
					keys[i] = 0
				}
				if rng.IntN(3) == 0 && i > 0 {
					keys[i] = keys[i-1] // repeats
				}
			}
			want := slices.Sorted(slices.Values(keys))
			got, other := radixSort(slices.Clone(keys), make([]uint64, n), width)
			if !slices.Equal(got, want) || len(other) != n {
				t.Fatalf("width %d, %d keys: not sorted", width, n)
			}
		}
	}
}

// BenchmarkItemTimes merges 100,000 staggered keys' ten requests each
// (tools/many-keys.yaml's traffic) into time order.
func BenchmarkItemTimes(b *testing.B) {
	s, err := Parse("b.yaml", []byte(oneLane+"seed: 1\ntraffic:\n"+
		strings.Repeat("  - {every: 1s, until: 10s, accounts: 10000, stagger: random}\n", 10)))
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime()
	for b.Loop() {
		n := 0
		for range s.ItemTimes() {
			n++
		}
		if n != 1_000_000 {
			b.Fatalf("%d requests", n)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time the process has used, user and system: a
// benchmark's figure on a machine shared with other work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestMergeInStep: items that poll at one rate from first requests within
// one period of each other (accounts staggered) merge round by round
// (periodicMerge), in the reference order: ties at one time in item order,
// items of fewer requests left out of the later rounds, a zero period's
// width of offsets and a period of 1ns included; and the merge stops when
// told. Items whose first requests spread wider, or of two periods, are
// not in step, and go through the calendar.
func TestMergeInStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 60 {
		n := calendarItems + rng.IntN(400)
		every := []time.Duration{1, 7, time.Second, 250 * time.Millisecond}[trial%4]
		from := time.Duration(rng.IntN(5)) * every
		ts := make([]Traffic, n)
		for i := range ts {
			// Offsets from a few values, so that ties occur.
			off := time.Duration(rng.Int64N(int64(every)))
			if trial%3 == 0 {
				off = time.Duration(rng.IntN(3)) * every / 3
			}
			start := from + off
			until := start + time.Duration(rng.IntN(12))*every + 1
			ts[i] = Traffic{Key: fmt.Sprintf("k%d", i), Cost: 1, Form: Periodic, Every: every, From: start, Until: until,
				Count: periodicCount(start, until, every)}
		}
		s := &Scenario{Traffic: ts}
		cs := make([]cursor, n)
		for i := range ts {
			cs[i] = cursor{at: ts[i].Time(0), every: every, count: ts[i].Count, item: int32(i)}
		}
		if _, _, ok := inStep(cs); !ok {
			t.Fatalf("trial %d: the items are not taken as in step", trial)
		}
		want := referenceItemTimes(s)
		if got := itemTimes(s, calendarMost); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d (%d items, every %v): %d requests, want %d\ngot  %v\nwant %v",
				trial, n, every, len(got), len(want), firstFew(got), firstFew(want))
		}
		stop := rng.IntN(len(want)) + 1
		var got [][2]int64
		s.mergeTimes(calendarMost, func(item int, at time.Duration) bool {
			got = append(got, [2]int64{int64(item), int64(at)})
			return len(got) < stop
		})
		if !reflect.DeepEqual(got, want[:stop]) {
			t.Fatalf("trial %d: stopped at %d, got %d requests", trial, stop, len(got))
		}
	}
	step := []cursor{{at: 0, every: 10}, {at: 9, every: 10}}
	// A day's offsets (47 bits) beside 2^17 + 5 items (18 bits): packed as
	// periodicMerge's sort keys they would lose their high bits.
	const day = 24 * time.Hour
	wide := make([]cursor, 1<<17+5)
	wideItems := make([]Traffic, len(wide))
	for i := range wide {
		at := time.Duration(i) * (day / time.Duration(len(wide)))
		wide[i] = cursor{at: at, every: day, count: 2, item: int32(i)}
		wideItems[i] = Traffic{Key: "k", Cost: 1, Form: Periodic, Every: day, From: at, Until: at + day + 1, Count: 2}
	}
	s := &Scenario{Traffic: wideItems}
	if got, want := itemTimes(s, calendarMost), referenceItemTimes(s); !reflect.DeepEqual(got, want) {
		t.Errorf("%d items a day apart at most: %d requests, want %d in the reference order\ngot  %v\nwant %v", len(wide), len(got), len(want), firstFew(got), firstFew(want))
	}
	for _, c := range []struct {
		name string
		cs   []cursor
		want bool
	}{
		{"within one period", step, true},
		{"a period apart", []cursor{{at: 0, every: 10}, {at: 10, every: 10}}, false},
		{"two periods", []cursor{{at: 0, every: 10}, {at: 1, every: 5}}, false},
		{"not periodic", []cursor{{at: 0}, {at: 1}}, false},
		{"keys wider than 64 bits", wide, false},
	} {
		if _, _, got := inStep(c.cs); got != c.want {
			t.Errorf("%s: inStep %v, want %v", c.name, got, c.want)
		}
	}
}
