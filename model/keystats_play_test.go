package model

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

// BenchmarkStatsForPlayManyKeys plays tools/many-keys.yaml (100,000 keys)
// from 0 with a key pinned, as the explorer does: each frame moves the
// clock on 50ms (5,000 requests) and asks the key's stats in every lane.
// worst-ms is the slowest frame, total-ms the whole play, in the CPU time
// of the benchmark's thread (the collector's other threads left out); a key's stats
// must not decide ahead of the clock (they once did, up to twice what
// they had prepared: 120–300 ms frames).
func BenchmarkStatsForPlayManyKeys(b *testing.B) {
	s, err := scenarios.Load("../tools/many-keys.yaml")
	if err != nil {
		b.Fatal(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var worst, total time.Duration
	for b.Loop() {
		b.StopTimer()
		l := newLab(b, s)
		key := l.Keys()[len(l.Keys())/2]
		b.StartTimer()
		for now := time.Duration(0); now <= l.End(); now += 50 * time.Millisecond {
			start := threadTime(b)
			l.Seek(now)
			for lane := range l.Lanes() {
				l.StatsFor(lane, key)
			}
			d := threadTime(b) - start
			worst, total = max(worst, d), total+d
		}
	}
	b.ReportMetric(float64(worst)/1e6, "worst-ms")
	b.ReportMetric(float64(total)/1e6/float64(b.N), "total-ms")
}

// threadTime is the CPU time the calling thread has run (Linux's
// schedstat): on a shared machine, what a step cost, not what it waited.
func threadTime(tb testing.TB) time.Duration {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		tb.Skip("no /proc/thread-self/schedstat")
	}
	ns, err := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ns)
}
