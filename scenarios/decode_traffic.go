package scenarios

import (
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
	"time"

	"github.com/goccy/go-yaml/ast"

	"ratelab/algorithms"
)

// trafficFields are the fields of a traffic item, as the format documents
// them.
var trafficFields = []string{"at", "count", "spread", "every", "poisson", "from", "until", "on", "off", "key", "cost", "accounts", "keys", "stagger", "client"}

// minPoissonGap is the shortest mean gap a poisson item may ask for: its
// gaps are drawn in whole nanoseconds, which a mean of a microsecond
// rounds by at most 0.05%.
const minPoissonGap = time.Microsecond

// trafficList decodes the traffic list of the file's top level f into
// s.Traffic, whose lanes and clients are read: an item of accounts or keys
// becomes its copies, and a poisson copy draws its times. Item by item, it
// counts what the traffic will cost against the limits on a whole
// scenario (MaxRequests, MaxPoissonRequests, MaxDecisions, maxTotalCost,
// MaxTrafficItems) before a request is made, and refuses a cost no lane
// can admit. It returns the fields of each Traffic, which an item's copies
// share, and the keys the traffic names (written, below).
func (d *decoder) trafficList(f *fields, s *Scenario) (tf []*fields, written map[string]int32, err error) {
	var requests, totalCost uint64
	var decisions uint64   // each request × its client's attempts
	var streams uint64     // poisson copies so far
	var poissonDrawn int64 // and their requests
	items, err := f.list("traffic", "a list of traffic items")
	if err != nil {
		return nil, nil, err
	}
	// Each item's copies are kept apart and joined once at the end: an
	// item of 10,000 accounts is 10,000 items, and appending them item by
	// item would copy the list over and over as it grows (100,000 keys:
	// about a fifth of the file's reading).
	parts := make([][]Traffic, 0, len(items))
	partFields := make([]*fields, 0, len(items))
	total := 0
	// written are the keys the traffic names, whether or not their items
	// came to hold a request (a poisson item may draw none, a staggered copy
	// may start past until): an expectation or a quiz mark may name them,
	// whatever the seed drew. Each is numbered in the order written
	// (Traffic.keyNo), so that the lab numbers an item's key without
	// looking its name up.
	written = map[string]int32{}
	number := func(key string) int32 {
		n, ok := written[key]
		if !ok {
			n = int32(len(written))
			written[key] = n
		}
		return n + 1
	}
	seedIndex := 0 // the item's place among those that are not logs: its draws' seed
	for i, n := range items {
		path := index("traffic", i)
		if isLogItem(n) {
			l, err := d.logItem(n, path)
			if err != nil {
				return nil, nil, err
			}
			s.Logs = append(s.Logs, l)
			s.passErr = &passErrors{}
			for _, k := range l.keys {
				number(k.key)
			}
			continue
		}
		it, item, err := d.traffic(n, path)
		if err != nil {
			return nil, nil, err
		}
		if it.Client, err = trafficClient(item, s.Clients); err != nil {
			return nil, nil, err
		}
		if it.keys == nil {
			it.keyNo = number(it.Key)
		} else {
			it.keyNos = make([]int32, len(it.keys))
			for i, k := range it.keys {
				it.keyNos[i] = number(k)
			}
		}
		copies := it.expand(s.Seed, seedIndex)
		seedIndex++
		// A poisson copy draws its times here, from the seed and its
		// place among the poisson copies, within what the limit leaves.
		var drawn int64
		for j := range copies {
			c := &copies[j]
			if c.Form != Poisson {
				continue
			}
			left, held := MaxRequests-int64(requests)-drawn, MaxPoissonRequests-poissonDrawn-drawn
			if !c.draw(s.Seed, streams, min(left, held)) {
				mean := strconv.FormatFloat(float64(c.Rate.N)*float64(c.onTime())/float64(c.Rate.Per)*float64(len(copies)), 'f', 0, 64)
				if held < left {
					return nil, nil, d.errorf(n, path, "the poisson items draw more than %d requests, the most whose times a scenario holds (%d before this item, whose arrivals average %s)", MaxPoissonRequests, poissonDrawn, mean)
				}
				return nil, nil, d.errorf(n, path, "the traffic expands to more than %d requests (%d before this item, whose poisson arrivals average %s)", MaxRequests, requests, mean)
			}
			drawn += c.Count
			streams++
		}
		poissonDrawn += drawn
		// The item's requests, counted in 128 bits: 10,000 copies of a
		// periodic item of 2^55 requests overflow 64.
		var hi, lo uint64
		for _, c := range copies {
			var carry uint64
			lo, carry = bits.Add64(lo, uint64(c.Count), 0)
			hi += carry
		}
		lo, carry := bits.Add64(lo, requests, 0)
		hi += carry
		if hi != 0 || lo > MaxRequests {
			total := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
			total.Or(total, new(big.Int).SetUint64(lo))
			return nil, nil, d.errorf(n, path, "the traffic expands to more than %d requests (%s with this item)", MaxRequests, total)
		}
		// A lane decides each request once per attempt its client may
		// make: the worst case of a run's work, counted here as requests
		// are, before a run makes any.
		attempts, what := uint64(1), fmt.Sprintf("%d requests of no client", lo-requests)
		if it.Client > 0 {
			c := s.Clients[it.Client-1]
			attempts = uint64(c.Attempts)
			what = fmt.Sprintf("%d requests × %d attempts of client %s", lo-requests, attempts, strconv.Quote(shorten(c.Name)))
		}
		if decisions += (lo - requests) * attempts; decisions > MaxDecisions {
			return nil, nil, d.errorf(n, path, "the traffic would make up to %d decisions per lane (this item: %s); at most %d, about 30 s of run a lane", decisions, what, MaxDecisions)
		}
		requests = lo
		for _, c := range copies {
			hi, lo := bits.Mul64(uint64(c.Count), uint64(c.Cost))
			if totalCost += lo; hi != 0 || totalCost > maxTotalCost {
				return nil, nil, d.errorf(item.at("cost"), path, "the requests' costs add up to more than 2^62")
			}
		}
		for _, l := range s.Lanes {
			for _, p := range l.Policies() {
				if limit := p.MaxCost(); it.Cost > limit {
					return nil, nil, item.errorf("cost", "cost %d can never fit lane %s (%s admits at most %d)", it.Cost, l.Name, p, limit)
				}
			}
		}
		if total+len(copies) > MaxTrafficItems {
			return nil, nil, d.errorf(n, path, "the traffic expands to more than %d items, counting an item of accounts or keys as its copies (%d with this item)", MaxTrafficItems, total+len(copies))
		}
		parts, partFields = append(parts, copies), append(partFields, item)
		total += len(copies)
	}
	if len(parts) == 1 {
		s.Traffic = parts[0]
	} else {
		s.Traffic = make([]Traffic, 0, total)
		for _, p := range parts {
			s.Traffic = append(s.Traffic, p...)
		}
	}
	tf = make([]*fields, 0, total)
	for i, p := range parts {
		for range p {
			tf = append(tf, partFields[i])
		}
	}
	return tf, written, nil
}

// accountNames are the n keys base-1 … base-n, cut from one string:
// three allocations, not one a key (10,000 accounts an item).
func accountNames(base string, n int64) []string {
	buf := make([]byte, 0, n*int64(len(base)+1+len(strconv.FormatInt(n, 10))))
	ends := make([]int, n)
	for i := range n {
		buf = append(buf, base...)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, i+1, 10)
		ends[i] = len(buf)
	}
	all := string(buf)
	names := make([]string, n)
	start := 0
	for i, end := range ends {
		names[i], start = all[start:end], end
	}
	return names
}

func (d *decoder) traffic(n ast.Node, path string) (trafficItem, *fields, error) {
	it, f, err := d.trafficOne(n, path)
	if err != nil {
		return trafficItem{}, nil, err
	}
	if err := d.accountKeys(f, &it); err != nil {
		return trafficItem{}, nil, err
	}
	return it, f, nil
}

func (d *decoder) trafficOne(n ast.Node, path string) (trafficItem, *fields, error) {
	f, err := d.fields(n, path, "a traffic item such as {at: 1s}, {at: 0s, count: 10, spread: 1s}, {every: 500ms, until: 30s} or {poisson: 20/s, until: 30s}", trafficFields)
	if err != nil {
		return trafficItem{}, nil, err
	}
	t := Traffic{Key: DefaultKey, Cost: 1, Count: 1}
	t.Line, _ = position(n)
	// misplaced reports a field of the other form.
	misplaced := func(names []string, form, other string) error {
		for _, name := range names {
			if f.present(name) {
				return f.keyErrorf(name, "%s belongs to %s and cannot be mixed with %s", name, form, other)
			}
		}
		return nil
	}
	const onOff = "a poisson item (poisson, on, off)"
	switch {
	case f.present("poisson"):
		t.Form, t.Count = Poisson, 0
		if err := misplaced([]string{"at", "count", "spread"}, "a request or burst (at, count, spread)", "poisson (random arrivals)"); err != nil {
			return trafficItem{}, nil, err
		}
		if err := misplaced([]string{"every"}, "a periodic item (every, from, until)", "poisson (random arrivals)"); err != nil {
			return trafficItem{}, nil, err
		}
		if t.Rate, err = f.rate("poisson"); err != nil {
			return trafficItem{}, nil, err
		}
		if int64(t.Rate.Per) < t.Rate.N*int64(minPoissonGap) {
			// Gaps are drawn in whole nanoseconds: far below a
			// microsecond, rounding them would bias the mean.
			return trafficItem{}, nil, f.errorf("poisson", "want a mean gap of at least %s (at most %d a second), got %s: one every %s",
				algorithms.FormatDuration(minPoissonGap), int64(time.Second/minPoissonGap), t.Rate, algorithms.FormatDuration(t.Rate.Per/time.Duration(t.Rate.N)))
		}
		if t.From, t.Until, err = f.span("poisson"); err != nil {
			return trafficItem{}, nil, err
		}
		var ok bool
		if f.present("on") || f.present("off") {
			if t.On, ok, err = f.duration("on", true); err != nil {
				return trafficItem{}, nil, err
			} else if !ok {
				return trafficItem{}, nil, f.missing("on", "the length of each on-phase with off, such as 2s")
			}
			if t.Off, ok, err = f.duration("off", true); err != nil {
				return trafficItem{}, nil, err
			} else if !ok {
				return trafficItem{}, nil, f.missing("off", "the length of each off-phase with on, such as 8s")
			}
		}
	case f.has("every"):
		t.Form = Periodic
		if err := misplaced([]string{"at", "count", "spread"}, "a request or burst (at, count, spread)", "every (periodic)"); err != nil {
			return trafficItem{}, nil, err
		}
		if err := misplaced([]string{"on", "off"}, onOff, "every (periodic)"); err != nil {
			return trafficItem{}, nil, err
		}
		if t.Every, _, err = f.duration("every", true); err != nil {
			return trafficItem{}, nil, err
		}
		if t.From, t.Until, err = f.span("periodic"); err != nil {
			return trafficItem{}, nil, err
		}
		t.Count = periodicCount(t.From, t.Until, t.Every)
	case f.has("at"):
		if err := misplaced([]string{"every", "from", "until"}, "a periodic or poisson item (every or poisson, from, until)", "at (a request or burst)"); err != nil {
			return trafficItem{}, nil, err
		}
		if err := misplaced([]string{"on", "off"}, onOff, "at (a request or burst)"); err != nil {
			return trafficItem{}, nil, err
		}
		if t.At, _, err = f.duration("at", false); err != nil {
			return trafficItem{}, nil, err
		}
		if f.present("count") {
			t.Form = Burst
			var ok bool
			if t.Count, ok, err = f.integer("count", 1, MaxRequests); err != nil {
				return trafficItem{}, nil, err
			} else if !ok {
				return trafficItem{}, nil, f.missing("count", "the number of requests in the burst")
			}
			if t.Spread, _, err = f.duration("spread", false); err != nil {
				return trafficItem{}, nil, err
			}
		} else if f.present("spread") {
			return trafficItem{}, nil, f.keyErrorf("spread", "spread needs count (a burst is at + count, optionally spread)")
		}
	default:
		return trafficItem{}, nil, d.errorf(n, path, "want at (one request, or a burst with count), every (periodic, with until) or poisson (random arrivals, with until)")
	}
	if key, ok, err := f.optionalKey(); err != nil {
		return trafficItem{}, nil, err
	} else if ok {
		t.Key = key
	}
	if cost, ok, err := f.integer("cost", 1, algorithms.MaxCount); err != nil {
		return trafficItem{}, nil, err
	} else if ok {
		t.Cost = cost
	}
	return trafficItem{Traffic: t}, f, nil
}

// span reads a periodic or poisson item's from (0 if left out) and until
// (required, after from).
func (f *fields) span(form string) (from, until time.Duration, err error) {
	if from, _, err = f.duration("from", false); err != nil {
		return 0, 0, err
	}
	var ok bool
	if until, ok, err = f.duration("until", false); err != nil {
		return 0, 0, err
	} else if !ok {
		return 0, 0, f.missing("until", "the end of the "+form+" item (exclusive), such as 30s")
	}
	if until <= from {
		return 0, 0, f.errorf("until", "want a time after from (%s), got %s", algorithms.FormatDuration(from), algorithms.FormatDuration(until))
	}
	return from, until, nil
}

// accountKeys reads accounts, keys and stagger: it sets it.keys to the
// keys of the copies (nil without accounts or keys) and it.stagger.
func (d *decoder) accountKeys(f *fields, it *trafficItem) error {
	if f.present("accounts") && f.present("keys") {
		return f.keyErrorf("keys", "keys and accounts cannot be mixed (accounts names its copies acct-1 …, keys names each)")
	}
	switch {
	case f.present("accounts"):
		n, ok, err := f.integer("accounts", 1, MaxAccounts)
		if err != nil {
			return err
		} else if !ok {
			return f.missing("accounts", fmt.Sprintf("the number of copies, 1 to %d", MaxAccounts))
		}
		base := "acct"
		if f.has("key") {
			base = it.Key
			if last := fmt.Sprintf("%s-%d", base, n); len(last) > maxKeyLen {
				return f.errorf("key", "want a key of 1 to %d bytes with accounts: %d (its last copy's key would be %s, %d bytes)", maxKeyLen-len(last)+len(base), n, strconv.Quote(shorten(last)), len(last))
			}
		}
		it.keys = accountNames(base, n)
		it.accounts, it.keyBase = n, f.has("key")
	case f.present("keys"):
		if f.present("key") {
			return f.keyErrorf("key", "key cannot be mixed with keys (keys gives each copy its key)")
		}
		const want = "a list of 1 to 10000 distinct keys such as [alice, bob]"
		nodes, err := f.list("keys", want)
		if err != nil {
			return err
		}
		switch {
		case len(nodes) == 0:
			return f.errorf("keys", "want %s, got none", want)
		case len(nodes) > MaxAccounts:
			return f.errorf("keys", "want %s, got %d", want, len(nodes))
		}
		path := child(f.path, "keys")
		seen := make(map[string]int, len(nodes))
		it.keys = make([]string, len(nodes))
		for i, kn := range nodes {
			key, err := d.key(kn, index(path, i))
			if err != nil {
				return err
			}
			if j, dup := seen[key]; dup {
				return d.errorf(kn, index(path, i), "key %s appears twice in keys (first as keys[%d])", strconv.Quote(shorten(key)), j)
			}
			seen[key] = i
			it.keys[i] = key
		}
	}
	if v, ok, err := f.text("stagger", "one of none, even, random", false); err != nil {
		return err
	} else if ok {
		switch {
		case v != "none" && v != "even" && v != "random":
			return f.errorf("stagger", "want one of none, even, random, got %s", strconv.Quote(shorten(v)))
		case v == "none":
			// The default, written out: no copy moves, whatever the item.
		case it.Form == Poisson:
			return f.keyErrorf("stagger", "stagger needs every (a periodic item): a poisson item's copies each draw their own times already")
		case it.Form != Periodic:
			return f.keyErrorf("stagger", "stagger needs every (a periodic item): only a periodic item's copies can start at offsets within every")
		case it.keys == nil:
			return f.keyErrorf("stagger", "stagger needs accounts or keys (the copies to stagger)")
		}
		if v != "none" {
			it.stagger = v
		}
	}
	return nil
}

// key reads one key of a keys list: any scalar, as written, that a key
// field would accept.
func (d *decoder) key(n ast.Node, path string) (string, error) {
	n, err := d.plain(n, path)
	if err != nil {
		return "", err
	}
	var s string
	switch v := n.(type) {
	case *ast.StringNode:
		s = v.Value
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		s = v.GetToken().Value
	default:
		return "", d.errorf(n, path, "want a key, got %s", describe(n))
	}
	if err := CheckKey(s); err != nil {
		return "", d.errorf(n, path, "%s", err.Error())
	}
	return s, nil
}
