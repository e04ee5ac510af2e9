package model

import (
	"errors"
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// ErrCost is returned for a request cost below 1.
var ErrCost = errors.New("a request's cost must be at least 1")

// ErrKey is returned for a key a scenario file could not hold.
var ErrKey = errors.New("not a key a scenario file can hold")

// MaxBurst bounds the requests one fire action may add.
const MaxBurst = 1_000_000

// Fire adds a request for key at Now and returns every lane's decision on it.
func (l *Lab) Fire(key string, cost int64) ([]Record, error) { return l.FireAt(l.clock.now, key, cost) }

// FireAt adds a request for key at t, after every request already at t, and
// recomputes everything after it: the what-if of a request that came earlier.
// The time axis grows, if need be, to reach the lanes' longest horizon past
// t (see End).
// An empty key is scenarios.DefaultKey, as in a scenario file; a key a file
// could not hold (over 64 bytes, not UTF-8) is refused. The clock stays
// where it is. It returns every lane's decision on it.
func (l *Lab) FireAt(t time.Duration, key string, cost int64) ([]Record, error) {
	return l.fire(fireAction{at: t, key: key, cost: cost, n: 1})
}

// FireBurst adds n requests for key at Now as one action (one Undo removes
// them all) and returns every lane's decision on each, in timeline order then
// lane order. The n requests sit next to each other in the timeline, from
// the first record's Index on, after every request already at Now.
// Everything after them is recomputed once, not n times.
func (l *Lab) FireBurst(key string, cost int64, n int) ([]Record, error) {
	return l.FireSpread(key, cost, n, 0)
}

// FireSpread adds n requests for key from Now over spread as one action (one
// Undo removes them all), placed as a scenario's burst item with that count
// and spread places them: the i-th at Now + ⌊i × spread / n⌋, each after
// every request already at its time. With spread 0 it is FireBurst. It
// returns every lane's decision on each, in timeline order then lane order;
// with a spread, other requests may sit between them (each record's Index
// says where its request is). Everything after the first is recomputed once.
func (l *Lab) FireSpread(key string, cost int64, n int, spread time.Duration) ([]Record, error) {
	return l.fire(fireAction{at: l.clock.now, spread: spread, key: key, cost: cost, n: n})
}

// FiredCount is how many of the timeline's requests the learner fired.
func (l *Lab) FiredCount() int { return l.timeline.nFired }

// FiredRequests are the learner's requests still on the timeline, in
// timeline order: what a saved scenario adds to the original.
func (l *Lab) FiredRequests() []Request { return l.timeline.firedRequests() }

// Fired is a fire action's requests on the timeline, added by
// FireSpreadLater and not yet all decided: its lanes' tallies are read with
// FiredTallies once the lab has decided Need requests (ComputeAhead, in
// slices if it must).
type Fired struct {
	// Need is how many requests the lab must have decided for the action's
	// tallies: up to its last request.
	Need int
	// Key is the key its requests were fired as, and Last the time of the
	// last of them.
	Key  string
	Last time.Duration
	// first is the index of its first request, serial the action's, and
	// gen the decisions' generation once it was added: any later change
	// of the timeline moves its requests.
	first  int
	serial uint32
	gen    uint64
}

// FireSpreadLater is FireSpread without its decisions: it adds the n
// requests as one action, moves nothing but what the clock needs (the
// requests at Now), and returns where they are. A burst spread over a
// second of a timeline with many keys leaves the lab to decide the
// requests between (every key's second), which a screen does in slices
// before it asks FiredTallies.
func (l *Lab) FireSpreadLater(key string, cost int64, n int, spread time.Duration) (Fired, error) {
	f := fireAction{at: l.clock.now, spread: spread, key: key, cost: cost, n: n}
	first, last, err := l.add(&f)
	if err != nil {
		return Fired{}, err
	}
	return Fired{Need: last + 1, Key: f.key, Last: l.timeline.at(last), first: first, serial: l.timeline.serial, gen: l.engine.gen}, nil
}

// FiredTallies is each lane's tally of f's requests (each counted once, by
// its first attempt's outcome, as FireSpread's records of them), deciding
// up to f.Need if the lab has not; false when the timeline changed since f
// was fired (f's requests moved or are gone).
func (l *Lab) FiredTallies(f Fired) ([]Tally, bool) {
	e, tl := l.engine, l.timeline
	if e.gen != f.gen || f.Need > tl.len() {
		return nil, false
	}
	e.ensure(f.Need)
	out := make([]Tally, len(e.defs))
	for i := f.first; i < f.Need; i++ {
		if tl.kind(i).fired != f.serial {
			continue
		}
		for lane := range out {
			out[lane].add(e.outcomes[lane][i])
		}
	}
	return out, true
}

// add adds f's requests as one action, tells the engine and the caches,
// and moves the clock to where it was (deciding the requests at Now); it
// returns the indexes of the first and last of them.
func (l *Lab) add(f *fireAction) (first, last int, err error) {
	if err := f.check(); err != nil {
		return 0, 0, err
	}
	tl := l.timeline
	first, last = tl.fire(*f, horizon(l.engine.defs))
	l.changed(change{from: first, keys: len(tl.keys.list)})
	l.clock.seek(l.clock.now)
	return first, last, nil
}

// fire adds f's requests as one action and returns every lane's decision on
// each of them.
func (l *Lab) fire(f fireAction) ([]Record, error) {
	first, last, err := l.add(&f)
	if err != nil {
		return nil, err
	}
	tl := l.timeline
	recs := make([]Record, 0, f.n*len(l.engine.defs))
	if c := l.clock; first == last && last == c.pos-1 && l.engine.book == nil && decidedLast(c.last, last) {
		// One request, the clock's latest, and no retry after it: the
		// clock has just decided it, so its records are there, not
		// another replay from the checkpoint before it.
		return append(recs, c.last...), nil
	}
	l.engine.replay(first, last+1, -1, func(r Record) bool {
		if r.Attempt.N == 1 && tl.kind(r.Index).fired == tl.serial {
			recs = append(recs, r)
		}
		return true
	})
	return recs, nil
}

// fireAction is what one fire action added: n requests for key of cost
// cost, from at over spread as a burst item places them.
type fireAction struct {
	at, spread time.Duration
	key        string
	cost       int64
	n          int
}

// item is the traffic item that expands to the action's requests.
func (f fireAction) item() scenarios.Traffic {
	t := scenarios.Traffic{Form: scenarios.Single, At: f.at, Count: 1, Key: f.key, Cost: f.cost}
	if f.n > 1 {
		t.Form, t.Spread, t.Count = scenarios.Burst, f.spread, int64(f.n)
	}
	return t
}

// check refuses an action a scenario file could not hold, and fills in the
// default key.
func (f *fireAction) check() error {
	if f.cost < 1 {
		return ErrCost
	}
	if f.n < 1 || f.n > MaxBurst {
		return fmt.Errorf("a burst is 1 to %d requests, not %d", MaxBurst, f.n)
	}
	if f.key == "" {
		f.key = scenarios.DefaultKey
	}
	if err := checkKey(f.key); err != nil {
		return err
	}
	if f.spread < 0 {
		return fmt.Errorf("a spread is 0 or more, not %s", algorithms.FormatDuration(f.spread))
	}
	if f.n == 1 {
		f.spread = 0 // one request sits at the start of any spread
	}
	if f.at < 0 {
		return fmt.Errorf("time %s is before the scenario's start", algorithms.FormatDuration(f.at))
	}
	// A file's requests arrive before its duration, at most MaxTime: a
	// request at MaxTime could not be saved.
	if f.at >= scenarios.MaxTime || f.spread >= scenarios.MaxTime || f.item().Time(int64(f.n-1)) >= scenarios.MaxTime {
		return fmt.Errorf("time %s is not before %s, the end of the longest time axis",
			algorithms.FormatDuration(f.item().Time(int64(f.n-1))), algorithms.FormatDuration(scenarios.MaxTime))
	}
	return nil
}

// checkKey refuses a key that a saved scenario could not hold, by the
// rules the loader applies (scenarios.CheckKey): 1 to 64 bytes of UTF-8
// text, no control or bidirectional formatting characters.
func checkKey(key string) error {
	if err := scenarios.CheckKey(key); err != nil {
		return fmt.Errorf("%w: %v", ErrKey, err)
	}
	return nil
}

// decidedLast reports whether recs are every lane's decision on request i.
func decidedLast(recs []Record, i int) bool {
	for _, r := range recs {
		if r.Index != i || r.Attempt.N != 1 {
			return false
		}
	}
	return len(recs) > 0
}
