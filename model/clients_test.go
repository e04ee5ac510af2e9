package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// clientScenarios cover every retry rule, jitter, deadlines with and
// without cancel, on policing and shaping lanes and a lane of gateways.
var clientScenarios = map[string]string{
	"at-once": `
title: at once
duration: 12s
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 5, rate: 5/s}
  - {name: fixed, algorithm: fixed-window, limit: 5, window: 1s}
  - {name: racy, algorithm: fixed-window, limit: 5, window: 1s, gateways: 3, store: racy, store_latency: 30ms}
clients:
  - {name: eager, retry: at-once, attempts: 4}
traffic:
  - {every: 70ms, until: 8s, client: eager}
  - {at: 3s, count: 12, key: other}
`,
	"retry-after": `
title: retry after
duration: 20s
limiters:
  - {name: gcra, algorithm: gcra, burst: 3, rate: 3/s}
  - {name: fixed, algorithm: fixed-window, limit: 4, window: 2s}
clients:
  - {name: polite, retry: retry-after, attempts: 5}
traffic:
  - {at: 1s, count: 10, client: polite}
  - {every: 300ms, from: 2s, until: 9s, client: polite, key: b}
`,
	"backoff": `
title: backoff
seed: 11
duration: 30s
limiters:
  - {name: bucket, algorithm: token-bucket, capacity: 4, rate: 2/s}
  - {name: log, algorithm: sliding-log, limit: 4, window: 2s}
clients:
  - {name: full, retry: backoff, attempts: 6, base: 100ms, cap: 3s, jitter: full}
  - {name: equal, retry: backoff, attempts: 4, base: 250ms, factor: 3, jitter: equal}
  - {name: plain, retry: backoff, attempts: 3, base: 1s}
traffic:
  - {at: 1s, count: 15, client: full}
  - {at: 1s, count: 8, client: equal, key: e}
  - {poisson: 4/s, until: 15s, client: plain, key: p}
`,
	"deadlines": `
title: deadlines
duration: 30s
limiters:
  - {name: queue, algorithm: leaky-bucket, queue: 20, rate: 2/s}
  - {name: reserve, algorithm: x-time-rate-reserve, burst: 2, rate: 2/s}
  - {name: bucket, algorithm: token-bucket, capacity: 2, rate: 2/s}
clients:
  - {name: waits, deadline: 2s}
  - {name: cancels, deadline: 2s, cancel: true}
  - {name: retries, retry: backoff, attempts: 3, base: 500ms, deadline: 3s}
traffic:
  - {at: 0s, count: 10, client: waits}
  - {at: 5s, count: 10, client: cancels}
  - {at: 10s, count: 10, client: retries, key: r}
  - {every: 400ms, from: 12s, until: 20s}
`,
}

func clientScenario(t testing.TB, name string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Parse(name+".yaml", []byte(clientScenarios[name]))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runRecords is every record of a run of s, and its totals.
func runRecords(t testing.TB, s *scenarios.Scenario, opt Options) ([]Record, []Stats) {
	t.Helper()
	var recs []Record
	stats, err := Run(s, opt, func(r Record) error { recs = append(recs, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return recs, stats
}

// counts leaves out of st what depends on where a peak is measured to.
func counts(st Stats) Stats {
	st.Peak, st.PeakAt, st.KeyBytes = 0, 0, 0
	return st
}

func TestGivingUpEverywhereIsTheOpenLoopRun(t *testing.T) {
	for name := range clientScenarios {
		s := clientScenario(t, name)
		open := *s
		open.Clients = nil
		open.Traffic = slices.Clone(s.Traffic)
		giveUp := *s
		giveUp.Clients = []scenarios.Client{{Name: "quits", Attempts: 1}}
		giveUp.Traffic = slices.Clone(s.Traffic)
		for i := range s.Traffic {
			open.Traffic[i].Client = 0
			if s.Traffic[i].Client != 0 {
				giveUp.Traffic[i].Client = 1
			}
		}
		want, wantStats := runRecords(t, &open, Options{})
		got, gotStats := runRecords(t, &giveUp, Options{})
		if len(got) != len(want) {
			t.Fatalf("%s: %d records giving up, %d open-loop", name, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			g.Request.Client, g.Attempt.Client = 0, 0
			if g.Request != w.Request || g.Decision.Explain() != w.Decision.Explain() || g.Attempt != w.Attempt {
				t.Fatalf("%s record %d: %+v giving up, %+v open-loop", name, i, g, w)
			}
		}
		for i := range gotStats {
			gotStats[i].Latency = Latency{} // only a scenario with clients has one
		}
		if !slices.Equal(gotStats, wantStats) {
			t.Errorf("%s: %+v giving up, %+v open-loop", name, gotStats, wantStats)
		}
		for _, st := range wantStats {
			if st.Originals != st.Requests() || st.Served != st.Admitted || st.Abandoned != st.Rejected || st.Amplification() != 1000 {
				t.Errorf("%s open-loop: %+v", name, st)
			}
		}
	}
}

// TestRetriesComeWhenTheirRuleAllows checks every retry against the
// refusal before it: at once at its instant, after Retry-After at the
// header's whole seconds (at least 1), after a backoff within its jitter's
// bounds (exactly the nominal wait without jitter); and that no attempt
// passes its client's limit or deadline, nor the scenario's end.
func TestRetriesComeWhenTheirRuleAllows(t *testing.T) {
	for name := range clientScenarios {
		s := clientScenario(t, name)
		recs, _ := runRecords(t, s, Options{})
		type try struct{ lane, orig, n int }
		prev := map[try]Record{}
		retries := 0
		for _, r := range recs {
			a := r.Attempt
			prev[try{r.Lane, a.Original, a.N}] = r
			if a.N == 1 {
				if r.Request.At != a.First {
					t.Fatalf("%s: an original at %v says it was first sent at %v", name, r.Request.At, a.First)
				}
				continue
			}
			retries++
			p, ok := prev[try{r.Lane, a.Original, a.N - 1}]
			if !ok {
				t.Fatalf("%s: attempt %d of request %d in lane %d has no attempt before it", name, a.N, a.Original, r.Lane)
			}
			c := s.Clients[a.Client-1]
			if p.Decision.Outcome != algorithms.Rejected || p.Attempt.Fate != Retrying || p.Attempt.Next != r.Request.At {
				t.Fatalf("%s: attempt %d after %+v", name, a.N, p)
			}
			if a.N > c.Attempts {
				t.Fatalf("%s: attempt %d of a client of %d attempts", name, a.N, c.Attempts)
			}
			if c.Deadline > 0 && r.Request.At-a.First > c.Deadline {
				t.Fatalf("%s: attempt at %v past the deadline of a request first sent at %v", name, r.Request.At, a.First)
			}
			if r.Request.At >= s.Duration {
				t.Fatalf("%s: attempt at %v, past the end %v", name, r.Request.At, s.Duration)
			}
			wait := r.Request.At - p.Request.At
			switch c.Retry {
			case scenarios.AtOnce:
				if wait != 0 {
					t.Fatalf("%s: at once after %v", name, wait)
				}
			case scenarios.AfterRetryAfter:
				header := (p.Decision.RetryAfter + time.Second - 1) / time.Second * time.Second
				if wait != max(header, time.Second) {
					t.Fatalf("%s: Retry-After %v, waited %v", name, p.Decision.RetryAfter, wait)
				}
			case scenarios.Backoff:
				nominal := min(c.Cap, c.Base*time.Duration(pow(c.Factor, p.Attempt.N-1)))
				lo, hi := nominal, nominal
				switch c.Jitter {
				case scenarios.FullJitter:
					lo = 0
				case scenarios.EqualJitter:
					lo = nominal / 2
				}
				if wait < lo || wait > hi {
					t.Fatalf("%s: after attempt %d backed off %v, want [%v, %v]", name, p.Attempt.N, wait, lo, hi)
				}
			}
		}
		if retries == 0 {
			t.Errorf("%s: no retry at all", name)
		}
	}
}

func pow(b int64, e int) int64 {
	v := int64(1)
	for range e {
		v *= b
	}
	return v
}

func TestJitterSpreadsRetries(t *testing.T) {
	s := clientScenario(t, "backoff")
	recs, _ := runRecords(t, s, Options{})
	waits := map[time.Duration]bool{}
	for _, r := range recs {
		if r.Attempt.N == 2 && r.Attempt.Client == 1 && r.Lane == 0 {
			waits[r.Request.At] = true
		}
	}
	// 15 requests at one instant, refused, retry at 15 different times.
	if len(waits) < 10 {
		t.Errorf("full jitter sent the second attempts at only %d distinct times", len(waits))
	}
	again, _ := runRecords(t, clientScenario(t, "backoff"), Options{})
	if len(again) != len(recs) {
		t.Fatal("two runs of one seed differ")
	}
	for i := range again {
		if again[i].Request != recs[i].Request {
			t.Fatalf("two runs of one seed differ at record %d", i)
		}
	}
}

// TestAmplificationByHand works small cases out by hand.
func TestAmplificationByHand(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       Stats // the counts that matter
		latency    Latency
	}{
		{"at once against a window", `
title: t
duration: 20s
limiters: [{name: w, algorithm: fixed-window, limit: 1, window: 10s}]
clients: [{name: c, retry: at-once, attempts: 3}]
traffic: [{at: 0s, client: c}, {at: 1s, client: c}]
`, Stats{Admitted: 1, Rejected: 3, AdmittedCost: 1, Originals: 2, Served: 1, Abandoned: 1}, Latency{N: 1}},
		{"retry-after is a second late", `
title: t
duration: 20s
limiters: [{name: b, algorithm: token-bucket, capacity: 1, rate: 2/s}]
clients: [{name: c, retry: retry-after, attempts: 2}]
traffic: [{at: 0s, count: 2, client: c}]
`, // refused with retry after 0.5s, which the header rounds to 1s
			Stats{Admitted: 2, Rejected: 1, AdmittedCost: 2, Originals: 2, Served: 2}, Latency{N: 2, P50: 0, P95: time.Second, P99: time.Second, Max: time.Second}},
		{"backoff past the end is unfinished", `
title: t
duration: 3s
limiters: [{name: w, algorithm: fixed-window, limit: 1, window: 10s}]
clients: [{name: c, retry: backoff, attempts: 5, base: 1s}]
traffic: [{at: 0s, count: 2, client: c}]
`, // the second: refused at 0, 1s, 3s would be the third attempt: past the end
			Stats{Admitted: 1, Rejected: 2, AdmittedCost: 1, Originals: 2, Served: 1, Unfinished: 1}, Latency{N: 1}},
		{"a deadline abandons a long wait", `
title: t
duration: 10s
limiters: [{name: q, algorithm: leaky-bucket, queue: 10, rate: 1/s}]
clients: [{name: c, deadline: 2500ms}]
traffic: [{at: 0s, count: 5, client: c}]
`, // released at 0, 1s, 2s, then 3s and 4s are past 2.5s
			Stats{Admitted: 5, Delayed: 4, AdmittedCost: 5, Originals: 5, Served: 3, Abandoned: 2, TimedOut: 2}, Latency{N: 3, P50: time.Second, P95: 2 * time.Second, P99: 2 * time.Second, Max: 2 * time.Second}},
		{"a cancelled wait gives its slot back", `
title: t
duration: 10s
limiters: [{name: q, algorithm: leaky-bucket, queue: 10, rate: 1/s}]
clients: [{name: c, deadline: 2500ms, cancel: true}]
traffic: [{at: 0s, count: 5, client: c}, {at: 0s}]
`, // the two given back leave the queue as after three: the sixth waits 3s
			Stats{Admitted: 6, Delayed: 5, AdmittedCost: 6, Originals: 6, Served: 4, Abandoned: 2, TimedOut: 2}, Latency{N: 4, P50: time.Second, P95: 3 * time.Second, P99: 3 * time.Second, Max: 3 * time.Second}},
	} {
		s, err := scenarios.Parse("t.yaml", []byte(c.yaml))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, stats := runRecords(t, s, Options{})
		got := counts(stats[0])
		got.PeakWindow = 0
		got.Latency = Latency{}
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
		if stats[0].Latency != c.latency {
			t.Errorf("%s: latency %+v, want %+v", c.name, stats[0].Latency, c.latency)
		}
		if a := stats[0].Amplification(); a != stats[0].Requests()*1000/stats[0].Originals {
			t.Errorf("%s: amplification %d", c.name, a)
		}
	}
}

// TestLabWithClientsMatchesFreshRuns moves the clock of a lab on every
// client scenario along a random path, back and forth, inside instants,
// firing and undoing, and compares each lane's totals and latency with a
// fresh run up to the clock of the scenario with what was fired.
func TestLabWithClientsMatchesFreshRuns(t *testing.T) {
	for name := range clientScenarios {
		s := clientScenario(t, name)
		l := newLab(t, s)
		rng := rand.New(rand.NewPCG(7, uint64(len(name))))
		for step := range 60 {
			switch rng.IntN(10) {
			case 0:
				l.SeekPos(rng.IntN(l.Len() + 1))
			case 1:
				if _, err := l.FireAt(time.Duration(rng.Int64N(int64(s.Duration))), "k", 1); err != nil {
					t.Fatal(err)
				}
			case 2:
				l.Undo()
			default:
				l.Seek(time.Duration(rng.Int64N(int64(l.End()) + 1)))
			}
			with := s
			if fired := l.FiredRequests(); len(fired) > 0 {
				data, err := scenarios.Marshal(s, fired)
				if err != nil {
					t.Fatal(err)
				}
				if with, err = scenarios.Parse("with.yaml", data); err != nil {
					t.Fatal(err)
				}
			}
			// A fresh run of the requests decided at the clock: those
			// before it, and those at it up to Pos.
			recs, want := runUpTo(t, with, l.Now(), l.Pos())
			releasedBy(recs, want, l.Now())
			for lane := range s.Lanes {
				got := l.Stats(lane)
				if counts(got) != counts(want[lane]) {
					t.Fatalf("%s step %d, at %v pos %d lane %d: lab %+v, fresh %+v", name, step, l.Now(), l.Pos(), lane, counts(got), counts(want[lane]))
				}
			}
		}
	}
}

// releasedBy makes a run's totals those of a clock at now: a request
// served after a wait that ends after now is queued, not served yet, and
// the latency is over the requests released by now.
func releasedBy(recs []Record, stats []Stats, now time.Duration) {
	waits := make([]latencyCounts, len(stats))
	for _, r := range recs {
		switch a := r.Attempt; {
		case a.Fate != Served:
		case a.First+a.Latency > now:
			stats[r.Lane].Served--
			stats[r.Lane].Queued++
		case a.Latency > 0:
			waits[r.Lane].add(a.Latency)
		}
	}
	for lane := range stats {
		if stats[lane].Queued > 0 {
			stats[lane].Latency = waits[lane].latency(stats[lane].Served)
		}
	}
}

// runUpTo runs s's requests before now and the first ones at now up to
// the pos-th of all, with the retries due by now.
func runUpTo(t testing.TB, s *scenarios.Scenario, now time.Duration, pos int) ([]Record, []Stats) {
	t.Helper()
	cut := *s
	cut.Traffic = nil
	i := 0
	for r := range s.Requests() {
		if i == pos || r.At > now {
			break
		}
		cut.Traffic = append(cut.Traffic, scenarios.Traffic{Form: scenarios.Single, At: r.At, Count: 1, Key: r.Key, Cost: r.Cost, Client: r.Client})
		i++
	}
	// Requests keeps file order at one instant: the singles are in order.
	return runRecords(t, &cut, Options{Until: now + 1})
}

func TestRecordsHoldTheRetries(t *testing.T) {
	s := clientScenario(t, "at-once")
	l := newLab(t, s)
	l.Seek(l.End())
	var n, retries int
	l.Records(0, l.End(), func(r Record) bool {
		n++
		if r.Attempt.N > 1 {
			retries++
		}
		return true
	})
	want, _ := runRecords(t, s, Options{})
	if n != len(want) {
		t.Fatalf("Records: %d, a run %d", n, len(want))
	}
	var marked int
	for lane := range s.Lanes {
		span := l.Retries(lane, 0, l.End()+1)
		marked += span.Retries
		if span.Retries > 0 && span.Highest != s.Clients[0].Attempts {
			t.Errorf("lane %d: highest attempt %d, want %d", lane, span.Highest, s.Clients[0].Attempts)
		}
	}
	if marked != retries {
		t.Errorf("Retries counts %d, Records holds %d", marked, retries)
	}
	// Before the clock, nothing is marked: the marks stop at it.
	l.Seek(0)
	for lane := range s.Lanes {
		if span := l.Retries(lane, 0, l.End()+1); span.Retries != 0 {
			t.Errorf("lane %d at 0s: %+v marked ahead of the clock", lane, span)
		}
	}
	l.Seek(l.End())
	// The why panel's decision for the focused key is its latest try.
	for lane := range s.Lanes {
		rec, ok := l.LastDecisionFor(lane, "default")
		if !ok || rec.Request.Key != "default" {
			t.Fatalf("lane %d: %+v", lane, rec)
		}
	}
	if !strings.Contains(s.Clients[0].Rule(), "4 attempts") {
		t.Errorf("rule %q", s.Clients[0].Rule())
	}
}

// TestSeekBeforeAndNextRetry: SeekBefore(i) stands at request i's instant
// with it undecided but the retries due by then decided; NextRetry finds a
// retry that comes between two requests.
func TestSeekBeforeAndNextRetry(t *testing.T) {
	s, err := scenarios.Parse("t.yaml", []byte(`
title: t
duration: 10s
limiters: [{name: b, algorithm: token-bucket, capacity: 1, rate: 1/s}]
clients: [{name: c, retry: backoff, attempts: 2, base: 300ms}]
traffic: [{at: 0s, count: 2, client: c}, {at: 1s}, {at: 1s}]
`))
	if err != nil {
		t.Fatal(err)
	}
	l := newLab(t, s)
	l.SeekBefore(2) // the first request at 1s
	if l.Now() != time.Second || l.Pos() != 2 {
		t.Fatalf("SeekBefore(2): clock %v, pos %d", l.Now(), l.Pos())
	}
	if k, m := l.Instant(); k != 0 || m != 2 {
		t.Errorf("SeekBefore(2): request %d of %d", k, m)
	}
	if st := l.Stats(0); st.Requests() != 3 || st.Served != 1 {
		t.Errorf("SeekBefore(2): the retry at 0.3s is not decided: %+v", st)
	}
	if at, ok := l.NextRetry(0); !ok || at != 300*time.Millisecond {
		t.Errorf("NextRetry(0) = %v, %v; want 0.3s", at, ok)
	}
	if _, ok := l.NextRetry(300 * time.Millisecond); ok {
		t.Error("a retry after 0.3s, before the request at 1s")
	}
}

// TestReleasedAndTrailingCountRetries: in a lab with clients the shaper's
// releases and the trailing admitted cost count retries, and a wait given
// back never passes; checked against the records.
func TestReleasedAndTrailingCountRetries(t *testing.T) {
	s, err := scenarios.Parse("t.yaml", []byte(`
title: t
duration: 20s
limiters:
  - {name: q, algorithm: leaky-bucket, queue: 2, rate: 2/s}
  - {name: c, algorithm: sliding-counter, limit: 3, window: 2s}
clients:
  - {name: backs, retry: backoff, attempts: 4, base: 400ms}
  - {name: leaves, deadline: 1200ms, cancel: true}
traffic:
  - {at: 0s, count: 6, client: backs}
  - {at: 3s, count: 6, client: leaves, key: l}
`))
	if err != nil {
		t.Fatal(err)
	}
	l := newLab(t, s)
	for _, now := range []time.Duration{500 * time.Millisecond, 2 * time.Second, 3 * time.Second, 5 * time.Second, 9 * time.Second} {
		l.Seek(now)
		var released int64
		admitted := map[string]int64{}
		retried := false
		l.Records(0, now, func(r Record) bool {
			if r.Attempt.N > 1 {
				retried = true
			}
			d := r.Decision
			if r.Lane == 0 && d.Delay > 0 && !r.Attempt.Cancelled && r.Request.At+d.Delay < 20*time.Second {
				released++
			}
			if r.Lane == 1 && d.Outcome.Admitted() && r.Request.At > now-2*time.Second {
				admitted[r.Request.Key] += r.Request.Cost
			}
			return true
		})
		if got := l.Released(0, 0, 20*time.Second); got != released {
			t.Errorf("at %v: Released %d, the records %d", now, got, released)
		}
		for _, key := range []string{"default", "l"} {
			if got := l.TrailingAdmitted(1, key, 2*time.Second); got != admitted[key] {
				t.Errorf("at %v key %s: TrailingAdmitted %d, the records %d", now, key, got, admitted[key])
			}
		}
		if now == 9*time.Second && !retried {
			t.Error("no retry")
		}
	}
}

// TestLastDecisionForKeepsTheAttempt: a key's last decision, found back
// past another key's, says which attempt it was and what became of it.
func TestLastDecisionForKeepsTheAttempt(t *testing.T) {
	for _, clients := range []string{"", "clients: [{name: c, retry: at-once, attempts: 2}]\n"} {
		s, err := scenarios.Parse("t.yaml", []byte("title: t\nduration: 5s\nlimiters: [{name: b, algorithm: gcra, burst: 1, rate: 1/s}]\n"+clients+
			"traffic: [{at: 1s, key: a}, {at: 1500ms, key: a}, {at: 2s, key: b}]\n"))
		if err != nil {
			t.Fatal(err)
		}
		if clients != "" {
			for i := range s.Traffic[:2] {
				s.Traffic[i].Client = 1
			}
		}
		l := newLab(t, s)
		l.Seek(2500 * time.Millisecond)
		rec, ok := l.LastDecisionFor(0, "a")
		want := 1
		if clients != "" {
			want = 2 // the at-once retry of the refused request at 1.5s
		}
		if !ok || rec.Attempt.N != want || rec.Attempt.Fate != Abandoned || rec.Request.At != 1500*time.Millisecond {
			t.Errorf("clients %q: %+v", clients, rec)
		}
	}
}

// TestRetriesDueTogetherGoInTheOrderMade: seven retries fall due at one
// instant in a window with room for one; the first made (the first refused
// request's) takes it, and the others go in order after it.
func TestRetriesDueTogetherGoInTheOrderMade(t *testing.T) {
	s, err := scenarios.Parse("t.yaml", []byte(`
title: t
duration: 5s
limiters: [{name: w, algorithm: fixed-window, limit: 1, window: 1s}]
clients: [{name: c, retry: retry-after, attempts: 2}]
traffic: [{at: 0s, count: 8, client: c}]
`))
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := runRecords(t, s, Options{})
	var order []int
	for _, r := range recs {
		if r.Attempt.N == 2 {
			order = append(order, r.Attempt.Original)
			if admitted := r.Decision.Outcome.Admitted(); admitted != (r.Attempt.Original == 1) {
				t.Errorf("the retry of request %d: %s", r.Attempt.Original, r.Decision.Outcome)
			}
		}
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7}; !slices.Equal(order, want) {
		t.Errorf("retries decided in the order %v, want %v", order, want)
	}
}

// TestAttemptThenIn: what became of a request reads the same with its
// times written exactly (Then, for the command line) or as a screen
// writes them (ThenIn).
func TestAttemptThenIn(t *testing.T) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%dms", d/time.Millisecond) }
	for _, c := range []struct {
		a          Attempt
		then, msIn string
	}{
		{Attempt{Fate: Served}, "served", "served"},
		{Attempt{Fate: Served, Latency: 2225518932}, "served 2.225518932s after its first attempt", "served 2225ms after its first attempt"},
		{Attempt{Fate: Retrying, N: 3, Next: 2293328098}, "attempt 4 at 2.293328098s", "attempt 4 at 2293ms"},
		{Attempt{Fate: Unfinished, N: 4, Next: 31 * time.Second}, "unfinished: attempt 5 would come at 31s, past the end", "unfinished: attempt 5 would come at 31000ms, past the end"},
	} {
		if got := c.a.Then(); got != c.then {
			t.Errorf("Then() = %q, want %q", got, c.then)
		}
		if got := c.a.ThenIn(ms); got != c.msIn {
			t.Errorf("ThenIn(ms) = %q, want %q", got, c.msIn)
		}
	}
}
