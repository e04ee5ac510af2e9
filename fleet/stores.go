package fleet

import (
	"time"

	"ratelab/algorithms"
)

// admission is a request a synced gateway admitted, for the next sync.
type admission struct {
	at   time.Duration // when it arrived, which orders the syncs
	t    time.Duration // when the gateway's clock said it came
	key  algorithms.Key
	cost int64
}

// expire drops key's state in store (and in the views that read it) when
// it has been idle for ExpireIdle by now, and marks it touched now.
func (l *Limiter) expire(store int, now time.Duration, key algorithms.Key) {
	for len(l.touched) <= store {
		l.touched = append(l.touched, nil)
	}
	id := key.ID()
	if id < 0 {
		return
	}
	t := l.touched[store]
	for len(t) <= id {
		t = append(t, -1)
	}
	l.touched[store] = t
	if at, ok := l.expiredAt(store, now, id); ok {
		// What reached the store before the key expired goes with it:
		// a racy write landed by then, a sync's admissions. (What lands
		// after the expiry makes the key anew, as a late write would.)
		switch l.kind {
		case Racy:
			l.land(at)
		case Synced:
			l.sync(at)
		}
		// The views first (they may share what the shared state made of
		// the key: CopyKey leaves it owned by neither, so the order no
		// longer matters for that).
		for _, v := range l.views {
			v.(algorithms.KeyCopier).ForgetKey(key)
		}
		l.gws[store].(algorithms.KeyCopier).ForgetKey(key)
		l.reads.unhome(id)
		if id < len(l.took) {
			l.took[id] = false
		}
	}
	t[id] = now
}

// expiredAt is when the state of key id in store expired, if it has by
// now: a key idle for ExpireIdle is gone from the store from then on,
// though expire drops it only when its next request comes. What a lane
// shows of it (Snapshot, KeyBytes) shows it gone at once, as the store
// would.
func (l *Limiter) expiredAt(store int, now time.Duration, id int) (time.Duration, bool) {
	if l.cfg.ExpireIdle == 0 || store >= len(l.touched) || id < 0 || id >= len(l.touched[store]) {
		return 0, false
	}
	if last := l.touched[store][id]; last >= 0 && last+l.cfg.ExpireIdle <= now {
		return last + l.cfg.ExpireIdle, true
	}
	return 0, false
}

// keyID is key's number, −1 for a key the lane's keys do not hold.
func (l *Limiter) keyID(key string) int {
	if k, ok := l.ids.Lookup(key); ok {
		return k.ID()
	}
	return -1
}

// ExpiredAt is when key's state expired by now in the store that its
// latest request's gateway reads (see Snapshot); ok is false when it has
// not, or the lane expires nothing.
func (l *Limiter) ExpiredAt(now time.Duration, key string) (at time.Duration, ok bool) {
	if l.cfg.ExpireIdle == 0 {
		return 0, false
	}
	return l.expiredAt(l.gatewayStore(l.LatestGateway(key)), now, l.keyID(key))
}

// outage is the outage the store is in at now, if any; an outage whose end
// has passed is over, and one that lost the state leaves the store empty.
func (l *Limiter) outage(now time.Duration) (Outage, bool) {
	for l.over < len(l.cfg.Outages) && l.cfg.Outages[l.over].Until <= now {
		if l.cfg.Outages[l.over].LoseState {
			if fresh, err := l.store(l.gws[0].Policy(), l.ids); err == nil {
				l.gws[0] = fresh // a restart: every key as new
				clear(l.took)
			}
			l.lose()
		}
		l.over++
	}
	if l.over < len(l.cfg.Outages) && l.cfg.Outages[l.over].From <= now {
		return l.cfg.Outages[l.over], true
	}
	return Outage{}, false
}

// fallback decides while the store does not answer: open admits, closed
// refuses until the outage ends (503, not 429), local-cap asks gateway g's
// own limiter of 1/N of the policy, made fresh when the outage began.
func (l *Limiter) fallback(d *algorithms.Decision, now time.Duration, key algorithms.Key, cost int64, g int, o Outage) {
	switch l.cfg.Fallback {
	case algorithms.FallbackOpen:
		*d = algorithms.Decision{Outcome: algorithms.Allowed, At: now, Cost: cost}
	case algorithms.FallbackClosed:
		*d = algorithms.Decision{Outcome: algorithms.Rejected, At: now, Cost: cost, RetryAfter: o.Until - now}
	case algorithms.FallbackLocalCap:
		if l.capsFor != l.over {
			share := algorithms.SplitPolicy(l.p, int64(l.Gateways()))
			l.caps = l.caps[:0]
			for range l.Gateways() {
				c, _ := algorithms.NewWithKeys(share, l.ids)
				l.caps = append(l.caps, c)
			}
			l.capsFor = l.over
		}
		l.caps[g].DecideInto(d, now, key, cost)
	}
	d.Fallback = l.cfg.Fallback
}

// sync runs the syncs due by now: each takes the admissions made before it
// into the shared state and resets every view to it.
func (l *Limiter) sync(now time.Duration) {
	every := l.cfg.SyncEvery
	due := int64(now / every) // the syncs at every, 2 × every, … ≤ now
	for l.synced < due {
		next := time.Duration(l.synced+1) * every
		if len(l.unsynced) == 0 || l.unsynced[0].at >= next {
			// Syncs with nothing to take in change nothing but the
			// views, which only rejections (which change nothing) have
			// touched since the last: skip to the one that has some.
			skip := due
			if len(l.unsynced) > 0 {
				skip = min(due, int64(l.unsynced[0].at/every))
			}
			if skip > l.synced {
				l.synced = skip
				continue
			}
		}
		n := 0
		for _, a := range l.unsynced {
			if a.at >= next {
				break
			}
			l.gws[0].DecideKey(a.t, a.key, a.cost)
			l.change(a.key, ^uint64(0))
			id := a.key.ID()
			if id >= len(l.took) {
				l.took = extend(l.took, id+1)
			}
			l.took[id] = true
			n++
		}
		l.unsynced = append(l.unsynced[:0], l.unsynced[n:]...)
		// Every view takes the shared state again: of the keys that
		// changed since the last sync, as a Clone of it would be; or a
		// Clone, when so many keys changed that copying each costs more
		// than a Clone's table of a pointer for every 16 keys. A view
		// shares the items of a state it took (a log's), which CopyKey
		// leaves owned by neither: whichever changes them first copies
		// them.
		few := l.fewChanged()
		for _, k := range l.changed {
			stale := l.stale[k.ID()]
			for g, v := range l.views {
				if few && stale&(1<<g) != 0 {
					l.retake(v.(algorithms.KeyCopier), k)
				}
			}
			l.stale[k.ID()] = 0
		}
		l.changed = l.changed[:0]
		if !few {
			for g := range l.views {
				l.views[g] = l.gws[0].Clone()
			}
		}
		l.synced++
	}
}

// fewChanged is whether so few keys changed since the last sync that the
// views copy each rather than Clone the shared state: a Clone copies a
// table of a pointer for every 16 keys, as far as the highest key the lane
// decided (the lane's own, not every lane's: the numbering is shared, and
// a lane's tables reach only its keys). stale reaches that far.
func (l *Limiter) fewChanged() bool {
	return len(l.changed) <= 4 || 16*len(l.changed) <= len(l.stale)
}

// retake has view v take key's state from the shared state again: a copy
// over its own, which reuses its tables, or none when the shared state
// never took the key in (or forgot it).
func (l *Limiter) retake(v algorithms.KeyCopier, k algorithms.Key) {
	if id := k.ID(); id < len(l.took) && l.took[id] {
		v.CopyKey(l.gws[0], k)
		return
	}
	v.ForgetKey(k)
}

// change marks key's state as changed since the last sync for the views
// whose bits views sets (bit g for gateway g's).
func (l *Limiter) change(key algorithms.Key, views uint64) {
	id := key.ID()
	l.stale = extend(l.stale, id+1)
	if l.stale[id] == 0 {
		l.changed = append(l.changed, key)
	}
	l.stale[id] |= views
}
