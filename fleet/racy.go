package fleet

import (
	"slices"
	"time"
	"unsafe"

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

// reads are a racy store's reads, each one key's state, kept while its
// write is in flight, while it is its gateway's latest read, and, for a
// store in memory, while it is the key's state in the store: a write that
// lands makes its read the key's state there, copying nothing (the
// store's own limiter then holds no state). Layer j holds at most one read
// of each key, so a read copies the key's state alone into a layer where
// that key is free, and its decision touches nothing else. Layers rather
// than a limiter a read: the algorithms keep a key's state in chunks
// numbered up to the key's, so every limiter that ever held a key of a
// high number keeps that many chunks.
//
// Each key keeps its own slots: the key numbered id has one in each of
// layers 0 to per[id].n−1, as many as it ever held reads at once, and
// takes a free one of them before it makes another. So layer j holds only
// the keys that once held more than j reads at once: one hot key whose
// writes take long to land makes as many layers as it has reads in flight,
// and every other key keeps its few slots in the first layers (taking any
// free layer, as keys once did, spread every key over every layer a hot
// key made, and memory with them).
//
// What holds a slot is read off what the lane keeps anyway rather than
// marked and unmarked: its write is in flight until the time it lands
// (until), which a read sets when it takes the slot and which no later
// read of the store can reach while the write has not landed (the writes
// landed by a request's arrival are landed before it reads); its gateway
// shows it while its latest read is the slot (by, the gateway that took
// it); the store holds it while it is the key's home. So a decision
// touches one slot's record, the one it takes.
//
// A read into a free slot copies the store's state of the key over
// whatever the slot still holds, or forgets it when the store holds none.
// In memory a free slot keeps its state, whose tables and log the next
// read reuses: CopyKey leaves the items it shares (a log's, a queue's)
// owned by neither layer, so the reads copied from a slot never see it
// change, and a read allocates nothing. A store outside the process may
// hold none of a key without saying so (CopyKey leaves a key its source
// never saw as it is): there a read forgets the slot before it copies.
type reads struct {
	// layers are the layers (see layer).
	layers []layer
	// keys are the keys read, by number.
	keys []algorithms.Key
	// per are the keys' slots, by key number. The key's slot j has its
	// record at until[i] and by[i], i = per[id].at + j: when its write
	// lands, and the gateway that took it. Two arrays, 9 bytes a slot,
	// rather than one of both side by side (16 bytes with padding): the
	// same instructions a read (792 and 793 a leaky bucket's racy-50ms
	// decision, 1,016 both over 1000 keys), and a hot key's lane beside
	// 400 keys holds 38.9 KB of tables, not 47.7 KB.
	per   []keySlots
	until []time.Duration
	by    []uint8
	inMem bool
	// blank is the policy's limiter with no key's state, whose chunks of
	// states (every one empty) reach the keys numbered below reach: each
	// layer is made a Clone of it, sharing those chunks until it writes
	// one, so that a layer made for a hot key of a high number takes a
	// table of a pointer for every 16 keys and the one chunk it writes,
	// not a chunk of states for every 16 keys below.
	blank algorithms.Limiter
	reach int
}

// layer is one layer of the racy reads, as a Limiter and as a CopyDecider
// (a read's copy and its decision in one call), side by side: a read takes
// both from one place.
type layer struct {
	lim algorithms.Limiter
	cd  algorithms.CopyDecider
}

// newLayer is lim as a layer.
func newLayer(lim algorithms.Limiter) layer { return layer{lim, algorithms.CopyDeciderOf(lim)} }

// forget drops key's state in layer x (a KeyCopier, as every layer is).
func (x *layer) forget(key algorithms.Key) { x.lim.(algorithms.KeyCopier).ForgetKey(key) }

// keySlots are one key's slots in the racy reads, in layers 0 to n−1.
type keySlots struct {
	// n is how many slots the key has, room how many records it has room
	// for from at.
	n, room, at int32
	// next is the slot to try first: the reads of a key are let go of
	// about in the order they were taken (their writes land in order), so
	// the slot after the latest taken is most likely free.
	next int32
	// home is the slot whose read is the key's state in a store in memory,
	// −1 for none (the store's own limiter, which holds nothing then). A
	// store outside the process takes every write: always −1.
	home int32
}

// hold takes the slot j of k, the key numbered id (the first when j is
// past its last), for gateway g's read at now, whose write lands at until,
// if it is free: its write has landed, it is not the key's home, and no
// gateway shows it (shows: every gateway's latest read) but g, whose
// latest read the new one replaces. decideRacy first tries the key's next
// slot: the reads of a key are let go of about in the order they were
// taken (their writes land in order).
func (r *reads) hold(k *keySlots, id, j int32, g int, now, until time.Duration, shows []racyRead) bool {
	if j >= k.n {
		if k.n == 0 {
			return false
		}
		j = 0
	}
	i := k.at + j
	if r.until[i] > now || j == k.home || int(r.by[i]) != g && shows[r.by[i]] == (racyRead{id, j}) {
		return false
	}
	r.until[i], r.by[i] = until, uint8(g)
	k.next = j + 1
	return true
}

// take is a free slot of key for hold's read when the key's next slot is
// not: another of the key's own, else a new one, in a new layer (see
// blank) when the key's slots reach the last.
func (r *reads) take(key algorithms.Key, g int, now, until time.Duration, shows []racyRead) int32 {
	id := key.ID()
	if id >= len(r.per) {
		r.grow(id)
	}
	k := &r.per[id]
	for i := int32(1); i < k.n; i++ {
		if r.hold(k, int32(id), (k.next+i)%k.n, g, now, until, shows) {
			return k.next - 1
		}
	}
	j := k.n
	if j == 0 {
		r.keys[id] = key
	}
	if j == k.room {
		// Move the key's records to the end, with room for twice as
		// many: a key's records stay together.
		at := int32(len(r.until))
		room := max(2, 2*k.room)
		r.until = append(r.until, make([]time.Duration, room)...)
		r.by = append(r.by, make([]uint8, room)...)
		copy(r.until[at:], r.until[k.at:k.at+k.n])
		copy(r.by[at:], r.by[k.at:k.at+k.n])
		k.at, k.room = at, room
	}
	k.n++
	k.next = j + 1
	r.until[k.at+j], r.by[k.at+j] = until, uint8(g)
	if int(j) == len(r.layers) {
		if id >= r.reach {
			// Make blank's chunks reach key: a state of it, forgotten.
			var d algorithms.Decision
			r.blank.DecideInto(&d, 0, key, 1)
			r.blank.(algorithms.KeyCopier).ForgetKey(key)
			r.reach = id + 1
		}
		r.layers = append(r.layers, newLayer(r.blank.Clone()))
	}
	return j
}

// grow makes the per-key tables reach the key numbered id.
func (r *reads) grow(id int) {
	old := len(r.per)
	r.per = extend(r.per, id+1)
	for i := old; i < len(r.per); i++ {
		r.per[i].home = -1
	}
	r.keys = extend(r.keys, id+1)
}

// unhome makes the store's own limiter the state of the key numbered id
// in a store in memory again, letting go of the read that was.
func (r *reads) unhome(id int) {
	if id < len(r.per) {
		r.per[id].home = -1
	}
}

// homeOf is the layer whose read is the state of the key numbered id in a
// store in memory, −1 for none.
func (r *reads) homeOf(id int) int32 {
	if id < len(r.per) {
		return r.per[id].home
	}
	return -1
}

// clone copies every layer (sharing their states until either side
// changes them) and the tables.
func (r *reads) clone() reads {
	c := *r
	c.layers = make([]layer, len(r.layers))
	for j, x := range r.layers {
		c.layers[j] = newLayer(x.lim.Clone())
	}
	if r.blank != nil {
		c.blank = r.blank.Clone()
	}
	c.keys = slices.Clone(r.keys)
	c.per = slices.Clone(r.per)
	c.until = slices.Clone(r.until)
	c.by = slices.Clone(r.by)
	return c
}

// bytes is what the tables of the racy reads take (their layers aside),
// and what a clone of them copies.
func (r *reads) bytes() (state, clone int64) {
	per, key := int64(unsafe.Sizeof(keySlots{})), int64(unsafe.Sizeof(algorithms.Key{}))
	state = int64(cap(r.per))*per + int64(cap(r.keys))*key + int64(cap(r.until))*8 + int64(cap(r.by))
	clone = int64(len(r.per))*per + int64(len(r.keys))*key + int64(len(r.until))*8 + int64(len(r.by))
	return state, clone
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
// The read is gateway g's latest from then on. It is the racy lane's whole
// cost beyond the shared lane's: its usual path (the key's next slot free,
// its home's copy and the decision in one call, the write queued) is
// inlined into it.
func (l *Limiter) decideRacy(d *algorithms.Decision, now, arrived time.Duration, key algorithms.Key, cost int64, g int) {
	if p := l.pending; len(p) > 0 && p[0].at <= arrived {
		if len(p) > 1 && p[1].at <= arrived {
			l.land(arrived)
		} else {
			// One write landed, as about one a request does on steady
			// traffic: land's loop once, inline (51 instructions a
			// decision as a call, 35 here).
			l.write(p[0].racyRead)
			l.pending = p[1:]
		}
	}
	r := &l.reads
	id := key.ID()
	until := arrived + l.cfg.Latency
	j := int32(-1)
	if id < len(r.per) {
		if k := &r.per[id]; r.hold(k, int32(id), k.next, g, arrived, until, l.latestRead) {
			j = k.next - 1
		}
	}
	if j < 0 {
		j = r.take(key, g, arrived, until, l.latestRead) // makes per reach id
	}
	x := &r.layers[j]
	switch h := r.per[id].home; {
	case h >= 0:
		x.cd.CopyDecideInto(d, r.layers[h].lim, now, key, cost)
	case r.inMem:
		x.forget(key) // the store holds nothing of key: it starts new
		x.lim.DecideInto(d, now, key, cost)
	default:
		x.forget(key) // what the slot held, if the store holds nothing
		x.cd.CopyDecideInto(d, l.gws[0], now, key, cost)
	}
	read := racyRead{int32(id), j}
	l.latestRead[g] = read
	if l.cfg.Latency == 0 {
		l.write(read)
		return
	}
	l.send(write{until, read})
}

// storeOf is the limiter holding key's state in the shared store: the read
// whose write landed last, in a store in memory, else the store's own.
func (l *Limiter) storeOf(key algorithms.Key) algorithms.Limiter {
	if h := l.reads.homeOf(key.ID()); h >= 0 {
		return l.reads.layers[h].lim
	}
	return l.gws[0]
}

// write lands read x in the shared store: in memory, the read becomes the
// key's state there; outside the process, the store takes the state (a
// plain write).
func (l *Limiter) write(x racyRead) {
	if r := &l.reads; r.inMem {
		r.per[x.id].home = x.layer
		return
	}
	l.writeOut(x)
}

// writeOut is write to a store outside the process.
func (l *Limiter) writeOut(x racyRead) {
	r := &l.reads
	l.gws[0].(algorithms.KeyCopier).CopyKey(r.layers[x.layer].lim, r.keys[x.id])
}

// land applies to the shared store the writes in flight that have landed
// by now, and drops them from pending (their slots are in flight no
// longer: their until has passed).
func (l *Limiter) land(now time.Duration) {
	for len(l.pending) > 0 && l.pending[0].at <= now {
		l.write(l.pending[0].racyRead)
		l.pending = l.pending[1:]
	}
}

// send queues w behind the writes in flight. pending is a window onto
// sent's array, its front the writes landed: when the window reaches the
// array's end, makeRoom moves it.
func (l *Limiter) send(w write) {
	if len(l.pending) == cap(l.pending) {
		l.makeRoom()
	}
	l.pending = append(l.pending, w)
}

// makeRoom moves the writes in flight to the front of sent's array if that
// leaves it at least half free, else to one twice as large, so that a
// steady flow of writes allocates nothing.
func (l *Limiter) makeRoom() {
	if n := len(l.pending); n > 0 && n <= cap(l.sent)/2 || n == 0 && cap(l.sent) > 0 {
		l.pending = l.sent[:copy(l.sent[:n], l.pending)]
	} else {
		l.sent = make([]write, 0, max(8, 2*n))
		l.pending = append(l.sent, l.pending...)
	}
}

// lose empties a racy store that restarted: every key as new, and the
// writes in flight found no store.
func (l *Limiter) lose() {
	for id := range l.reads.per {
		l.reads.unhome(id)
	}
	for _, w := range l.pending {
		l.reads.until[l.reads.per[w.id].at+w.layer] = 0 // in flight no longer
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
			return l.reads.layers[w.layer].lim.Snapshot(now, key)
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
	return l.reads.layers[x.layer].lim, true
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
			sh.Show(l.reads.keys[w.id], l.reads.layers[w.layer].lim) // in landing order: the last write wins
		}
	}
	return nil
}
