//go:build unix

package ui

import (
	"testing"
	"time"

	"ratelab/scenarios"
)

// BenchmarkViewRetries draws frames of tools/million-retries.yaml (a
// million requests backing off with full jitter, about 3.3 million retries
// a lane) at 200×60, every decision computed; "open-loop" is the same on
// tools/million.yaml, without clients: a frame with retries should cost
// at most twice one without. "moved": the clock moves 37 s between frames
// (the seeks not timed), so that each frame asks for columns and windows
// it has not asked for before, as when the learner seeks; "still": the
// same frame again, as while the learner reads; "playing": a lab opened
// afresh, its clock sent to the middle, then moved 100 ms between frames
// (the decisions made then not timed), as while it plays on. cpu-ns/op is the process's
// CPU time a frame (the collector's included), steadier than the time on
// a shared machine.
func BenchmarkViewRetries(b *testing.B) {
	for _, c := range []struct{ name, file string }{
		{"open-loop", "../tools/million.yaml"},
		{"retries", "../tools/million-retries.yaml"},
	} {
		s, err := scenarios.Load(c.file)
		if err != nil {
			b.Fatal(err)
		}
		a := openApp(b, s, 200, 60)
		a.lab.Seek(a.lab.End())
		a.render()
		b.Run(c.name+"/moved", func(b *testing.B) {
			t := time.Duration(0)
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				t = (t + 37*time.Second + 123456789) % a.lab.End()
				a.lab.Seek(t)
				b.StartTimer()
				c0 := cpuTime()
				a.render()
				cpu += cpuTime() - c0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
		b.Run(c.name+"/still", func(b *testing.B) {
			a.lab.Seek(a.lab.End() / 2)
			a.render()
			c0 := cpuTime()
			for b.Loop() {
				a.render()
			}
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
		b.Run(c.name+"/playing", func(b *testing.B) {
			// A lab of its own, opened afresh, so that each frame meets a
			// client log that grew since the last, as while it plays on the
			// frontier; opened again should the clock reach the end.
			open := func() *App {
				a := openApp(b, s, 200, 60)
				a.lab.Seek(a.lab.End() / 2)
				a.render()
				return a
			}
			a := open()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				if a.lab.Now()+100*time.Millisecond >= a.lab.End() {
					a = open()
				}
				a.lab.Seek(a.lab.Now() + 100*time.Millisecond)
				b.StartTimer()
				c0 := cpuTime()
				a.render()
				cpu += cpuTime() - c0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
