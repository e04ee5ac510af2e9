package model

import (
	"time"

	"ratelab/algorithms"
)

// A state trace is what the lanes' states of one key were at instants
// before the clock, for a screen that draws them over time. Each is the
// state the clock itself would show, seeked there: the same decisions,
// replayed from a checkpoint by a second clock, not simulated again.
// TraceStates does the replay a bounded number of requests at a time, so
// that a screen can spread a long one over several messages; StatesAt
// reads what is done. The trace is kept between calls: asked again for the
// same instants and a few more, as the clock plays on, it replays only the
// new stretch.
type stateTrace struct {
	walker *clock // at the last instant answered; nil before the first
	gen    uint64
	key    string
	at     []time.Duration
	states [][]algorithms.Snapshot // states[i][lane] is at at[i]
}

// before is the instants of at that lie before the clock: at is
// ascending, and an instant at or after Now is never traced (Snapshot is
// the state at Now).
func (l *Lab) before(at []time.Duration) []time.Duration {
	n := 0
	for n < len(at) && at[n] < l.clock.now {
		n++
	}
	return at[:n]
}

// trace is the lab's trace for key, forgotten when the decisions changed
// or the key is another, cut to the instants it shares with at.
func (l *Lab) trace(key string, at []time.Duration) *stateTrace {
	tr := &l.caches.trace
	if tr.gen != l.engine.gen || tr.key != key {
		tr.gen, tr.key, tr.at, tr.states = l.engine.gen, key, tr.at[:0], tr.states[:0]
	}
	same := 0
	for same < min(len(tr.at), len(at)) && tr.at[same] == at[same] {
		same++
	}
	tr.at, tr.states = tr.at[:same], tr.states[:same]
	return tr
}

// StatesAt is every lane's state of key at the leading instants of at
// whose states TraceStates has found: states[i][lane] is what
// Snapshot(lane, key) would be with the clock seeked to at[i], every
// request at or before at[i] decided, and the retries due by then. at is
// ascending; only instants before the clock are answered. It replays
// nothing: all of at before the clock is answered once TraceStates says
// no more is left.
//
// states is the lab's own, good until the next call: read it, do not keep
// it.
func (l *Lab) StatesAt(key string, at []time.Duration) (states [][]algorithms.Snapshot) {
	if l.engine.store != nil {
		return nil
	}
	return l.trace(key, l.before(at)).states
}

// TraceStates replays at most n requests toward key's states at the
// instants of at before the clock, for StatesAt; it reports how many it
// replayed and whether more are left. The replay starts where the last one stopped
// when it can go on from there, else at the checkpoint before the first
// instant not yet answered. A lab that keeps its state in a store outside
// the process has no trace (nothing left, nothing replayed): a second
// clock would move the store's state under the first.
func (l *Lab) TraceStates(key string, at []time.Duration, n int) (did int, more bool) {
	e := l.engine
	if e.store != nil {
		return 0, false
	}
	at = l.before(at)
	tr := l.trace(key, at)
	w := tr.walker
	if w == nil {
		w = newClock(l.timeline, e)
		tr.walker = w
	}
	for i := len(tr.states); i < len(at); i++ {
		t := at[i]
		target := l.timeline.search(t)
		if w.live == nil || w.gen != e.gen || w.pos > target || w.now > t {
			// Back to the checkpoint before the instant: a restore, no
			// replay.
			w.toCheckpoint(target)
		}
		for w.pos < target {
			if did >= n {
				return did, true
			}
			from := w.pos
			w.seekPos(min(target, from+n-did))
			did += w.pos - from
		}
		w.seek(t)
		lanes := make([]algorithms.Snapshot, len(e.defs))
		for lane := range lanes {
			lanes[lane] = w.limiter(lane).Snapshot(t, key)
		}
		tr.at, tr.states = append(tr.at, t), append(tr.states, lanes)
	}
	return did, false
}
