package redisstore

import (
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestResettingWindowEdges: the expiry's instant, on every server: a key
// is gone at exactly its expiry, a cost above the limit counts nothing
// and moves no expiry, and an expired key is written as none.
func TestResettingWindowEdges(t *testing.T) {
	sec := time.Second
	p := algorithms.Policy{Algorithm: algorithms.ResettingWindow, Limit: 2, Window: 10 * sec}
	trace := []request{
		{0, "k", 1},
		{10 * sec, "k", 3}, // above the limit, at the expiry: the key is gone
		{10 * sec, "k", 2}, // a new key
		{15 * sec, "k", 1}, // rejected, counted, expiry pushed to 25s
		{20 * sec, "k", 3}, // above the limit while alive
		{25 * sec, "k", 3}, // above the limit at the expiry
		{24 * sec, "k", 1}, // late: decided at 25s, a new key
		{40 * sec, "k", 1},
		{41 * sec, "k", 1},
		{42 * sec, "k", 1},
		{52 * sec, "k", 1}, // at the expiry 42s + 10s
	}
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			replay(t, open(t, srv), "edges", p, trace)
		})
	}
}

// TestResettingWindowCountPast2To53: a count that would reach 2^53 fails
// the store, naming it, rather than rounding (the memory limiter counts on
// to 2^62).
func TestResettingWindowCountPast2To53(t *testing.T) {
	p := algorithms.Policy{Algorithm: algorithms.ResettingWindow, Limit: 1 << 40, Window: time.Millisecond}
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			ks := algorithms.NewKeys()
			lim, err := st.Maker("past", time.Second)(p, ks)
			if err != nil {
				t.Fatal(err)
			}
			k := ks.Key("k")
			huge := algorithms.State{Fields: []int64{MaxExact - 2, int64(time.Millisecond), 0, 0}}
			if err := lim.(*Limiter).ImportKey(k, huge); err != nil {
				t.Fatal(err)
			}
			lim.DecideKey(time.Millisecond/2, k, 1)
			if err := st.Err(); err != nil {
				t.Fatalf("one below 2^53: %v", err)
			}
			lim.DecideKey(time.Millisecond/2, k, 1)
			if err := st.Err(); err == nil || !strings.Contains(err.Error(), "reaches 2^53") {
				t.Fatalf("at 2^53: %v", err)
			}
		})
	}
}
