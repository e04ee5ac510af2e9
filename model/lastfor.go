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
	v := keyVerdicts{index: -1}
	for i := c.pos - 1; i >= 0; i-- {
		if l.timeline.kind(i).key == k {
			v.index = i
			break
		}
	}
	// The lanes' records of one request change only with the decisions
	// (the generation): while the clock moves and the key sends nothing
	// new, they are the last answer's, not another replay from a
	// checkpoint (with 100,000 keys, up to 110,000 requests a frame).
	if prev := &l.caches.lastFor; prev.records != nil && prev.key == k && prev.at.gen == e.gen && prev.index == v.index {
		v.records = prev.records
	} else {
		v.records = e.recordsAt(v.index)
	}
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

// lastRetryFor is lane's decision on the latest retry from key k decided
// by a clock at now after events[:pos], when it came after events[after]
// (the key's latest original request, or −1); false otherwise. It looks
// only at the retries decided since that request.
func (e *engine) lastRetryFor(lane int, k int32, after, pos int, now time.Duration) (Record, bool) {
	e.ensure(pos + 1)
	cl := e.clog[lane]
	for j := cl.decided(pos, now) - 1; j >= 0 && int(cl.ev[j].pos) > after; j-- {
		ev := cl.ev[j]
		if ev.n == 1 || e.tl.kind(int(ev.orig)).key != k {
			continue
		}
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
