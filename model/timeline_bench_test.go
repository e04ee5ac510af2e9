package model

import (
	"slices"
	"strings"
	"testing"
	"time"

	"ratelab/scenarios"
)

// TestNewTimelineIsTheMerge: a new timeline holds Requests' requests in
// their order, its keys are Keys', and its kinds are numbered in the order
// of their first request, on every canned lesson and on traffic of many
// items whose keys recur across items (a later item starting earlier),
// numbered by the file or, with an item added, looked up by name.
func TestNewTimelineIsTheMerge(t *testing.T) {
	var cases []*scenarios.Scenario
	for _, info := range scenarios.List() {
		s, err := scenarios.Canned(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, s)
	}
	cases = append(cases, parse(t, `title: t
seed: 3
limiters:
  - {name: b, algorithm: token-bucket, capacity: 2, rate: 1/s}
traffic:
`+strings.Repeat("  - {every: 1s, until: 10s, accounts: 300, key: a, stagger: random}\n", 3)+
		"  - {every: 1s, from: 2s, until: 5s, keys: [z, a-7, y], stagger: even, cost: 2}\n"+
		"  - {at: 0s, count: 100, spread: 3s, key: a-5}\n"+
		"  - {at: 0.5s, key: z}\n"))
	// The same with an item added by a program, whose key has no number:
	// every key is then looked up by name.
	added := *cases[len(cases)-1]
	added.Traffic = append(slices.Clone(added.Traffic), scenarios.Traffic{Form: scenarios.Single, At: 400 * time.Millisecond, Count: 1, Key: "a-7", Cost: 1})
	cases = append(cases, &added)
	for i, s := range cases {
		tl := newTimeline(s, nil)
		if keys := s.Keys(); !slices.Equal(tl.keys.list, keys) {
			t.Errorf("scenario %d: keys %q, want %q", i, tl.keys.list[:min(len(tl.keys.list), 10)], keys[:min(len(keys), 10)])
		}
		var want interned[kind]
		j := 0
		for r := range s.Requests() {
			key, _ := tl.keys.lookup(r.Key)
			k := kind{cost: r.Cost, key: key, client: uint16(r.Client)}
			want.of(k)
			if j >= tl.len() || tl.request(j) != (Request{At: r.At, Key: r.Key, Cost: r.Cost, Client: r.Client}) {
				t.Fatalf("scenario %d: request %d is not %+v", i, j, r)
			}
			j++
		}
		if j != tl.len() || !slices.Equal(tl.kinds.list, want.list) {
			t.Errorf("scenario %d: %d requests (want %d), kinds %v (want %v)", i, tl.len(), j, tl.kinds.list, want.list)
		}
	}
}

// BenchmarkTimelineManyKeys builds the timeline of tools/many-keys.yaml:
// 100,000 keys' requests merged in time order, what the explorer does
// before its first frame. cpu-ms/op is the CPU time, the figure to trust
// on a shared machine.
func BenchmarkTimelineManyKeys(b *testing.B) {
	s, err := scenarios.Load("../tools/many-keys.yaml")
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime()
	for b.Loop() {
		newTimeline(s, nil)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
}
