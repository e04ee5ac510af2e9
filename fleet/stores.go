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

// racyRead is what a racy gateway read of key: a limiter holding key's
// state as the store had it, which the gateway then decided on.
type racyRead struct {
	key  algorithms.Key
	from algorithms.Limiter
}

// write is a racy gateway's write of key's state, as it decided it on its
// copy from, landing at at.
type write struct {
	at   time.Duration
	key  algorithms.Key
	from algorithms.Limiter
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
	if last := t[id]; last >= 0 && now-last >= l.cfg.ExpireIdle {
		l.gws[store].(algorithms.KeyCopier).ForgetKey(key)
		for _, v := range l.views {
			v.(algorithms.KeyCopier).ForgetKey(key)
		}
	}
	t[id] = now
	l.touched[store] = t
}

// outage is the outage the store is in at now, if any; an outage whose end
// has passed is over, and one that lost the state leaves the store empty.
func (l *Limiter) outage(now time.Duration) (Outage, bool) {
	for l.over < len(l.cfg.Outages) && l.cfg.Outages[l.over].Until <= now {
		if l.cfg.Outages[l.over].LoseState {
			if fresh, err := l.store(l.gws[0].Policy(), l.ids); err == nil {
				l.gws[0] = fresh // a restart: every key as new
			}
			l.pending = nil // writes in flight found no store
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

// decideRacy reads key's state from the shared store (a plain read, after
// the writes landed by now) into a limiter of its own, decides on it, and
// sends the key's new state back to land Latency later (a plain write).
func (l *Limiter) decideRacy(d *algorithms.Decision, now, arrived time.Duration, key algorithms.Key, cost int64) {
	l.land(l.gws[0], arrived)
	read := l.blank.Clone()
	read.(algorithms.KeyCopier).CopyKey(l.gws[0], key)
	read.DecideInto(d, now, key, cost)
	l.lastRead = racyRead{key, read}
	if l.cfg.Latency == 0 {
		l.gws[0].(algorithms.KeyCopier).CopyKey(read, key)
		return
	}
	l.pending = append(l.pending, write{at: arrived + l.cfg.Latency, key: key, from: read})
}

// land applies to store the writes in flight that have landed by now, and
// forgets them when store is the lane's own.
func (l *Limiter) land(store algorithms.Limiter, now time.Duration) {
	n := 0
	for _, w := range l.pending {
		if w.at > now {
			break
		}
		store.(algorithms.KeyCopier).CopyKey(w.from, w.key)
		n++
	}
	if store == l.gws[0] {
		l.pending = l.pending[n:]
	}
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
			n++
		}
		l.unsynced = append(l.unsynced[:0], l.unsynced[n:]...)
		for g := range l.views {
			l.views[g] = l.gws[0].Clone()
		}
		l.synced++
	}
}

// InFlight is how many racy writes have not landed by now.
func (l *Limiter) InFlight(now time.Duration) int {
	n := 0
	for _, w := range l.pending {
		if w.at > now {
			n++
		}
	}
	return n
}

// storeSnapshot is key's state in the shared store at now: for a racy one,
// with the writes landed since the last request (on a copy: a snapshot
// changes nothing).
func (l *Limiter) storeSnapshot(now time.Duration, key string) algorithms.Snapshot {
	// The last write to land wins: the key's latest one landed by now, if
	// any, is its state in the store.
	for i := len(l.pending) - 1; i >= 0; i-- {
		if w := l.pending[i]; w.at <= now && w.key.String() == key {
			return w.from.Snapshot(now, key)
		}
	}
	return l.gws[0].Snapshot(now, key)
}

// shower is a store that can show a state without taking it as its own:
// Show writes src's state of key into the store (a racy write that has
// landed by the clock, which the lane shows but has not yet taken in), and
// the store's next decision or Hold writes its own states back first.
type shower interface {
	Show(key algorithms.Key, src algorithms.Limiter)
}

// Hold makes a store outside the process hold the lane's shared state as
// of now, a racy store's writes that have landed by now included (shown,
// not taken in: the lane takes them in when it next decides, and a clock
// moved back before them must not have them).
func (l *Limiter) Hold(now time.Duration) error {
	in, ok := l.gws[0].(algorithms.Inspector)
	if !ok {
		return nil
	}
	if err := in.Hold(now); err != nil {
		return err
	}
	for _, w := range l.pending {
		if w.at > now {
			break
		}
		if sh, ok := in.(shower); ok {
			sh.Show(w.key, w.from) // in landing order: the last write wins
		}
	}
	return nil
}
