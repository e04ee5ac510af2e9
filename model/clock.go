package model

import (
	"time"

	"ratelab/algorithms"
)

// clock is the lab's virtual clock and the lanes' state it shows: now,
// and the live state after the first pos requests (after seek, every
// request at or before now; after seekPos, some of those at exactly now),
// with the retries due by now decided. It moves the live state on from
// where it is, or restores it from the engine's checkpoint before its
// target when that is nearer, or when the engine forgot what the live
// state was made from (its gen moved on): a move costs at most one
// checkpoint interval of replay, wherever it goes.
type clock struct {
	tl *timeline
	e  *engine

	now time.Duration
	// live is the state after events[:pos], with the retries due by at
	// decided (at is now once moved), restored from the checkpoint at
	// from when the engine's gen was gen; last are the lanes' latest
	// decisions, on events[pos−1] or a retry after it.
	live *lanes
	gen  uint64
	pos  int
	from int
	at   time.Duration
	last []Record
	// storeErr is the failure of the store the lanes keep their state in,
	// once it has failed holding the live state.
	storeErr error
}

// newClock is a clock at 0 over tl's requests as e decides them, with
// nothing shown yet: seek it first.
func newClock(tl *timeline, e *engine) *clock { return &clock{tl: tl, e: e} }

// seek moves the clock to t, clamped to the axis [0, End], with every
// request at or before it decided.
func (c *clock) seek(t time.Duration) {
	c.now = min(max(t, 0), c.tl.axisEnd())
	c.moveTo(c.tl.search(c.now))
}

// seekPos decides exactly p requests, p clamped to [0, len], and moves the
// clock to the instant of the last of them: request p−1's time, or for
// p = 0 the first request's time with that request not yet decided (0 with
// no request at all).
func (c *clock) seekPos(p int) {
	p = min(max(p, 0), c.tl.len())
	switch {
	case p > 0:
		c.now = c.tl.at(p - 1)
	case c.tl.len() > 0:
		c.now = c.tl.at(0)
	default:
		c.now = 0
	}
	c.moveTo(p)
}

// seekBefore moves the clock to the instant of request i with the requests
// before it decided, and the retries due by then, but not i itself. i is
// clamped to [0, len]; for len it is seekPos(len).
func (c *clock) seekBefore(i int) {
	if i >= c.tl.len() {
		c.seekPos(c.tl.len())
		return
	}
	i = max(i, 0)
	c.now = c.tl.at(i)
	c.moveTo(i)
}

// toCheckpoint moves the clock to the last checkpoint at or before
// request p, its state restored and nothing replayed: the instant of the
// checkpoint's last request, with the requests up to it decided (a
// second clock's cheap way back; seekPos to it could replay a checkpoint
// interval).
func (c *clock) toCheckpoint(p int) {
	e := c.e
	cp := e.checkpoints[e.checkpointAt(max(p, 0))].pos
	c.live, c.gen, c.pos, c.from, c.at = e.restore(cp), e.gen, cp, cp, 0
	c.last = nil
	c.now = 0
	if cp > 0 {
		c.now = c.tl.at(cp - 1)
	}
	c.moveTo(cp)
}

// instant says where the clock is inside its instant: m requests arrive at
// exactly now, and the first k of them are decided.
func (c *clock) instant() (k, m int) {
	lo := c.tl.searchBefore(c.now)
	return c.pos - lo, c.tl.search(c.now) - lo
}

// moveTo brings the live state to just after events[:pos], at now.
func (c *clock) moveTo(pos int) {
	e := c.e
	e.ensure(pos)
	start := e.startFor(pos)
	restore := c.live == nil || c.gen != e.gen || pos < c.pos || e.book != nil && c.now < c.at || start > c.pos && pos-c.pos > CheckpointEvery
	switch {
	case (restore && pos-start > tallyBlock || pos-c.pos > CheckpointEvery) && e.tipFor(pos):
		// The target is the frontier, far from the live state and from
		// the checkpoint before it (with thousands of keys, checkpoints
		// are far apart): take a copy of the frontier's state, not a
		// replay of up to a checkpoint interval.
		c.live, c.gen, c.pos, c.from, c.at = e.frontier.clone(e.wholePeaks()), e.gen, pos, pos, 0
		c.last = append(c.last[:0], e.tip...)
	case restore:
		c.live, c.gen, c.pos, c.from, c.at = e.restore(start), e.gen, start, start, 0
		c.last = nil
	}
	if c.last == nil {
		c.last = make([]Record, len(e.defs))
	}
	for ; c.pos < pos; c.pos++ {
		r := c.tl.request(c.pos)
		c.drain(r.At)
		c.live.arrive(r, c.pos)
		for lane := range e.defs {
			rec := &c.last[lane]
			c.live.decideInto(lane, r, &rec.Decision, &rec.Attempt)
			rec.Index, rec.Lane, rec.Request = c.pos, lane, r
		}
	}
	c.drain(c.now)
	if e.store != nil {
		// A store outside the process holds what the lab shows: the live
		// lanes' states at the clock, not the frontier's ahead of it.
		for _, lim := range c.live.limiters {
			if in, ok := lim.(algorithms.Inspector); ok {
				if err := in.Hold(c.now); err != nil {
					c.storeErr = err
				}
			}
		}
	}
}

// drain decides on the live state the retries due by t.
func (c *clock) drain(t time.Duration) {
	if c.e.book == nil {
		return
	}
	var r Request
	var d algorithms.Decision
	var a Attempt
	c.live.drain(t, &r, &d, &a, func(lane int) bool {
		c.last[lane] = Record{Index: a.Original, Lane: lane, Request: r, Decision: d, Attempt: a}
		return true
	})
	c.at = max(c.at, t)
}

// lastDecision is lane's latest decision at the clock; false when none is
// decided.
func (c *clock) lastDecision(lane int) (Record, bool) {
	if c.pos == 0 || c.last == nil {
		return Record{}, false
	}
	return c.last[lane], true
}

// stats is lane's totals at the clock, the peak counting what was
// released by now; no latency (see Lab.Stats).
func (c *clock) stats(lane int) Stats { return c.live.statsAt(lane, c.now) }

// limiter is lane's limiter at the clock.
func (c *clock) limiter(lane int) algorithms.Limiter { return c.live.limiters[lane] }

// key is key's number for the live limiters (a key never seen is numbered
// as its initial state).
func (c *clock) key(key string) algorithms.Key {
	k, _ := c.live.keys.Lookup(key)
	return k
}

// stamp is what a cache of what the clock shows must match to be reused.
func (c *clock) stamp() stamp { return stamp{gen: c.e.gen, pos: c.pos, now: c.now} }
