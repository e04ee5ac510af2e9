package redisstore

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestXTimeRateDeepDebt: a ReserveN lane without max_wait runs into a debt
// whose waits pass 2^53 ns (replied as decimal strings) and then the
// library's InfDuration cap (2^63 − 1, where time.Sub saturates too),
// late requests among them, exactly as in memory on every server.
func TestXTimeRateDeepDebt(t *testing.T) {
	per := time.Duration(1<<52 - 1<<40)
	p := algorithms.Policy{Algorithm: algorithms.XTimeRateReserve, Burst: 10, Rate: algorithms.Rate{N: 10, Per: per}}
	var trace []request
	at := time.Duration(0)
	for i := range 3500 {
		cost, now := int64(10), at
		switch i % 7 {
		case 3:
			cost = 3
		case 5:
			now = max(0, at-time.Second)
		case 6:
			cost = 11 // past the burst: never
		}
		trace = append(trace, request{now, "alice", cost})
		at += time.Millisecond
	}
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			replay(t, open(t, srv), "deep-debt", p, trace)
		})
	}
	// The memory lane saw both: waits past 2^53 ns, and the cap.
	l, err := algorithms.New(p)
	if err != nil {
		t.Fatal(err)
	}
	var past53, capped bool
	for _, r := range trace {
		d := l.Decide(r.at, r.key, r.cost)
		past53 = past53 || d.Delay >= 1<<53
		capped = capped || d.Delay == algorithms.Never
	}
	if !past53 || !capped {
		t.Errorf("the trace reached waits past 2^53 %v, the cap %v; want both", past53, capped)
	}
}
