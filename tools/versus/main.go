// Command versus measures ratelab's streaming run against the leanest peer:
// golang.org/x/time/rate limiters deciding the same stream of requests in a
// plain loop. By default it runs both in one process, alternating, and
// prints each one's median and their ratio:
//
//	go run ./tools/versus                      # tools/million.yaml, 7 rounds
//	go run ./tools/versus -rounds 11 FILE.yaml
//	go run ./tools/versus -per-key tools/many-keys.yaml
//
// With -side it runs one side alone, so that a whole process of each can be
// timed and alternated from outside, start-up, loading and the collector
// included:
//
//	go build -o /tmp/versus ./tools/versus
//	/usr/bin/time -f "%e s %M KB" /tmp/versus -side ratelab -rounds 1 tools/million.yaml
//	/usr/bin/time -f "%e s %M KB" /tmp/versus -side peer -rounds 1 tools/million.yaml
//
// The ratelab side is what `ratelab run --format summary` does after
// loading the file: list its keys, expand the traffic, decide every request
// in every lane with exact arithmetic, count the totals and track the peak,
// and write the summary. The peer side expands the same traffic and calls
// AllowN on one x/time/rate limiter per lane (a token bucket of the lane's
// size and rate; keys and costs as they come), counting what it admits;
// with -per-key, on one limiter per lane and key, found through a map per
// lane from the key to its limiter, made at the key's first request, as a
// service limiting each key apart would: the peer a run of many keys is
// fair against. Both sides load the file in the process they are timed in.
//
// -cpuprofile FILE writes a CPU profile of the whole process (after the
// flags are read).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"golang.org/x/time/rate"

	"ratelab/model"
	"ratelab/report"
	"ratelab/scenarios"
)

func main() {
	rounds := flag.Int("rounds", 7, "rounds of each side, alternating")
	side := flag.String("side", "both", "which side to run: ratelab, peer or both")
	perKey := flag.Bool("per-key", false, "the peer keeps a limiter per lane and key")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the process to this file")
	flag.Parse()
	if *side != "both" && *side != "ratelab" && *side != "peer" {
		fail(fmt.Errorf("-side %q: want ratelab, peer or both", *side))
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	path := "tools/million.yaml"
	if flag.NArg() > 0 {
		path = flag.Arg(0)
	}
	var ours, peer []time.Duration
	var admitted int64
	var s *scenarios.Scenario
	for range *rounds {
		if *side != "peer" {
			start := time.Now()
			var err error
			if s, err = runRatelab(path); err != nil {
				fail(err)
			}
			ours = append(ours, time.Since(start))
		}
		if *side != "ratelab" {
			start := time.Now()
			var err error
			if s, admitted, err = runPeer(path, *perKey); err != nil {
				fail(err)
			}
			peer = append(peer, time.Since(start))
		}
	}
	if s == nil {
		return
	}
	peerName := "x/time/rate AllowN, one a lane"
	if *perKey {
		peerName = "x/time/rate AllowN, one a lane and key"
	}
	fmt.Printf("%s: %d requests × %d lanes, %d rounds, loading included\n", path, s.RequestCount(), len(s.Lanes), *rounds)
	if len(ours) > 0 {
		fmt.Printf("ratelab run --format summary   median %v\n", median(ours).Round(time.Millisecond))
	}
	if len(peer) > 0 {
		fmt.Printf("%s median %v (admitted %d)\n", peerName, median(peer).Round(time.Millisecond), admitted)
	}
	if len(ours) > 0 && len(peer) > 0 {
		fmt.Printf("ratio ratelab / x/time/rate    %.2f\n", float64(median(ours))/float64(median(peer)))
	}
}

func fail(err error) {
	pprof.StopCPUProfile()
	fmt.Fprintln(os.Stderr, "versus:", err)
	os.Exit(2)
}

// runRatelab is `ratelab run --format summary FILE`.
func runRatelab(path string) (*scenarios.Scenario, error) {
	s, err := scenarios.Load(path)
	if err != nil {
		return nil, err
	}
	w := report.New(report.Summary, io.Discard, model.LanesOf(s), s.Keys(), s.Clients)
	stats, err := model.Run(s, model.Options{}, report.Emit(w))
	if err != nil {
		return nil, err
	}
	return s, w.Close(stats)
}

// runPeer loads the file and decides its stream with x/time/rate: one
// limiter a lane, or with perKey one a lane and key.
func runPeer(path string, perKey bool) (s *scenarios.Scenario, admitted int64, err error) {
	s, err = scenarios.Load(path)
	if err != nil {
		return nil, 0, err
	}
	base := time.Unix(0, 0)
	limits := make([]rate.Limit, len(s.Lanes))
	sizes := make([]int, len(s.Lanes))
	for i, l := range s.Lanes {
		p := l.Policy
		size, n, per := p.Capacity+p.Burst+p.Queue+p.Limit, p.Rate.N, p.Rate.Per
		if per == 0 { // a windowed lane: its limit per window
			n, per = p.Limit, p.Window
		}
		limits[i], sizes[i] = rate.Limit(float64(n)/per.Seconds()), int(size)
	}
	if perKey {
		byKey := make([]map[string]*rate.Limiter, len(s.Lanes))
		for i := range byKey {
			byKey[i] = map[string]*rate.Limiter{}
		}
		for r := range s.Requests() {
			at := base.Add(r.At)
			for i, m := range byKey {
				lim := m[r.Key]
				if lim == nil {
					lim = rate.NewLimiter(limits[i], sizes[i])
					m[r.Key] = lim
				}
				if lim.AllowN(at, int(r.Cost)) {
					admitted++
				}
			}
		}
		return s, admitted, nil
	}
	lims := make([]*rate.Limiter, len(s.Lanes))
	for i := range lims {
		lims[i] = rate.NewLimiter(limits[i], sizes[i])
	}
	for r := range s.Requests() {
		at := base.Add(r.At)
		for _, lim := range lims {
			if lim.AllowN(at, int(r.Cost)) {
				admitted++
			}
		}
	}
	return s, admitted, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
