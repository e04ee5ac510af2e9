package fleet

import (
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestSyncedCountsItsOwnKeys: whether a sync copies each changed key into
// the views or Clones the shared state is weighed against the lane's own
// keys (how far its tables reach), not the numbering's, which other lanes
// share: a lane of 8 keys among 100,000 numbered by others Clones its one
// chunk when all 8 changed, unless its keys come after the others'.
func TestSyncedCountsItsOwnKeys(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 2, Per: sec}}
	for _, tc := range []struct {
		name                  string
		before, after, own, n int // keys numbered by others before and after the lane's own; own keys; changed
		few                   bool
	}{
		{"8 keys, others' after", 0, 100_000, 8, 8, false},
		{"8 keys after others'", 100_000, 0, 8, 8, true},
		{"4 keys changed", 0, 100_000, 8, 4, true},
		{"1000 keys, 62 changed", 0, 100_000, 1000, 62, true},
		{"1000 keys, 63 changed", 0, 100_000, 1000, 63, false},
	} {
		ids := algorithms.NewKeys()
		benchKeys(ids, tc.before)
		var own []algorithms.Key
		for i := range tc.own {
			own = append(own, ids.Key(fmt.Sprint("own", i)))
		}
		for i := range tc.after {
			ids.Key(fmt.Sprint("after", i))
		}
		l, err := New(p, Config{Gateways: 4, Store: Synced, SyncEvery: sec}, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range own {
			l.DecideKey(0, k, 1) // the lane's tables reach all its keys
		}
		l.sync(sec)
		for _, k := range own[:tc.n] {
			l.DecideKey(sec+time.Millisecond, k, 1)
		}
		if got := l.fewChanged(); got != tc.few {
			t.Errorf("%s: few changed %v, want %v", tc.name, got, tc.few)
		}
	}
}
