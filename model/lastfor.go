package model

import "time"

// keyVerdicts remembers the lanes' decisions on one request: a screen asks
// for the same key's last decision once per lane per frame, and finding it
// costs a scan back and a replay from a checkpoint.
type keyVerdicts struct {
	gen     uint64 // Lab.gen when computed: any change to the timeline voids it
	livePos int
	key     int32
	now     time.Duration
	index   int // the key's latest request before livePos; -1 if none
	records []Record
	// retries[lane] is lane's latest retry from the key decided by the
	// clock, when later than the request index; nil otherwise.
	retries []*Record
}

// LastDecisionFor is lane's verdict on the latest decided request from key
// (among the first Pos), and that request's index; ok is false when key has
// sent none by then. For the key of the latest request it is LastDecision.
func (l *Lab) LastDecisionFor(lane int, key string) (rec Record, ok bool) {
	k, known := l.keys.lookup(key)
	if !known {
		return Record{}, false
	}
	if last, ok := l.LastDecision(lane); ok && last.Request.Key == key {
		return last, true
	}
	c := &l.keyCache
	if c.records == nil || c.gen != l.gen || c.livePos != l.livePos || c.now != l.now || c.key != k {
		*c = keyVerdicts{gen: l.gen, livePos: l.livePos, now: l.now, key: k, index: -1}
		for i := l.livePos - 1; i >= 0; i-- {
			if l.kind(i).key == k {
				c.index = i
				break
			}
		}
		c.records = l.recordsAt(c.index)
		c.retries = make([]*Record, len(l.defs))
		if l.clog != nil {
			for j := range l.defs {
				if rec, ok := l.lastRetryFor(j, k, c.index); ok {
					c.retries[j] = &rec
				}
			}
		}
	}
	if r := c.retries[lane]; r != nil {
		return *r, true // a retry after the key's latest request
	}
	if c.index < 0 {
		return Record{}, false
	}
	return c.records[lane], true
}

// recordsAt is every lane's record of events[i], replayed from the
// checkpoint before it; empty records for i < 0.
func (l *Lab) recordsAt(i int) []Record {
	out := make([]Record, len(l.defs))
	l.replay(i, i+1, -1, func(r Record) bool {
		if r.Attempt.N == 1 && r.Index == i {
			out[r.Lane] = r
		}
		return true
	})
	return out
}

// lastRetryFor is lane's decision on the latest retry from key k decided
// by the clock, when it came after events[after] (the key's latest original
// request, or −1); false otherwise. It looks only at the retries decided
// since that request.
func (l *Lab) lastRetryFor(lane int, k int32, after int) (Record, bool) {
	l.ensure(l.livePos + 1)
	cl := l.clog[lane]
	for j := cl.decided(l.livePos, l.now) - 1; j >= 0 && int(cl.ev[j].pos) > after; j-- {
		e := cl.ev[j]
		if e.n == 1 || l.kind(int(e.orig)).key != k {
			continue
		}
		var rec Record
		found := false
		l.replay(int(e.pos), int(e.pos), e.at, func(r Record) bool {
			if r.Lane == lane && r.Attempt.N == int(e.n) && r.Attempt.Original == int(e.orig) {
				rec, found = r, true
				return false
			}
			return true
		})
		return rec, found
	}
	return Record{}, false
}

// DecisionsOn is every lane's record of request i (its first attempt), in
// lane order, replayed from the checkpoint before it; nil for an i not on
// the timeline.
func (l *Lab) DecisionsOn(i int) []Record {
	if i < 0 || i >= l.tl.len() {
		return nil
	}
	return l.recordsAt(i)
}
