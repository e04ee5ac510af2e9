package model

import (
	"fmt"
	"testing"

	"ratelab/scenarios"
)

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
