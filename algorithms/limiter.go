package algorithms

import (
	"reflect"
	"time"
	"unsafe"
)

// Limiter applies one Policy to many keys, each with its own state. It is
// not safe for concurrent use.
type Limiter interface {
	// Policy is the configuration the limiter was made with.
	Policy() Policy
	// Decide rules on a request of the given cost (≥ 1) from key at now and
	// updates that key's state. Times should not go backwards for a key: an
	// earlier now is decided as if it came at the latest time the key has
	// seen, and its Delay or RetryAfter is still counted from now (the
	// Decision's At), so that At + RetryAfter is when it would fit. now must
	// lie in [0, 2^62) ns (about 146 years). Decide panics if cost < 1.
	Decide(now time.Duration, key string, cost int64) Decision
	// DecideKey is Decide for a key numbered by the Keys the limiter was
	// made with (NewWithKeys), which saves looking the key up.
	DecideKey(now time.Duration, key Key, cost int64) Decision
	// DecideInto is DecideKey writing the decision into *d, which saves
	// copying a Decision on a caller's hot path. It writes the whole of *d.
	// It is the one of the three an implementation writes: Decide and
	// DecideKey come from the Decider it embeds.
	DecideInto(d *Decision, now time.Duration, key Key, cost int64)
	// Snapshot describes key's state as seen at now (≥ its last request)
	// without changing it. A key never seen is shown in its initial state.
	Snapshot(now time.Duration, key string) Snapshot
	// Clone returns an independent copy: deciding on one never changes the
	// other. The two share their states until either changes them, so a
	// clone is cheap whatever the state holds; see Memory.
	Clone() Limiter
	// Memory is what the state takes, shared with clones or not.
	Memory() Memory
	// KeyBytes is the size of key's state at now (≥ its last request), in
	// bytes: the fixed part every key has (its algorithm's state struct),
	// plus what it must still keep beside it at now: a sliding log's
	// admissions still inside the window, a leaky bucket's requests not yet
	// released, a sub-window counter's counts. Admissions expired and
	// requests released by now count nothing even if not yet dropped, and
	// the spare capacity of the chunks holding them, the key's name and its
	// share of the tables of keys are not counted. A key never seen is
	// measured in its initial state. key is numbered by the Keys the
	// limiter was made with (Keys.Key, or Keys.Lookup, which numbers none).
	KeyBytes(now time.Duration, key Key) int64
}

// Snapshot is an immutable picture of one key's state at a moment, for
// display. It is one of the *Snapshot types, each declared beside its
// algorithm; switch on its type.
type Snapshot interface {
	// Moment is the time the snapshot describes.
	Moment() time.Duration
}

// Decider gives a Limiter its Decide and DecideKey, written once here over
// the limiter's own DecideInto: an implementation embeds the Decider that
// NewDecider makes for it, and gives each of its clones one of their own.
type Decider struct {
	into interface {
		DecideInto(d *Decision, now time.Duration, key Key, cost int64)
	}
	ids *Keys
	// named is the key Decide looked up last (its id −1 before the first):
	// a run of requests of one key skips the map.
	named Key
	// d is the decision being made: a local's address passed through an
	// interface would move it to the heap, one allocation a decision.
	d Decision
}

// NewDecider is the Decider of l, a limiter whose keys ks numbers.
func NewDecider(l interface {
	DecideInto(d *Decision, now time.Duration, key Key, cost int64)
}, ks *Keys) Decider {
	return Decider{into: l, ids: ks, named: Key{id: -1}}
}

// Decide is the limiter's DecideInto for a key by name, returning the
// decision.
func (h *Decider) Decide(now time.Duration, key string, cost int64) Decision {
	if h.named.id < 0 || key != h.named.name {
		h.named = h.ids.Key(key)
	}
	h.into.DecideInto(&h.d, now, h.named, cost)
	return h.d
}

// DecideKey is the limiter's DecideInto returning the decision.
func (h *Decider) DecideKey(now time.Duration, key Key, cost int64) Decision {
	h.into.DecideInto(&h.d, now, key, cost)
	return h.d
}

// New makes the Limiter for p, or says why p is invalid.
func New(p Policy) (Limiter, error) { return NewWithKeys(p, NewKeys()) }

// NewWithKeys makes the Limiter for p numbering keys by ks, which other
// limiters may share (see Keys).
func NewWithKeys(p Policy, ks *Keys) (Limiter, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return Describe(p.Algorithm).new(p, ks), nil
}

// lateNote prefixes an explanation when the request arrived (d.At) before
// the key's latest time eff and was decided as if at eff.
//
// It is an argument of appendf: its text is appended when the explanation
// is, without allocating.
func lateNote(d *Decision, eff time.Duration) lateArg { return lateArg{d.At, eff, d.times} }

// lateArg is lateNote's text: a request's arrival and the time it was
// decided at, written in the form t.
type lateArg struct {
	at, eff time.Duration
	t       Times
}

func (l lateArg) appendTo(b []byte) []byte {
	if l.eff <= l.at {
		return b
	}
	b = l.t.seconds(append(b, "arrived at "...), l.at)
	b = l.t.seconds(append(b, ", before this key's latest request: decided as at "...), l.eff)
	return append(b, "; "...)
}

// retryFrom writes a rejection's wait counted from eff, the time it was
// decided at, and for a late request also RetryAfter, counted from arrival.
// It is an argument of appendf, like lateNote.
func retryFrom(d *Decision, eff time.Duration) retryArg {
	return retryArg{d.At, eff, d.RetryAfter, d.times}
}

// retryArg is retryFrom's text, written in the form t.
type retryArg struct {
	at, eff, retryAfter time.Duration
	t                   Times
}

func (r retryArg) appendTo(b []byte) []byte {
	b = r.t.seconds(b, r.retryAfter-(r.eff-r.at))
	if r.eff <= r.at {
		return b
	}
	return append(r.t.seconds(append(b, ", "...), r.retryAfter), " after arrival"...)
}

// algorithm is one limiter's rule for a single key, as a pure transition.
// Implementations are pointers to immutable policy data, shared by clones.
type algorithm[S any] interface {
	policy() *Policy
	// start is the state of a key first seen at now.
	start(now time.Duration) S
	// decide moves *s to the key's next state and returns the decision,
	// complete. cost ≥ 1. m is the deciding instance's memory account.
	decide(s *S, m *mem, now time.Duration, cost int64) Decision
	// snapshot describes s at now without changing it.
	snapshot(s S, now time.Duration) Snapshot
	// clone copies what of s is its own (a fifo's table of chunks),
	// sharing the rest, for the instance of account m.
	clone(s *S, m *mem) S
	// tables is the bytes of what of s is its own, beside the state itself.
	tables(s *S) int64
}

// renamed is an algorithm that decides exactly as alg under another
// policy's names: a library whose rule is a textbook algorithm's (Envoy's
// buckets, redis_rate's GCRA). Its decisions carry its policy and its
// explanation; everything else is alg's.
type renamed[S any] struct {
	p       Policy
	alg     algorithm[S]
	explain func(b []byte, d Decision) []byte
}

func (r *renamed[S]) policy() *Policy           { return &r.p }
func (r *renamed[S]) start(now time.Duration) S { return r.alg.start(now) }
func (r *renamed[S]) clone(s *S, m *mem) S      { return r.alg.clone(s, m) }
func (r *renamed[S]) tables(s *S) int64         { return r.alg.tables(s) }
func (r *renamed[S]) snapshot(s S, now time.Duration) Snapshot {
	return r.alg.snapshot(s, now)
}

func (r *renamed[S]) decide(s *S, m *mem, now time.Duration, cost int64) Decision {
	d := r.alg.decide(s, m, now, cost)
	d.policy, d.explain = &r.p, r.explain
	return d
}

// encode and decode are alg's, whose description's StateForm the renamed
// algorithm's repeats.
func (r *renamed[S]) encode(s *S) State { return r.alg.(codec[S]).encode(s) }
func (r *renamed[S]) decode(st State, m *mem) (S, error) {
	return r.alg.(codec[S]).decode(st, m)
}

// dropItems is alg's, when it keeps items in chunks of its own.
func (r *renamed[S]) dropItems(s *S, m *mem) {
	if h, ok := r.alg.(itemHolder[S]); ok {
		h.dropItems(s, m)
	}
}

// held is alg's, when it keeps items beside its state.
func (r *renamed[S]) held(s S, now time.Duration) int64 {
	if h, ok := r.alg.(holder[S]); ok {
		return h.held(s, now)
	}
	return 0
}

// keyChunk is how many keys' states one chunk holds.
const keyChunk = 16

type slot[S any] struct {
	s    S
	seen bool
}

// stateChunk is the states of keyChunk keys, shared by a limiter and its
// clones until one of them changes one of those states: it then decides on
// a copy of its own (copy on write).
type stateChunk[S any] struct {
	slots [keyChunk]slot[S]
	epoch uint64
}

// keyed holds one state per key for an algorithm, in chunks shared with
// clones: a Clone copies one pointer per keyChunk keys; a state is copied,
// with the others of its chunk, when first changed after a Clone.
type keyed[S any] struct {
	Decider
	alg algorithm[S]
	// held is alg's own holder method, nil if it has none (see KeyBytes).
	held func(s S, now time.Duration) int64
	// ids numbers the keys, the same numbers for the limiter and every
	// clone of it (whichever saw a key first): a clone needs no copy of a
	// map.
	ids    *Keys
	chunks []*stateChunk[S]
	seen   int // keys with a state
	m      mem
	// plain is whether S is a plain value (plainValue), and saved the
	// state saveKey kept aside.
	plain bool
	saved savedState[S]
	// copier is alg's own copyState (see copier), nil if it has none, and
	// items its dropItems (see itemHolder).
	copier copier[S]
	items  itemHolder[S]
	// rewinder is alg's own rewind (see rewinder), nil if it has none.
	rewinder rewinder[S]
	// aside is the account of saved.s when it is a copy (copyState): not
	// k's state, and not counted in its Memory.
	aside mem
}

// savedState is a key's state kept aside by saveKey: s when the
// algorithm's states are plain values or have a copier, st when they must
// be encoded, and had false for a key with no state.
type savedState[S any] struct {
	s   S
	st  State
	had bool
	// bytes and dropped are the instance's account when a rewinder's
	// state was saved (see keyed.restoreKey).
	bytes, dropped int64
}

func newKeyed[S any](alg algorithm[S], ids *Keys) *keyed[S] {
	k := &keyed[S]{alg: alg, ids: ids, m: mem{epoch: newEpoch()}, plain: plainValue(reflect.TypeFor[S]())}
	k.Decider = NewDecider(k, ids)
	if h, ok := alg.(holder[S]); ok {
		k.held = h.held
	}
	k.copier = copierOf(alg)
	if c, ok := k.copier.(rewinder[S]); ok {
		k.rewinder = c
	}
	k.items, _ = alg.(itemHolder[S])
	return k
}

// copierOf is alg as a copier, or the algorithm it renames as one; nil if
// neither is.
func copierOf[S any](alg algorithm[S]) copier[S] {
	if r, ok := alg.(*renamed[S]); ok {
		alg = r.alg
	}
	c, _ := alg.(copier[S])
	return c
}

// holder is an algorithm whose key state keeps items beside its struct
// (logged admissions, waiting requests, a table of counts): held is their
// bytes at now (≥ the state's last request), counting only what must still
// be kept then. See Limiter.KeyBytes.
type holder[S any] interface {
	held(s S, now time.Duration) int64
}

func (k *keyed[S]) Policy() Policy { return *k.alg.policy() }

func (k *keyed[S]) DecideInto(d *Decision, now time.Duration, key Key, cost int64) {
	if cost < 1 {
		panic("algorithms: cost must be at least 1")
	}
	*d = k.alg.decide(k.slot(key.id, now), &k.m, now, cost)
}

// slot is the state of the key numbered i, this instance's own to change,
// started at now if new.
func (k *keyed[S]) slot(i int, now time.Duration) *S {
	s, _ := k.slotSeen(i, now)
	return &s.s
}

// slotSeen is slot's, and whether the key had a state before.
func (k *keyed[S]) slotSeen(i int, now time.Duration) (*slot[S], bool) {
	c := i / keyChunk
	if c >= len(k.chunks) || k.chunks[c].epoch != k.m.epoch {
		k.own(c)
	}
	s := &k.chunks[c].slots[i%keyChunk]
	if s.seen {
		return s, true
	}
	s.s, s.seen = k.alg.start(now), true
	k.seen++
	return s, false
}

// own makes chunk c exist and be this instance's own, copying it if shared.
func (k *keyed[S]) own(c int) {
	size := int64(unsafe.Sizeof(stateChunk[S]{}))
	for len(k.chunks) <= c {
		if len(k.chunks) == cap(k.chunks) {
			old := int64(cap(k.chunks)) * 8
			k.chunks = append(make([]*stateChunk[S], 0, max(4, 2*len(k.chunks))), k.chunks...)
			k.m.bytes += int64(cap(k.chunks))*8 - old
		}
		k.chunks = append(k.chunks, &stateChunk[S]{epoch: k.m.epoch})
		k.m.bytes += size
	}
	old := k.chunks[c]
	if old.epoch == k.m.epoch {
		return
	}
	n := &stateChunk[S]{slots: old.slots, epoch: k.m.epoch}
	for j := range n.slots {
		if n.slots[j].seen {
			n.slots[j].s = k.alg.clone(&old.slots[j].s, &k.m)
			k.m.release(k.alg.tables(&old.slots[j].s), old.epoch)
		}
	}
	k.m.bytes += size
	k.m.release(size, old.epoch)
	k.chunks[c] = n
}

// state is key's state, or nil for a key never decided.
func (k *keyed[S]) state(key string) *S {
	id, _ := k.ids.Lookup(key)
	if s := k.seenSlot(id.id); s != nil {
		return &s.s
	}
	return nil
}

// seenSlot is the slot of the key numbered id if it has a state (in a
// chunk possibly shared with clones: read it, do not change it), else nil.
func (k *keyed[S]) seenSlot(id int) *slot[S] {
	if id < 0 || id/keyChunk >= len(k.chunks) {
		return nil
	}
	if s := &k.chunks[id/keyChunk].slots[id%keyChunk]; s.seen {
		return s
	}
	return nil
}

func (k *keyed[S]) Snapshot(now time.Duration, key string) Snapshot {
	if s := k.state(key); s != nil {
		return k.alg.snapshot(*s, now)
	}
	return k.alg.snapshot(k.alg.start(now), now)
}

// KeyBytes is the struct's size plus what the algorithm's holder method, if
// it has one, says the state keeps beside it; see Limiter.KeyBytes.
func (k *keyed[S]) KeyBytes(now time.Duration, key Key) int64 {
	var st S
	if s := k.seenSlot(key.id); s != nil {
		st = s.s
	} else {
		st = k.alg.start(now)
	}
	n := int64(unsafe.Sizeof(st))
	if k.held != nil {
		n += k.held(st, now) // by value: a pointer passed to a func value would escape
	}
	return n
}

// Clone shares every state with k: both take a new epoch, so that each
// copies a chunk before changing it. The clone starts as a copy of the
// whole of k, so that a field added to keyed is carried over; only what
// must differ is reset or copied below (TestCloneCarriesEveryField lists
// those fields and checks that every other one is k's).
func (k *keyed[S]) Clone() Limiter {
	k.m.epoch = newEpoch()
	c := new(keyed[S])
	*c = *k
	c.Decider = NewDecider(c, k.ids)
	c.chunks = append([]*stateChunk[S](nil), k.chunks...)
	c.m = mem{epoch: newEpoch(), bytes: k.m.bytes - int64(cap(k.chunks))*8 + int64(cap(c.chunks))*8}
	c.saved, c.aside = savedState[S]{}, mem{} // what saveKey kept aside is k's alone
	cloned(c.m.epoch)
	return c
}

// Memory is what k's state takes; see Memory.
func (k *keyed[S]) Memory() Memory {
	self := int64(unsafe.Sizeof(keyed[S]{}))
	return Memory{State: k.m.bytes + self, Clone: int64(len(k.chunks))*8 + self, Dropped: k.m.dropped}
}

// KeyCopier is a Limiter that can take one key's state from another
// limiter of the same policy and Keys (a clone of it, or the limiter it was
// cloned from): what a store does when a gateway writes back the state it
// decided on (package fleet's racy store).
type KeyCopier interface {
	// CopyKey sets key's state to src's; a key src never saw is left as it
	// is. src must have been made by the same algorithm and policy.
	CopyKey(src Limiter, key Key)
	// ForgetKey drops key's state (see keyed.ForgetKey).
	ForgetKey(key Key)
}

// CopyKey takes key's state from src: from a keyed limiter of the same
// algorithm, a copy of its own, as a clone's first change of it would make;
// from any other (a store outside the process), through its StateCodec. It
// panics if src's state is not one of k's policy.
func (k *keyed[S]) CopyKey(src Limiter, key Key) { k.copyKey(src, key) }

// copyKey is CopyKey, returning key's state in k when it set it from one
// in memory (nil when it left the key as it was, or imported it).
func (k *keyed[S]) copyKey(src Limiter, key Key) *S {
	other, ok := src.(*keyed[S])
	if !ok {
		if st, ok := src.(StateCodec).ExportKey(key); ok {
			if err := k.ImportKey(key, st); err != nil {
				panic("algorithms: CopyKey: " + err.Error())
			}
		}
		return nil
	}
	s := other.seenSlot(key.id)
	if s == nil || other == k {
		return nil // nothing to take, or the state already
	}
	// s is in a chunk of other's, which k.slot never changes: it makes k's
	// chunk its own by copying, when shared. What dst and s both reach (a
	// log's chunks, shared by an earlier copy or a Clone) neither instance
	// owns, so dropping dst's changes nothing s reaches.
	dst := k.slot(key.id, 0)
	switch {
	case k.plain:
		*dst = s.s // a whole copy, holding nothing beside itself
	case k.copier != nil:
		k.copier.copyState(dst, &s.s, &k.m, &other.m)
	default:
		k.discard(dst)
		*dst = k.alg.clone(&s.s, &k.m)
	}
	return dst
}

// CopyDecider is a limiter's CopyKey followed by its DecideInto, in one
// call: a racy gateway's read of a key from the store and its decision on
// what it read (package fleet).
type CopyDecider interface {
	// CopyDecideInto is CopyKey(src, key), then DecideInto(d, now, key,
	// cost).
	CopyDecideInto(d *Decision, src Limiter, now time.Duration, key Key, cost int64)
}

// CopyDeciderOf is l's CopyDecider: for a limiter of this package's that
// keeps its states in memory, one that finds the key's state once for the
// copy and the decision (and calls no method through an interface between
// them); for any other, one that calls CopyKey and DecideInto. l must be a
// KeyCopier.
func CopyDeciderOf(l Limiter) CopyDecider {
	if k, ok := l.(interface{ copyDecider() CopyDecider }); ok {
		if c := k.copyDecider(); c != nil {
			return c
		}
	}
	return copyThenDecide{l, l.(KeyCopier)}
}

// copyThenDecide is the CopyDecider of any KeyCopier: its two calls.
type copyThenDecide struct {
	lim Limiter
	cp  KeyCopier
}

func (c copyThenDecide) CopyDecideInto(d *Decision, src Limiter, now time.Duration, key Key, cost int64) {
	c.cp.CopyKey(src, key)
	c.lim.DecideInto(d, now, key, cost)
}

// copyDeciding is a keyed limiter as its own CopyDecider. A type of its
// own, not a method of keyed: a limiter that embeds a keyed one (nginx's
// zone, which keeps a queue of keys beside their states) would take the
// method as its own and skip its own CopyKey and DecideInto.
type copyDeciding[S any] keyed[S]

// copyDecider is k as a CopyDecider, nil when k is embedded in another
// limiter (its Decider decides through the other's DecideInto).
func (k *keyed[S]) copyDecider() CopyDecider {
	if k.into != any(k) {
		return nil
	}
	return (*copyDeciding[S])(k)
}

// CopyDecideInto decides on the state the copy set, without looking the
// key's state up again.
func (c *copyDeciding[S]) CopyDecideInto(d *Decision, src Limiter, now time.Duration, key Key, cost int64) {
	k := (*keyed[S])(c)
	if cost < 1 {
		panic("algorithms: cost must be at least 1")
	}
	s := k.copyKey(src, key)
	if s == nil {
		s = k.slot(key.id, now)
	}
	*d = k.alg.decide(s, &k.m, now, cost)
}

// copier is an algorithm whose states hold something beside their struct
// (a log's or a queue's chunks, a table of counts, a library's limiters):
// copyState sets *dst, a state of the instance of account m in a chunk of
// its own, to src's, a state of another instance of account from. The
// copy shares src's items, which it leaves owned by neither instance (as a
// Clone does: whichever changes them first copies them), adding their
// bytes to m; what dst holds of its own it gives back to m, or reuses to
// hold src's numbers, so that copying again allocates nothing.
type copier[S any] interface {
	copyState(dst, src *S, m, from *mem)
}

// discard gives back to k's account what *s holds beside itself (a table
// of counts, a log's or a queue's chunks), before *s is overwritten.
func (k *keyed[S]) discard(s *S) {
	k.m.release(k.alg.tables(s), k.m.epoch)
	if k.items != nil {
		k.items.dropItems(s, &k.m)
	}
}

// itemHolder is an algorithm whose state keeps items in chunks of its own
// (a log's admissions, a queue's requests), accounted as they come and go
// rather than by tables: dropItems gives them all back to m.
type itemHolder[S any] interface {
	dropItems(s *S, m *mem)
}

// ForgetKey drops key's state, as a store's expiry of an idle key does: its
// next request finds it as new. A key never seen is left as it is.
func (k *keyed[S]) ForgetKey(key Key) {
	if k.seenSlot(key.id) == nil {
		return
	}
	c := key.id / keyChunk
	if k.chunks[c].epoch != k.m.epoch {
		k.own(c)
	}
	s := &k.chunks[c].slots[key.id%keyChunk]
	k.discard(&s.s)
	var zero S
	s.s, s.seen = zero, false
	k.seen--
}

// Maker makes the limiter of a valid policy, its keys numbered by ks:
// NewWithKeys, which keeps states in memory, or a store's, which keeps them
// outside the process (package redisstore).
type Maker func(p Policy, ks *Keys) (Limiter, error)

// keySaver is a limiter that can keep one key's state aside and put it
// back: what a stack does around a request that one layer refuses.
type keySaver interface {
	// saveKey keeps key's state (or that it has none) until the next
	// saveKey; restoreKey puts it back.
	saveKey(key Key)
	restoreKey(key Key)
	// saveDecide is saveKey and then DecideInto: a stack's layer deciding
	// in one call.
	saveDecide(d *Decision, now time.Duration, key Key, cost int64)
}

func (k *keyed[S]) saveDecide(d *Decision, now time.Duration, key Key, cost int64) {
	if !k.plain {
		k.saveKey(key)
		k.DecideInto(d, now, key, cost)
		return
	}
	// A plain value is saved from the slot the decision changes: one
	// look-up for both.
	if cost < 1 {
		panic("algorithms: cost must be at least 1")
	}
	s, had := k.slotSeen(key.id, now)
	if k.saved.had = had; had {
		k.saved.s = s.s
	}
	*d = k.alg.decide(&s.s, &k.m, now, cost)
}

// saveKey keeps key's state in k.saved. A state that is a plain value (no
// pointer, slice or map: a bucket, a window, a TAT) is copied as it is,
// allocating nothing; one that holds items beside its struct is copied by
// its algorithm's copyState into a state kept aside, which shares a log's
// items (left owned by neither, so that deciding changes nothing the copy
// sees) and copies a table of counts into the copy's own (allocating only
// the first time); any other would be encoded as ExportKey does.
func (k *keyed[S]) saveKey(key Key) {
	s := k.seenSlot(key.id)
	k.saved.had = s != nil
	switch {
	case s == nil:
	case k.plain:
		k.saved.s = s.s
	case k.copier != nil:
		if k.aside.epoch == 0 {
			k.aside = mem{epoch: newEpoch(), aside: true}
		}
		live := &s.s
		if k.rewinder != nil {
			// The decision will write the key's state: its chunk of
			// states is made k's own now, before the account is read.
			live = k.slot(key.id, 0)
		}
		k.copier.copyState(&k.saved.s, live, &k.aside, &k.m)
		k.saved.bytes, k.saved.dropped = k.m.bytes, k.m.dropped
	default:
		k.saved.st = k.alg.(codec[S]).encode(&s.s)
	}
}

// restoreKey puts back the state saveKey kept for key.
func (k *keyed[S]) restoreKey(key Key) {
	switch {
	case !k.saved.had:
		k.ForgetKey(key)
	case k.plain:
		*k.slot(key.id, 0) = k.saved.s
	case k.copier != nil:
		dst := k.slot(key.id, 0)
		if k.rewinder == nil {
			k.copier.copyState(dst, &k.saved.s, &k.m, &k.aside)
			return
		}
		// A log's state is back as it was saved: the same chunks, less
		// what the decision appended in place (rewind), and the account
		// as it was then. Putting back through free and share alone would
		// count the log's full chunks as let go (dropped) on every
		// refusal, though the state holds them again, and that would
		// leave the lab's checkpoints no budget.
		k.rewinder.rewind(dst, &k.saved.s)
		k.copier.copyState(dst, &k.saved.s, &k.m, &k.aside)
		k.m.bytes, k.m.dropped = k.saved.bytes, k.saved.dropped
	default:
		if err := k.ImportKey(key, k.saved.st); err != nil {
			panic("algorithms: a stack cannot put back its own state: " + err.Error())
		}
	}
}

// rewinder is a copier whose states' logs give back, when a stack puts a
// saved state back in the same decision, what the decision appended to
// them in place (see fifo.rewind): live is the key's state, saved the copy
// saveKey made of it.
type rewinder[S any] interface {
	rewind(live, saved *S)
}

// plainValue reports whether values of t hold no pointer, slice, map,
// channel, func, interface or string: whether a copy of one is a whole
// independent copy.
func plainValue(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return plainValue(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainValue(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
