package model

import "time"

// LastDecisionFor is lane's verdict on the latest decided request from key
// (among the first Pos), and that request's index; ok is false when key has
// sent none by then. For the key of the latest request it is LastDecision.
func (l *Lab) LastDecisionFor(lane int, key string) (rec Record, ok bool) {
	k, known := l.timeline.keys.lookup(key)
	if !known {
		return Record{}, false
	}
	if last, ok := l.LastDecision(lane); ok && last.Request.Key == key {
		return last, true
	}
	c := l.caches.lastDecisions(l.clock.stamp(), k, func() keyVerdicts {
		return l.lastDecisionsOf(k)
	})
	if r := c.retries[lane]; r != nil {
		return *r, true // a retry after the key's latest request
	}
	if c.index < 0 {
		return Record{}, false
	}
	return c.records[lane], true
}

// lastDecisionsOf finds key k's latest decisions at the clock in every
// lane: on its latest request, or a retry after it.
func (l *Lab) lastDecisionsOf(k int32) keyVerdicts {
	e, c := l.engine, l.clock
	v := keyVerdicts{index: l.latestOf(k)}
	v.records = l.recordsOf(k, v.index, -1)
	v.retries = make([]*Record, len(e.defs))
	if e.clog != nil {
		for j := range e.defs {
			if rec, ok := e.lastRetryFor(j, k, v.index, c.pos, c.now); ok {
				v.retries[j] = &rec
			}
		}
	}
	return v
}

// latestOf is the index of key k's latest request before the clock's
// position, −1 if none: a scan back, remembered for the clock's stamp.
func (l *Lab) latestOf(k int32) int {
	at, w := l.clock.stamp(), &l.caches.latest
	if w.ok && w.at == at && w.key == k {
		return w.index
	}
	i := l.clock.pos - 1
	for ; i >= 0 && l.timeline.kind(i).key != k; i-- {
	}
	*w = latestRequest{at: at, key: k, index: i, ok: true}
	return i
}

// recordsOf is every lane's record of events[i], key k's latest request
// (empty for i < 0), replaying at most n more requests toward them (all
// that are needed when n < 0); nil when they are not done.
func (l *Lab) recordsOf(k int32, i, n int) []Record {
	e := l.engine
	if i < 0 {
		return make([]Record, len(e.defs))
	}
	// The lanes' records of one request change only with the decisions
	// (the generation): while the clock moves and the key sends nothing
	// new, they are the last answer's, not another replay from a
	// checkpoint (with 100,000 keys, up to 110,000 requests a frame).
	if prev := &l.caches.lastFor; prev.records != nil && prev.key == k && prev.at.gen == e.gen && prev.index == i {
		return prev.records
	}
	w := &l.caches.verdict
	if w.rc == nil || w.rc.gen != e.gen || w.rc.at != i {
		w.rc = e.recordsCursor(i)
	}
	if n < 0 {
		n = w.rc.left()
	}
	if !w.rc.step(n) {
		return nil
	}
	return w.rc.out
}

// PendingLastDecisionFor reports whether LastDecisionFor(·, key) needs a
// replay before it answers, and how many requests that replay has yet to
// decide: with checkpoints far apart (100,000 keys' states) finding a
// key's verdict can replay a hundred thousand requests, which a screen
// does a slice at a time with WorkOnLastDecisionFor rather than at once.
// A lab that keeps its lanes' state in a store never waits: its replays
// are not interleaved with others.
func (l *Lab) PendingLastDecisionFor(key string) (left int, pending bool) {
	e := l.engine
	k, known := l.timeline.keys.lookup(key)
	if !known || e.store != nil {
		return 0, false
	}
	if last, ok := l.LastDecision(0); ok && last.Request.Key == key {
		return 0, false
	}
	if c := &l.caches.lastFor; c.records != nil && c.at == l.clock.stamp() && c.key == k {
		return 0, false
	}
	i := l.latestOf(k)
	if i < 0 {
		return 0, false
	}
	if prev := &l.caches.lastFor; prev.records != nil && prev.key == k && prev.at.gen == e.gen && prev.index == i {
		return 0, false
	}
	if w := l.caches.verdict.rc; w != nil && w.gen == e.gen && w.at == i {
		return w.left(), w.left() > 0
	}
	return i + 1 - e.startFor(i+1), true
}

// WorkOnLastDecisionFor replays up to n requests toward key's latest
// verdict (see PendingLastDecisionFor) and reports whether it is still
// pending. The work is kept while the decisions and the key's latest
// request stay what they are, whatever else the clock does.
func (l *Lab) WorkOnLastDecisionFor(key string, n int) bool {
	if _, pending := l.PendingLastDecisionFor(key); !pending {
		return false
	}
	k, _ := l.timeline.keys.lookup(key)
	if l.recordsOf(k, l.latestOf(k), max(n, 1)) == nil {
		return true
	}
	_, pending := l.PendingLastDecisionFor(key)
	return pending
}

// lastRetryFor is lane's decision on the latest retry from key k decided
// by a clock at now after events[:pos], when it came after events[after]
// (the key's latest original request, or −1); false otherwise. It looks
// only at the retries decided since that request.
func (e *engine) lastRetryFor(lane int, k int32, after, pos int, now time.Duration) (Record, bool) {
	e.ensure(pos + 1)
	cl := e.clog[lane]
	for j := cl.decided(pos, now) - 1; j >= 0 && int(cl.head(j).pos) > after; j-- {
		ev := cl.head(j)
		if ev.n == 1 || e.tl.kind(int(ev.orig)).key != k {
			continue
		}
		ev.at = cl.at(j)
		var rec Record
		found := false
		e.replay(int(ev.pos), int(ev.pos), ev.at, func(r Record) bool {
			if r.Lane == lane && r.Attempt.N == int(ev.n) && r.Attempt.Original == int(ev.orig) {
				rec, found = r, true
				return false
			}
			return true
		})
		return rec, found
	}
	return Record{}, false
}
