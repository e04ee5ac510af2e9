package model

import (
	"sort"
	"time"
)

// MaxSplitScan bounds the requests at one instant that SplitAt examines one
// by one.
const MaxSplitScan = 10_000

// Split is how the lanes split on the requests arriving at one instant.
type Split struct {
	// Requests is how many requests arrive at exactly the instant.
	Requests int
	// Disagree is how many of them the lanes disagree on (see Disagrees),
	// among the first MaxSplitScan; Complete is false when there were more.
	Disagree int
	Complete bool
	// Tallies are each lane's outcomes over all of them, in lane order.
	Tallies []Tally
}

// SplitAt is how the lanes split on the requests arriving at exactly t: a
// burst at one instant, of which the lanes show the state after the last.
// It examines at most MaxSplitScan requests one by one; the tallies read
// the precomputed blocks.
func (l *Lab) SplitAt(t time.Duration) Split {
	lo, hi := l.timeline.searchBefore(t), l.timeline.search(t)
	sp := Split{Requests: hi - lo, Complete: hi-lo <= MaxSplitScan}
	for i := lo; i < min(hi, lo+MaxSplitScan); i++ {
		if l.Disagrees(i) {
			sp.Disagree++
		}
	}
	for lane := range l.engine.defs {
		sp.Tallies = append(sp.Tallies, l.Tally(lane, lo, hi))
	}
	return sp
}

// NextMoment is the first moment worth stopping at strictly after t: a
// scenario note or a request on which the lanes disagree, whichever comes
// first; ok is false when there is neither. It scans the requests from t
// to the next note, one by one.
func (l *Lab) NextMoment(t time.Duration) (at time.Duration, ok bool) {
	notes := l.scenario.Notes
	n := sort.Search(len(notes), func(i int) bool { return notes[i].At > t })
	for i := l.timeline.search(t); i < l.timeline.len(); i++ {
		if n < len(notes) && l.timeline.at(i) > notes[n].At {
			break
		}
		if l.Disagrees(i) {
			return l.timeline.at(i), true
		}
	}
	if n < len(notes) {
		return notes[n].At, true
	}
	return 0, false
}
