package model

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// mixedClients is a scenario whose clients do everything a retry can: back
// off with each jitter, retry at once and after Retry-After, give up past
// a deadline and cancel, several keys and costs, requests arriving at the
// same instant (two of them retried at the same instants, where only
// the order they were made in decides which goes first), retries due past
// the end, a deadline without a cancel on a lane that delays, on lanes
// that delay and lanes that reject.
const mixedClients = `
title: clients of every kind
seed: 7
duration: 30s
clients:
  - {name: full,   retry: backoff, attempts: 5, base: 10ms, cap: 400ms, jitter: full}
  - {name: equal,  retry: backoff, attempts: 4, base: 50ms, factor: 3, jitter: equal}
  - {name: none,   retry: backoff, attempts: 3, base: 100ms}
  - {name: once,   retry: at-once, attempts: 3}
  - {name: after,  retry: retry-after, attempts: 3}
  - {name: hasty,  retry: backoff, attempts: 6, base: 20ms, jitter: full, deadline: 300ms, cancel: true}
  - {name: patient, retry: backoff, attempts: 5, base: 40ms, factor: 2, jitter: equal, deadline: 400ms}
limiters:
  - {name: fixed,   algorithm: fixed-window,    limit: 20, window: 1s}
  - {name: log,     algorithm: sliding-log,     limit: 20, window: 1s}
  - {name: bucket,  algorithm: token-bucket,    capacity: 5, rate: 10/s}
  - {name: shaper,  algorithm: leaky-bucket,    queue: 5,    rate: 10/s}
traffic:
  - {every: 7ms,  until: 25s, key: a, client: full}
  - {every: 7ms,  until: 25s, key: b, client: equal, cost: 2}
  - {every: 13ms, until: 25s, key: a, client: none}
  - {every: 20ms, until: 25s, key: c, client: once}
  - {every: 50ms, until: 29s, key: d, client: after}
  - {every: 7ms,  until: 25s, key: e, client: hasty}
  - {every: 7ms,  until: 25s, key: f}
  - {every: 9ms,  until: 25s, key: h, client: patient}
  - {every: 10ms, until: 25s, key: g, client: none}
  - {every: 10ms, until: 25s, key: g, client: none, cost: 3}
`

// TestRunByLaneIsRun checks that a summary run with clients, which takes
// one lane at a time (runByLane), gives Run's totals as Run gives them
// with every decision in order, lanes interleaved (an emit forces that
// path): on every canned lesson with clients, on mixedClients, whole and
// cut short.
func TestRunByLaneIsRun(t *testing.T) {
	var cases []*scenarios.Scenario
	for _, info := range scenarios.List() {
		s, err := scenarios.Canned(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Clients) > 0 {
			cases = append(cases, s)
		}
	}
	s, err := scenarios.Parse("mixed.yaml", []byte(mixedClients))
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, s)
	if len(cases) < 4 {
		t.Fatalf("%d scenarios with clients; the lessons have 4", len(cases))
	}
	for _, s := range cases {
		for _, until := range []time.Duration{0, s.Duration / 3, time.Second + 1} {
			opt := Options{Until: until}
			got, err := Run(s, opt, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Run(s, opt, func(Record) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s until %v: by lane\n%+v\nin order\n%+v", s.Title, until, got, want)
			}
			var retries int64
			for _, st := range got {
				retries += st.Requests() - st.Originals
			}
			if s == cases[len(cases)-1] && until == 0 && retries < 1000 {
				t.Errorf("%s: %d retries: the case tests too little", s.Title, retries)
			}
		}
	}
}

// TestClientBookWaitsAfterEachAttempt checks what plan.retry makes
// of a refusal, for each attempt of every client (a backoff's nominal
// wait worked out once), against the client itself: the same next try,
// or the same ending, the fate that follows from it (Unfinished at or past
// the end, exactly at it too), the jitter drawn from the request's salt; several salts,
// decisions that give a Retry-After or can never fit, and waits past a
// deadline or capped.
func TestClientBookWaitsAfterEachAttempt(t *testing.T) {
	s, err := scenarios.Parse("mixed.yaml", []byte(mixedClients))
	if err != nil {
		t.Fatal(err)
	}
	clients := append(slices.Clone(s.Clients),
		scenarios.Client{Name: "steep", Retry: scenarios.Backoff, Attempts: scenarios.MaxAttempts, Base: time.Millisecond, Cap: time.Hour, Factor: 16, Jitter: scenarios.FullJitter},
		scenarios.Client{Name: "flat", Retry: scenarios.Backoff, Attempts: 7, Base: 0, Cap: scenarios.MaxTime, Factor: 1},
		scenarios.Client{Name: "uncapped", Retry: scenarios.Backoff, Attempts: 70, Base: time.Second, Cap: scenarios.MaxTime, Factor: 2, Jitter: scenarios.EqualJitter, Deadline: time.Hour},
		scenarios.Client{Name: "quits", Retry: scenarios.GiveUp, Attempts: 1})
	s.Clients = clients
	b := newClientBook(s)
	checked, fates := 0, map[Fate]bool{}
	for i := range b.clients {
		c := &b.clients[i]
		for n := 1; n <= c.Attempts+1 && n <= scenarios.MaxAttempts; n++ {
			for _, salt := range []uint64{0, 1, 1 << 63, math.MaxUint64, 0x9e3779b97f4a7c15} {
				for _, d := range []algorithms.Decision{
					{At: 5 * time.Second, RetryAfter: time.Second},
					{At: 0, RetryAfter: algorithms.Never},
					{At: s.Duration - time.Millisecond, RetryAfter: time.Millisecond},
					{At: s.Duration - time.Second, RetryAfter: time.Second}, // Retry-After's try at the end
					{At: s.Duration, RetryAfter: time.Second},               // an at-once try at the end
					{At: scenarios.MaxTime / 2},
				} {
					first := d.At - time.Duration(n)*time.Millisecond
					q := retryReq{first: first, salt: salt, client: int32(i + 1)}
					wantNext, ending := c.NextTry(n, first, &d, scenarios.JitterOfAttempt(salt, n))
					wantFate := Retrying
					switch {
					case ending != scenarios.TryAgain:
						wantNext, wantFate = 0, Abandoned
					case wantNext >= b.end:
						wantFate = Unfinished
					}
					if c.Retry != scenarios.Backoff || c.Jitter == scenarios.NoJitter {
						// A client that draws none: its salt is 0
						// and any draw gives the same.
						q.salt = 0
					}
					next, fate, gotEnding := b.plans[i+1].retry(b.end, int32(n), &q, &d)
					if next != wantNext || fate != wantFate || gotEnding != ending {
						t.Fatalf("%s attempt %d salt %#x at %v: %v %v %v, the client's %v %v %v", c.Name, n, salt, d.At, next, fate, gotEnding, wantNext, wantFate, ending)
					}
					fates[fate] = true
					checked++
				}
			}
		}
	}
	if checked < 1000 || len(fates) != 3 {
		t.Errorf("%d cases checked, fates %v", checked, fates)
	}
}

// TestLanesCancelWhereAClientCancels checks which lanes newLanes finds a
// client's cancel can matter on: those that can delay, when a client of
// the file cancels; none when none does.
func TestLanesCancelWhereAClientCancels(t *testing.T) {
	s, err := scenarios.Parse("mixed.yaml", []byte(mixedClients))
	if err != nil {
		t.Fatal(err)
	}
	for _, cancel := range []bool{true, false} {
		if !cancel {
			s.Clients = slices.DeleteFunc(s.Clients, func(c scenarios.Client) bool { return c.Cancel })
		}
		ls, err := newLanes(s.Lanes, time.Second, nil, s.Duration, newClientBook(s))
		if err != nil {
			t.Fatal(err)
		}
		// mixedClients' lanes: fixed, log, bucket reject; shaper delays.
		if want := []bool{false, false, false, cancel}; !slices.Equal(ls.cancels, want) {
			t.Errorf("a client cancels %v: cancels %v, want %v", cancel, ls.cancels, want)
		}
	}
}

// rareClients has lanes whose refusals carry what Stats.count adds beside
// a Rejected (a dry run's verdict, a fallback's 503, a departure from the
// yardstick or through a forgotten state), every request from a client
// that retries.
const rareClients = `
title: refusals of every kind, retried
seed: 11
duration: 20s
clients:
  - {name: full, retry: backoff, attempts: 4, base: 50ms, cap: 1s, jitter: full}
limiters:
  - {name: dry,    algorithm: nginx-limit-req, rate: 5r/s, burst: 2, dry_run: true}
  - {name: down,   algorithm: token-bucket, capacity: 3, rate: 5/s, store: shared, outages: [{from: 5s, until: 8s}], fallback: closed}
  - {name: racy,   algorithm: token-bucket, capacity: 3, rate: 5/s, gateways: 3, store: racy, store_latency: 40ms}
  - {name: forget, algorithm: token-bucket, capacity: 3, rate: 1/s, expire_idle: 500ms}
traffic:
  - {every: 60ms, until: 18s, key: a, client: full}
  - {every: 110ms, until: 18s, key: b, client: full}
  - {every: 1500ms, until: 18s, key: c}
  - {every: 1500ms, from: 10ms, until: 18s, key: c}
  - {every: 1500ms, from: 20ms, until: 18s, key: c}
  - {every: 1500ms, from: 450ms, until: 18s, key: c}
  - {every: 1500ms, from: 900ms, until: 18s, key: c}
`

// TestRefusalsCountAsStatsCountDoes: a summary's totals, whose refusals
// laneAt.try counts inline unless they carry something rare, are what
// Stats.count makes of every decision a recorded run makes, on lanes
// whose refusals carry each rare field.
func TestRefusalsCountAsStatsCountDoes(t *testing.T) {
	s, err := scenarios.Parse("rare.yaml", []byte(rareClients))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(s, Options{}, nil) // the summary's run, lane by lane
	if err != nil {
		t.Fatal(err)
	}
	recount := make([]Stats, len(s.Lanes))
	// Dry runs' verdicts; refusals with a fallback, beyond, forgot.
	var rare [4]int64
	_, err = Run(s, Options{}, func(r Record) error {
		d := &r.Decision
		recount[r.Lane].count(d)
		if d.DryRun != algorithms.Allowed {
			rare[0]++ // a dry run refuses nothing: its verdict comes with an admission
		}
		if d.Outcome == algorithms.Rejected {
			for i, on := range [4]bool{false, d.Fallback != algorithms.NoFallback, d.Beyond != 0, d.Forgot != 0} {
				if on {
					rare[i]++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for lane, want := range recount {
		g := got[lane]
		g.Latency, want.Latency = Latency{}, Latency{}
		if g.Admitted != want.Admitted || g.AdmittedCost != want.AdmittedCost || g.Delayed != want.Delayed || g.Rejected != want.Rejected ||
			g.DryRunDelayed != want.DryRunDelayed || g.DryRunRejected != want.DryRunRejected ||
			g.Beyond != want.Beyond || g.Forgot != want.Forgot ||
			g.FallbackAdmitted != want.FallbackAdmitted || g.FallbackRejected != want.FallbackRejected {
			t.Errorf("lane %d: run's totals %+v, Stats.count's %+v", lane, g, want)
		}
	}
	for i, n := range rare {
		if n == 0 {
			t.Errorf("no refusal with rare field %d: the case tests too little (%v)", i, rare)
		}
	}
}
