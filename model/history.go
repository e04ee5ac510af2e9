package model

import (
	"slices"
	"time"
)

// action is one entry of the undo history: a fire action, whose requests
// carry its serial, or a reset that removed fired requests.
type action struct {
	serial uint32        // the fire action's serial; 0 for a reset
	end    time.Duration // timeline.end before the action
	keys   int           // len(timeline.keys) before a fire action: later keys are its own
	kinds  int           // len(timeline.kinds) before a fire action: later kinds are its own
	fire   fireAction    // what a fire action added
	reset  *resetUndo
}

// resetUndo is what a reset removed, to put back exactly.
type resetUndo struct {
	fired  []event // the learner's requests, in timeline order
	at     []int   // their indexes in the timeline before the reset
	keys   []string
	nFired int
	now    time.Duration
}

// Undone is what Undo took back.
type Undone struct {
	// Request is the first request (in timeline order) of the undone fire
	// action, or, when Reset, the first of the requests that came back.
	Request Request
	// N is how many requests the fire action added (a burst's size), or
	// how many the undone reset brought back.
	N int
	// Reset tells that the undone action was a reset.
	Reset bool
}

// Undo takes back the learner's latest action: a fire action (one request,
// or a whole burst) is removed, with a key that only it had, and the time
// axis shrinks back to where it was before it; a reset is undone by putting every request it removed back
// in place, with the axis and the clock it had. Everything after the first
// request that changed is recomputed; otherwise the clock stays (at a whole
// instant). ok is false when nothing is left to undo.
func (l *Lab) Undo() (u Undone, ok bool) {
	u, ch, ok := l.timeline.undo()
	if !ok {
		return Undone{}, false
	}
	l.changed(ch)
	if !u.Reset {
		l.clock.seek(l.clock.now)
		return u, true
	}
	l.clock.seek(ch.now)
	u.Request = l.timeline.request(ch.from)
	return u, true
}

// Reset drops the learner's requests, and the keys only they had, puts the
// time axis back to the scenario's duration and the clock to 0. When it
// removed requests, Undo puts them back.
func (l *Lab) Reset() {
	l.changed(l.timeline.reset(l.clock.now))
	l.clock.now = 0
	l.clock.seek(0)
}

// undo takes back the latest action and says what changed; false when the
// history is empty. An undone fire action's Undone is whole; an undone
// reset's lacks its Request, which is request ch.from once the caller has
// forgotten what it decided from there.
func (tl *timeline) undo() (u Undone, ch change, ok bool) {
	if len(tl.history) == 0 {
		return Undone{}, change{}, false
	}
	a := tl.history[len(tl.history)-1]
	tl.history = tl.history[:len(tl.history)-1]
	if a.reset != nil {
		return tl.undoReset(a)
	}
	// The action's requests are at its time or later.
	from := tl.searchBefore(a.fire.at)
	lo := slices.IndexFunc(tl.ev.kind[from:], func(k uint32) bool { return tl.kinds.list[k].fired == a.serial })
	if lo < 0 { // unreachable: an action on the history has requests on the timeline
		return Undone{}, change{}, false
	}
	lo += from
	u.Request = tl.request(lo)
	tl.rewrite(lo, 0, func(rw *rewriter) {
		for u.N < a.fire.n {
			e, ok := rw.next()
			if !ok {
				break
			}
			if tl.kinds.list[e.kind].fired == a.serial {
				u.N++
			} else {
				rw.push(e)
			}
		}
		rw.rest()
	})
	tl.nFired -= u.N
	tl.end = a.end
	tl.keys.truncate(a.keys)
	tl.kinds.truncate(a.kinds)
	return u, change{from: lo, keys: a.keys}, true
}

// reset drops the learner's requests and the keys only they had, and puts
// the axis back to the scenario's duration; when it removed requests, the
// history remembers them, and now, for undo. ch.from is −1 when no request
// moved.
func (tl *timeline) reset(now time.Duration) (ch change) {
	ch = change{from: -1, keys: tl.baseKeys}
	if tl.nFired > 0 {
		r := &resetUndo{keys: slices.Clone(tl.keys.list[tl.baseKeys:]), nFired: tl.nFired, now: now}
		// The first of them is at the earliest action's time or later.
		from := tl.len()
		for _, f := range tl.fireActions() {
			from = min(from, tl.searchBefore(f.at))
		}
		from += slices.IndexFunc(tl.ev.kind[from:], func(k uint32) bool { return tl.kinds.list[k].fired != 0 })
		tl.rewrite(from, 0, func(rw *rewriter) {
			i := from
			for len(r.fired) < tl.nFired {
				e, ok := rw.next()
				if !ok {
					break
				}
				if tl.kinds.list[e.kind].fired != 0 {
					r.fired = append(r.fired, e)
					r.at = append(r.at, i)
				} else {
					rw.push(e)
				}
				i++
			}
			rw.rest()
		})
		tl.history = append(tl.history, action{end: tl.end, reset: r})
		ch.from = r.at[0]
	}
	tl.setKeys(nil)
	tl.nFired, tl.end = 0, tl.duration
	return ch
}

// undoReset puts back what the reset a removed. Every action after it has
// been undone, so the timeline is the scenario's own requests, as the reset
// left it.
func (tl *timeline) undoReset(a action) (Undone, change, bool) {
	r := a.reset
	tl.rewrite(r.at[0], len(r.fired), func(rw *rewriter) {
		j, i := 0, r.at[0] // i: the index the next push writes
		for j < len(r.at) {
			for ; j < len(r.at) && r.at[j] == i; j++ {
				i = rw.push(r.fired[j]) + 1
			}
			e, ok := rw.next()
			if !ok {
				break
			}
			i = rw.push(e) + 1
		}
		for _, e := range r.fired[j:] {
			rw.push(e)
		}
		rw.rest()
	})
	tl.setKeys(r.keys)
	tl.nFired, tl.end = r.nFired, a.end
	return Undone{N: len(r.fired), Reset: true}, change{from: r.at[0], keys: tl.baseKeys, now: r.now}, true
}

// setKeys makes the keys after the scenario's own exactly extra, in order,
// so that their indexes are keys[baseKeys:]'s. No request may name a key
// that goes.
func (tl *timeline) setKeys(extra []string) {
	tl.keys.truncate(tl.baseKeys)
	for _, k := range extra {
		tl.keys.of(k)
	}
}
