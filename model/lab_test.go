package model

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

// parse reads a scenario from YAML text, failing the test on error.
func parse(t testing.TB, yaml string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newLab(t testing.TB, s *scenarios.Scenario) *Lab {
	t.Helper()
	l, err := New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// rounds is n, or under -short quick: how many rounds of a random walk a
// test takes.
func rounds(n, quick int) int {
	if testing.Short() {
		return quick
	}
	return n
}

// lessons are the canned lessons a test goes through: every one, or under
// -short every third one and those named, a sample across the list.
func lessons(named ...string) []scenarios.Info {
	all := scenarios.List()
	if !testing.Short() {
		return all
	}
	var out []scenarios.Info
	for i, info := range all {
		if i%3 == 0 || slices.Contains(named, info.Name) {
			out = append(out, info)
		}
	}
	return out
}

// allSix has one lane of every algorithm, so every test below covers each.
const allSix = `
  - {name: fixed,   algorithm: fixed-window,    limit: 20, window: 1s}
  - {name: log,     algorithm: sliding-log,     limit: 20, window: 1s}
  - {name: counter, algorithm: sliding-counter, limit: 20, window: 1s}
  - {name: bucket,  algorithm: token-bucket,    capacity: 5, rate: 20/s}
  - {name: gcra,    algorithm: gcra,            burst: 5,    rate: 20/s}
  - {name: shaper,  algorithm: leaky-bucket,    queue: 5,    rate: 20/s}
`

// randomScenario is several thousand requests of mixed keys, costs and gaps,
// spanning several checkpoints.
func randomScenario(t testing.TB, seed uint64, n int) *scenarios.Scenario {
	return randomTraffic(t, seed, n, allSix, 3)
}

// shapers are leaky buckets small enough that requests of cost 2 are often
// rejected while earlier ones wait: rejections between a release and the
// next admission, beside a token bucket.
const shapers = `
  - {name: tight,  algorithm: leaky-bucket, queue: 1, rate: 20/s}
  - {name: slow,   algorithm: leaky-bucket, queue: 3, rate: 7/s}
  - {name: bucket, algorithm: token-bucket, capacity: 2, rate: 20/s}
`

// randomTraffic is n requests of costs 1 to maxCost, keys k0 to k2 and gaps
// of 0 to 39ms, through the given lanes.
func randomTraffic(t testing.TB, seed uint64, n int, lanes string, maxCost int) *scenarios.Scenario {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("title: random\nlimiters:" + lanes + "traffic:\n")
	at := time.Duration(0)
	for i := 0; i < n; i++ {
		at += time.Duration(rng.IntN(40)) * time.Millisecond
		fmt.Fprintf(&b, "  - {at: %s, key: k%d, cost: %d}\n", at, rng.IntN(3), 1+rng.IntN(maxCost))
	}
	return parse(t, b.String())
}

// burstTraffic is about n requests in instants of 1 to 4 bursts each (keys
// k0 to k2, costs 1 to maxCost, 1 to 20 requests a burst), 0 to 99ms apart:
// most requests share their instant with others.
func burstTraffic(t testing.TB, seed uint64, n int, lanes string, maxCost int) *scenarios.Scenario {
	rng := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	b.WriteString("title: bursts\nlimiters:" + lanes + "traffic:\n")
	at := time.Duration(0)
	for total := 0; total < n; {
		at += time.Duration(rng.IntN(100)) * time.Millisecond
		for range 1 + rng.IntN(4) {
			c := 1 + rng.IntN(20)
			fmt.Fprintf(&b, "  - {at: %s, count: %d, key: k%d, cost: %d}\n", at, c, rng.IntN(3), 1+rng.IntN(maxCost))
			total += c
		}
	}
	return parse(t, b.String())
}

// gatewayLanes are lanes of several gateways, each store and route, beside
// the plain lane they are measured against.
const gatewayLanes = `
  - {name: plain,  algorithm: token-bucket, capacity: 4, rate: 20/s}
  - {name: local,  algorithm: token-bucket, capacity: 4, rate: 20/s, gateways: 3, route: random}
  - {name: split,  algorithm: sliding-log,  limit: 9, window: 400ms, gateways: 3, store: split, route: by-key}
  - {name: shared, algorithm: leaky-bucket, queue: 3, rate: 20/s, gateways: 4, store: shared}
  - {name: rr,     algorithm: fixed-window, limit: 6, window: 300ms, gateways: 2}
  - {name: racy,   algorithm: token-bucket, capacity: 3, rate: 20/s, gateways: 3, store: racy, store_latency: 25ms}
  - {name: synced, algorithm: sliding-log, limit: 6, window: 300ms, gateways: 3, store: synced, sync_every: 70ms}
  - {name: down,   algorithm: token-bucket, capacity: 3, rate: 20/s, gateways: 2, store: shared, outages: [{from: 1s, until: 3s, lose_state: true}, {from: 5s, until: 9s}], fallback: local-cap}
`

// reference decides every request of s before until (all of them when
// until is 0) with fresh limiters: the obviously correct answer the lab
// must match.
func reference(t testing.TB, s *scenarios.Scenario, until time.Duration) (recs []Record, stats []Stats) {
	t.Helper()
	stats, err := Run(s, Options{Until: until}, func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range stats {
		stats[i].KeyBytes = 0 // the lab's totals leave it out
	}
	return recs, stats
}

// referencePeak is the largest total cost of the admitted requests in recs
// whose passage (arrival + delay) is at or before by, inside any window (t −
// w, t], and the first t reaching it: a sort and a two-pointer sweep, with
// nothing shared with peak.Tracker.
func referencePeak(recs []Record, lane int, w, by time.Duration) (peak int64, at time.Duration) {
	var xs []passing
	for _, r := range recs {
		if r.Lane != lane || !r.Decision.Outcome.Admitted() {
			continue
		}
		if x := (passing{at: r.Request.At + r.Decision.Delay, cost: r.Request.Cost}); x.at <= by {
			xs = append(xs, x)
		}
	}
	slices.SortStableFunc(xs, func(a, b passing) int { return cmp.Compare(a.at, b.at) })
	var sum int64
	lo := 0
	for hi := 0; hi < len(xs); {
		end := xs[hi].at
		for ; hi < len(xs) && xs[hi].at == end; hi++ {
			sum += xs[hi].cost
		}
		for xs[lo].at <= end-w {
			sum -= xs[lo].cost
			lo++
		}
		if sum > peak {
			peak, at = sum, end
		}
	}
	return peak, at
}

// freshRun decides the lab's whole timeline as it stands with fresh
// limiters, sharing nothing with the lab but the requests: the records in
// timeline order then lane order.
func freshRun(t testing.TB, l *Lab) []Record {
	t.Helper()
	ls, err := newLanes(l.Lanes(), l.PeakWindow(), nil, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]Record, 0, l.Len()*len(l.Lanes()))
	for i := range l.Len() {
		r := l.Request(i)
		ls.arrive(r, i)
		for lane := range l.Lanes() {
			d, _ := ls.decide(lane, r)
			recs = append(recs, Record{Index: i, Lane: lane, Request: r, Decision: d})
		}
	}
	return recs
}

func TestLabMatchesAFreshRunWhateverPathTheClockTook(t *testing.T) {
	t.Run("all six", func(t *testing.T) {
		t.Parallel()
		labMatchesAFreshRun(t, randomScenario(t, 1, 3*CheckpointEvery+100))
	})
	t.Run("shapers", func(t *testing.T) {
		t.Parallel()
		labMatchesAFreshRun(t, randomTraffic(t, 12, 2*CheckpointEvery+100, shapers, 2))
	})
	t.Run("gateways", func(t *testing.T) {
		t.Parallel()
		labMatchesAFreshRun(t, randomTraffic(t, 13, 2*CheckpointEvery+100, gatewayLanes, 2))
	})
	t.Run("expiry and skew", func(t *testing.T) {
		t.Parallel()
		labMatchesAFreshRun(t, randomTraffic(t, 14, 2*CheckpointEvery+100, `
  - {name: expire, algorithm: sliding-log, limit: 4, window: 300ms, gateways: 2, store: shared, expire_idle: 60ms}
  - {name: skew,   algorithm: token-bucket, capacity: 3, rate: 20/s, gateways: 3, store: racy, store_latency: 10ms, clock_skew: [0s, 15ms, -20ms]}
  - {name: both,   algorithm: gcra, burst: 2, rate: 10/s, gateways: 2, store: synced, sync_every: 50ms, expire_idle: 100ms, clock_skew: [5ms, -5ms]}
`, 2))
	})
}

// labMatchesAFreshRun checks every outcome, then reaches random times by
// random paths (40, or 10 under -short) and compares the stats (peak
// included) and the last decisions with a fresh run up to that time.
func labMatchesAFreshRun(t *testing.T, s *scenarios.Scenario) {
	l := newLab(t, s)
	all, _ := reference(t, s, 0)
	lanes := len(s.Lanes)
	for i := 0; i < l.Len(); i++ {
		for lane := 0; lane < lanes; lane++ {
			if got, want := l.Outcome(lane, i), all[i*lanes+lane].Decision.Outcome; got != want {
				t.Fatalf("request %d lane %d: outcome %s, a fresh run says %s", i, lane, got, want)
			}
		}
	}

	rng := rand.New(rand.NewPCG(2, 2))
	end := l.End()
	for range rounds(40, 10) {
		target := time.Duration(rng.Int64N(int64(end)))
		// Reach the same time by a random path: a far seek, then steps.
		l.Seek(time.Duration(rng.Int64N(int64(end))))
		back := min(3*time.Second, end-target)
		l.Seek(target + back)
		l.Step(-back)
		if l.Now() != target {
			t.Fatalf("clock at %v, want %v", l.Now(), target)
		}
		recs, stats := reference(t, s, target+1)
		for lane := 0; lane < lanes; lane++ {
			got := l.Stats(lane)
			want := stats[lane]
			// The fresh run counts the peak to the end of time; the lab
			// counts what passed by Now, delayed requests on release.
			want.Peak, want.PeakAt = referencePeak(recs, lane, l.PeakWindow(), target)
			if got != want {
				t.Fatalf("at %v lane %d: stats %+v, fresh run %+v", target, lane, got, want)
			}
			rec, ok := l.LastDecision(lane)
			if !ok {
				t.Fatalf("at %v: no last decision", target)
			}
			ref := recs[len(recs)-lanes+lane]
			if rec.Index != ref.Index || rec.Decision.Explain() != ref.Decision.Explain() {
				t.Fatalf("at %v lane %d: last decision %d %q, fresh run %d %q", target, lane,
					rec.Index, rec.Decision.Explain(), ref.Index, ref.Decision.Explain())
			}
		}
	}
}

func TestSnapshotsAgreeAcrossPaths(t *testing.T) {
	s := randomScenario(t, 3, 2*CheckpointEvery)
	a, b := newLab(t, s), newLab(t, s)
	target := a.End() / 2
	a.Seek(target)
	for t2 := time.Duration(0); t2 < target; t2 += 777 * time.Millisecond {
		b.Seek(t2)
	}
	b.Seek(a.End())
	b.Seek(target)
	for lane := range s.Lanes {
		for _, key := range a.Keys() {
			sa, sb := a.Snapshot(lane, key), b.Snapshot(lane, key)
			if fmt.Sprint(sa) != fmt.Sprint(sb) {
				t.Fatalf("lane %d key %s: %v vs %v", lane, key, sa, sb)
			}
		}
	}
}

func TestNavigation(t *testing.T) {
	s := parse(t, `title: boundary
limiters:
  - {name: fixed, algorithm: fixed-window, limit: 3, window: 60s}
  - {name: log,   algorithm: sliding-log,  limit: 3, window: 60s}
traffic:
  - {at: 59s, count: 3}
  - {at: 61s, count: 3}
`)
	l := newLab(t, s)
	if at, ok := l.NextRequest(0); !ok || at != 59*time.Second {
		t.Fatalf("next request after 0: %v %v", at, ok)
	}
	if at, ok := l.NextRequest(59 * time.Second); !ok || at != 61*time.Second {
		t.Fatalf("next request after 59s: %v %v", at, ok)
	}
	if _, ok := l.NextRequest(61 * time.Second); ok {
		t.Fatal("a request after the last one")
	}
	if at, ok := l.PrevRequest(61 * time.Second); !ok || at != 59*time.Second {
		t.Fatalf("previous request before 61s: %v %v", at, ok)
	}
	if _, ok := l.PrevRequest(59 * time.Second); ok {
		t.Fatal("a request before the first one")
	}
	// At 61s the fixed window has started again, the log still holds 3.
	if at, ok := l.NextDisagreement(0); !ok || at != 61*time.Second {
		t.Fatalf("next disagreement: %v %v", at, ok)
	}
	if at, ok := l.PrevDisagreement(l.End()); !ok || at != 61*time.Second {
		t.Fatalf("previous disagreement: %v %v", at, ok)
	}
	if _, ok := l.PrevDisagreement(61 * time.Second); ok {
		t.Fatal("a disagreement before 61s")
	}
}

func TestRecordsReplaysARange(t *testing.T) {
	s := randomScenario(t, 10, CheckpointEvery+300)
	l := newLab(t, s)
	all, _ := reference(t, s, 0)
	from, to := l.Request(CheckpointEvery-5).At, l.Request(CheckpointEvery+20).At
	var got []Record
	l.Records(from, to, func(r Record) bool { got = append(got, r); return true })
	var want []Record
	for _, r := range all {
		if r.Request.At >= from && r.Request.At <= to {
			want = append(want, r)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Index != want[i].Index || got[i].Lane != want[i].Lane || got[i].Decision.Explain() != want[i].Decision.Explain() {
			t.Fatalf("record %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	n := 0
	l.Records(from, to, func(Record) bool { n++; return n < 3 })
	if n != 3 {
		t.Fatalf("Records went on after fn returned false: %d calls", n)
	}
}

// TestComputeAhead: slices of computing ahead reach the whole timeline and
// decide as one pass would.
func TestComputeAhead(t *testing.T) {
	s := parse(t, `title: t
limiters:
  - {name: b, algorithm: token-bucket, capacity: 5, rate: 3/s}
  - {name: q, algorithm: leaky-bucket, queue: 4, rate: 2/s}
traffic:
  - {every: 70ms, until: 700s}
`)
	lab, err := New(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := New(s, 0)
	if lab.Computed() > CheckpointEvery {
		t.Fatalf("a new lab computed %d requests ahead", lab.Computed())
	}
	for steps := 0; lab.Computed() < lab.Len(); steps++ {
		before := lab.Computed()
		if got := lab.ComputeAhead(1000); got != min(before+1000, lab.Len()) {
			t.Fatalf("ComputeAhead(1000) from %d reached %d", before, got)
		}
	}
	if lab.ComputeAhead(0) != lab.Len() || lab.ComputeAhead(-5) != lab.Len() {
		t.Fatal("computing nothing changed Computed")
	}
	fresh.Seek(fresh.End())
	lab.Seek(lab.End())
	for i := 0; i < lab.Len(); i += 97 {
		for lane := range lab.Lanes() {
			if lab.Outcome(lane, i) != fresh.Outcome(lane, i) {
				t.Fatalf("request %d lane %d: %v computed ahead, %v in one pass", i, lane, lab.Outcome(lane, i), fresh.Outcome(lane, i))
			}
		}
	}
}
