package model

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
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

func TestLabMatchesAFreshRunWhateverPathTheClockTook(t *testing.T) {
	t.Run("all six", func(t *testing.T) { labMatchesAFreshRun(t, randomScenario(t, 1, 3*CheckpointEvery+100)) })
	t.Run("shapers", func(t *testing.T) { labMatchesAFreshRun(t, randomTraffic(t, 12, 2*CheckpointEvery+100, shapers, 2)) })
	t.Run("gateways", func(t *testing.T) {
		labMatchesAFreshRun(t, randomTraffic(t, 13, 2*CheckpointEvery+100, gatewayLanes, 2))
	})
	t.Run("expiry and skew", func(t *testing.T) {
		labMatchesAFreshRun(t, randomTraffic(t, 14, 2*CheckpointEvery+100, `
  - {name: expire, algorithm: sliding-log, limit: 4, window: 300ms, gateways: 2, store: shared, expire_idle: 60ms}
  - {name: skew,   algorithm: token-bucket, capacity: 3, rate: 20/s, gateways: 3, store: racy, store_latency: 10ms, clock_skew: [0s, 15ms, -20ms]}
  - {name: both,   algorithm: gcra, burst: 2, rate: 10/s, gateways: 2, store: synced, sync_every: 50ms, expire_idle: 100ms, clock_skew: [5ms, -5ms]}
`, 2))
	})
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

// labMatchesAFreshRun checks every outcome, then reaches random times by
// random paths and compares the stats (peak included) and the last
// decisions with a fresh run up to that time.
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
	for range 40 {
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

func TestPeakSurvivesCheckpointRestore(t *testing.T) {
	s := randomScenario(t, 4, 3*CheckpointEvery)
	l := newLab(t, s)
	_, final := reference(t, s, 0)
	for _, target := range []time.Duration{l.End(), l.End() / 3, l.End()} {
		l.Seek(target)
		if target == l.End() {
			for lane := range s.Lanes {
				got := l.Stats(lane)
				if got.Peak != final[lane].Peak || got.PeakAt != final[lane].PeakAt {
					t.Fatalf("lane %d at end: peak %d at %v, fresh run %d at %v",
						lane, got.Peak, got.PeakAt, final[lane].Peak, final[lane].PeakAt)
				}
			}
		}
	}
}

func TestFireAtInThePastEqualsAScenarioWithThatRequest(t *testing.T) {
	s := randomScenario(t, 5, 2*CheckpointEvery+50)
	l := newLab(t, s)
	l.Seek(l.End())
	what := Request{At: l.End() / 4, Key: "k1", Cost: 2}
	recs, err := l.FireAt(what.At, what.Key, what.Cost)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(s.Lanes) || recs[0].Request != what {
		t.Fatalf("FireAt returned %+v", recs)
	}
	if l.Now() != l.End() {
		t.Fatalf("FireAt moved the clock to %v", l.Now())
	}

	data, err := scenarios.Marshal(s, []Request{what})
	if err != nil {
		t.Fatal(err)
	}
	withIt, err := scenarios.Parse("with.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	want, wantStats := reference(t, withIt, 0)
	lanes := len(s.Lanes)
	if l.Len()*lanes != len(want) {
		t.Fatalf("lab has %d requests, the scenario with it %d", l.Len(), len(want)/lanes)
	}
	for i := 0; i < l.Len(); i++ {
		for lane := 0; lane < lanes; lane++ {
			if got := l.Outcome(lane, i); got != want[i*lanes+lane].Decision.Outcome {
				t.Fatalf("request %d lane %d after the what-if: %s, want %s", i, lane, got, want[i*lanes+lane].Decision.Outcome)
			}
		}
	}
	for lane, r := range recs {
		ref := want[r.Index*lanes+lane]
		if ref.Request != what || r.Decision.Explain() != ref.Decision.Explain() {
			t.Fatalf("lane %d: fired decision %q, the scenario says %q", lane, r.Decision.Explain(), ref.Decision.Explain())
		}
	}
	if got := l.FiredRequests(); len(got) != 1 || got[0] != what {
		t.Fatalf("FiredRequests = %+v", got)
	}
	// At the end every delayed request has been released: the totals and
	// peaks are the fresh run's, though the lab recomputed from a checkpoint.
	for lane := range s.Lanes {
		if got := l.Stats(lane); got != wantStats[lane] {
			t.Errorf("lane %d after the what-if: stats %+v, the scenario with it %+v", lane, got, wantStats[lane])
		}
	}
}

func TestUndoRestoresTheTimeline(t *testing.T) {
	s := randomScenario(t, 6, CheckpointEvery+500)
	l := newLab(t, s)
	before, _ := reference(t, s, 0)
	l.Seek(l.End() / 2)
	now := l.Now()
	if _, err := l.Fire("k0", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := l.FireAt(now/3, "new-key", 3); err != nil {
		t.Fatal(err)
	}
	u, ok := l.Undo()
	if !ok || u.N != 1 || u.Reset || u.Request.Key != "new-key" || u.Request.At != now/3 {
		t.Fatalf("first undo removed %+v, %v; want the latest fired request", u, ok)
	}
	u, ok = l.Undo()
	if !ok || u.N != 1 || u.Request.At != now || u.Request.Key != "k0" {
		t.Fatalf("second undo removed %+v, %v", u, ok)
	}
	if _, ok := l.Undo(); ok {
		t.Fatal("undo with nothing fired should report false")
	}
	lanes := len(s.Lanes)
	for i := 0; i < l.Len(); i++ {
		for lane := 0; lane < lanes; lane++ {
			if l.Outcome(lane, i) != before[i*lanes+lane].Decision.Outcome {
				t.Fatalf("after undo, request %d lane %d differs from the original", i, lane)
			}
		}
	}
	if l.Now() != now {
		t.Fatalf("undo moved the clock")
	}
}

func TestFireAtNowIsDecidedAfterTheRequestsAlreadyThere(t *testing.T) {
	s := parse(t, "title: t\nlimiters:\n  - {name: fixed, algorithm: fixed-window, limit: 2, window: 1s}\n"+
		"traffic:\n  - {at: 1s, count: 2}\n")
	l := newLab(t, s)
	l.Seek(time.Second)
	recs, err := l.Fire("default", 1)
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Index != 2 || recs[0].Decision.Outcome != algorithms.Rejected {
		t.Fatalf("fired request: index %d %s; want index 2, rejected (the two at 1s came first)",
			recs[0].Index, recs[0].Decision.Outcome)
	}
	if rec, _ := l.LastDecision(0); rec.Index != 2 {
		t.Fatalf("last decision is request %d, want the fired one", rec.Index)
	}
	if _, err := l.Fire("default", 0); err == nil {
		t.Fatal("cost 0 accepted")
	}
	if _, err := l.FireAt(-time.Second, "default", 1); err == nil {
		t.Fatal("a request before t=0 accepted")
	}
}

func TestResetDropsFiredRequestsAndRewinds(t *testing.T) {
	s := randomScenario(t, 7, 300)
	l := newLab(t, s)
	n := l.Len()
	l.Seek(2 * time.Second)
	l.Fire("x", 1)
	l.Fire("y", 2)
	l.Reset()
	if l.Len() != n || l.Now() != 0 || len(l.FiredRequests()) != 0 {
		t.Fatalf("after reset: %d requests (want %d), now %v, fired %d", l.Len(), n, l.Now(), len(l.FiredRequests()))
	}
	if u, ok := l.Undo(); !ok || !u.Reset || u.N != 2 {
		t.Fatalf("undo after reset: %+v, %v; want the reset undone, 2 requests back", u, ok)
	}
	l.Reset()
	want, _ := reference(t, s, 0)
	lanes := len(s.Lanes)
	for i := 0; i < l.Len(); i++ {
		for lane := 0; lane < lanes; lane++ {
			if got := l.Outcome(lane, i); got != want[i*lanes+lane].Decision.Outcome {
				t.Fatalf("after reset, request %d lane %d is %s, a fresh run says %s", i, lane, got, want[i*lanes+lane].Decision.Outcome)
			}
		}
	}
	if _, ok := l.LastDecision(0); ok != (l.Request(0).At == 0) {
		t.Errorf("after reset at 0: last decision %v, want one only if a request came at 0", ok)
	}
}

func TestSeekClampsToTheAxis(t *testing.T) {
	s := randomScenario(t, 8, 50)
	l := newLab(t, s)
	l.Seek(-time.Hour)
	if l.Now() != 0 {
		t.Fatalf("seek before 0 gave %v", l.Now())
	}
	l.Seek(l.End() + time.Hour)
	if l.Now() != l.End() {
		t.Fatalf("seek past the end gave %v, want %v", l.Now(), l.End())
	}
	if _, ok := l.LastDecision(0); !ok {
		t.Fatal("no last decision at the end")
	}
	l.Seek(0)
	if l.Request(0).At == 0 {
		if _, ok := l.LastDecision(0); !ok {
			t.Fatal("a request at 0 is decided at 0")
		}
	}
}

func TestTallyCountsLikeALoop(t *testing.T) {
	s := randomScenario(t, 9, 3000)
	l := newLab(t, s)
	rng := rand.New(rand.NewPCG(9, 9))
	for range 300 {
		lo := rng.IntN(l.Len() + 10)
		hi := lo + rng.IntN(l.Len()-min(lo, l.Len())+10)
		lane := rng.IntN(len(s.Lanes))
		var want Tally
		for i := max(lo, 0); i < min(hi, l.Len()); i++ {
			want.add(l.Outcome(lane, i))
		}
		if got := l.Tally(lane, lo, hi); got != want {
			t.Fatalf("Tally(%d, %d, %d) = %+v, want %+v", lane, lo, hi, got, want)
		}
	}
	// A what-if changes the tallies after it.
	l.FireAt(0, "k0", 3)
	var want Tally
	for i := 0; i < l.Len(); i++ {
		want.add(l.Outcome(0, i))
	}
	if got := l.Tally(0, 0, l.Len()); got != want {
		t.Fatalf("after a what-if, Tally = %+v, want %+v", got, want)
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

func TestTrailingAdmittedIsTheExactWindow(t *testing.T) {
	s := parse(t, `title: t
limiters:
  - {name: counter, algorithm: sliding-counter, limit: 100, window: 10s}
traffic:
  - {at: 1s, count: 4, key: a}
  - {at: 5s, count: 2, key: a}
  - {at: 6s, count: 7, key: b}
`)
	l := newLab(t, s)
	for _, c := range []struct {
		now  time.Duration
		key  string
		want int64
	}{
		{5 * time.Second, "a", 6},
		{11 * time.Second, "a", 2}, // the 1s requests left at exactly 11s: (1s, 11s]
		{10*time.Second + 999*time.Millisecond, "a", 6},
		{11 * time.Second, "b", 7},
		{11 * time.Second, "nobody", 0},
	} {
		l.Seek(c.now)
		if got := l.TrailingAdmitted(0, c.key, 10*time.Second); got != c.want {
			t.Errorf("at %v key %s: %d, want %d", c.now, c.key, got, c.want)
		}
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

func TestFireBurstIsOneActionEqualToSingleFires(t *testing.T) {
	s := randomScenario(t, 12, CheckpointEvery+700)
	burst, singles := newLab(t, s), newLab(t, s)
	at := burst.Request(CheckpointEvery - 3).At
	burst.Seek(at)
	singles.Seek(at)
	recs, err := burst.FireBurst("k2", 2, 40)
	if err != nil {
		t.Fatal(err)
	}
	var want []Record
	for range 40 {
		r, err := singles.Fire("k2", 2)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r...)
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i := range recs {
		if recs[i].Index != want[i].Index || recs[i].Lane != want[i].Lane || recs[i].Decision.Explain() != want[i].Decision.Explain() {
			t.Fatalf("record %d: %+v, firing one by one gives %+v", i, recs[i], want[i])
		}
	}
	for i := 0; i < burst.Len(); i++ {
		for lane := range s.Lanes {
			if burst.Outcome(lane, i) != singles.Outcome(lane, i) {
				t.Fatalf("request %d lane %d differs", i, lane)
			}
		}
	}
	if burst.FiredCount() != 40 || len(burst.FiredRequests()) != 40 {
		t.Fatalf("FiredCount %d, FiredRequests %d", burst.FiredCount(), len(burst.FiredRequests()))
	}
	burst.Fire("k0", 1)
	if u, _ := burst.Undo(); u.N != 1 || u.Request.Key != "k0" {
		t.Fatalf("undo removed %+v, want the single k0 request", u)
	}
	if u, _ := burst.Undo(); u.N != 40 || u.Request != (Request{At: at, Key: "k2", Cost: 2}) {
		t.Fatalf("undo removed %+v, want the whole burst", u)
	}
	if burst.FiredCount() != 0 || burst.Len() != l0(s) {
		t.Fatalf("after undoing the burst: fired %d, %d requests", burst.FiredCount(), burst.Len())
	}
	if _, err := burst.FireBurst("k", 1, 0); err == nil {
		t.Fatal("a burst of 0 accepted")
	}
}

// l0 is the number of requests in s.
func l0(s *scenarios.Scenario) int { return int(s.RequestCount()) }
