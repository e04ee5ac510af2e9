package model

// laneKey names one key's requests in one lane.
type laneKey struct {
	lane int
	key  int32
}

// admittedBefore is the cost of key that lane admitted in events[:i]: the
// running sum of whole blocks, filled on demand, plus the rest of the last
// block. A what-if truncates the sums from where the timeline changed.
func (l *Lab) admittedBefore(lane int, key int32, i int) int64 {
	l.ensure(i)
	k := laneKey{lane, key}
	cum := l.admittedSums[k]
	if cum == nil {
		cum = []int64{0}
	}
	for b := len(cum) - 1; b < i/tallyBlock; b++ {
		cum = append(cum, cum[b]+l.admittedIn(lane, key, b*tallyBlock, (b+1)*tallyBlock))
	}
	l.admittedSums[k] = cum
	b := i / tallyBlock
	return cum[b] + l.admittedIn(lane, key, b*tallyBlock, i)
}

// admittedIn adds up the cost of key that lane admitted in events[lo:hi].
func (l *Lab) admittedIn(lane int, key int32, lo, hi int) int64 {
	var sum int64
	for j := lo; j < hi; j++ {
		if k := l.kind(j); k.key == key && l.outcomes[lane][j].Admitted() {
			sum += k.cost
		}
	}
	return sum
}
