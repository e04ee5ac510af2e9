package algorithms

import (
	"testing"
	"time"
)

// TestEnvoyTimer: Envoy before 1.31 (local_ratelimit_impl.cc's fill timer,
// enabled at the filter's creation and firing every fill_interval): every
// bucket starts at max_tokens and gains tokens_per_fill at 1s, 2s, 3s, …
// from the start, whenever its key first asks. A key first seen at 2.5s
// gets its first fill at 3s, not 3.5s.
func TestEnvoyTimer(t *testing.T) {
	p := Policy{Algorithm: EnvoyLocal, MaxTokens: 4, TokensPerFill: 2, FillInterval: sec, Timer: true}
	playSteps(t, p, []step{
		{at: 2500 * ms, cost: 4, want: Allowed},
		{at: 2500 * ms, cost: 1, want: Rejected, retry: 500 * ms,
			explain: "tokens = 0 (no new fill; the next at 3s) < cost 1 → rejected; 1 more fill of 2 needed, the last at 3s: retry after 0.5s (429, no Retry-After) (Envoy before 1.31: one fill timer from the filter's start; local_ratelimit_impl.cc)"},
		{at: 3 * sec, cost: 2, want: Allowed},
		{at: 3999 * ms, cost: 1, want: Rejected, retry: ms},
		{at: 7 * sec, cost: 4, want: Allowed}, // 4 fills since 3s, capped at 4
	})
	l := mustNew(t, p)
	l.Decide(2500*ms, "k", 3)
	snap, ok := l.Snapshot(2700*ms, "k").(IntervalBucketSnapshot)
	if !ok || snap.Tokens != 1 || snap.NextFill != 3*sec || snap.FullAt != 4*sec {
		t.Errorf("snapshot %+v", snap)
	}
	if got := (Policy{Algorithm: EnvoyLocal, MaxTokens: 4, TokensPerFill: 2, FillInterval: time.Second}).String(); got != "envoy-local max_tokens 4, 2 per 1s" {
		t.Errorf("String %q", got)
	}
	if got := p.String(); got != "envoy-local max_tokens 4, 2 per 1s, timer" {
		t.Errorf("String %q", got)
	}
}
