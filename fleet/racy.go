package fleet

import (
	"slices"
	"time"

	"ratelab/algorithms"
)

// racyRead is a racy gateway's read: layer of the lane's reads holds the
// state of the key numbered id as the gateway read it from the store and
// decided it. layer −1: none.
type racyRead struct{ id, layer int32 }

// write is a racy gateway's write of a key's state, as it decided it in a
// read (see racyRead), landing at at. It holds no pointer: the queue of
// writes in flight moves without the garbage collector's help.
type write struct {
	at time.Duration
	racyRead
}

// What holds a slot of the racy reads (reads.use): its write, in flight;
// its gateway, whose latest read it is (what GatewaySnapshot shows); the
// store, where it is the key's state since its write landed.
const (
	inFlight uint8 = 1 << iota
	shown
	stored
)

// reads are a racy store's reads, each one key's state, kept while its
// write is in flight, while it is its gateway's latest read, and, for a
// store in memory, while it is the key's state in the store: a write that
// lands makes its read the key's state there, copying nothing (the
// store's own limiter then holds no state). Layer j holds at most one read
// of each key, so a read copies the key's state alone into a layer where
// that key is free, and its decision touches nothing else. Layers rather
// than a limiter a read: the algorithms keep a key's state in chunks
// numbered up to the key's, so every limiter that ever held a key of a
// high number keeps that many chunks; there are only as many layers as the
// most reads one key has at once.
type reads struct {
	// lims and copiers are the layers, each as both interfaces (a
	// conversion from one to the other looks a table up).
	lims    []algorithms.Limiter
	copiers []algorithms.KeyCopier
	// keys are the keys read, by number.
	keys []algorithms.Key
	// use[j][id] is what holds layer j's read of the key numbered id
	// (inFlight | shown | stored); 0 is a free slot. A read into a free
	// slot copies the store's state of the key over whatever the slot
	// still holds, or forgets it when the store in memory holds none.
	// A store outside the process may hold none without saying so
	// (CopyKey leaves a key its source never saw as it is): then a slot is
	// forgotten when its last holder lets go (keep is false). In memory a
	// free slot keeps its state, whose tables and log the next read
	// reuses: CopyKey leaves the items it shares (a log's, a queue's)
	// owned by neither layer, so the reads copied from a slot never see
	// it change, and a read allocates nothing.
	use  [][]uint8
	keep bool
	// next is, by key number, the layer to try first: the reads of a key
	// are let go of about in the order they were taken (their writes land
	// in order), so the slot after the latest taken is most likely free.
	next []int32
	// home is, by key number, the layer whose read is the key's state in a
	// store in memory (−1: the store's own limiter, which holds nothing
	// then). nil for a store outside the process, which takes every write.
	home  []int32
	inMem bool
}

// take is a free slot of key, marked held by hold: a layer holding no
// read of key, made from blank (the policy's limiter with no key) when
// every layer holds one.
func (r *reads) take(key algorithms.Key, hold uint8, blank algorithms.Limiter) int32 {
	id := key.ID()
	if id >= len(r.next) {
		r.next = extend(r.next, id+1)
		r.keys = extend(r.keys, id+1)
	}
	if r.keys[id] != key {
		r.keys[id] = key
	}
	n := len(r.lims)
	j := int(r.next[id])
	for range n {
		if j >= n {
			j = 0
		}
		if u := r.use[j]; id >= len(u) || u[id] == 0 {
			r.mark(j, id, hold)
			return int32(j)
		}
		j++
	}
	lim := blank.Clone()
	r.lims = append(r.lims, lim)
	r.copiers = append(r.copiers, lim.(algorithms.KeyCopier))
	r.use = append(r.use, nil)
	r.mark(n, id, hold)
	return int32(n)
}

// mark has hold hold layer j's read of the key numbered id.
func (r *reads) mark(j, id int, hold uint8) {
	if id >= len(r.use[j]) {
		r.use[j] = extend(r.use[j], id+1)
	}
	r.use[j][id] |= hold
	r.next[id] = int32(j + 1)
}

// let has hold let go of read x, which is forgotten when nothing else
// holds it (unless keep).
func (r *reads) let(x racyRead, hold uint8) {
	u := &r.use[x.layer][x.id]
	if *u &^= hold; *u == 0 && !r.keep {
		r.copiers[x.layer].ForgetKey(r.keys[x.id])
	}
}

// unhome makes the store's own limiter the state of the key numbered id
// in a store in memory again, letting go of the read that was.
func (r *reads) unhome(id int) {
	if id < len(r.home) && r.home[id] >= 0 {
		r.let(racyRead{int32(id), r.home[id]}, stored)
		r.home[id] = -1
	}
}

// homeOf is the layer whose read is the state of the key numbered id in a
// store in memory, −1 for none.
func (r *reads) homeOf(id int) int32 {
	if id < len(r.home) {
		return r.home[id]
	}
	return -1
}

// clone copies every layer (sharing their states until either side
// changes them) and the tables.
func (r *reads) clone() reads {
	c := *r
	c.lims = make([]algorithms.Limiter, len(r.lims))
	c.copiers = make([]algorithms.KeyCopier, len(r.lims))
	c.use = make([][]uint8, len(r.use))
	for j, x := range r.lims {
		c.lims[j] = x.Clone()
		c.copiers[j] = c.lims[j].(algorithms.KeyCopier)
		c.use[j] = slices.Clone(r.use[j])
	}
	c.keys = slices.Clone(r.keys)
	c.next = slices.Clone(r.next)
	c.home = slices.Clone(r.home)
	return c
}

// extend is s with at least n elements, the new ones zero.
func extend[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	old := len(s)
	s = slices.Grow(s, n-old)[:n]
	clear(s[old:])
	return s
}

// decideRacy reads key's state from the shared store (a plain read, after
// the writes landed by now) into a slot of its own, decides on it, and
// sends the key's new state back to land Latency later (a plain write).
// The read is gateway g's latest from then on.
func (l *Limiter) decideRacy(d *algorithms.Decision, now, arrived time.Duration, key algorithms.Key, cost int64, g int) {
	r := &l.reads
	if len(l.pending) > 0 && l.pending[0].at <= arrived {
		l.land(arrived)
	}
	if prev := l.latestRead[g]; prev.layer >= 0 {
		r.let(prev, shown)
	}
	hold := shown
	if l.cfg.Latency > 0 {
		hold |= inFlight
	}
	j := r.take(key, hold, l.blank)
	switch h := r.homeOf(key.ID()); {
	case h >= 0:
		r.copiers[j].CopyKey(r.lims[h], key)
	case r.inMem:
		r.copiers[j].ForgetKey(key) // the store holds nothing of key: it starts new
	default:
		r.copiers[j].CopyKey(l.gws[0], key)
	}
	r.lims[j].DecideInto(d, now, key, cost)
	read := racyRead{int32(key.ID()), j}
	l.latestRead[g] = read
	if l.cfg.Latency == 0 {
		l.write(read)
		return
	}
	l.send(write{arrived + l.cfg.Latency, read})
}

// storeOf is the limiter holding key's state in the shared store: the read
// whose write landed last, in a store in memory, else the store's own.
func (l *Limiter) storeOf(key algorithms.Key) algorithms.Limiter {
	if h := l.reads.homeOf(key.ID()); h >= 0 {
		return l.reads.lims[h]
	}
	return l.gws[0]
}

// write lands read x in the shared store: in memory, the read becomes the
// key's state there; outside the process, the store takes the state (a
// plain write).
func (l *Limiter) write(x racyRead) {
	r := &l.reads
	if !r.inMem {
		l.gws[0].(algorithms.KeyCopier).CopyKey(r.lims[x.layer], r.keys[x.id])
		return
	}
	id := int(x.id)
	if id >= len(r.home) {
		old := len(r.home)
		r.home = extend(r.home, id+1)
		for i := old; i < len(r.home); i++ {
			r.home[i] = -1
		}
	}
	r.use[x.layer][id] |= stored
	r.unhome(id)
	r.home[id] = x.layer
}

// land applies to the shared store the writes in flight that have landed
// by now, and lets go of them.
func (l *Limiter) land(now time.Duration) {
	n := 0
	for _, w := range l.pending {
		if w.at > now {
			break
		}
		l.write(w.racyRead)
		l.reads.let(w.racyRead, inFlight)
		n++
	}
	l.pending = l.pending[n:]
}

// send queues w behind the writes in flight. pending is a window onto
// sent's array, its front the writes landed: when the window reaches the
// array's end, what is left moves to its front if that leaves the array
// at least half free, else to one twice as large, so that a steady flow of
// writes allocates nothing.
func (l *Limiter) send(w write) {
	if len(l.pending) == cap(l.pending) {
		if n := len(l.pending); n > 0 && n <= cap(l.sent)/2 || n == 0 && cap(l.sent) > 0 {
			l.pending = l.sent[:copy(l.sent[:n], l.pending)]
		} else {
			l.sent = make([]write, 0, max(8, 2*n))
			l.pending = append(l.sent, l.pending...)
		}
	}
	l.pending = append(l.pending, w)
}

// lose empties a racy store that restarted: every key as new, and the
// writes in flight found no store.
func (l *Limiter) lose() {
	for id := range l.reads.home {
		l.reads.unhome(id)
	}
	for _, w := range l.pending {
		l.reads.let(w.racyRead, inFlight)
	}
	l.pending = l.pending[len(l.pending):]
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
	k, ok := l.ids.Lookup(key)
	if !ok {
		return l.gws[0].Snapshot(now, key)
	}
	// The last write to land wins: the key's latest one landed by now, if
	// any, is its state in the store.
	for i := len(l.pending) - 1; i >= 0; i-- {
		if w := l.pending[i]; w.at <= now && int(w.id) == k.ID() {
			return l.reads.lims[w.layer].Snapshot(now, key)
		}
	}
	return l.storeOf(k).Snapshot(now, key)
}

// gatewayRead is gateway g's latest racy read, if it was of key.
func (l *Limiter) gatewayRead(g int, key string) (algorithms.Limiter, bool) {
	if g >= len(l.latestRead) || l.latestRead[g].layer < 0 {
		return nil, false
	}
	x := l.latestRead[g]
	if l.reads.keys[x.id].String() != key {
		return nil, false
	}
	return l.reads.lims[x.layer], true
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
			sh.Show(l.reads.keys[w.id], l.reads.lims[w.layer]) // in landing order: the last write wins
		}
	}
	return nil
}
