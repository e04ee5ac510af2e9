package model

import (
	"reflect"
	"testing"

	"ratelab/scenarios"
)

// TestRunKeysIsRunByKey: RunKeys, the lean path of `run --by-key` included,
// gives every key the totals RunByKey does, on every canned lesson (their
// shapers delay, their fleets count beyond, their clients retry) and on
// many keys.
func TestRunKeysIsRunByKey(t *testing.T) {
	var all []*scenarios.Scenario
	for _, info := range scenarios.List() {
		s, err := scenarios.Canned(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	s, err := scenarios.Parse("keys.yaml", []byte(`title: keys
seed: 5
limiters:
  - {name: log, algorithm: sliding-log, limit: 3, window: 2s}
  - {name: shaper, algorithm: leaky-bucket, queue: 4, rate: 2/s}
  - {name: reserve, algorithm: x-time-rate-reserve, burst: 1, rate: 3/s}
traffic:
  - {every: 100ms, until: 20s, accounts: 40, stagger: random}
  - {at: 5s, count: 30, accounts: 5}
`))
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, s)
	for _, s := range all {
		t.Run(s.Title, func(t *testing.T) {
			for _, opt := range []Options{{}, {Until: s.Duration / 2}} {
				_, want, err := RunByKey(s, opt, nil)
				if err != nil {
					t.Fatal(err)
				}
				kt, err := RunKeys(s, opt, nil)
				if err != nil {
					t.Fatal(err)
				}
				if kt.Len() != len(want) {
					t.Fatalf("%d keys, RunByKey %d", kt.Len(), len(want))
				}
				for k, ks := range want {
					if kt.Key(k) != ks.Key {
						t.Fatalf("key %d: %s, RunByKey %s", k, kt.Key(k), ks.Key)
					}
					for lane, st := range ks.Lanes {
						if got := kt.Stats(k, lane); !reflect.DeepEqual(got, st) {
							t.Fatalf("key %s, lane %d: %+v\nRunByKey: %+v", ks.Key, lane, got, st)
						}
					}
				}
			}
		})
	}
}
