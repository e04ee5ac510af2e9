package model

import (
	"testing"
	"time"

	"ratelab/scenarios"
)

func TestDefaultPeakWindow(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want time.Duration
	}{
		{"  - {name: a, algorithm: fixed-window, limit: 5, window: 60s}\n  - {name: b, algorithm: token-bucket, capacity: 5, rate: 1/h}\n", time.Minute},
		{"  - {name: b, algorithm: token-bucket, capacity: 5, rate: 1/500ms}\n  - {name: c, algorithm: gcra, burst: 5, rate: 3/2s}\n", 2 * time.Second},
	} {
		s := parse(t, "title: t\nlimiters:\n"+c.yaml)
		if got := DefaultPeakWindow(LanesOf(s)); got != c.want {
			t.Errorf("%s: %v, want %v", c.yaml, got, c.want)
		}
	}
}

// TestLanesOfIsACopy: a scenario's lanes are the lab's lanes, one type,
// and LanesOf hands out a copy the scenario does not share.
func TestLanesOfIsACopy(t *testing.T) {
	s := parse(t, "title: t\nlimiters:"+allSix)
	defs := LanesOf(s)
	var lane scenarios.Lane = defs[0] // the same type
	if len(defs) != len(s.Lanes) || lane.Name != s.Lanes[0].Name || defs[5].Policy != s.Lanes[5].Policy {
		t.Fatalf("LanesOf %+v, the scenario's %+v", defs, s.Lanes)
	}
	defs[0].Name = "changed"
	if s.Lanes[0].Name == "changed" {
		t.Error("LanesOf shares the scenario's array")
	}
}

// TestHorizon: the lanes' longest memory, capped at the longest axis.
func TestHorizon(t *testing.T) {
	for _, c := range []struct {
		lanes string
		want  time.Duration
	}{
		{allSix, 2 * time.Second}, // the sliding counter keeps the window before too
		{"\n  - {name: w, algorithm: fixed-window, limit: 5, window: 1m}\n  - {name: b, algorithm: token-bucket, capacity: 10, rate: 1/s}\n", time.Minute},
		{"\n  - {name: b, algorithm: token-bucket, capacity: 10, rate: 1/s}\n", 10 * time.Second},
	} {
		if got := horizon(LanesOf(parse(t, "title: t\nlimiters:"+c.lanes))); got != c.want {
			t.Errorf("%s: horizon %v, want %v", c.lanes, got, c.want)
		}
	}
}
