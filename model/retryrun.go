package model

import (
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// runByLane is Run with clients and without emit or a Store: `ratelab run
// --format summary` on a scenario whose clients retry. A lane's retries are
// its own (see clients.go): every lane gets the same originals, and what a
// lane decides depends only on them and on its own refusals, never on
// another lane's (the keys' numbers they share are given by the originals
// alone, a jitter draw by its request and attempt, and the order of a
// lane's retries by when that lane made them). So each lane can run alone,
// which spares Run's search for the earliest retry among every lane's and
// keeps one lane's limiter and calendar in cache: the originals are read in
// blocks of retryBlock, and each lane in turn decides its retries and the
// block's originals, in the order Run does. The totals are Run's, byte for
// byte (TestRunByLaneIsRun).
func runByLane(s *scenarios.Scenario, defs []Lane, opt Options, ls *lanes) []Stats {
	meters := make([]summaryMeter, len(defs))
	runs := make([]laneRun, len(defs))
	for i, m := range keyMeters(defs) {
		meters[i] = summaryMeter{keys: m}
		runs[i] = laneRun{laneAt: ls.at(i)}
		runs[i].meter = &meters[i]
		runs[i].d = &runs[i].decision
	}
	block := make([]retryReq, 0, retryBlock)
	flush := func(t time.Duration) {
		for i := range runs {
			runs[i].decide(block, t)
		}
		block = block[:0]
	}
	index := 0
	for r := range s.Requests() {
		if opt.Until > 0 && r.At >= opt.Until {
			break
		}
		ls.arrive(r, index)
		block = append(block, ls.req)
		if len(block) == cap(block) {
			// The retries due by the block's last original are
			// decided with it; the rest wait for the next block.
			flush(r.At)
		}
		index++
	}
	last := endOfTime - 1 // every retry: each is due before the scenario's end (see due)
	if opt.Until > 0 {
		last = opt.Until - 1
	}
	flush(last)
	stats := make([]Stats, len(defs))
	for i := range stats {
		stats[i] = ls.statsAt(i, endOfTime)
		stats[i].KeyBytes = meters[i].keys.most
		stats[i].Latency = meters[i].waited.latency(stats[i].Served)
	}
	return stats
}

// retryBlock is how many originals runByLane reads before the lanes decide
// them: a block and one lane's state stay in cache.
const retryBlock = 512

// laneRun is what runByLane keeps at hand to decide one lane: its parts,
// and where its decisions are written.
type laneRun struct {
	laneAt
	decision algorithms.Decision
}

// summaryMeter is what a summary run counts of one lane beside its totals,
// as Run's record counts it: the most bytes a key's state took and the
// served requests' waits (laneAt.try counts them).
type summaryMeter struct {
	keys   keyMeter
	waited latencyCounts
}

// decide runs the lane over the originals of block, each after every
// retry the lane owes due by its arrival, then decides the retries due by t
// (no earlier than the block's last original). laneAt.try decides each and
// counts it in the lane's totals and meter.
func (lr *laneRun) decide(block []retryReq, t time.Duration) {
	for j := range block {
		q := &block[j]
		if lr.owed.due(q.first) {
			lr.drain(q.first)
		}
		lr.try(q.first, 1, q, -1)
	}
	if lr.owed.due(t) {
		lr.drain(t)
	}
}

// drain decides the lane's retries due by t, in order, of which one at
// least is (its caller asked).
func (lr *laneRun) drain(t time.Duration) {
	o := lr.owed
	for {
		at, x := o.pop()
		lr.try(at, x.n, &o.reqs[x.slot], x.slot)
		if !o.due(t) {
			return
		}
	}
}
