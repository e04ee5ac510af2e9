package model

import (
	"testing"
	"time"

	"ratelab/scenarios"
)

// millionRetries is tools/million-retries.yaml: tools/million.yaml's
// million requests sent by a client that backs off with full jitter, up to
// 4 attempts, about 3.3 million retries a lane.
func millionRetries(b *testing.B) *scenarios.Scenario {
	s, err := scenarios.Load("../tools/million-retries.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkRunPerDecision streams the million requests through six lanes
// as `ratelab run --format summary` does, open-loop and with retries, and
// reports the time per decision (a limiter's call on an original or a
// retry, every lane), wall clock and CPU time of the process (the
// collector's included), with the decisions' count: the retries' cost
// against the open loop's. On a machine shared with other work the CPU
// time is the steadier of the two.
func BenchmarkRunPerDecision(b *testing.B) {
	for _, c := range []struct {
		name string
		s    func(*testing.B) *scenarios.Scenario
	}{{"open-loop", millionRequests}, {"retries", millionRetries}} {
		b.Run(c.name, func(b *testing.B) {
			s := c.s(b)
			var decisions int64
			cpu := cpuTime()
			for b.Loop() {
				stats, err := Run(s, Options{}, nil)
				if err != nil {
					b.Fatal(err)
				}
				decisions = 0
				for _, st := range stats {
					decisions += st.Requests()
				}
			}
			cpu = cpuTime() - cpu
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(decisions), "ns/decision")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(decisions), "cpu-ns/decision")
			b.ReportMetric(float64(decisions), "decisions")
		})
	}
}

// BenchmarkRetriesColumns asks for the retries of every lane in 200
// columns of 5 s and 200 of 50 ms (a screen's overview of
// tools/million-retries.yaml and its timeline, every decision computed),
// the clock in the middle: what a frame asks of the clients' logs.
func BenchmarkRetriesColumns(b *testing.B) {
	l := newLab(b, millionRetries(b))
	l.Seek(l.End())
	l.Seek(l.End() / 2)
	for b.Loop() {
		for _, sp := range []struct{ start, dt time.Duration }{{0, 5 * time.Second}, {l.Now() - 5*time.Second, 50 * time.Millisecond}} {
			for lane := range l.Lanes() {
				for c := range 200 {
					from := sp.start + time.Duration(c)*sp.dt
					if to := min(from+sp.dt, l.Now()+1); from < to {
						l.Retries(lane, from, to)
					}
				}
			}
		}
	}
}
