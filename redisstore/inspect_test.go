package redisstore

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestInspectShowsTheLog: the store view names a log's items, in the
// hash's order, one bracket an item.
func TestInspectShowsTheLog(t *testing.T) {
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			p := algorithms.Policy{Algorithm: algorithms.SlidingLog, Limit: 5, Window: time.Second}
			lim, err := st.Maker("inspect-log", time.Hour)(p, algorithms.NewKeys())
			if err != nil {
				t.Fatal(err)
			}
			lim.Decide(100, "k", 1)
			lim.Decide(200, "k", 2)
			v := lim.(*Limiter).Inspect("k")
			got := strings.Join(v.Contents, "; ")
			if !strings.Contains(got, "(at cost): [100 1] [200 2]") {
				t.Errorf("the view shows %q", got)
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestARacyReadThatDisagreesFailsTheStore: a hash holding another state
// than the lane's in memory (another process writing the same lane) fails
// the store on the next plain read, naming the key.
func TestARacyReadThatDisagreesFailsTheStore(t *testing.T) {
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			p := algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 5, Rate: algorithms.Rate{N: 1, Per: time.Second}}
			ks := algorithms.NewKeys()
			lim, err := st.Maker("disagree", time.Hour)(p, ks)
			if err != nil {
				t.Fatal(err)
			}
			k := ks.Key("k")
			lim.DecideKey(0, k, 1)
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			// Another writer changes the first field.
			name := p.StateForm().Fields[0]
			if err := st.client.HSet(t.Context(), HashKey("disagree", "k"), name, 1).Err(); err != nil {
				t.Fatal(err)
			}
			lim.(algorithms.StateCodec).ExportKey(k)
			if err := st.Err(); err == nil || !strings.Contains(err.Error(), "key k") {
				t.Errorf("the store's failure: %v", err)
			}
		})
	}
}
