package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// poissonFile is a scenario of one lane with the given seed and traffic
// lines.
func poissonFile(seed uint64, traffic string) []byte {
	return fmt.Appendf(nil, "title: t\nseed: %d\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 5, rate: 2/s}\ntraffic:\n%s", seed, traffic)
}

func parsePoisson(t *testing.T, seed uint64, traffic string) *Scenario {
	t.Helper()
	s, err := Parse("p.yaml", poissonFile(seed, traffic))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// times lists an item's arrival times through Time.
func times(t Traffic) []time.Duration {
	out := make([]time.Duration, t.Count)
	for i := range out {
		out[i] = t.Time(int64(i))
	}
	return out
}

// inOnPhase reports whether at is in one of t's on-phases within [From,
// Until).
func inOnPhase(t Traffic, at time.Duration) bool {
	if at < t.From || at >= t.Until {
		return false
	}
	return t.On == 0 || (at-t.From)%(t.On+t.Off) < t.On
}

// TestPoissonDecode reads each form of poisson item: what it holds, and
// that every time is in order, inside [from, until) and an on-phase.
func TestPoissonDecode(t *testing.T) {
	const s, ms = time.Second, time.Millisecond
	tests := []struct {
		name, traffic string
		want          []Traffic // times aside
	}{
		{"plain", "  - {poisson: 20/s, until: 30s}\n", []Traffic{
			{Form: Poisson, Rate: algorithms.Rate{N: 20, Per: s}, Until: 30 * s, Key: DefaultKey, Cost: 1}}},
		{"from, key, cost, nginx spelling", "  - {poisson: 2r/s, from: 5s, until: 10s, key: k, cost: 3}\n", []Traffic{
			{Form: Poisson, Rate: algorithms.Rate{N: 2, Per: s}, From: 5 * s, Until: 10 * s, Key: "k", Cost: 3}}},
		{"on and off", "  - {poisson: 50/s, on: 2s, off: 8s, until: 60s}\n", []Traffic{
			{Form: Poisson, Rate: algorithms.Rate{N: 50, Per: s}, Until: 60 * s, On: 2 * s, Off: 8 * s, Key: DefaultKey, Cost: 1}}},
		{"on and off from, ending in an on-phase", "  - {poisson: 7/300ms, from: 1s, on: 700ms, off: 1s, until: 4500ms}\n", []Traffic{
			{Form: Poisson, Rate: algorithms.Rate{N: 7, Per: 300 * ms}, From: s, Until: 4500 * ms, On: 700 * ms, Off: s, Key: DefaultKey, Cost: 1}}},
		{"accounts", "  - {poisson: 5/s, until: 10s, accounts: 3, key: user}\n", []Traffic{
			{Form: Poisson, Rate: algorithms.Rate{N: 5, Per: s}, Until: 10 * s, Key: "user-1", Cost: 1},
			{Form: Poisson, Rate: algorithms.Rate{N: 5, Per: s}, Until: 10 * s, Key: "user-2", Cost: 1},
			{Form: Poisson, Rate: algorithms.Rate{N: 5, Per: s}, Until: 10 * s, Key: "user-3", Cost: 1}}},
		{"keys beside other items", "  - {at: 0s}\n  - {poisson: 5/s, until: 10s, keys: [a, b]}\n  - {every: 1s, until: 3s}\n", []Traffic{
			{Form: Single, Count: 1, Key: DefaultKey, Cost: 1},
			{Form: Poisson, Rate: algorithms.Rate{N: 5, Per: s}, Until: 10 * s, Key: "a", Cost: 1},
			{Form: Poisson, Rate: algorithms.Rate{N: 5, Per: s}, Until: 10 * s, Key: "b", Cost: 1},
			{Form: Periodic, Every: s, Until: 3 * s, Count: 3, Key: DefaultKey, Cost: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := parsePoisson(t, 7, tt.traffic)
			if len(sc.Traffic) != len(tt.want) {
				t.Fatalf("%d items, want %d", len(sc.Traffic), len(tt.want))
			}
			var drawn [][]time.Duration
			for i, got := range sc.Traffic {
				want := tt.want[i]
				if got.Form != Poisson {
					got.Line, got.keyNo = 0, 0
					if !reflect.DeepEqual(got, want) {
						t.Errorf("item %d: %+v, want %+v", i, got, want)
					}
					continue
				}
				ts := times(got)
				got.Line, got.times, got.Count, got.group, got.keyNo = 0, nil, 0, nil, 0
				if !reflect.DeepEqual(got, want) {
					t.Errorf("item %d: %+v, want %+v", i, got, want)
				}
				if len(ts) == 0 {
					t.Errorf("item %d drew no request", i)
				}
				if !slices.IsSorted(ts) {
					t.Errorf("item %d: times out of order", i)
				}
				for _, at := range ts {
					if !inOnPhase(got, at) {
						t.Errorf("item %d: a request at %s, outside [from, until) or its on-phases", i, at)
					}
				}
				if sc.Duration < got.Until {
					t.Errorf("duration %s before until %s", sc.Duration, got.Until)
				}
				drawn = append(drawn, ts)
			}
			for i := 1; i < len(drawn); i++ {
				if slices.Equal(drawn[i], drawn[0]) {
					t.Errorf("copy %d drew the same times as copy 0", i)
				}
			}
		})
	}
}

// TestPoissonSeed: one seed draws the same times every time; another seed,
// other times.
func TestPoissonSeed(t *testing.T) {
	const traffic = "  - {poisson: 20/s, until: 30s}\n  - {poisson: 50/s, on: 2s, off: 8s, until: 60s, accounts: 2}\n"
	draw := func(seed uint64) [][]time.Duration {
		var out [][]time.Duration
		for _, it := range parsePoisson(t, seed, traffic).Traffic {
			out = append(out, times(it))
		}
		return out
	}
	a, b, c := draw(42), draw(42), draw(43)
	if !reflect.DeepEqual(a, b) {
		t.Error("seed 42 drew different times twice")
	}
	for i := range a {
		if slices.Equal(a[i], c[i]) {
			t.Errorf("item %d: seeds 42 and 43 drew the same times", i)
		}
	}
	// The method docs/format.md describes, fixed: the first times for seed 42,
	// as a program of its own computes them (PCG(42, 2^32), −ln(1 − Float64())
	// × 1e9 / 20, rounded, summed).
	want := []time.Duration{22508683, 34689877, 141789009}
	if got := a[0][:3]; !slices.Equal(got, want) {
		t.Errorf("seed 42's first times %v, want %v", got, want)
	}
}

// TestPoissonMean: the count over a long span is near the mean, for fixed
// seeds (so the test is deterministic); the tolerances are about 3
// standard deviations.
func TestPoissonMean(t *testing.T) {
	tests := []struct {
		traffic   string
		mean, tol int64
	}{
		{"  - {poisson: 100/s, until: 1000s}\n", 100_000, 1_000},
		{"  - {poisson: 50/s, from: 10s, on: 2s, off: 8s, until: 2010s}\n", 20_000, 450},
		{"  - {poisson: 1/500us, until: 100s}\n", 200_000, 1_400},
		{"  - {poisson: 3/min, until: 100h}\n", 18_000, 400},
	}
	for _, tt := range tests {
		for _, seed := range []uint64{0, 1, 2025} {
			t.Run(fmt.Sprintf("%s seed %d", strings.TrimSpace(tt.traffic), seed), func(t *testing.T) {
				it := parsePoisson(t, seed, tt.traffic).Traffic[0]
				if d := it.Count - tt.mean; d < -tt.tol || d > tt.tol {
					t.Errorf("%d requests, want %d ± %d", it.Count, tt.mean, tt.tol)
				}
				for _, at := range times(it) {
					if !inOnPhase(it, at) {
						t.Fatalf("a request at %s outside [from, until) or its on-phases", at)
					}
				}
			})
		}
	}
}

// TestPoissonLimit: the request limit counts the draws, after other items'
// requests, and refuses before keeping them. With -short it leaves out the
// cases that draw millions of times before the limit refuses them.
func TestPoissonLimit(t *testing.T) {
	tests := []struct {
		name, traffic, want string
		millions            bool // draws millions of times
	}{
		{"alone", "  - {poisson: 1000000/s, until: 60s}\n",
			"p.yaml:6:5: traffic[0]: the poisson items draw more than 5000000 requests, the most whose times a scenario holds (0 before this item, whose arrivals average 60000000)", true},
		{"after a burst", "  - {at: 0s, count: 19999990}\n  - {poisson: 10/s, until: 10s}\n",
			"p.yaml:7:5: traffic[1]: the traffic expands to more than 20000000 requests (19999990 before this item, whose poisson arrivals average 100)", false},
		{"accounts", "  - {poisson: 1000/s, until: 1000s, accounts: 6}\n",
			"p.yaml:6:5: traffic[0]: the poisson items draw more than 5000000 requests, the most whose times a scenario holds (0 before this item, whose arrivals average 6000000)", true},
		{"poisson items together", "  - {poisson: 1000/s, until: 4000s}\n  - {poisson: 1000/s, until: 1001s, key: b}\n",
			"p.yaml:7:5: traffic[1]: the poisson items draw more than 5000000 requests, the most whose times a scenario holds (4001386 before this item, whose arrivals average 1001000)", true},
		{"requests before, in the same item", "  - {at: 0s, count: 19999000}\n  - {poisson: 100/s, until: 10s, accounts: 2}\n",
			"p.yaml:7:5: traffic[1]: the traffic expands to more than 20000000 requests (19999000 before this item, whose poisson arrivals average 2000)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.millions && testing.Short() {
				t.Skip("draws millions of times")
			}
			_, err := Parse("p.yaml", poissonFile(1, tt.traffic))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v\nwant %s", err, tt.want)
			}
		})
	}
	// Just under the limit is fine, and a poisson item may draw nothing.
	s := parsePoisson(t, 1, "  - {at: 0s, count: 19999000}\n  - {poisson: 10/s, until: 10s}\n  - {poisson: 1/h, until: 1ms}\n")
	if s.Traffic[1].Count == 0 || s.Traffic[2].Count != 0 || s.RequestCount() != 19999000+s.Traffic[1].Count {
		t.Errorf("counts %d, %d", s.Traffic[1].Count, s.Traffic[2].Count)
	}
}

// TestPoissonRoundTrip: Marshal writes a poisson item as written, and the
// saved file draws the same times again, copies of accounts included and
// whatever items come before.
func TestPoissonRoundTrip(t *testing.T) {
	s := parsePoisson(t, 99, "  - {every: 1s, until: 10s, accounts: 3, stagger: random}\n"+
		"  - {poisson: 1/h, until: 1ms}\n"+
		"  - {poisson: 5/s, until: 10s, accounts: 3}\n"+
		"  - {poisson: 2r/s, from: 1s, on: 2s, off: 3s, until: 20s, key: \"k: v\", cost: 2}\n")
	out, err := Marshal(s, []Request{{At: 3 * time.Second, Key: "x", Cost: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"  - {poisson: 1/h, until: 1ms}\n",
		"  - {every: 1s, until: 10s, accounts: 3, stagger: random}\n",
		"  - {poisson: 5/s, until: 10s, accounts: 3}\n",
		"  - {poisson: 2/s, from: 1s, until: 20s, on: 2s, off: 3s, key: \"k: v\", cost: 2}\n",
	} {
		if !strings.Contains(string(out), line) {
			t.Errorf("saved file lacks %q:\n%s", line, out)
		}
	}
	back := roundTrip(t, s, []Request{{At: 3 * time.Second, Key: "x", Cost: 1}})
	if got, want := normalise(back), withExtra(s, []Request{{At: 3 * time.Second, Key: "x", Cost: 1}}); !reflect.DeepEqual(got, want) {
		t.Errorf("round trip differs\n got: %+v\nwant: %+v", got.Traffic, want.Traffic)
	}
}

// TestPoissonAtTheCapStaysSmall: a file whose poisson items draw nearly
// MaxPoissonRequests loads keeping less than 80 MB live.
func TestPoissonAtTheCapStaysSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("draws millions of times")
	}
	var s *Scenario
	var err error
	peak := peakLive(t, func() { s, err = Parse("p.yaml", poissonFile(1, "  - {poisson: 1000/s, until: 4990s}\n")) })
	if err != nil {
		t.Fatal(err)
	}
	if n := s.RequestCount(); n < 4_900_000 || n > MaxPoissonRequests {
		t.Errorf("%d requests", n)
	}
	if peak > 80<<20 {
		t.Errorf("%d MB live while reading it, want under 80 MB", peak>>20)
	}
}

// TestKeysNamedButNotDrawn: an expectation or a quiz mark may name the key
// of a poisson item that drew no request, or of a staggered copy that
// starts past until: whether a file loads never depends on the seed.
func TestKeysNamedButNotDrawn(t *testing.T) {
	drewNone := 0
	for seed := range uint64(12) {
		s, err := Parse("p.yaml", fmt.Appendf(poissonFile(seed, "  - {poisson: 1/min, until: 30s, key: rare}\n  - {at: 1s}\n"),
			"expect:\n  - {lane: b, key: rare, rejected: 0}\nquiz:\n  - {at: 1s, key: rare}\n"))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !slices.Contains(s.Keys(), "rare") {
			drewNone++
		}
	}
	if drewNone == 0 {
		t.Fatal("no seed drew nothing: the test tries nothing")
	}
	if _, err := Parse("p.yaml", fmt.Appendf(poissonFile(1, "  - {every: 10s, until: 5s, accounts: 4, stagger: even}\n"),
		"expect:\n  - {lane: b, key: acct-4, admitted: 0}\n")); err != nil {
		t.Fatalf("a copy that starts past until: %v", err)
	}
}

// TestPoissonMeanGapFloor: a mean gap below a microsecond, which whole
// nanosecond gaps would round off, is refused with one line.
func TestPoissonMeanGapFloor(t *testing.T) {
	if _, err := Parse("p.yaml", poissonFile(1, "  - {poisson: 1000/1ms, until: 1s}\n")); err != nil {
		t.Fatalf("a mean gap of 1µs: %v", err)
	}
	_, err := Parse("p.yaml", poissonFile(1, "  - {poisson: 1001/1ms, until: 1s}\n"))
	if err == nil || !strings.Contains(err.Error(), "p.yaml:6:15: traffic[0].poisson: want a mean gap of at least 1µs") {
		t.Fatalf("got %v", err)
	}
}
