package redisstore

import (
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestResilience4jEdges: cycles' starts and the timeout's edge, on every
// server: cycles cut from the key's first request, a wait of exactly the
// timeout admitted and one a nanosecond longer refused, reserving nothing,
// a cost above limit_for_period refused outright, and a late request.
func TestResilience4jEdges(t *testing.T) {
	sec, ms := time.Second, time.Millisecond
	p := algorithms.Policy{Algorithm: algorithms.Resilience4j, LimitForPeriod: 2, LimitRefreshPeriod: sec, TimeoutDuration: 500 * ms}
	trace := []request{
		{300 * ms, "k", 1},         // made here: cycles [0.3s, 1.3s), ...
		{300 * ms, "k", 1},         // permissions 0
		{800*ms - 1, "k", 1},       // a wait of 0.5s + 1ns: refused
		{800 * ms, "k", 1},         // a wait of exactly 0.5s: reserved, −1
		{900 * ms, "k", 3},         // above the limit: refused outright
		{1300 * ms, "k", 1},        // cycle 1: −1 + 2 = 1, admitted at once
		{1300 * ms, "k", 1},        // 0 left: the next cycle, 1s away: refused
		{1200 * ms, "k", 2},        // late: decided at 1.3s
		{5300*ms - 1, "k", 2},      // cycle 4's last instant
		{5300 * ms, "k", 2},        // cycle 5
		{5300*ms + 600*ms, "k", 1}, // 0.4s to cycle 6: reserved
		{5300*ms + 600*ms, "k", 2}, // cycle 7, 1.4s away: refused
		{7300 * ms, "k", 2},        // cycle 7: −1 + 2 × 1 = 1 < 2, 1s to wait: refused
	}
	for _, srv := range servers(t) {
		t.Run(srv.name, func(t *testing.T) {
			replay(t, open(t, srv), "edges", p, trace)
		})
	}
}
