package redisstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestLeakyBucketHash: what HGETALL shows of a leaky bucket of 7/s after
// two requests at 0 and one at 0.1s: the pipe next free at 3/7 s (428571428
// + 4/7 ns), and the two requests still waiting, released at 1/7 s and 2/7
// s (rounded up to the ns).
func TestLeakyBucketHash(t *testing.T) {
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			p := algorithms.Policy{Algorithm: algorithms.LeakyBucket, Queue: 3, Rate: algorithms.Rate{N: 7, Per: time.Second}}
			ks := algorithms.NewKeys()
			l, err := st.Maker("hash-leaky", time.Minute)(p, ks)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, at := range []time.Duration{0, 0, 100 * time.Millisecond} {
				d := l.Decide(at, "alice", 1)
				got = append(got, fmt.Sprintf("%s %d", d.Outcome, d.Delay))
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			if want := "allowed 0, delayed 142857143, delayed 185714286"; strings.Join(got, ", ") != want {
				t.Errorf("decisions %s, want %s", strings.Join(got, ", "), want)
			}
			h, err := st.client.HGetAll(context.Background(), HashKey("hash-leaky", "alice")).Result()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"next_ns": "428571428", "next_frac": "4", "last": "100000000",
				"queue.head": "0", "queue.next": "2", "queue:0": "0 142857143 1", "queue:1": "100000000 285714286 1"}
			if fmt.Sprint(h) != fmt.Sprint(want) {
				t.Errorf("HGETALL %v, want %v", h, want)
			}
		})
	}
}
