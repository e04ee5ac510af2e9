package redisstore

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"ratelab/algorithms"
)

// BenchmarkDecide: one decision in memory, and through Redis with a round
// trip a decision and with calls pipelined 256 at a time, on 100 keys in
// turn, a request every millisecond. Against RATELAB_REDIS_URL when set
// (the figures the README quotes), else an in-process miniredis.
func BenchmarkDecide(b *testing.B) {
	url := os.Getenv("RATELAB_REDIS_URL")
	if url == "" {
		url = "redis://" + miniredis.RunT(b).Addr() + "/0"
	}
	st, err := Open(url)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	policies := []algorithms.Policy{
		{Algorithm: algorithms.TokenBucket, Capacity: 100, Rate: algorithms.Rate{N: 50, Per: time.Second}},
		{Algorithm: algorithms.GCRA, Burst: 100, Rate: algorithms.Rate{N: 50, Per: time.Second}},
		{Algorithm: algorithms.FixedWindow, Limit: 100, Window: time.Second},
		{Algorithm: algorithms.SlidingLog, Limit: 100, Window: time.Second},
	}
	keys := make([]string, 100)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
	}
	for _, p := range policies {
		for _, mode := range []struct {
			name  string
			batch int
		}{{"memory", 0}, {"redis", 1}, {"redis-pipelined", 256}} {
			b.Run(string(p.Algorithm)+"/"+mode.name, func(b *testing.B) {
				ks := algorithms.NewKeys()
				var lim algorithms.Limiter
				if mode.batch == 0 {
					lim, _ = algorithms.NewWithKeys(p, ks)
				} else {
					st.Pipeline(mode.batch)
					if lim, err = st.Maker("bench", 100*24*time.Hour)(p, ks); err != nil {
						b.Fatal(err)
					}
				}
				ids := make([]algorithms.Key, len(keys))
				for i, k := range keys {
					ids[i] = ks.Key(k)
				}
				b.ResetTimer()
				for i := range b.N {
					lim.DecideKey(time.Duration(i)*time.Millisecond, ids[i%len(ids)], 1)
				}
				if err := st.Flush(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			})
		}
	}
}
