package model

import (
	"slices"

	"ratelab/algorithms"
)

// markLog records the requests of a lane of gateways that its limiter alone
// would not explain: refusals by a fallback while the store was down (503s,
// not the limiter's 429s) and admissions beyond the policy (a double spend,
// a copy counting apart, an expired or lost state, a fallback failing
// open). Few requests are marked, so it keeps their indexes, in order, with
// running counts of each kind for counting a span in O(log n).
//
// A lane whose policy only pretends (nginx's dry_run) keeps one too: its
// requests it would have delayed or refused, with that verdict (dry), so
// that one key's totals count them (Lab.StatsFor).
type markLog struct {
	idx []int32
	// down[j] and beyond[j] count the refusals by a fallback and the
	// admissions beyond the policy among idx[:j+1].
	down, beyond []int32
	// dry[j] is the verdict a dry run only pretended on idx[j]
	// (algorithms.Allowed when it marks something else).
	dry []algorithms.Outcome
}

// add records events[i], after every one recorded, if d marks it.
func (ml *markLog) add(i int, d *algorithms.Decision) {
	down := d.Fallback != algorithms.NoFallback && d.Outcome == algorithms.Rejected
	beyond := d.Beyond > 0
	if !down && !beyond && d.DryRun == algorithms.Allowed {
		return
	}
	var dn, by int32
	if n := len(ml.idx); n > 0 {
		dn, by = ml.down[n-1], ml.beyond[n-1]
	}
	if down {
		dn++
	}
	if beyond {
		by++
	}
	ml.idx = append(ml.idx, int32(i))
	ml.down, ml.beyond = append(ml.down, dn), append(ml.beyond, by)
	ml.dry = append(ml.dry, d.DryRun)
}

// dryRun is the verdict a dry run pretended on events[i]: Allowed when it
// would have let it through too, or marked nothing.
func (ml *markLog) dryRun(i int32) algorithms.Outcome {
	if j, ok := slices.BinarySearch(ml.idx, i); ok {
		return ml.dry[j]
	}
	return algorithms.Allowed
}

// before is how many entries there are for events before i, and their
// counts.
func (ml *markLog) before(i int) (j int, down, beyond int32) {
	j, _ = slices.BinarySearch(ml.idx, int32(i))
	if j > 0 {
		down, beyond = ml.down[j-1], ml.beyond[j-1]
	}
	return j, down, beyond
}

// truncate forgets the marks of events[n:].
func (ml *markLog) truncate(n int) {
	j, _, _ := ml.before(n)
	ml.idx, ml.down, ml.beyond = shrink(ml.idx[:j]), shrink(ml.down[:j]), shrink(ml.beyond[:j])
	ml.dry = shrink(ml.dry[:j])
}

// Marked counts, among lane's requests lo ≤ i < hi (decided), the refusals
// by a fallback while its store was down and the admissions beyond its
// policy; 0, 0 for a plain lane.
func (l *Lab) Marked(lane, lo, hi int) (down, beyond int) {
	ml := l.engine.marks[lane]
	if ml == nil || lo >= hi {
		return 0, 0
	}
	l.engine.ensure(hi)
	_, d0, b0 := ml.before(lo)
	_, d1, b1 := ml.before(hi)
	return int(d1 - d0), int(b1 - b0)
}
