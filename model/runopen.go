package model

import (
	"ratelab/algorithms"
	"ratelab/model/internal/peak"
	"ratelab/scenarios"
)

// runOpen is Run without clients and without emit: `ratelab run --format
// summary` on open-loop traffic, the common case, paying for nothing it
// does not use. Each request is tried once, served if admitted, abandoned
// if not, so no Attempt is made: the totals of what became of the
// requests are the outcomes' own, set once at the end.
func runOpen(s *scenarios.Scenario, defs []Lane, opt Options, ls *lanes) []Stats {
	n := len(ls.limiters)
	keys := keyMeters(defs)
	var d algorithms.Decision
	index := 0
	for r := range s.Requests() {
		if opt.Until > 0 && r.At >= opt.Until {
			break
		}
		ls.arrive(r, index)
		key := ls.lastKey
		for lane, lim := range ls.limiters {
			lim.DecideInto(&d, r.At, key, r.Cost)
			ls.stats[lane].count(&d)
			if d.Outcome.Admitted() {
				ls.peaks[lane].Admit(r.At, d.Delay, r.Cost, peak.Source(key.ID(), d.Gateway))
			}
			keys[lane].measure(lim, r.At, key, d.Outcome.Admitted())
		}
		index++
	}
	stats := make([]Stats, n)
	for lane := range stats {
		st := &ls.stats[lane]
		st.Originals, st.Served, st.Abandoned = st.Requests(), st.Admitted, st.Rejected
		stats[lane] = ls.statsAt(lane, endOfTime)
		stats[lane].KeyBytes = keys[lane].most
	}
	return stats
}
