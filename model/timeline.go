package model

import (
	"slices"
	"sort"
	"time"

	"ratelab/scenarios"
)

// kind is what a run of requests has in common: the key (interned), the
// cost and who sent it. fired is 0 for the scenario's own traffic, else the
// serial number of the learner's fire action (1, 2, …, never reused) that
// added it; a burst's requests share one, so Undo can remove the latest
// action whole.
type kind struct {
	cost   int64
	key    int32
	fired  uint32
	client uint16 // scenarios.Request's Client
}

// timeline is the lab's requests, ordered by time: the scenario's traffic
// plus the requests the learner fired, a request fired at t after every
// other request at t; and its time axis, from 0 to end. It keeps each
// request as a time and a kind (see events), the keys in order of first
// appearance, and the learner's actions, which undo takes back.
//
// It knows nothing of decisions: fire, undo and reset report the first
// index they changed (see change), and the caller forgets what it decided
// from there on.
type timeline struct {
	ev       events
	keys     keyNames
	baseKeys int // keys.list[:baseKeys] are the scenario's; later ones were fired
	kinds    interned[kind]
	// duration is the scenario's; end stretches it to reach past the
	// requests the learner fired (see End).
	duration, end time.Duration
	serial        uint32   // serial of the learner's latest fire action
	nFired        int      // how many of the requests the learner fired
	history       []action // what undo takes back, latest last
}

// change is what a learner's action changed on a timeline: the requests
// from index from on (none when from is −1), and the keys after the first
// keys (those later are gone or other keys now). An undone reset also
// gives back the clock it found, now.
type change struct {
	from int
	keys int
	now  time.Duration
}

// newTimeline is s's requests and keys, nothing fired; building, if not
// nil, is told of every BuildingEvery requests put on it.
func newTimeline(s *scenarios.Scenario, building Building) *timeline {
	tl := &timeline{duration: s.Duration, end: s.Duration}
	n := int(s.RequestCount())
	tl.ev.reserve(n + slack(n))
	// An item's requests share their key, cost and client, so their kind
	// is interned once an item, not looked up by name a request: kinds
	// holds each item's kind + 1, 0 until its first request. The items'
	// first requests come in the order of s.Keys, so the keys are numbered
	// in that order. The key map and the lists are sized for a key and a
	// kind an item, the most there can be, so that 100,000 keys never
	// grow them; the lists are then cut to size if that left them mostly
	// empty.
	items := len(s.Traffic)
	tl.keys.list, tl.kinds.list = make([]string, 0, items), make([]kind, 0, items)
	b := kindBuilder{tl: tl, first: make([]uint32, 0, items)}
	if len(s.Logs) > 0 {
		tl.addLogged(s, &b, building)
		return tl
	}
	// A file's items come with their keys numbered (see
	// scenarios.Scenario.KeyNumbers): no name is then looked up.
	var count int
	if b.fileNo, count = s.KeyNumbers(); b.fileNo != nil {
		tl.keys.numberedBy(s, count)
	}
	kinds := make([]uint32, items)
	times := s.ItemTimes()
	if n >= handoverMin {
		times = handOver(times)
	}
	for item, at := range times {
		if kinds[item] == 0 {
			kinds[item] = b.ofItem(s, item) + 1
		}
		tl.ev.push(event{at: at, kind: kinds[item] - 1})
		tl.built(building, int64(n))
	}
	tl.keys.list, tl.kinds.list = shrink(tl.keys.list), shrink(tl.kinds.list)
	tl.baseKeys = len(tl.keys.list)
	return tl
}

// addLogged is newTimeline's reading of a scenario with logs, whose
// requests have each their own key and cost: an item's kind is numbered
// once, a log's request's kind looked up (and numbered if new) for each.
func (tl *timeline) addLogged(s *scenarios.Scenario, b *kindBuilder, building Building) {
	kinds := make([]uint32, len(s.Traffic))
	n := s.RequestCount()
	for item, r := range s.RequestsOfItems() {
		if item < len(s.Traffic) {
			if kinds[item] == 0 {
				kinds[item] = b.ofItem(s, item) + 1
			}
			tl.ev.push(event{at: r.At, kind: kinds[item] - 1})
			tl.built(building, n)
			continue
		}
		key, seen := tl.keys.lookup(r.Key)
		if !seen {
			key = tl.keys.of(r.Key)
			b.first = append(b.first, uint32(len(tl.kinds.list))) // a key of the items' kinds is in first; a log's is not looked up there
		}
		tl.ev.push(event{at: r.At, kind: tl.kindOf(kind{cost: r.Cost, key: key})})
		tl.built(building, n)
	}
	tl.keys.list, tl.kinds.list = shrink(tl.keys.list), shrink(tl.kinds.list)
	tl.baseKeys = len(tl.keys.list)
}

// built tells building, if not nil, of the requests on the timeline when
// they are a whole number of BuildingEvery.
func (tl *timeline) built(building Building, total int64) {
	if building != nil && tl.ev.len()%BuildingEvery == 0 {
		building(int64(tl.ev.len()), total)
	}
}

// kindBuilder numbers the keys and the kinds of a scenario's items in
// the order of their first requests. The scenario's kinds are kept out of
// tl.kinds.index: only kindOf looks kinds up, for a fire action, whose
// kinds (fired ≠ 0) are never the scenario's; so the common case, a key
// of its own an item, costs one map lookup and one insertion (the key's),
// not four.
type kindBuilder struct {
	tl *timeline
	// first[key] is the kind first numbered for the key; a key's other
	// kinds (another cost or client) are found in more.
	first []uint32
	more  map[kind]uint32
	// fileNo[item] is the number the file gave the item's key; nil when
	// some item's key has no number (keys are then looked up by name).
	fileNo []int32
}

// ofItem is the number of the kind of s.Traffic[item]'s requests, numbered
// anew (and its key too) if unseen.
func (b *kindBuilder) ofItem(s *scenarios.Scenario, item int) uint32 {
	t := &s.Traffic[item]
	tl := b.tl
	var key int32
	var seen bool
	if b.fileNo != nil {
		key, seen = tl.keys.ofFile(b.fileNo[item], t.Key)
	} else if key, seen = tl.keys.lookup(t.Key); !seen {
		key = tl.keys.of(t.Key)
	}
	k := kind{cost: t.Cost, key: key, client: uint16(t.Client)}
	if seen {
		if f := b.first[key]; tl.kinds.list[f] == k {
			return f
		}
		if i, ok := b.more[k]; ok {
			return i
		}
	}
	i := uint32(len(tl.kinds.list))
	tl.kinds.list = append(tl.kinds.list, k)
	if !seen {
		b.first = append(b.first, i)
	} else {
		if b.more == nil {
			b.more = map[kind]uint32{}
		}
		b.more[k] = i
	}
	return i
}

// kindOf interns k.
func (tl *timeline) kindOf(k kind) uint32 { return uint32(tl.kinds.of(k)) }

// kind is the kind of request i.
func (tl *timeline) kind(i int) kind { return tl.kinds.list[tl.ev.kind[i]] }

// len is the number of requests.
func (tl *timeline) len() int { return tl.ev.len() }

// at is the time of request i.
func (tl *timeline) at(i int) time.Duration { return tl.ev.at(i) }

// request is request i, 0 ≤ i < len.
func (tl *timeline) request(i int) Request {
	k := tl.kind(i)
	return Request{At: tl.ev.at(i), Key: tl.keys.list[k.key], Cost: k.cost, Client: int(k.client)}
}

// search is the number of requests at or before t: the index of the first
// request after t.
func (tl *timeline) search(t time.Duration) int {
	return sort.Search(tl.ev.len(), func(i int) bool { return tl.ev.at(i) > t })
}

// searchBefore is the number of requests before t: the index of the first
// request at or after t.
func (tl *timeline) searchBefore(t time.Duration) int {
	return sort.Search(tl.ev.len(), func(i int) bool { return tl.ev.at(i) >= t })
}

// axisEnd is the end of the time axis: end, or the last request if one
// lies beyond it.
func (tl *timeline) axisEnd() time.Duration {
	if n := tl.ev.len(); n > 0 && tl.ev.at(n-1) > tl.end {
		return tl.ev.at(n - 1)
	}
	return tl.end
}

// firedRequests are the learner's requests, in timeline order.
func (tl *timeline) firedRequests() []Request {
	var out []Request
	for i := range tl.ev.len() {
		if tl.kind(i).fired != 0 {
			out = append(out, tl.request(i))
		}
	}
	return out
}

// fire adds f's requests, a checked action (see fireAction.check), as
// one action, letting the axis reach horizon past the last of them, and
// returns the indexes of the first and the last: every request from first
// on may have moved.
func (tl *timeline) fire(f fireAction, horizon time.Duration) (first, last int) {
	tl.serial++
	tl.history = append(tl.history, action{serial: tl.serial, end: tl.end, keys: len(tl.keys.list), kinds: len(tl.kinds.list), fire: f})
	tl.nFired += f.n
	e := event{at: f.at, kind: tl.kindOf(kind{cost: f.cost, key: tl.keys.of(f.key), fired: tl.serial})}
	first = tl.search(f.at)
	last = first + f.n - 1 // the index of the action's last request
	item := f.item()
	tl.rewrite(first, f.n, func(rw *rewriter) {
		x, ok := rw.next()
		for j := range int64(f.n) {
			e.at = item.Time(j)
			for ; ok && x.at <= e.at; x, ok = rw.next() {
				rw.push(x)
			}
			last = rw.push(e)
		}
		if ok {
			rw.push(x)
			rw.rest()
		}
	})
	// Let the axis reach past the requests as far as a scenario's default
	// duration reaches past its last one, so that the clock can follow what
	// a request fired at the end sets in motion (a refill, an expiry).
	tl.end = max(tl.end, min(tl.ev.at(last)+horizon, scenarios.MaxTime))
	return first, last
}

// rewrite replaces the requests from index from on, in place: fn reads
// them from there on with rw.next, in order, and pushes those that take
// their place, in time order (rw.push returns the index it wrote); rw.rest
// writes every request not read yet unchanged, at once where it can. adds is how many
// more requests fn may push than it reads: the timeline makes room for
// them first. Besides that room the rewrite holds at most the requests
// pushed ahead of those read, plus a block (see rewriter), not a copy of
// the timeline; it then gives back the memory a shorter timeline no
// longer needs.
func (tl *timeline) rewrite(from, adds int, fn func(rw *rewriter)) {
	tl.ev.grow(tl.ev.len() + adds)
	rw := tl.ev.rewriteFrom(from)
	fn(rw)
	rw.done()
	tl.ev.clip()
}

// fireActions are the learner's fire actions whose requests are on the
// timeline, oldest first: those above the latest reset in the history.
func (tl *timeline) fireActions() []fireAction {
	var out []fireAction
	for i := len(tl.history) - 1; i >= 0 && tl.history[i].reset == nil; i-- {
		out = append(out, tl.history[i].fire)
	}
	slices.Reverse(out)
	return out
}
