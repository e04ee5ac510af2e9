package model

import "ratelab/algorithms"

// keyVerdicts remembers the lanes' decisions on one request: a screen asks
// for the same key's last decision once per lane per frame, and finding it
// costs a scan back and a replay from a checkpoint.
type keyVerdicts struct {
	gen       uint64 // Lab.gen when computed: any change to the timeline voids it
	livePos   int
	key       int32
	index     int // the key's latest request before livePos; -1 if none
	decisions []algorithms.Decision
}

// LastDecisionFor is lane's verdict on the latest decided request from key
// (among the first Pos), and that request's index; ok is false when key has
// sent none by then. For the key of the latest request it is LastDecision.
func (l *Lab) LastDecisionFor(lane int, key string) (rec Record, ok bool) {
	k, known := l.keys.lookup(key)
	if !known {
		return Record{}, false
	}
	if l.livePos > 0 && l.kind(l.livePos-1).key == k {
		return l.LastDecision(lane)
	}
	c := &l.keyCache
	if c.decisions == nil || c.gen != l.gen || c.livePos != l.livePos || c.key != k {
		*c = keyVerdicts{gen: l.gen, livePos: l.livePos, key: k, index: -1}
		for i := l.livePos - 1; i >= 0; i-- {
			if l.kind(i).key == k {
				c.index = i
				break
			}
		}
		c.decisions = l.decisionsAt(c.index)
	}
	if c.index < 0 {
		return Record{}, false
	}
	return Record{Index: c.index, Lane: lane, Request: l.Request(c.index), Decision: c.decisions[lane]}, true
}

// decisionsAt is every lane's decision on events[i], replayed from the
// checkpoint before it; empty for i < 0.
func (l *Lab) decisionsAt(i int) []algorithms.Decision {
	out := make([]algorithms.Decision, len(l.defs))
	l.replay(i, i+1, func(r Record) bool { out[r.Lane] = r.Decision; return true })
	return out
}
