package model

import (
	"testing"

	"ratelab/scenarios"
)

// maxKeyLaneBytes bounds what a run by key holds a lane and key while each
// key has sent a window's worth of regular requests or less.
const maxKeyLaneBytes = 200

// TestRunKeysBytesPerLaneAndKey: a run by key holds at most
// maxKeyLaneBytes a lane and key for keys of regular traffic inside one
// window, whether its lanes treat a key alike (all admit: one copy) or
// not (a tight limit rejects, a shaper delays, a bucket runs dry).
func TestRunKeysBytesPerLaneAndKey(t *testing.T) {
	for _, tt := range []struct{ name, limiters string }{
		{"lanes alike", `
  - {name: fixed,   algorithm: fixed-window,    limit: 120, window: 60s}
  - {name: log,     algorithm: sliding-log,     limit: 120, window: 60s}
  - {name: bucket,  algorithm: token-bucket,    capacity: 10, rate: 2/s}
  - {name: shaper,  algorithm: leaky-bucket,    queue: 10,    rate: 2/s}
`},
		{"lanes apart", `
  - {name: fixed,   algorithm: fixed-window,    limit: 5, window: 60s}
  - {name: log,     algorithm: sliding-log,     limit: 7, window: 60s}
  - {name: bucket,  algorithm: token-bucket,    capacity: 3, rate: 1/s}
  - {name: shaper,  algorithm: leaky-bucket,    queue: 10,    rate: 1/3s}
`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := scenarios.Parse("bytes.yaml", []byte("title: bytes\nseed: 2\nlimiters:"+tt.limiters+`traffic:
  - {every: 1s, until: 20s, accounts: 2000, key: a, stagger: random}
  - {every: 700ms, until: 20s, accounts: 2000, key: b, stagger: random}
`))
			if err != nil {
				t.Fatal(err)
			}
			kr, err := runKeysOpen(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			kr.close()
			per := float64(kr.heldBytes()) / float64(kr.Len()*kr.lanes)
			t.Logf("%.1f bytes a lane and key", per)
			if per > maxKeyLaneBytes {
				t.Errorf("%.1f bytes a lane and key, want ≤ %d", per, maxKeyLaneBytes)
			}
		})
	}
}

// TestRunKeysIrregularKeysAreShelved: keys of irregular traffic, in turn,
// whose trackers keep thousands of passages in a long window: their bytes,
// copied in and out at each of their requests, stay a few dozen a lane
// (the trackers are shelved), and the totals are RunByKey's.
func TestRunKeysIrregularKeysAreShelved(t *testing.T) {
	s, err := scenarios.Parse("irregular.yaml", []byte(`title: irregular
seed: 3
limiters:
  - {name: log, algorithm: sliding-log, limit: 5000, window: 60s}
  - {name: shaper, algorithm: leaky-bucket, queue: 50, rate: 150/s}
traffic:
  - {poisson: 200/s, until: 30s, key: a}
  - {poisson: 200/s, until: 30s, key: b}
`))
	if err != nil {
		t.Fatal(err)
	}
	kr, err := runKeysOpen(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	kr.close()
	for k, b := range kr.blobs {
		if len(b) > kr.lanes*32 {
			t.Errorf("key %s: %d bytes, want ≤ %d", kr.Key(k), len(b), kr.lanes*32)
		}
	}
	if len(kr.shelf) != 4 {
		t.Errorf("%d trackers shelved, want 4", len(kr.shelf))
	}
	kt := kr.totals()
	_, want, err := RunByKey(s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, ks := range want {
		for lane, st := range ks.Lanes {
			if got := kt.Stats(k, lane); got != st {
				t.Errorf("key %s, lane %d: %+v\nRunByKey: %+v", ks.Key, lane, got, st)
			}
		}
	}
}
