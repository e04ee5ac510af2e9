package model

import (
	"time"

	"ratelab/algorithms"
)

// A state trace is what the lanes' states were at instants before the
// clock, for a screen that draws them over time: each is the state the
// clock itself would show, seeked there (the same decisions, replayed from
// a checkpoint by a second clock, not simulated again). The trace is kept
// between calls, so that a screen asking every frame for the same instants
// and a few more, as the clock plays on, pays only for the new ones.
type stateTrace struct {
	walker *clock // at the last instant answered; nil before the first
	gen    uint64
	key    string
	at     []time.Duration
	states [][]algorithms.Snapshot // states[i][lane] is at at[i]
}

// StatesAt is every lane's state of key at each instant of at that lies
// before the clock (at is ascending; an instant at or after Now is not
// answered: Snapshot is the state at Now): states[i][lane] is what
// Snapshot(lane, key) would be with the clock seeked to at[i], every
// request at or before at[i] decided, and the retries due by then.
//
// The answer replays the requests from the checkpoint before the first
// instant not answered last time up to the last instant asked (a
// checkpoint interval and the span, the first time; the new stretch, as
// the clock plays on). When that is more than budget requests it replays
// nothing and ok is false. A lab that keeps its state in a store outside
// the process has no trace: a second clock would move the store's state
// under the first (ok false).
//
// states is the lab's own, good until the next call: read it, do not keep it.
func (l *Lab) StatesAt(key string, at []time.Duration, budget int) (states [][]algorithms.Snapshot, ok bool) {
	e, now := l.engine, l.clock.now
	if e.store != nil {
		return nil, false
	}
	n := 0
	for n < len(at) && at[n] < now {
		n++
	}
	at = at[:n]
	tr := &l.caches.trace
	if tr.gen != e.gen || tr.key != key {
		tr.gen, tr.key, tr.at, tr.states = e.gen, key, tr.at[:0], tr.states[:0]
	}
	same := 0
	for same < min(len(tr.at), n) && tr.at[same] == at[same] {
		same++
	}
	if same == n {
		return tr.states[:n], true
	}
	// What the walk replays: from where the walker stands when it can go
	// on from there, else from the checkpoint before the first new instant.
	w := tr.walker
	first, last := l.timeline.search(at[same]), l.timeline.search(at[n-1])
	from := e.startFor(first)
	if w != nil && w.gen == e.gen && w.live != nil && w.now <= at[same] && w.pos >= from {
		from = w.pos
	}
	if last-from > budget {
		return nil, false
	}
	if w == nil {
		w = newClock(l.timeline, e)
		tr.walker = w
	}
	tr.at, tr.states = append(tr.at[:same], at[same:]...), tr.states[:same]
	for _, t := range at[same:] {
		w.seek(t)
		lanes := make([]algorithms.Snapshot, len(e.defs))
		for lane := range lanes {
			lanes[lane] = w.limiter(lane).Snapshot(t, key)
		}
		tr.states = append(tr.states, lanes)
	}
	return tr.states, true
}
