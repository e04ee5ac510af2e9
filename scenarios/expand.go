package scenarios

import (
	"cmp"
	"iter"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"
)

// trafficItem is one item of the traffic list as written: a Traffic, and
// the keys of the copies it stands for, if it has accounts or keys.
type trafficItem struct {
	Traffic
	keys    []string // one copy per key; nil: the item itself
	keyNos  []int32  // keys' keyNo, as Traffic.keyNo
	stagger string   // "" (none), "even" or "random"; only on a periodic item with keys
	// accounts is N of accounts: N (0 with keys or neither), keyBase
	// whether key named the copies.
	accounts int64
	keyBase  bool
}

// expand returns the Traffic items it stands for: itself, or one copy per
// key, each starting its stagger offset later (a copy left with no request
// before until is dropped). pos is the item's place in the traffic list
// and, with seed, seeds the random stagger.
func (it trafficItem) expand(seed uint64, pos int) []Traffic {
	if it.keys == nil {
		return []Traffic{it.Traffic}
	}
	var rng *rand.Rand
	if it.stagger == "random" {
		rng = rand.New(rand.NewPCG(seed, uint64(pos)))
	}
	n := int64(len(it.keys))
	copies := make([]Traffic, 0, n)
	g := &copyGroup{item: it.Traffic, accounts: it.accounts, keyBase: it.keyBase, stagger: it.stagger}
	g.item.Line = 0 // the copies keep it
	if it.accounts == 0 {
		g.keys = it.keys
	}
	for i, key := range it.keys {
		c := it.Traffic
		c.Key, c.group, c.keyNo = key, g, it.keyNos[i]
		switch it.stagger {
		case "even":
			c.From += time.Duration(mulDiv(int64(i), int64(c.Every), n))
		case "random":
			c.From += time.Duration(rng.Int64N(int64(c.Every)))
		}
		if c.Form == Periodic {
			if c.From >= c.Until {
				continue
			}
			c.Count = periodicCount(c.From, c.Until, c.Every)
		}
		copies = append(copies, c)
	}
	return copies
}

// KeyNumbers numbers the keys of the scenario's traffic items without
// their names being looked up: numbers[i] is the number of Traffic[i].Key
// among the count distinct keys the file's traffic names (0 to count−1,
// the same number for the same key). It returns nil when some item was
// not read from a file (added or built by a program), whose key has no
// number: the caller then looks keys up by name.
func (s *Scenario) KeyNumbers() (numbers []int32, count int) {
	numbers = make([]int32, len(s.Traffic))
	for i := range s.Traffic {
		no := s.Traffic[i].keyNo
		if no == 0 {
			return nil, 0
		}
		numbers[i] = no - 1
		count = max(count, int(no))
	}
	return numbers, count
}

// KeyNumber is the number KeyNumbers gives key, if the file's traffic
// names it: a reader that numbered keys by KeyNumbers finds one by name
// here, without an index of its own.
func (s *Scenario) KeyNumber(key string) (int32, bool) {
	n, ok := s.keyNumbers[key]
	return n, ok
}

// Time is the arrival time of the item's i-th request, 0 ≤ i < Count. Times
// never decrease with i.
func (t Traffic) Time(i int64) time.Duration {
	switch t.Form {
	case Burst:
		return t.At + time.Duration(mulDiv(i, int64(t.Spread), t.Count))
	case Periodic:
		return t.From + time.Duration(i)*t.Every
	case Poisson:
		return t.times[i]
	}
	return t.At
}

// periodicCount is ⌈(until−from)/every⌉, the number of requests from, from +
// every, … before until; 0 when until ≤ from.
func periodicCount(from, until, every time.Duration) int64 {
	if until <= from {
		return 0
	}
	span := int64(until - from)
	return (span + int64(every) - 1) / int64(every)
}

// mulDiv is ⌊a×b/c⌋ for 0 ≤ a < c and b ≥ 0, without overflow: the result is
// below b.
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

// RequestCount is the number of requests Requests yields.
func (s *Scenario) RequestCount() int64 {
	n := s.countItems()
	for _, l := range s.Logs {
		n += l.Count
	}
	return n
}

// Keys lists the distinct request keys in the order they first appear in
// time (ties in file order).
func (s *Scenario) Keys() []string {
	type first struct {
		key  string
		at   time.Duration
		item int
	}
	var firsts []first
	index := map[string]int{}
	for i, t := range s.Traffic {
		if t.Count == 0 {
			continue
		}
		at := t.Time(0)
		j, ok := index[t.Key]
		if !ok {
			index[t.Key] = len(firsts)
			firsts = append(firsts, first{t.Key, at, i})
		} else if at < firsts[j].at {
			firsts[j].at, firsts[j].item = at, i
		}
	}
	for j, l := range s.Logs {
		for _, k := range l.keys {
			i, ok := index[k.key]
			switch {
			case !ok:
				index[k.key] = len(firsts)
				firsts = append(firsts, first{k.key, k.at, len(s.Traffic) + j})
			case k.at < firsts[i].at:
				firsts[i].at, firsts[i].item = k.at, len(s.Traffic)+j
			}
		}
	}
	slices.SortFunc(firsts, func(a, b first) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.item, b.item))
	})
	keys := make([]string, len(firsts))
	for i, f := range firsts {
		keys[i] = f.key
	}
	return keys
}

// Requests yields every request of the traffic list in time order; requests
// at the same time keep file order (item by item, then within an item). It
// merges the items lazily, holding a cursor per item and at most one
// window of time's requests (see merge), so a scenario of millions of
// requests never sits in memory.
func (s *Scenario) Requests() iter.Seq[Request] {
	return func(yield func(Request) bool) {
		s.merge(func(_ int, r Request) bool { return yield(r) })
	}
}

// RequestsOfItems is Requests with each request's item: its index in
// s.Traffic. A reader that keeps something per key, cost or client can
// keep it per item instead, and so look nothing up by name a request.
func (s *Scenario) RequestsOfItems() iter.Seq2[int, Request] {
	return func(yield func(int, Request) bool) { s.merge(yield) }
}
