//go:build ignore

// gen-peak writes the scenarios behind the peak-window and check figures of
// docs/performance.md into a directory: go run tools/gen-peak.go DIR
//
//	peak-regular.yaml  a fixed window of 8784h (the default peak window a
//	                   year) beside seven token buckets that admit
//	                   everything, 20,000,000 requests over 8000h
//	peak-merged.yaml   the same lanes, five periodic keys of different
//	                   periods (about 18,000,000 requests)
//	peak-uneven.yaml   the same lanes, one burst whose spread is no
//	                   multiple of its count (gaps of 1.44s and 1.44s + 1ns)
//	check-peaks.yaml   peak-regular with 50 peak expectations on one lane:
//	                   25 identical, 25 over nested ranges
//	check-many.yaml    100,000 requests on six lanes, 4,500 expectations
//	                   (counts over ranges, outcomes at instants, peaks over
//	                   ranges), as many as the 100,000-token limit allows
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run tools/gen-peak.go DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	var lanes strings.Builder
	lanes.WriteString("title: a year's peak window\nlimiters:\n  - {name: fixed, algorithm: fixed-window, limit: 100, window: 8784h}\n")
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&lanes, "  - {name: b%d, algorithm: token-bucket, capacity: 20000000, rate: 1000/s}\n", i)
	}
	head := lanes.String() + "traffic:\n"
	regular := head + "  - {at: 0s, count: 20000000, spread: 8000h}\n"
	write("peak-regular.yaml", regular)
	merged := head
	for i, every := range []string{"18s", "12.75s", "8.25s", "7.25s", "4.25s"} {
		merged += fmt.Sprintf("  - {every: %s, from: %dms, until: 8000h, key: k%d}\n", every, i, i)
	}
	write("peak-merged.yaml", merged)
	write("peak-uneven.yaml", head+"  - {at: 0s, count: 20000000, spread: 28800000.007777777s}\n")
	peaks := regular + "expect:\n"
	for range 25 {
		peaks += "  - {lane: b1, peak: 20000000, peak_window: 8784h}\n"
	}
	for i := range 25 {
		peaks += fmt.Sprintf("  - {lane: b1, from: %dh, until: %dh, peak: 1, peak_window: 8784h}\n", i*100, 8000-i*100)
	}
	write("check-peaks.yaml", peaks)

	rng := rand.New(rand.NewPCG(7, 7))
	var many strings.Builder
	many.WriteString(`title: many expectations
duration: 1100s
limiters:
  - {name: f, algorithm: fixed-window, limit: 120, window: 60s}
  - {name: l, algorithm: sliding-log, limit: 120, window: 60s}
  - {name: c, algorithm: sliding-counter, limit: 120, window: 60s}
  - {name: b, algorithm: token-bucket, capacity: 10, rate: 2/s}
  - {name: g, algorithm: gcra, burst: 10, rate: 2/s}
  - {name: s, algorithm: leaky-bucket, queue: 10, rate: 2/s}
traffic:
  - {every: 20ms, until: 1000s, key: a}
  - {every: 30ms, until: 1000s, key: b}
expect:
`)
	for i := range 4500 {
		lane := string("flcbgs"[rng.IntN(6)])
		key := []string{"", ",key: a", ",key: b"}[rng.IntN(3)]
		from := rng.IntN(990)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&many, "- {lane: %s%s,from: %ds,until: %ds,admitted: 0}\n", lane, key, from, from+1+rng.IntN(9))
		case 1:
			fmt.Fprintf(&many, "- {lane: %s%s,at: %d.%02ds,outcome: allowed}\n", lane, key, from, 2*rng.IntN(50))
		default:
			fmt.Fprintf(&many, "- {lane: %s%s,from: %ds,until: %ds,peak: 3,peak_window: %ds}\n", lane, key, from, from+1+rng.IntN(9), []int{1, 10, 60}[rng.IntN(3)])
		}
	}
	write("check-many.yaml", many.String())
}
