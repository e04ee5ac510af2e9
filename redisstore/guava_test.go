package redisstore

import (
	"fmt"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestGuavaLongs: acquires of the largest cost push nextFree past 2^53 µs
// and then to Guava's saturated 2^63 − 1; the waits they cause pass 2^53
// ns and reach the 2^62 ns cap. Redis keeps them exact, as pairs.
func TestGuavaLongs(t *testing.T) {
	sec := time.Second
	policies := []algorithms.Policy{
		{Algorithm: algorithms.Guava, Rate: algorithms.Rate{N: 7, Per: sec}},
		{Algorithm: algorithms.Guava, Rate: algorithms.Rate{N: 1, Per: time.Hour}},
		{Algorithm: algorithms.GuavaTry, Rate: algorithms.Rate{N: 3, Per: 700 * time.Millisecond}, Timeout: 1999},
	}
	var trace []request
	at := 5 * time.Millisecond
	for i := range 80 {
		trace = append(trace, request{at, "k", algorithms.MaxCount}, request{at + 1, "k", 1 + int64(i)})
		at += 123456789
	}
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			for i, p := range policies {
				replay(t, st, fmt.Sprintf("longs-%d", i), p, trace)
			}
		})
	}
	// The traces did reach the saturated long: the memory limiter says so.
	for _, p := range policies[:2] {
		ks := algorithms.NewKeys()
		l, _ := algorithms.NewWithKeys(p, ks)
		for _, r := range trace {
			l.DecideKey(r.at, ks.Key(r.key), r.cost)
		}
		s, _ := l.(algorithms.StateCodec).ExportKey(ks.Key("k"))
		if s.Fields[2] != 9223372036854 || s.Fields[3] != 775807 {
			t.Errorf("%s: next free %d s %d µs, want 2^63 − 1 µs", p, s.Fields[2], s.Fields[3])
		}
	}
}

// TestGuavaWarmupLongs: the warm-up lane's acquires of Guava's largest
// cost, 2^31 − 1, at its slowest rates push nextFree past 2^53 µs and then
// to the saturated 2^63 − 1, while stored permits above the threshold add
// their trapezoid's µs: Redis keeps them exact, as pairs.
func TestGuavaWarmupLongs(t *testing.T) {
	policies := []algorithms.Policy{
		{Algorithm: algorithms.GuavaWarmup, Rate: algorithms.Rate{N: 1, Per: time.Hour}, Warmup: 24 * time.Hour},
		{Algorithm: algorithms.GuavaWarmup, Rate: algorithms.Rate{N: 3, Per: 7 * time.Second}, Warmup: 1999},
		{Algorithm: algorithms.GuavaWarmup, Rate: algorithms.Rate{N: 2, Per: time.Second}, Warmup: 4 * time.Second},
	}
	var trace []request
	at := 5 * time.Millisecond
	for i := range 60 {
		trace = append(trace, request{at, "k", 1 + int64(i%3)}, request{at + 1, "k", 1<<31 - 1}, request{at + 2, "k", 1 << 31})
		at += 123456789 * time.Duration(1+i%5)
	}
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			st := open(t, srv)
			for i, p := range policies {
				replay(t, st, fmt.Sprintf("warm-longs-%d", i), p, trace)
			}
		})
	}
	ks := algorithms.NewKeys()
	l, _ := algorithms.NewWithKeys(policies[0], ks)
	for _, r := range trace {
		l.DecideKey(r.at, ks.Key(r.key), r.cost)
	}
	if s, _ := l.(algorithms.StateCodec).ExportKey(ks.Key("k")); s.Fields[2] != 9223372036854 || s.Fields[3] != 775807 {
		t.Errorf("%s: next free %d s %d µs, want 2^63 − 1 µs", policies[0], s.Fields[2], s.Fields[3])
	}
}
