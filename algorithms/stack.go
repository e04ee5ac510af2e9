package algorithms

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"time"
	"unsafe"
)

// Layer is one policy of a stack of limits (see NewStack).
type Layer struct {
	// Name tells the layer apart in explanations: "per-account", "total".
	Name   string
	Policy Policy
	// AllKeys makes the layer one allowance that every key spends
	// together ("200 in total"), instead of one per key.
	AllKeys bool
}

// Scope is "per key" or "all keys together".
func (l Layer) Scope() string { return scopeOf(l).String() }

// layerScope is a layer's scope, as a Decision of a stack of one policy
// keeps it: 0 for a decision of no stack.
type layerScope uint8

const (
	scopePerKey layerScope = 1 + iota
	scopeAllKeys
)

func scopeOf(l Layer) layerScope {
	if l.AllKeys {
		return scopeAllKeys
	}
	return scopePerKey
}

// String is "per key" or "all keys together" ("" for no scope).
func (s layerScope) String() string {
	switch s {
	case scopePerKey:
		return "per key"
	case scopeAllKeys:
		return "all keys together"
	}
	return ""
}

// MaxLayers bounds the layers of a stack (NewStack): a stack decides
// every layer's verdict into an array of this size.
const MaxLayers = 4

// AllKeysKey is the key a layer over all keys keeps its one state under: a
// name no request key can have (request keys hold no control character).
const AllKeysKey = "\x00all"

// stack applies several policies to each request: it is admitted only if
// every layer admits it, and then spent in every layer; a request one layer
// refuses leaves every layer as it was, as nginx's several limit_req zones
// do (they account a request only once the last zone admits it). A stack
// of nginx-limit-req policies decides as nginx's location (see
// DecideInto).
type stack struct {
	Decider
	layers []Layer
	lims   []Limiter
	// savers are lims as what decides a request in a stack (stackLayer).
	savers []stackLayer
	// copied has bit i set for a layer whose state is a plain value of at
	// most stackWords words (not an nginx zone): its record is the key's
	// state before the request, from which the explanation decides it
	// again, and a refusal leaves its state as it was (see peekState).
	// The others save the state as they decide and put it back, and
	// their records are their numbers (see recordInto). nums is where a
	// decision's record is gathered, layer i's from offs[i]; words[i] is
	// how many it takes, and in[i] the key's state that layer i decided
	// on in place (nil when it decided on a copy).
	copied uint8
	// plain is set when every layer is copied and the stack is not
	// nginx's: it decides by decidePlain.
	plain bool
	nums  [stackWords * MaxLayers]int64
	offs  [MaxLayers]int
	words [MaxLayers]int
	in    [MaxLayers]unsafe.Pointer
	// allKeys has bit i set for a layer over all keys.
	allKeys uint8
	ids     *Keys
	all     Key // AllKeysKey in ids
	// verdicts is where the layers decide a request, before a decision of
	// several layers copies their numbers into a record.
	verdicts [MaxLayers]Decision
	// info explains the decisions of several layers (nil for one), shared
	// by clones; recs is this instance's chunk of their records (see
	// stack_explain.go).
	info *stackInfo
	recs stackRecords
	// scratch is where a decision's record is written.
	scratch [stackRecordMax]byte
	// nginx is set for several layers all nginx-limit-req: they decide as
	// ngx_http_limit_req_handler applies a location's limit_req lines
	// (see DecideInto). zones are its layers that have a zone (nil for the
	// others), and dryRun is the location's limit_req_dry_run, which every
	// layer gives alike: the layers themselves decide without it.
	nginx  bool
	zones  []*nginxZone
	dryRun bool
}

// StackMayDelay reports whether policies may stack although some can
// delay: only when every one is of an algorithm whose delays stack as
// nginx's zones do (Description.DelaysInAStack). Otherwise a request
// waiting in one queue while another policy has spent it has no single
// answer.
func StackMayDelay(ps ...Policy) bool {
	for _, p := range ps {
		if !Describe(p.Algorithm).DelaysInAStack {
			return false
		}
	}
	return len(ps) > 0
}

// CheckStack says whether layers can be one stack as NewStack makes it
// (the counts aside): -1 and nil when they can, else the index of the
// first layer that cannot and why. Every layer must admit or refuse at
// once, unless StackMayDelay holds for them all; a zone or dry_run
// stacks only with nginx-limit-req policies, and dry_run, which is
// nginx's location's, is on every layer or on none.
func CheckStack(layers []Layer) (int, error) {
	mayDelay := StackMayDelay(policiesOf(layers)...)
	nginx := nginxStack(layers)
	for i, l := range layers {
		p := l.Policy
		switch {
		case p.MaxDelay() > 0 && !mayDelay:
			return i, fmt.Errorf("%s delays requests, and a stack's policies must each admit or refuse at once", p.Algorithm)
		case len(layers) > 1 && (p.DryRun || p.MaxKeys() > 0) && !nginx:
			return i, errors.New("a zone or dry_run stacks only with nginx-limit-req policies (a location's limit_req lines); leave it out here, or make every policy nginx-limit-req")
		case nginx && p.DryRun != layers[0].Policy.DryRun:
			return i, errors.New("dry_run applies to all of a stack's policies (nginx's limit_req_dry_run is the location's): give it to every one or to none")
		}
	}
	return -1, nil
}

// nginxStack says whether layers are several nginx-limit-req policies,
// which decide as a location's limit_req lines.
func nginxStack(layers []Layer) bool {
	return len(layers) > 1 && !slices.ContainsFunc(layers, func(l Layer) bool { return l.Policy.Algorithm != NginxLimitReq })
}

// policiesOf is the layers' policies.
func policiesOf(layers []Layer) []Policy {
	ps := make([]Policy, len(layers))
	for i, l := range layers {
		ps[i] = l.Policy
	}
	return ps
}

// NewStack makes the limiter of a stack of layers (1 to MaxLayers),
// numbering keys by ks. Every layer must admit or refuse at once (a layer
// that can delay, a Policy with MaxDelay above 0, is refused), unless
// StackMayDelay holds for them all.
func NewStack(layers []Layer, ks *Keys) (Limiter, error) {
	if len(layers) == 0 {
		return nil, fmt.Errorf("a stack needs at least one policy")
	}
	if len(layers) > MaxLayers {
		return nil, fmt.Errorf("a stack takes at most %d policies, not %d", MaxLayers, len(layers))
	}
	// A copy of the caller's layers: a decision's explanation reads them
	// however long after.
	layers = slices.Clone(layers)
	if i, err := CheckStack(layers); err != nil {
		return nil, fmt.Errorf("policy %s: %w", layers[i].Name, err)
	}
	s := &stack{layers: layers, ids: ks, all: ks.Key(AllKeysKey)}
	s.Decider = NewDecider(s, ks)
	s.nginx = nginxStack(layers)
	s.dryRun = s.nginx && layers[0].Policy.DryRun
	for _, l := range layers {
		p := l.Policy
		if s.nginx {
			p.DryRun = false // the stack lets through what they refuse
		}
		lim, err := NewWithKeys(p, ks)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", l.Name, err)
		}
		s.lims = append(s.lims, lim)
	}
	if s.nginx {
		s.zones = zonesOf(s.lims)
	}
	s.savers, s.copied = saversOf(s.lims)
	for i, l := range layers {
		if l.AllKeys {
			s.allKeys |= 1 << i
		}
	}
	if len(layers) > 1 {
		s.info = newStackInfo(layers, s.savers, s.copied)
		s.plain = s.copied == s.info.all && !s.nginx
		for i := range layers {
			s.words[i] = s.info.words[i]
			if i > 0 {
				s.offs[i] = s.offs[i-1] + s.info.words[i-1]
			}
		}
	}
	return s, nil
}

// saversOf is each limiter as a stackLayer (every limiter NewWithKeys
// makes is one), and the bits of those whose records are their states
// (see stack.copied).
func saversOf(lims []Limiter) ([]stackLayer, uint8) {
	savers := make([]stackLayer, len(lims))
	var copied uint8
	for i, lim := range lims {
		savers[i] = lim.(stackLayer)
		if _, zone := lim.(*nginxZone); !zone && savers[i].plainState() && savers[i].stateWords() <= stackWords {
			copied |= 1 << i
		}
	}
	return savers, copied
}

// stackLayer is a limiter as a stack's layer decides with it: saving the
// key's state and putting it back (keySaver), or deciding on a copy of a
// plain state (peekInto) and keeping the copy once every layer admits
// (keepPeeked).
type stackLayer interface {
	keySaver
	nodePeeker
	keepPeeked(id int, now time.Duration)
	plainState() bool
	// peekState decides the request writing the key's state before it
	// into words (stateWords of them): in place when the key has a state
	// of the limiter's own, returned so that the stack puts words back
	// there if another layer refuses, else on a copy (nil), which
	// keepPeeked keeps. redecider decides a request again from such words.
	peekState(d *Decision, now time.Duration, id int, cost int64, words *[stackWords]int64) unsafe.Pointer
	stateWords() int
	redecider() func(words [stackWords]int64, at time.Duration, cost int64) Decision
}

// zonesOf is each limiter as an nginx zone, nil for one that is not.
func zonesOf(lims []Limiter) []*nginxZone {
	zones := make([]*nginxZone, len(lims))
	for i, lim := range lims {
		zones[i], _ = lim.(*nginxZone)
	}
	return zones
}

// policies are the layers' policies.
func (s *stack) policies() []Policy { return policiesOf(s.layers) }

// Layers are the stack's layers, in order.
func (s *stack) Layers() []Layer { return s.layers }

// LayerSnapshot is layer i's state for key at now (its one state, for a
// layer over all keys).
func (s *stack) LayerSnapshot(i int, now time.Duration, key string) Snapshot {
	if s.layers[i].AllKeys {
		key = AllKeysKey
	}
	return s.lims[i].Snapshot(now, key)
}

// Stacked is a limiter of several layers (NewStack).
type Stacked interface {
	Layers() []Layer
	LayerSnapshot(i int, now time.Duration, key string) Snapshot
}

func (s *stack) Policy() Policy { return s.layers[0].Policy }

func (s *stack) keyOf(i int, key Key) Key {
	if s.allKeys&(1<<i) != 0 {
		return s.all
	}
	return key
}

// DecideInto decides the request in every layer in order. If one refuses,
// every layer's state for the request's key is put back; the decision is
// the first refusal's, with RetryAfter the longest of the refusals' (no
// layer admits sooner) and every layer's reasoning in its explanation. If
// all admit, it is the first layer's, or, when layers delay it (a stack
// StackMayDelay allows), the layer's that delays it longest, the last of
// those that tie (nginx names that zone in its log): every layer has
// accounted it at its arrival, and it waits the longest of their delays.
//
// A stack of one policy decides as that policy, marked with its scope. A
// stack of several writes every layer's numbers into a record, which the
// decision's explanation reads however long after it is asked: in the
// decision itself when it fits, else in a chunk of records, allocated
// once it is full (see stack_explain.go). A layer whose states are plain
// values writes the key's state before the request into the record and
// decides in place on the key's state when it is the layer's own, those
// words put back after a refusal; else on a copy, which becomes the key's
// only once every layer admits (see peekState). Any other saves the
// state as it decides and puts it back after a refusal, copies sharing a
// log's chunks (see keyed.saveKey): it allocates nothing, but a layer
// whose log a refusal put back copies the log's newest chunk when it next
// logs an admission.
//
// A stack of nginx-limit-req layers decides as ngx_http_limit_req_handler
// applies a location's limit_req lines (nginx 1.22's
// ngx_http_limit_req_module.c): it looks the request up in each zone in
// order (ngx_http_limit_req_lookup) and stops at the first that refuses
// it. Each zone it was looked up in keeps what the lookup did: the key's
// node moved to the front of its queue, or made (freeing others to make
// room), bare if the request is then refused (see nginxState); only if
// none refuses is it accounted in every zone
// (ngx_http_limit_req_account). A zone after the refusing one is not
// looked up: its verdict, for the wait and the explanation, is decided on
// a copy of the key's node. With dry_run the request is decided and
// accounted the same, and let through at once.
func (s *stack) DecideInto(d *Decision, now time.Duration, key Key, cost int64) {
	if len(s.lims) == 1 {
		// One policy (a lane over all keys): nothing to put back; it
		// decides as that policy alone.
		s.lims[0].DecideInto(d, now, s.keyOf(0, key), cost)
		d.scope = scopeOf(s.layers[0])
		return
	}
	if cost < 1 {
		panic("algorithms: cost must be at least 1")
	}
	if s.plain {
		s.decidePlain(d, now, key, cost)
		return
	}
	verdicts := s.verdicts[:len(s.lims)]
	refused := -1
	var wait time.Duration
	for i, sv := range s.savers {
		v, k := &verdicts[i], s.keyOf(i, key)
		switch {
		case s.copied&(1<<i) != 0:
			s.in[i] = sv.peekState(v, now, k.id, cost, (*[stackWords]int64)(s.nums[s.offs[i]:]))
		case s.nginx && refused >= 0:
			// A copy decides: for an nginx zone after the refusing one,
			// which nginx does not look the request up in, for the wait
			// and the explanation.
			sv.peekInto(v, now, k, cost)
		default:
			sv.saveDecide(v, now, k, cost)
		}
		if v.Outcome == Rejected {
			if refused < 0 {
				refused = i
			}
			wait = max(wait, v.RetryAfter)
		}
	}
	if refused < 0 {
		longest := 0
		for i, sv := range s.savers {
			if s.copied&(1<<i) != 0 && s.in[i] == nil {
				sv.keepPeeked(s.keyOf(i, key).id, now)
			}
			if verdicts[i].Delay > 0 && verdicts[i].Delay >= verdicts[longest].Delay {
				longest = i
			}
		}
		*d = verdicts[longest]
	} else {
		looked := s.savers
		if s.nginx {
			looked = looked[:refused+1]
		}
		var in uint8
		for i := range s.savers {
			if s.copied&(1<<i) != 0 && s.in[i] != nil {
				in |= 1 << i
			}
		}
		s.putBack(in)
		for i, sv := range s.savers {
			switch {
			case s.copied&(1<<i) != 0: // put back, or decided on a copy
			case i >= len(looked): // not looked up: decided on a copy
			case s.nginx && s.zones[i] != nil:
				s.zones[i].restoreLooked(s.keyOf(i, key))
			default:
				sv.restoreKey(s.keyOf(i, key))
			}
		}
		if wait == Never {
			// A layer it can never fit: that is the whole story.
			for _, v := range verdicts {
				if v.RetryAfter == Never {
					*d = v
					s.pretend(d)
					return
				}
			}
		}
		*d = verdicts[refused]
		d.RetryAfter = wait
	}
	// The first layer to refuse, or the first, decided: its policy is
	// the decision's. Its explanation is every layer's, from the record.
	s.pretend(d)
	if s.copied != s.info.all {
		s.recordInto(verdicts)
	}
	s.recs.keep(s.info, d, &s.scratch, now, s.nums[:s.info.nums])
}

// decidePlain is DecideInto for a stack whose layers are all copied and
// not nginx's: none delays, none is a dry run, every record is a state.
// Each layer decides on its state, in place when it is the layer's own,
// writing it into nums first; a refusal puts those words back, and
// an admission keeps what the layers decided on copies.
func (s *stack) decidePlain(d *Decision, now time.Duration, key Key, cost int64) {
	refused := -1
	var wait time.Duration
	var in uint8 // the layers that decided in place
	for i, sv := range s.savers {
		id := key.id
		if s.allKeys&(1<<i) != 0 {
			id = s.all.id
		}
		v := d // the first layer's verdict, the decision unless another refuses
		if i > 0 {
			v = &s.verdicts[i]
		}
		if s.in[i] = sv.peekState(v, now, id, cost, (*[stackWords]int64)(s.nums[s.offs[i]:])); s.in[i] != nil {
			in |= 1 << i
		}
		if v.Outcome == Rejected {
			if refused < 0 {
				refused = i
			}
			wait = max(wait, v.RetryAfter)
		}
	}
	switch {
	case refused < 0:
		for kept := s.copied &^ in; kept != 0; kept &= kept - 1 {
			i := bits.TrailingZeros8(kept)
			id := key.id
			if s.allKeys&(1<<i) != 0 {
				id = s.all.id
			}
			s.savers[i].keepPeeked(id, now)
		}
	case wait == Never:
		s.putBack(in)
		// A layer it can never fit: that is the whole story.
		if d.RetryAfter == Never {
			return
		}
		for _, v := range s.verdicts[1:len(s.savers)] {
			if v.RetryAfter == Never {
				*d = v
				return
			}
		}
	default:
		s.putBack(in)
		if refused > 0 {
			*d = s.verdicts[refused]
		}
		d.RetryAfter = wait
	}
	s.recs.keep(s.info, d, &s.scratch, now, s.nums[:s.info.nums])
}

// putBack writes back the states of the layers in in that decided in
// place, from their words in nums: the states before the request.
func (s *stack) putBack(in uint8) {
	for ; in != 0; in &= in - 1 {
		i := bits.TrailingZeros8(in)
		before := s.nums[s.offs[i]:][:s.words[i]]
		for j, w := range before { // a few words: no memmove
			*(*int64)(unsafe.Add(s.in[i], 8*j)) = w
		}
	}
}

// recordInto gathers in nums the record of the layers that are not
// copied (whose states peekState wrote there): a layer's v, then its
// wait, as it is for a delay (0 for none) and its complement (below 0)
// for a refusal's RetryAfter.
func (s *stack) recordInto(verdicts []Decision) {
	for i := range verdicts {
		if s.copied&(1<<i) != 0 {
			continue
		}
		v, nums := &verdicts[i], s.nums[s.offs[i]:][:stackWords]
		copy(nums, v.v[:])
		nums[4] = int64(v.Delay)
		if v.Outcome == Rejected {
			nums[4] = ^int64(v.RetryAfter)
		}
	}
}

// pretend lets d through at once if the stack is a dry run, saying what
// nginx would have done.
func (s *stack) pretend(d *Decision) {
	if s.dryRun && d.Outcome != Allowed {
		d.DryRun, d.Outcome, d.Delay, d.RetryAfter = d.Outcome, Allowed, 0, 0
	}
}

// nodePeeker is a limiter whose states are plain values (an
// nginx-limit-req zone's nodes among them): peekInto decides a request on
// a copy of the key's state, changing nothing (neither the state nor a
// zone's queue).
type nodePeeker interface {
	peekInto(d *Decision, now time.Duration, key Key, cost int64)
}

// peekInto is for a state that is a plain value (nginx's node, a bucket, a
// window), which holds nothing that k's account counts: the copy decides
// on that account, untouched. The copy is made in k.saved, which a stack
// leaves alone for a layer it does not look the request up in (it puts
// back only those it did), and keeps once every layer admits
// (keepPeeked): a local would move to the heap, one allocation a peek.
func (k *keyed[S]) peekInto(d *Decision, now time.Duration, key Key, cost int64) {
	if !k.plain {
		panic("algorithms: peekInto of a state that is not a plain value")
	}
	st := &k.saved.s
	if s := k.seenSlot(key.id); s != nil {
		*st = s.s
	} else {
		*st = k.alg.start(now)
	}
	k.saved.had = false
	*d = k.alg.decide(st, &k.m, now, cost)
}

// peekState decides the request as a stack's layer whose record is the
// key's state before the request, writing that state into words: its
// bytes, the rest of its last word zero. A key whose state is k's own
// (its chunk not shared with a clone) is decided in place, and its state
// returned, for the stack to put words back there if another layer
// refuses: a plain state's words are all of it, and its decision changes
// no account. Any other key (new, or shared with a clone) is decided on a
// copy in k.saved, as peekInto does, which keepPeeked keeps once every
// layer admits: a refusal neither makes a state nor copies a chunk.
func (k *keyed[S]) peekState(d *Decision, now time.Duration, id int, cost int64, words *[stackWords]int64) unsafe.Pointer {
	var st *S
	var in unsafe.Pointer
	if c := uint(id) / keyChunk; c < uint(len(k.chunks)) { // not for id < 0
		ch := k.chunks[c]
		if s := &ch.slots[uint(id)%keyChunk]; !s.seen {
		} else if ch.epoch == k.m.epoch && unsafe.Sizeof(s.s)%8 == 0 {
			st, in = &s.s, unsafe.Pointer(&s.s)
		} else {
			k.saved.s = s.s
			st = &k.saved.s
		}
	}
	if st == nil {
		k.saved.s = k.alg.start(now)
		st = &k.saved.s
	}
	words[(unsafe.Sizeof(*st)+7)/8-1] = 0 // what S's bytes leave of its last word
	*(*S)(unsafe.Pointer(words)) = *st
	*d = k.alg.decide(st, &k.m, now, cost)
	return in
}

// stateWords is how many int64 words a state takes, a plain value's
// bytes rounded up.
func (k *keyed[S]) stateWords() int { return int(unsafe.Sizeof(*new(S))+7) / 8 }

// redecider decides a request again, as k's algorithm does, on a plain
// state from the words peekState wrote. The state and the account it
// decides on are the func's own, under a lock: passed to the algorithm
// (an interface), a local's would move to the heap, one allocation an
// explanation, and explanations may be asked from several goroutines. A
// plain state's decision changes no account.
func (k *keyed[S]) redecider() func(words [stackWords]int64, at time.Duration, cost int64) Decision {
	alg := k.alg
	var mu sync.Mutex
	st, m := new(S), new(mem)
	return func(words [stackWords]int64, at time.Duration, cost int64) Decision {
		mu.Lock()
		defer mu.Unlock()
		*st = *(*S)(unsafe.Pointer(&words))
		return alg.decide(st, m, at, cost)
	}
}

// keepPeeked makes the state peekInto decided on, in k.saved, key's: what a
// stack does with a layer's copy once every layer admits the request.
func (k *keyed[S]) keepPeeked(id int, now time.Duration) {
	*k.slot(id, now) = k.saved.s
}

// plainState is whether k's states are plain values (see plainValue).
func (k *keyed[S]) plainState() bool { return k.plain }

// Snapshot is the first layer's state for key.
func (s *stack) Snapshot(now time.Duration, key string) Snapshot { return s.LayerSnapshot(0, now, key) }

// Clone clones every layer. It starts from a copy of the whole of s, so
// that no field is left behind; the clone writes records into chunks of its
// own.
func (s *stack) Clone() Limiter {
	c := new(stack)
	*c = *s
	c.Decider = NewDecider(c, s.ids)
	c.lims = make([]Limiter, len(s.lims))
	for i, lim := range s.lims {
		c.lims[i] = lim.Clone()
	}
	c.savers, c.copied = saversOf(c.lims)
	if s.zones != nil {
		c.zones = zonesOf(c.lims)
	}
	// The clone writes chunks of its own, and packs as s has learned to.
	c.recs.chunk, c.recs.explain = nil, nil
	c.verdicts, c.scratch = [MaxLayers]Decision{}, [stackRecordMax]byte{}
	return c
}

func (s *stack) Memory() Memory {
	var m Memory
	for _, lim := range s.lims {
		lm := lim.Memory()
		m.State += lm.State
		m.Clone += lm.Clone
		m.Dropped += lm.Dropped
	}
	return m
}

// KeyBytes is what key's states take in the layers per key, plus the one
// state of each layer over all keys.
func (s *stack) KeyBytes(now time.Duration, key Key) int64 {
	var n int64
	for i, lim := range s.lims {
		n += lim.KeyBytes(now, s.keyOf(i, key))
	}
	return n
}
