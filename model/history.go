package model

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"ratelab/scenarios"
)

// action is one entry of the undo history: a fire action, whose requests
// carry its serial, or a reset that removed fired requests.
type action struct {
	serial uint32        // the fire action's serial; 0 for a reset
	end    time.Duration // Lab.end before the action
	keys   int           // len(Lab.keys) before a fire action: later keys are its own
	kinds  int           // len(Lab.kinds) before a fire action: later kinds are its own
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
	if len(l.history) == 0 {
		return Undone{}, false
	}
	a := l.history[len(l.history)-1]
	l.history = l.history[:len(l.history)-1]
	if a.reset != nil {
		return l.undoReset(a), true
	}
	lo := slices.IndexFunc(l.tl.kind, func(k uint32) bool { return l.kinds.list[k].fired == a.serial })
	if lo < 0 { // unreachable: an action on the history has requests on the timeline
		return Undone{}, false
	}
	u.Request = l.Request(lo)
	l.rewrite(lo, 0, func(next func() (event, bool), push func(event) int) {
		for e, ok := next(); ok; e, ok = next() {
			if l.kinds.list[e.kind].fired == a.serial {
				u.N++
			} else {
				push(e)
			}
		}
	})
	l.nFired -= u.N
	l.end = a.end
	l.replaceEvents(lo)
	l.truncateKeys(a.keys)
	l.kinds.truncate(a.kinds)
	l.Seek(l.now)
	return u, true
}

// Reset drops the learner's requests, and the keys only they had, puts the
// time axis back to the scenario's duration and the clock to 0. When it
// removed requests, Undo puts them back.
func (l *Lab) Reset() {
	if l.nFired > 0 {
		r := &resetUndo{keys: slices.Clone(l.keys.list[l.baseKeys:]), nFired: l.nFired, now: l.now}
		from := slices.IndexFunc(l.tl.kind, func(k uint32) bool { return l.kinds.list[k].fired != 0 })
		l.rewrite(from, 0, func(next func() (event, bool), push func(event) int) {
			i := from
			for e, ok := next(); ok; e, ok = next() {
				if l.kinds.list[e.kind].fired != 0 {
					r.fired = append(r.fired, e)
					r.at = append(r.at, i)
				} else {
					push(e)
				}
				i++
			}
		})
		l.history = append(l.history, action{end: l.end, reset: r})
		l.replaceEvents(r.at[0])
	}
	l.setKeys(nil)
	l.nFired, l.now, l.end = 0, 0, l.scenario.Duration
	l.Seek(0)
}

// undoReset puts back what the reset a removed. Every action after it has
// been undone, so the timeline is the scenario's own requests, as the reset
// left it.
func (l *Lab) undoReset(a action) Undone {
	r := a.reset
	l.rewrite(r.at[0], len(r.fired), func(next func() (event, bool), push func(event) int) {
		j, i := 0, r.at[0] // i: the index the next push writes
		for e, ok := next(); ok; e, ok = next() {
			for ; j < len(r.at) && r.at[j] == i; j++ {
				i = push(r.fired[j]) + 1
			}
			i = push(e) + 1
		}
		for _, e := range r.fired[j:] {
			push(e)
		}
	})
	l.setKeys(r.keys)
	l.nFired, l.end = r.nFired, a.end
	l.replaceEvents(r.at[0])
	l.Seek(r.now)
	return Undone{Request: l.Request(r.at[0]), N: len(r.fired), Reset: true}
}

// setKeys makes the keys after the scenario's own exactly extra, in order,
// so that their indexes are keys[baseKeys:]'s. No request may name a key
// that goes.
func (l *Lab) setKeys(extra []string) {
	l.truncateKeys(l.baseKeys)
	for _, k := range extra {
		l.intern(k)
	}
}

// truncateKeys forgets every key after the first n, which no request may
// name.
func (l *Lab) truncateKeys(n int) {
	for k := range l.admittedSums {
		if int(k.key) >= n {
			delete(l.admittedSums, k)
		}
	}
	l.keys.truncate(n)
}

// rewrite replaces the timeline from index from on, in place: fn reads
// the requests from there on with next, in order, and pushes those that
// take their place, in time order (push returns the index it wrote).
// adds is how many more requests fn may push than it reads: the timeline
// makes room for them first. Besides that room the rewrite holds at most
// the requests pushed ahead of those read, plus a block (see rewriter),
// not a copy of the timeline. The caller then forgets what was computed
// from there on (replaceEvents).
func (l *Lab) rewrite(from, adds int, fn func(next func() (event, bool), push func(event) int)) {
	l.tl.grow(l.tl.len() + adds)
	rw := l.tl.rewriteFrom(from)
	fn(rw.next, rw.push)
	rw.done()
}

// replaceEvents forgets what was computed from index from on, after rewrite
// changed the timeline there, and gives back the memory a shorter timeline
// no longer needs.
func (l *Lab) replaceEvents(from int) {
	l.tl.clip()
	for lane := range l.outcomes {
		l.outcomes[lane] = shrink(resize(l.outcomes[lane], l.tl.len(), cap(l.tl.kind)))
	}
	l.invalidate(from)
}

// resize is s with length n, its first elements kept, copied to an array
// of room c ≥ n when its own has not room for n.
func resize[T any](s []T, n, c int) []T {
	if n <= len(s) {
		return s[:n]
	}
	s = growTo(s, max(n, c))
	return append(s, make([]T, n-len(s))...)
}

// ErrKey is returned for a key a scenario file could not hold.
var ErrKey = errors.New("not a key a scenario file can hold")

// checkKey refuses a key that a saved scenario could not hold, by the
// rules the loader applies (scenarios.CheckKey): 1 to 64 bytes of UTF-8
// text, no control or bidirectional formatting characters.
func checkKey(key string) error {
	if err := scenarios.CheckKey(key); err != nil {
		return fmt.Errorf("%w: %v", ErrKey, err)
	}
	return nil
}
