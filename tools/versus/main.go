// Command versus measures ratelab's streaming run against the leanest peer:
// golang.org/x/time/rate limiters, one per lane, deciding the same stream
// of requests in a plain loop. It runs both in one process, alternating,
// and prints each one's median and their ratio:
//
//	go run ./tools/versus                      # tools/million.yaml, 7 rounds
//	go run ./tools/versus -rounds 11 FILE.yaml
//
// The ratelab side is what `ratelab run --format summary` does after
// loading the file: expand the traffic, decide every request in every lane
// with exact arithmetic, count the totals and track the peak, and write
// the summary. The peer side expands the same traffic and calls AllowN on
// one x/time/rate limiter per lane (a token bucket of the lane's size and
// rate; keys and costs as they come), counting what it admits.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"golang.org/x/time/rate"

	"ratelab/model"
	"ratelab/report"
	"ratelab/scenarios"
)

func main() {
	rounds := flag.Int("rounds", 7, "rounds of each side, alternating")
	flag.Parse()
	path := "tools/million.yaml"
	if flag.NArg() > 0 {
		path = flag.Arg(0)
	}
	s, err := scenarios.Load(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "versus:", err)
		os.Exit(2)
	}
	var ours, peer []time.Duration
	var admitted int64
	for range *rounds {
		start := time.Now()
		if err := runRatelab(s); err != nil {
			fmt.Fprintln(os.Stderr, "versus:", err)
			os.Exit(2)
		}
		ours = append(ours, time.Since(start))
		start = time.Now()
		admitted = runPeer(s)
		peer = append(peer, time.Since(start))
	}
	o, p := median(ours), median(peer)
	fmt.Printf("%s: %d requests × %d lanes, %d rounds each, alternating\n", path, s.RequestCount(), len(s.Lanes), *rounds)
	fmt.Printf("ratelab run --format summary   median %v\n", o.Round(time.Millisecond))
	fmt.Printf("x/time/rate AllowN, one a lane median %v (admitted %d)\n", p.Round(time.Millisecond), admitted)
	fmt.Printf("ratio ratelab / x/time/rate    %.2f\n", float64(o)/float64(p))
}

// runRatelab is `ratelab run --format summary` after the file is loaded.
func runRatelab(s *scenarios.Scenario) error {
	w := report.New(report.Summary, io.Discard, model.LanesOf(s), s.Keys(), s.Clients)
	stats, err := model.Run(s, model.Options{}, report.Emit(w))
	if err != nil {
		return err
	}
	return w.Close(stats)
}

// runPeer decides the same stream with x/time/rate, one limiter a lane.
func runPeer(s *scenarios.Scenario) (admitted int64) {
	base := time.Unix(0, 0)
	lims := make([]*rate.Limiter, len(s.Lanes))
	for i, l := range s.Lanes {
		p := l.Policy
		size, n, per := p.Capacity+p.Burst+p.Queue+p.Limit, p.Rate.N, p.Rate.Per
		if per == 0 { // a windowed lane: its limit per window
			n, per = p.Limit, p.Window
		}
		lims[i] = rate.NewLimiter(rate.Limit(float64(n)/per.Seconds()), int(size))
	}
	for r := range s.Requests() {
		at := base.Add(r.At)
		for _, lim := range lims {
			if lim.AllowN(at, int(r.Cost)) {
				admitted++
			}
		}
	}
	return admitted
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
