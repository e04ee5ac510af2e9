package algorithms

import (
	"errors"
	"fmt"
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
	// state before the request (the words of it that decide: see
	// recordedWords), from which the explanation decides it again, and a
	// refusal leaves its state as it was (see peekState). The others save
	// the state as they decide and put it back, and their records are
	// their numbers (see recordInto). nums is where each layer's words
	// are gathered, layer i's at numsOf[i], and a record is read from
	// there in the order of info.pick; a copied layer's words there are
	// written by its own peekState alone, so what its state's bytes leave
	// of its last word stays zero, and so does the last of nums, where
	// info.pick points past a record's numbers.
	copied uint8
	nums   [stackNumsRoom]int64
	// numsOf are where each layer's words start in nums (info.offs), as
	// pointers into this instance's nums: a decision reads them once a
	// layer, with no offset to bound (see layerNums).
	numsOf [MaxLayers]*[stackWords]int64
	// allKeys has bit i set for a layer over all keys.
	allKeys uint8
	ids     *Keys
	all     Key // AllKeysKey in ids
	// verdicts is where the layers after the first decide a request (the
	// first decides in the decision itself).
	verdicts [MaxLayers]Decision
	// info explains the decisions of several layers (nil for one), shared
	// by clones; recs is this instance's chunk of their records (see
	// stack_explain.go).
	info *stackInfo
	recs stackRecords
	// record is where a record no layout packs is gathered, and scratch
	// where it is written (see stackRecords.keepUnpacked).
	record  [stackNums]int64
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
		s.numsOf = s.info.numsIn(&s.nums)
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
	// of the limiter's own, returned so that putBackState writes words
	// back there if another layer refuses, else on a copy (nil), which
	// keepPeeked keeps. redecider decides a request again from such
	// words.
	peekState(d *Decision, now time.Duration, id int, cost int64, words *[stackWords]int64) unsafe.Pointer
	putBackState(in unsafe.Pointer, words *[stackWords]int64)
	stateWords() int
	// recordWords has bit j set for each of a state's stateWords words
	// that its record holds (see recordedWords).
	recordWords() uint8
	redecider() func(words [stackWords]int64, at time.Duration, cost int64) Decision
}

// recordedWords is an algorithm whose plain state holds words that a
// stack's record of it need not (see stack.copied): words its decision
// never reads (a fixed window's previous count, which only its snapshot
// shows), or works out again from the others (a window's index, from its
// last request's time). Fewer numbers make a shorter record: two layers'
// often fit in a decision as they are, with nothing packed.
type recordedWords[S any] interface {
	// recordWords has bit j set for each of the state's words a record
	// holds.
	recordWords() uint8
	// rebuild fills in the words of s that recordWords leaves out, the
	// others as they were recorded (the rest zero): s then decides every
	// request exactly as the state recorded did.
	rebuild(s *S)
}

// recorderOf is alg as a recordedWords, or the algorithm it renames as
// one; nil if neither is.
func recorderOf[S any](alg algorithm[S]) recordedWords[S] {
	if r, ok := alg.(*renamed[S]); ok {
		alg = r.alg
	}
	rec, _ := alg.(recordedWords[S])
	return rec
}

// wordBit is the bit of a state's word at byte offset off.
func wordBit(off uintptr) uint8 { return 1 << (off / 8) }

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
	if s.copied != s.info.all {
		s.decideSaving(d, now, key, cost)
		return
	}
	// Every layer is copied (its record is its state before the
	// request), as most stacks are: buckets, windows, GCRA. Nothing but
	// peekState decides, so no layer has a case of its own, and no
	// layer's numbers are gathered. Each step is written out for every
	// layer, by closures the compiler inlines with i a constant (there
	// are 2 to MaxLayers, which is 4: see verdictSlots): as loops, the
	// steps cost four layers some 70 instructions a decision more
	// (BenchmarkStack/stack-4), two layers some 25.
	//
	// at[i] is the key's state that layer i decided in place, nil if it
	// decided on a copy (a new key, or one whose chunk a clone shares) or
	// if there is no layer i: locals, so that writing them costs no
	// write barrier.
	var at [MaxLayers]unsafe.Pointer
	n := min(len(s.savers), MaxLayers)
	ids := [2]int{key.id, s.all.id} // by the layer's allKeys bit
	at[0] = s.savers[0].peekState(d, now, ids[s.allKeys&1], cost, s.layerNums(0))
	peek := func(i int) {
		at[i] = s.savers[i].peekState(&s.verdicts[i], now, ids[s.allKeys>>i&1], cost, s.layerNums(i))
	}
	peek(1)
	if n > 2 {
		peek(2)
		if n > 3 {
			peek(3)
		}
	}
	// The verdicts are read once every layer has decided: across the
	// calls, every local would be reloaded. A slot no layer decides in is
	// zero, Allowed.
	refused, wait := -1, time.Duration(0)
	if d.Outcome == Rejected {
		refused, wait = 0, d.RetryAfter
	}
	refuse := func(i int) {
		if v := &s.verdicts[i]; v.Outcome == Rejected {
			if refused < 0 {
				refused = i
			}
			wait = max(wait, v.RetryAfter)
		}
	}
	refuse(1)
	refuse(2)
	refuse(3)
	// settleCopied, inline: called, it cost some 45 instructions a
	// decision more (BenchmarkStack/stack-2).
	if refused >= 0 {
		putBack := func(i int) {
			if at[i] != nil {
				s.savers[i].putBackState(at[i], s.layerNums(i))
			}
		}
		putBack(0)
		putBack(1)
		putBack(2)
		putBack(3)
	} else {
		keep := func(i int) {
			if at[i] == nil {
				s.savers[i].keepPeeked(ids[s.allKeys>>i&1], now)
			}
		}
		keep(0)
		keep(1)
		if n > 2 {
			keep(2)
			if n > 3 {
				keep(3)
			}
		}
	}
	s.conclude(d, now, refused, wait)
}

// settleCopied puts back, after a refusal, the states the copied layers
// decided in place (at[i]) from their records (see peekState); once every
// layer admits, it makes key's the copies the others decided on
// (keepPeeked).
func (s *stack) settleCopied(now time.Duration, key Key, refused bool, at *[MaxLayers]unsafe.Pointer) {
	for i := range min(len(s.savers), MaxLayers) {
		switch {
		case s.copied&(1<<i) == 0:
		case refused && at[i] != nil:
			s.savers[i].putBackState(at[i], s.layerNums(i))
		case !refused && at[i] == nil:
			s.savers[i].keepPeeked(s.keyOf(i, key).id, now)
		}
	}
}

// decideSaving is DecideInto for a stack with a layer that is not copied:
// a log, a table or an nginx zone, which saves its state as it decides
// and puts it back, and whose record is its numbers.
func (s *stack) decideSaving(d *Decision, now time.Duration, key Key, cost int64) {
	var at [MaxLayers]unsafe.Pointer // as in DecideInto; nil for a layer not copied
	refused := -1
	var wait time.Duration
	for i, sv := range s.savers {
		v := s.verdict(i, d)
		switch {
		case s.copied&(1<<i) != 0:
			at[i] = sv.peekState(v, now, s.keyOf(i, key).id, cost, s.layerNums(i))
		case s.nginx && refused >= 0:
			// A copy decides: for an nginx zone after the refusing one,
			// which nginx does not look the request up in, for the wait
			// and the explanation.
			sv.peekInto(v, now, s.keyOf(i, key), cost)
		default:
			sv.saveDecide(v, now, s.keyOf(i, key), cost)
		}
		if v.Outcome == Rejected {
			if refused < 0 {
				refused = i
			}
			wait = max(wait, v.RetryAfter)
		}
	}
	s.recordInto(d) // before d becomes another layer's verdict
	if s.copied != 0 {
		s.settleCopied(now, key, refused >= 0, &at)
	}
	if refused >= 0 {
		s.putBackSaved(key, refused)
	}
	s.conclude(d, now, refused, wait)
}

// conclude makes d, the first layer's verdict, the stack's decision once
// every layer has decided, and keeps its record: refused is the first
// layer to refuse (−1 for none) and wait the longest of the refusals'
// RetryAfter.
func (s *stack) conclude(d *Decision, now time.Duration, refused int, wait time.Duration) {
	switch {
	case refused < 0:
		if s.nginx { // only nginx's layers delay in a stack (CheckStack)
			s.delayLongest(d)
		}
	case wait == Never:
		// A layer it can never fit: that is the whole story, with no
		// record.
		for i := range s.savers {
			if v := s.verdict(i, d); v.RetryAfter == Never {
				*d = *v
				s.pretend(d)
				return
			}
		}
	default:
		if refused > 0 {
			*d = s.verdicts[refused]
		}
		d.RetryAfter = wait
	}
	// The first layer to refuse, or the first, decided: its policy is
	// the decision's. Its explanation is every layer's, from the record.
	s.pretend(d)
	// Up to 4 numbers go in v as they are; more are packed by the
	// layout when it can (the common case, called from here: through
	// another call, it cost some 20 instructions more).
	info := s.info
	if info.nums <= len(d.v) {
		p := &info.pick // past the record's numbers: nums' last, zero
		d.v = [4]int64{s.nums[p[0]&stackNumsLast], s.nums[p[1]&stackNumsLast], s.nums[p[2]&stackNumsLast], s.nums[p[3]&stackNumsLast]}
		d.rec, d.explain = [7]byte{}, info.raw
		return
	}
	if !s.recs.layoutFor(info).pack(d, now, &s.nums) {
		s.recs.keepUnpacked(info, d, &s.scratch, now, info.gather(&s.record, &s.nums))
	}
}

// verdictSlots fails to compile unless MaxLayers is 4, the layers
// DecideInto writes out one by one.
var verdictSlots = [1]struct{}{}[MaxLayers-4]

// verdict is where layer i decides a request: d for the first layer, whose
// verdict is the decision unless another's is chosen, and verdicts[i] for
// the others.
func (s *stack) verdict(i int, d *Decision) *Decision {
	if i == 0 {
		return d
	}
	return &s.verdicts[i]
}

// delayLongest makes d, a decision every layer admits, the verdict of the
// layer that delays it longest, the last of those that tie (nginx names
// that zone in its log); the first layer's if none delays it.
func (s *stack) delayLongest(d *Decision) {
	longest := 0
	for i := 1; i < len(s.savers); i++ {
		if v := &s.verdicts[i]; v.Delay > 0 && v.Delay >= s.verdict(longest, d).Delay {
			longest = i
		}
	}
	if longest > 0 {
		*d = s.verdicts[longest]
	}
}

// putBackSaved puts back key's state, once a layer refused, in every
// layer that is not copied: an nginx zone as nginx leaves a zone it looked
// the request up in, and no zone after the refusing one, which was not
// looked up (it decided on a copy); any other as it saved it.
func (s *stack) putBackSaved(key Key, refused int) {
	for i, sv := range s.savers {
		switch {
		case s.copied&(1<<i) != 0: // settleCopied's
		case s.nginx && i > refused: // not looked up: decided on a copy
		case s.nginx && s.zones[i] != nil:
			s.zones[i].restoreLooked(s.keyOf(i, key))
		default:
			sv.restoreKey(s.keyOf(i, key))
		}
	}
}

// layerNums is where layer i's record is gathered in nums.
func (s *stack) layerNums(i int) *[stackWords]int64 { return s.numsOf[i] }

// recordInto gathers in nums the record of the layers that are not
// copied (whose states peekState wrote there), from their verdicts (the
// first layer's is d): a layer's v, then its wait, as it is for a delay (0
// for none) and its complement (below 0) for a refusal's RetryAfter.
func (s *stack) recordInto(d *Decision) {
	for i := range s.savers {
		if s.copied&(1<<i) != 0 {
			continue
		}
		v, nums := s.verdict(i, d), s.layerNums(i)
		copy(nums[:], v.v[:])
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
// key's state before the request, writing that state's bytes into words
// (the rest of its last word left as it is: zero in stack.nums). A key whose state is k's own (its
// chunk not shared with a clone) is decided in place, and its state
// returned, for putBackState to write words back there if another layer
// refuses: words are the save, a plain state's all, and its decision
// changes no account. Any other key (new, or shared with a clone) is
// decided on a copy in k.saved, as peekInto does, which keepPeeked keeps
// once every layer admits: a refusal neither makes a state nor copies a
// chunk.
func (k *keyed[S]) peekState(d *Decision, now time.Duration, id int, cost int64, words *[stackWords]int64) unsafe.Pointer {
	st := &k.saved.s
	var in unsafe.Pointer
	if c := uint(id) / keyChunk; c < uint(len(k.chunks)) { // not for id < 0
		ch := k.chunks[c]
		if s := &ch.slots[uint(id)%keyChunk]; !s.seen {
			*st = k.alg.start(now)
		} else if ch.epoch == k.m.epoch {
			st, in = &s.s, unsafe.Pointer(&s.s)
		} else {
			*st = s.s
		}
	} else {
		*st = k.alg.start(now)
	}
	*(*S)(unsafe.Pointer(words)) = *st
	*d = k.alg.decide(st, &k.m, now, cost)
	return in
}

// putBackState puts the state peekState decided in place at in back as
// it was before, from the words peekState wrote.
func (k *keyed[S]) putBackState(in unsafe.Pointer, words *[stackWords]int64) {
	*(*S)(in) = *(*S)(unsafe.Pointer(words))
}

// stateWords is how many int64 words a state takes, a plain value's
// bytes rounded up.
func (k *keyed[S]) stateWords() int { return int(unsafe.Sizeof(*new(S))+7) / 8 }

// recordWords are the words of k's states that a record holds: those its
// algorithm names (recordedWords), else all. Only a state of at most
// stackWords words is recorded so; a longer one's bits are the first
// stackWords.
func (k *keyed[S]) recordWords() uint8 {
	if rec := recorderOf(k.alg); rec != nil {
		return rec.recordWords()
	}
	return 1<<min(k.stateWords(), stackWords) - 1
}

// redecider decides a request again, as k's algorithm does, on a plain
// state from the words peekState wrote, those recordWords leaves out
// zero and rebuilt (recordedWords). The state and the account it
// decides on are the func's own, under a lock: passed to the algorithm
// (an interface), a local's would move to the heap, one allocation an
// explanation, and explanations may be asked from several goroutines. A
// plain state's decision changes no account.
func (k *keyed[S]) redecider() func(words [stackWords]int64, at time.Duration, cost int64) Decision {
	alg, rec := k.alg, recorderOf(k.alg)
	var mu sync.Mutex
	st, m := new(S), new(mem)
	return func(words [stackWords]int64, at time.Duration, cost int64) Decision {
		mu.Lock()
		defer mu.Unlock()
		*st = *(*S)(unsafe.Pointer(&words))
		if rec != nil {
			rec.rebuild(st)
		}
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
	if s.info != nil {
		c.numsOf = s.info.numsIn(&c.nums) // not s's
	}
	c.verdicts, c.record, c.scratch = [MaxLayers]Decision{}, [stackNums]int64{}, [stackRecordMax]byte{}
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
