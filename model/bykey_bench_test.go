package model

import (
	"runtime"
	"testing"
)

// BenchmarkRunKeysManyKeys runs tools/many-keys.yaml totalling each key
// apart (100,000 keys × 6 lanes, 10 requests a key a second apart, inside
// one 60 s window), as `ratelab run --format summary --by-key` does, and
// reports what the keys' totals and peak trackers hold at the end of the
// run, a lane and key: held-B/lane-key is the structures' own account,
// heap-B/lane-key the live heap beside a plain Run's at the same point;
// either above maxKeyLaneBytes fails it.
func BenchmarkRunKeysManyKeys(b *testing.B) {
	s := manyKeysFile(b)
	var held, heap float64
	lastIndex, lastLane := int(s.RequestCount())-1, len(s.Lanes)-1
	for b.Loop() {
		var plain runtime.MemStats
		if _, err := Run(s, Options{}, func(r Record) error {
			if r.Index == lastIndex && r.Lane == lastLane {
				runtime.GC()
				runtime.ReadMemStats(&plain)
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		var keyed runtime.MemStats
		kr, _, err := runKeys(s, Options{}, func(r Record) error {
			if r.Index == lastIndex && r.Lane == lastLane {
				runtime.GC()
				runtime.ReadMemStats(&keyed)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		n := float64(kr.Len() * kr.lanes)
		held = float64(kr.heldBytes()) / n
		heap = (float64(keyed.HeapAlloc) - float64(plain.HeapAlloc)) / n
		if held > maxKeyLaneBytes || heap > maxKeyLaneBytes {
			b.Fatalf("%.1f bytes a lane and key held, %.1f on the heap, want ≤ %d", held, heap, maxKeyLaneBytes)
		}
		if kr.totals().Len() != 100_000 {
			b.Fatal("not 100,000 keys")
		}
	}
	b.ReportMetric(held, "held-B/lane-key")
	b.ReportMetric(heap, "heap-B/lane-key")
}
