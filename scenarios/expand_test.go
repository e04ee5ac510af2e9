package scenarios

import (
	"cmp"
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
)

// collect materialises s.Requests.
func collect(s *Scenario) []Request {
	var rs []Request
	for r := range s.Requests() {
		rs = append(rs, r)
	}
	return rs
}

// reference expands every item in turn, by the formulas of docs/format.md, and
// sorts stably by time.
func reference(s *Scenario) []Request {
	var rs []Request
	for _, t := range s.Traffic {
		switch t.Form {
		case Single:
			rs = append(rs, Request{t.At, t.Key, t.Cost, t.Client})
		case Burst:
			for i := range t.Count {
				off := new(big.Int).Mul(big.NewInt(i), big.NewInt(int64(t.Spread)))
				off.Quo(off, big.NewInt(t.Count))
				rs = append(rs, Request{t.At + time.Duration(off.Int64()), t.Key, t.Cost, t.Client})
			}
		case Periodic:
			for at := t.From; at < t.Until; at += t.Every {
				rs = append(rs, Request{at, t.Key, t.Cost, t.Client})
			}
		}
	}
	slices.SortStableFunc(rs, func(a, b Request) int { return cmp.Compare(a.At, b.At) })
	return rs
}

func TestBurstSpread(t *testing.T) {
	s := parse(t, oneLane+"traffic:\n  - {at: 1s, count: 3, spread: 100ms}\n  - {at: 5s, count: 4, spread: 1s}\n  - {at: 7s, count: 2}\n")
	want := []time.Duration{
		time.Second, time.Second + 33333333, time.Second + 66666666, // ⌊i × 100ms / 3⌋
		5 * time.Second, 5250 * time.Millisecond, 5500 * time.Millisecond, 5750 * time.Millisecond,
		7 * time.Second, 7 * time.Second, // no spread: all at once
	}
	var got []time.Duration
	for r := range s.Requests() {
		got = append(got, r.At)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("times %v, want %v", got, want)
	}

	// The largest burst over the longest spread: i × spread overflows int64,
	// the formula must not.
	b := Traffic{Form: Burst, At: 0, Spread: MaxTime, Count: MaxRequests}
	for _, i := range []int64{1, MaxRequests / 3, MaxRequests - 1} {
		want := new(big.Int).Mul(big.NewInt(i), big.NewInt(int64(MaxTime)))
		want.Quo(want, big.NewInt(MaxRequests))
		if got := b.Time(i); int64(got) != want.Int64() {
			t.Errorf("Time(%d) of a %d-request burst over %v = %d, want %d", i, b.Count, MaxTime, got, want)
		}
	}
}

func TestPeriodicBoundaries(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		item string
		want []time.Duration
	}{
		{"{every: 250ms, until: 1s}", []time.Duration{0, 250 * ms, 500 * ms, 750 * ms}},           // until on the grid: excluded
		{"{every: 300ms, from: 100ms, until: 1s}", []time.Duration{100 * ms, 400 * ms, 700 * ms}}, // 1000ms excluded
		{"{every: 300ms, from: 100ms, until: 1001ms}", []time.Duration{100 * ms, 400 * ms, 700 * ms, time.Second}},
		{"{every: 1s, from: 2s, until: 2001ms}", []time.Duration{2 * time.Second}}, // one request
		{"{every: 10s, until: 1s}", []time.Duration{0}},                            // every longer than the span
	}
	for _, tt := range tests {
		s := parse(t, oneLane+"traffic:\n  - "+tt.item+"\n")
		var got []time.Duration
		for r := range s.Requests() {
			got = append(got, r.At)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.item, got, tt.want)
		}
		if n := s.RequestCount(); n != int64(len(tt.want)) || s.Traffic[0].Count != n {
			t.Errorf("%s: RequestCount %d, Count %d, want %d", tt.item, n, s.Traffic[0].Count, len(tt.want))
		}
	}
}

func TestStableOrder(t *testing.T) {
	s := parse(t, oneLane+`traffic:
  - {at: 1s, key: a}
  - {at: 0s, count: 2, key: b}
  - {at: 1s, key: c}
  - {every: 500ms, until: 1.5s, key: d}
  - {at: 1s, count: 2, spread: 1ns, key: e}
`)
	type kt struct {
		at  time.Duration
		key string
	}
	want := []kt{{0, "b"}, {0, "b"}, {0, "d"}, {500 * time.Millisecond, "d"},
		{time.Second, "a"}, {time.Second, "c"}, {time.Second, "d"}, {time.Second, "e"}, {time.Second, "e"}}
	var got []kt
	for r := range s.Requests() {
		got = append(got, kt{r.At, r.Key})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order %v\nwant %v", got, want)
	}
	if keys := s.Keys(); !reflect.DeepEqual(keys, []string{"b", "d", "a", "c", "e"}) {
		t.Errorf("Keys = %q", keys)
	}
}

// randomTraffic makes n random items on a coarse grid, so that equal times
// across items are common.
func randomTraffic(rng *rand.Rand, n int) []Traffic {
	grid := func(k int) time.Duration { return time.Duration(rng.IntN(k)) * 10 * time.Millisecond }
	var ts []Traffic
	for i := range n {
		t := Traffic{Key: fmt.Sprintf("k%d", i), Cost: int64(1 + rng.IntN(3))}
		switch rng.IntN(3) {
		case 0:
			t.Form, t.At, t.Count = Single, grid(50), 1
		case 1:
			t.Form, t.At, t.Count = Burst, grid(50), int64(1+rng.IntN(20))
			if rng.IntN(2) == 0 {
				t.Spread = grid(30) + time.Duration(rng.IntN(1000))
			}
		case 2:
			t.Form, t.Every, t.From = Periodic, grid(10)+10*time.Millisecond, grid(20)
			t.Until = t.From + grid(60) + time.Duration(rng.IntN(3))
			t.Count = periodicCount(t.From, t.Until, t.Every)
			if t.Count == 0 {
				t.Until = t.From + 1
				t.Count = 1
			}
		}
		ts = append(ts, t)
	}
	return ts
}

func TestRequestsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		s := &Scenario{Traffic: randomTraffic(rng, rng.IntN(12))}
		got, want := collect(s), reference(s)
		if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Fatalf("trial %d: traffic %+v\nmerge     %v\nreference %v", trial, s.Traffic, got, want)
		}
		if n := s.RequestCount(); n != int64(len(got)) {
			t.Fatalf("trial %d: RequestCount %d, yielded %d", trial, n, len(got))
		}
	}
}

func TestRequestsStopEarly(t *testing.T) {
	s := parse(t, oneLane+"traffic:\n  - {every: 1ms, until: 1s}\n  - {at: 0s, count: 1000}\n")
	n := 0
	for range s.Requests() {
		if n++; n == 10 {
			break
		}
	}
	if n != 10 {
		t.Errorf("stopped after %d", n)
	}
}

func TestRequestsStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("streams two million requests")
	}
	s := parse(t, oneLane+"traffic:\n  - {every: 1ms, until: 1000s}\n  - {at: 0s, count: 1000000, spread: 1000s, key: b}\n")
	const n = 2_000_000
	if s.RequestCount() != n {
		t.Fatalf("RequestCount = %d", s.RequestCount())
	}
	var before, after runtimeMem
	before.read()
	count, last := 0, time.Duration(-1)
	for r := range s.Requests() {
		if r.At < last {
			t.Fatalf("request %d at %v after %v", count, r.At, last)
		}
		last = r.At
		count++
	}
	after.read()
	if count != n {
		t.Errorf("yielded %d, want %d", count, n)
	}
	// Materialising 2,000,000 requests would take 2e6 × 40 bytes = 80 MB.
	if grew := after.total - before.total; grew > 1<<20 {
		t.Errorf("streaming allocated %d bytes", grew)
	}
}

// runtimeMem is the running total of bytes allocated.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.total = ms.TotalAlloc
}

// TestStaggerEvenTimes checks the exact requests of evenly staggered copies:
// copy i of N starts ⌊i × every / N⌋ later and keeps the item's until.
func TestStaggerEvenTimes(t *testing.T) {
	s := parse(t, oneLane+"traffic:\n  - {every: 1s, from: 1s, until: 3s, accounts: 3, key: u, stagger: even}\n")
	ms := time.Millisecond
	want := []Request{
		{1000 * ms, "u-1", 1, 0}, {1333333333, "u-2", 1, 0}, {1666666666, "u-3", 1, 0},
		{2000 * ms, "u-1", 1, 0}, {2333333333, "u-2", 1, 0}, {2666666666, "u-3", 1, 0},
	}
	if got := collect(s); !reflect.DeepEqual(got, want) {
		t.Errorf("requests\n got: %v\nwant: %v", got, want)
	}
}

// TestStaggerRandom checks the random offsets: copy i starts the i-th draw
// of Int64N(every) from a PCG seeded by the scenario's seed and the item's
// position later; the same file gives the same offsets, another seed or
// another position others, and every offset is in [0, every).
func TestStaggerRandom(t *testing.T) {
	const every = 700 * time.Millisecond
	file := func(seed uint64, seedFirst bool, before string) string {
		traffic := "traffic:\n" + before + "  - {every: 700ms, until: 10s, accounts: 50, stagger: random}\n"
		seedLine := fmt.Sprintf("seed: %d\n", seed)
		if seedFirst {
			return oneLane + seedLine + traffic
		}
		return oneLane + traffic + seedLine
	}
	offsets := func(s *Scenario) []time.Duration {
		var out []time.Duration
		for _, c := range s.Traffic {
			if c.Form == Periodic {
				out = append(out, c.From)
			}
		}
		return out
	}
	want := func(seed uint64, pos int) []time.Duration {
		r := rand.New(rand.NewPCG(seed, uint64(pos)))
		out := make([]time.Duration, 50)
		for i := range out {
			out[i] = time.Duration(r.Int64N(int64(every)))
		}
		return out
	}
	tests := []struct {
		name      string
		seed      uint64
		seedFirst bool
		before    string
		pos       int
	}{
		{"seed after traffic", 7, false, "", 0},
		{"seed before traffic", 7, true, "", 0},
		{"another seed", 8, false, "", 0},
		{"no seed", 0, false, "", 0},
		{"second item", 7, false, "  - {at: 0s}\n", 1},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parse(t, file(tt.seed, tt.seedFirst, tt.before))
			got := offsets(s)
			if w := want(tt.seed, tt.pos); !reflect.DeepEqual(got, w) {
				t.Fatalf("offsets\n got: %v\nwant: %v", got, w)
			}
			if again := offsets(parse(t, file(tt.seed, tt.seedFirst, tt.before))); !reflect.DeepEqual(again, got) {
				t.Errorf("a second parse gave other offsets: %v", again)
			}
			distinct := map[time.Duration]bool{}
			for i, off := range got {
				if off < 0 || off >= every {
					t.Errorf("copy %d: offset %v outside [0, %v)", i, off, every)
				}
				distinct[off] = true
				c := s.Traffic[len(s.Traffic)-50+i]
				if c.Key != fmt.Sprintf("acct-%d", i+1) || c.Count != periodicCount(off, 10*time.Second, every) {
					t.Errorf("copy %d: key %s, %d requests", i, c.Key, c.Count)
				}
			}
			if len(distinct) < 45 {
				t.Errorf("only %d distinct offsets of 50", len(distinct))
			}
			if got, ref := collect(s), reference(s); !reflect.DeepEqual(got, ref) {
				t.Errorf("Requests differs from the reference expansion")
			}
			seen[fmt.Sprint(got)] += tt.name + "; "
		})
	}
	// The two placements of seed 7 agree; every other case differs.
	if len(seen) != len(tests)-1 {
		t.Errorf("want %d different sets of offsets, got %d: %v", len(tests)-1, len(seen), slices.Collect(maps.Values(seen)))
	}
}

// BenchmarkRequests merges traffic into requests: the one item of
// tools/million.yaml, and 10,000 copies of an item of accounts, all at the
// same instants or staggered at random, whose cursors make a deep heap.
func BenchmarkRequests(b *testing.B) {
	for _, c := range []struct{ name, traffic string }{
		{"one item", "  - {every: 1ms, until: 1000s}\n"},
		{"10000 items together", "  - {every: 1s, until: 100s, accounts: 10000}\n"},
		{"10000 items staggered", "  - {every: 1s, until: 100s, accounts: 10000, stagger: random}\n"},
	} {
		s, err := Parse("b.yaml", []byte(oneLane+"traffic:\n"+c.traffic))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				n := int64(0)
				for range s.Requests() {
					n++
				}
				if n != s.RequestCount() {
					b.Fatalf("%d requests, want %d", n, s.RequestCount())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.RequestCount()), "ns/request")
		})
	}
}

// TestRequestsOfItemsNameTheirItems: RequestsOfItems yields what Requests
// yields, in the same order, each request with the item it came from, on
// every canned lesson (items of accounts, bursts, poisson, clients).
func TestRequestsOfItemsNameTheirItems(t *testing.T) {
	for _, info := range List() {
		name := info.Name
		s, err := Canned(name)
		if err != nil {
			t.Fatal(err)
		}
		var plain []Request
		for r := range s.Requests() {
			plain = append(plain, r)
		}
		i := 0
		for item, r := range s.RequestsOfItems() {
			if item >= len(s.Traffic) { // a log's: its item is after the items
				if item-len(s.Traffic) >= len(s.Logs) || i >= len(plain) || r != plain[i] {
					t.Fatalf("%s: request %d is %+v of item %d, past the %d items and %d logs", name, i, r, item, len(s.Traffic), len(s.Logs))
				}
				i++
				continue
			}
			tr := s.Traffic[item]
			if i >= len(plain) || r != plain[i] || r.Key != tr.Key || r.Cost != tr.Cost || r.Client != tr.Client {
				t.Fatalf("%s: request %d is %+v of item %d (%+v), Requests gives %+v", name, i, r, item, tr, plain[min(i, len(plain)-1)])
			}
			i++
		}
		if i != len(plain) {
			t.Fatalf("%s: %d requests, Requests gives %d", name, i, len(plain))
		}
	}
}

// TestKeyNumbers: a file's items number their keys alike for the same key
// and apart for different ones, below the count, on every canned lesson
// and on keys that recur across items and copies; an item added by
// a program leaves every key to be looked up by name.
func TestKeyNumbers(t *testing.T) {
	cases := append(cannedLessons(t), parse(t, oneLane+`traffic:
  - {every: 1s, until: 5s, accounts: 3, key: a}
  - {at: 1s, key: a-2}
  - {every: 1s, from: 2s, until: 4s, keys: [z, a-3, y], stagger: even}
  - {at: 0.5s, key: z}
  - {poisson: 2/s, until: 3s, keys: [y, q]}
`))
	for i, s := range cases {
		numbers, count := s.KeyNumbers()
		if numbers == nil {
			t.Fatalf("scenario %d: no numbers", i)
		}
		byKey := map[string]int32{}
		byNumber := map[int32]string{}
		for j, n := range numbers {
			key := s.Traffic[j].Key
			if n < 0 || int(n) >= count {
				t.Errorf("scenario %d: item %d's key %q numbered %d, not below %d", i, j, key, n, count)
			}
			if m, ok := byKey[key]; ok && m != n {
				t.Errorf("scenario %d: key %q numbered %d and %d", i, key, m, n)
			}
			if k, ok := byNumber[n]; ok && k != key {
				t.Errorf("scenario %d: keys %q and %q both numbered %d", i, k, key, n)
			}
			byKey[key], byNumber[n] = n, key
			if m, ok := s.KeyNumber(key); !ok || m != n {
				t.Errorf("scenario %d: KeyNumber(%q) = %d, %v; want %d", i, key, m, ok, n)
			}
		}
	}
	s := cases[len(cases)-1]
	s.Traffic = append(s.Traffic, Traffic{Form: Single, At: time.Second, Count: 1, Key: "a-1", Cost: 1})
	if numbers, count := s.KeyNumbers(); numbers != nil || count != 0 {
		t.Errorf("with an item added: %d numbers of %d keys, want none", len(numbers), count)
	}
}
