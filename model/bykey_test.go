package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

// keysShare tells that s's keys touch one another: a policy over all keys
// spends one allowance for all, and a jitter draw depends on a request's
// rank among every original at its instant. A key's totals are then its
// requests' in the whole run, not those of its requests run alone.
func keysShare(s *scenarios.Scenario) bool {
	for _, l := range s.Lanes {
		for _, x := range l.Stack {
			if x.AllKeys {
				return true
			}
		}
	}
	for _, c := range s.Clients {
		if c.Jitter != scenarios.NoJitter {
			return true
		}
	}
	return false
}

// TestRunByKeyIsEachKeyRunAlone: every limiter keeps a state per key, so a
// key's totals (peak included) are those of a run of its traffic alone, and
// the keys come in the order of their first request.
func TestRunByKeyIsEachKeyRunAlone(t *testing.T) {
	var cases []*scenarios.Scenario
	for _, info := range lessons() {
		s, err := scenarios.Canned(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, s)
	}
	for seed := range uint64(4) {
		cases = append(cases, randomScenario(t, seed, 500))
	}
	for _, s := range cases {
		opt := Options{Until: s.Duration * 3 / 4}
		all, byKey, err := RunByKey(s, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Run(s, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(all, want) {
			t.Errorf("%s: all keys %+v, Run says %+v", s.Name, all, want)
		}
		var keys []string
		for _, k := range s.Keys() {
			if keyArrivesBefore(s, k, opt.Until) {
				keys = append(keys, k)
			}
		}
		var got []string
		sums := make([]Stats, len(s.Lanes))
		for _, ks := range byKey {
			got = append(got, ks.Key)
			alone := aloneWith(s, ks.Key)
			// Where keys touch one another, a key's totals are its
			// requests' in the whole run, not those of it run alone.
			if !keysShare(s) {
				wantKey, err := Run(alone, Options{Until: opt.Until, PeakWindow: all[0].PeakWindow}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for lane := range wantKey {
					wantKey[lane].KeyBytes = 0 // one key's totals among several leave it out
				}
				if !slices.Equal(ks.Lanes, wantKey) {
					t.Errorf("%s, key %s: %+v, alone %+v", s.Name, ks.Key, ks.Lanes, wantKey)
				}
			}
			for lane, st := range ks.Lanes {
				sums[lane].Admitted += st.Admitted
				sums[lane].Delayed += st.Delayed
				sums[lane].Rejected += st.Rejected
			}
		}
		if !slices.Equal(got, keys) {
			t.Errorf("%s: keys %q, want %q", s.Name, got, keys)
		}
		for lane, st := range sums {
			if st.Admitted != all[lane].Admitted || st.Delayed != all[lane].Delayed || st.Rejected != all[lane].Rejected {
				t.Errorf("%s lane %d: the keys add up to %+v, the lane has %+v", s.Name, lane, st, all[lane])
			}
		}
	}
}

func keyArrivesBefore(s *scenarios.Scenario, key string, until time.Duration) bool {
	for r := range s.Requests() {
		if r.Key == key {
			return r.At < until
		}
	}
	return false
}

// aloneWith is s with only key's requests: its items, and a log's
// requests of that key as single requests.
func aloneWith(s *scenarios.Scenario, key string) *scenarios.Scenario {
	alone := *s
	alone.Traffic, alone.Logs = nil, nil
	for _, tr := range s.Traffic {
		if tr.Key == key {
			alone.Traffic = append(alone.Traffic, tr)
		}
	}
	if len(s.Logs) == 0 {
		return &alone
	}
	for item, r := range s.RequestsOfItems() {
		if item >= len(s.Traffic) && r.Key == key {
			alone.Traffic = append(alone.Traffic, scenarios.Traffic{Form: scenarios.Single, At: r.At, Count: 1, Key: r.Key, Cost: r.Cost})
		}
	}
	return &alone
}

// TestRunByKeyPeaks: the lesson's numbers. The sliding log's peak over both
// keys is 200 per 60s, but 100 per key, its limit.
func TestRunByKeyPeaks(t *testing.T) {
	s, err := scenarios.Canned("counter-blind-spot")
	if err != nil {
		t.Fatal(err)
	}
	all, byKey, err := RunByKey(s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const log = 1
	if all[log].Peak != 200 {
		t.Fatalf("the log's peak over both keys is %d, want 200", all[log].Peak)
	}
	if len(byKey) != 2 || byKey[0].Key != "early" || byKey[1].Key != "late" {
		t.Fatalf("keys %+v", byKey)
	}
	for _, ks := range byKey {
		if ks.Lanes[log].Peak != 100 || ks.Lanes[log].PeakWindow != 60*time.Second {
			t.Errorf("key %s: the log's peak %d per %v, want 100 per 60s", ks.Key, ks.Lanes[log].Peak, ks.Lanes[log].PeakWindow)
		}
	}
	if st := byKey[0].Lanes[log]; st.Admitted != 200 || st.Rejected != 0 {
		t.Errorf("early in the log: %+v, want 200 admitted", st)
	}
}

// TestRunByKeyPassesEveryRecordOn: emit sees what Run's emit sees.
func TestRunByKeyPassesEveryRecordOn(t *testing.T) {
	s := randomScenario(t, 7, 300)
	var got, want []Record
	if _, _, err := RunByKey(s, Options{}, func(r Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(s, Options{}, func(r Record) error { want = append(want, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, want, func(a, b Record) bool { return a.Index == b.Index && a.Lane == b.Lane && a.Request == b.Request }) || len(got) == 0 {
		t.Fatalf("%d records, Run emits %d", len(got), len(want))
	}
}

// manyKeys is 1,000,000 requests of 5000 keys (each one every 5 s for
// 1000 s) on three lanes.
func manyKeys(b *testing.B) *scenarios.Scenario {
	var y strings.Builder
	y.WriteString(`title: many keys
limiters:
  - {name: fixed, algorithm: fixed-window, limit: 10, window: 60s}
  - {name: log, algorithm: sliding-log, limit: 10, window: 60s}
  - {name: shaper, algorithm: leaky-bucket, queue: 5, rate: 1/s}
traffic:
`)
	for k := range 5000 {
		fmt.Fprintf(&y, "  - {every: 5s, from: %dms, until: 1000s, key: k%d}\n", k, k)
	}
	return parse(b, y.String())
}

// BenchmarkRunByKeyManyKeys and BenchmarkRunManyKeys: what the per-key
// totals add to a run (one op = the whole run).
func BenchmarkRunByKeyManyKeys(b *testing.B) {
	s := manyKeys(b)
	for b.Loop() {
		if _, _, err := RunByKey(s, Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunManyKeys(b *testing.B) {
	s := manyKeys(b)
	for b.Loop() {
		if _, err := Run(s, Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRunAccounts runs items of accounts and keys: each copy is a key of
// its own, with a state of its own in every lane.
func TestRunAccounts(t *testing.T) {
	tests := []struct {
		name, traffic string
		keys          []string // in the order of their first request
		perKey        int64    // requests of each key
		admitted      int64    // admitted of each key, lane b
	}{
		// 5 accounts polling every 500ms for 10s, staggered: each polls 20
		// times, and its own bucket of 3, refilling 1/s, admits 12.
		{"accounts, even", "  - {every: 500ms, until: 10s, accounts: 5, stagger: even}\n",
			[]string{"acct-1", "acct-2", "acct-3", "acct-4", "acct-5"}, 20, 12},
		{"keys, no stagger", "  - {every: 500ms, until: 10s, keys: [carol, alice, bob]}\n",
			[]string{"carol", "alice", "bob"}, 20, 12},
		{"accounts with key, a burst", "  - {at: 1s, count: 10, accounts: 3, key: user}\n",
			[]string{"user-1", "user-2", "user-3"}, 10, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := scenarios.Parse("x.yaml", []byte("title: t\nseed: 3\nlimiters:\n  - {name: b, algorithm: token-bucket, capacity: 3, rate: 1/s}\ntraffic:\n"+tt.traffic))
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int64{}
			all, byKey, err := RunByKey(s, Options{}, func(r Record) error { counts[r.Request.Key]++; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if len(byKey) != len(tt.keys) {
				t.Fatalf("%d keys, want %v", len(byKey), tt.keys)
			}
			for i, k := range byKey {
				st := k.Lanes[0]
				if k.Key != tt.keys[i] || counts[k.Key] != tt.perKey || st.Admitted != tt.admitted || st.Admitted+st.Rejected != tt.perKey {
					t.Errorf("key %d: %s, %d requests, %+v; want %s, %d requests, %d admitted", i, k.Key, counts[k.Key], st, tt.keys[i], tt.perKey, tt.admitted)
				}
			}
			if want := tt.admitted * int64(len(tt.keys)); all[0].Admitted != want {
				t.Errorf("admitted %d over all keys, want %d", all[0].Admitted, want)
			}
			if got := fmt.Sprint(s.Keys()); got != fmt.Sprint(tt.keys) {
				t.Errorf("Keys() = %s, want %v", got, tt.keys)
			}
		})
	}
}
