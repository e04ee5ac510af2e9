package redisstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestNginxHash: what HGETALL shows of an nginx key, on every server: a
// first request too large for any burst leaves no node (node 0) but the
// time; the next makes the node; a rejection moves only latest.
func TestNginxHash(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.NginxLimitReq, Rate: algorithms.Rate{N: 2, Per: time.Second}, Burst: 1}
	ms := time.Millisecond
	steps := []struct {
		at   time.Duration
		cost int64
		want map[string]string
	}{
		{3 * ms, 5, map[string]string{"node": "0", "excess": "0", "last_ms": "0", "latest": "3000000"}},
		{10*ms + 7, 1, map[string]string{"node": "1", "excess": "0", "last_ms": "10", "latest": "10000007"}},
		{20 * ms, 1, map[string]string{"node": "1", "excess": "980", "last_ms": "20", "latest": "20000000"}}, // 0 − 2000×10/1000 + 1000
		{25 * ms, 1, map[string]string{"node": "1", "excess": "980", "last_ms": "20", "latest": "25000000"}}, // 980 − 2000×5/1000 + 1000 = 1970 > 1000: rejected
	}
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			ks := algorithms.NewKeys()
			l, err := st.Maker("nginx-hash", time.Second)(p, ks)
			if err != nil {
				t.Fatal(err)
			}
			k := ks.Key("k")
			for i, s := range steps {
				l.DecideKey(s.at, k, s.cost)
				if err := st.Err(); err != nil {
					t.Fatal(err)
				}
				got, err := st.client.HGetAll(context.Background(), HashKey("nginx-hash", "k")).Result()
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(s.want) {
					t.Errorf("after step %d: HGETALL %v, want %v", i, got, s.want)
				}
			}
		})
	}
}
