package model

import "time"

// TrailingAdmitted is the exact admitted cost of lane for key in the window
// (Now − window, Now], over the decided requests: what a sliding counter
// estimates. It reads running sums over blocks of requests, so it costs the
// same however many requests the window holds.
func (l *Lab) TrailingAdmitted(lane int, key string, window time.Duration) int64 {
	k, ok := l.timeline.keys.lookup(key)
	if !ok {
		return 0
	}
	now := l.clock.now
	if l.engine.book != nil {
		// Retries are admitted too: summed on a replay of the window.
		var sum int64
		for _, p := range l.spanFrom(lane, now-window+1).passed {
			if p.key == k && p.at > now-window {
				sum += p.cost
			}
		}
		return sum
	}
	hi := l.clock.pos
	lo := min(l.timeline.search(now-window), hi)
	return l.admittedBefore(lane, k, hi) - l.admittedBefore(lane, k, lo)
}

// admittedBefore is the cost of key that lane admitted in events[:i]: the
// running sum of whole blocks, filled on demand, plus the rest of the last
// block. A what-if truncates the sums from where the timeline changed.
func (l *Lab) admittedBefore(lane int, key int32, i int) int64 {
	e := l.engine
	e.ensure(i)
	b := i / tallyBlock
	cum := l.caches.runningSums(laneKey{lane, key}, b, func(b int) int64 {
		return e.admittedIn(lane, key, b*tallyBlock, (b+1)*tallyBlock)
	})
	return cum[b] + e.admittedIn(lane, key, b*tallyBlock, i)
}

// admittedIn adds up the cost of key that lane admitted in events[lo:hi],
// which must be decided.
func (e *engine) admittedIn(lane int, key int32, lo, hi int) int64 {
	var sum int64
	for j := lo; j < hi; j++ {
		if k := e.tl.kind(j); k.key == key && e.outcomes[lane][j].Admitted() {
			sum += k.cost
		}
	}
	return sum
}
