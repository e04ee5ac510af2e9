package algorithms

import (
	"fmt"
	"maps"
	"time"
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
	// Snapshot describes key's state as seen at now (≥ its last request)
	// without changing it. A key never seen is shown in its initial state.
	Snapshot(now time.Duration, key string) Snapshot
	// Clone returns an independent copy: deciding on one never changes the other.
	Clone() Limiter
}

// New makes the Limiter for p, or says why p is invalid.
func New(p Policy) (Limiter, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	switch p.Algorithm {
	case FixedWindow:
		return newKeyed[windowCounts](newFixedWindow(p)), nil
	case SlidingLog:
		return newKeyed[slidingLogState](newSlidingLog(p)), nil
	case SlidingCounter:
		return newKeyed[windowCounts](newSlidingCounter(p)), nil
	case TokenBucket:
		return newKeyed[tokenBucketState](newTokenBucket(p)), nil
	case GCRA:
		return newKeyed[gcraState](newGCRA(p)), nil
	case LeakyBucket:
		return newKeyed[leakyBucketState](newLeakyBucket(p)), nil
	}
	return nil, fmt.Errorf("unknown algorithm %q", p.Algorithm) // unreachable: Validate
}

// lateNote prefixes an explanation when the request arrived (d.At) before
// the key's latest time eff and was decided as if at eff.
func lateNote(d *Decision, eff time.Duration) string {
	if eff <= d.At {
		return ""
	}
	return fmt.Sprintf("arrived at %s, before this key's latest request: decided as at %s; ",
		FormatSeconds(d.At), FormatSeconds(eff))
}

// retryFrom writes a rejection's wait counted from eff, the time it was
// decided at, and for a late request also RetryAfter, counted from arrival.
func retryFrom(d *Decision, eff time.Duration) string {
	wait := FormatSeconds(d.RetryAfter - (eff - d.At))
	if eff <= d.At {
		return wait
	}
	return fmt.Sprintf("%s, %s after arrival", wait, FormatSeconds(d.RetryAfter))
}

// algorithm is one limiter's rule for a single key, as a pure transition.
// Implementations are pointers to immutable policy data, shared by clones.
type algorithm[S any] interface {
	policy() *Policy
	// start is the state of a key first seen at now.
	start(now time.Duration) S
	// decide moves *s to the key's next state and returns the decision,
	// complete. cost ≥ 1.
	decide(s *S, now time.Duration, cost int64) Decision
	// snapshot describes s at now without changing it.
	snapshot(s S, now time.Duration) Snapshot
	// clone deep-copies s.
	clone(s S) S
}

// keyed holds one state per key for an algorithm.
type keyed[S any] struct {
	alg    algorithm[S]
	index  map[string]int
	states []S
	// The last key decided and its index: runs of one key skip the map.
	lastKey string
	last    int // index of lastKey, or −1 before the first decision
}

func newKeyed[S any](alg algorithm[S]) *keyed[S] {
	return &keyed[S]{alg: alg, index: map[string]int{}, last: -1}
}

func (k *keyed[S]) Policy() Policy { return *k.alg.policy() }

func (k *keyed[S]) Decide(now time.Duration, key string, cost int64) Decision {
	if cost < 1 {
		panic("algorithms: cost must be at least 1")
	}
	i := k.last
	if i < 0 || key != k.lastKey {
		var ok bool
		if i, ok = k.index[key]; !ok {
			i = len(k.states)
			k.index[key] = i
			k.states = append(k.states, k.alg.start(now))
		}
		k.lastKey, k.last = key, i
	}
	return k.alg.decide(&k.states[i], now, cost)
}

func (k *keyed[S]) Snapshot(now time.Duration, key string) Snapshot {
	if i, ok := k.index[key]; ok {
		return k.alg.snapshot(k.states[i], now)
	}
	return k.alg.snapshot(k.alg.start(now), now)
}

func (k *keyed[S]) Clone() Limiter {
	c := &keyed[S]{alg: k.alg, index: maps.Clone(k.index), states: make([]S, len(k.states)),
		lastKey: k.lastKey, last: k.last}
	for i, s := range k.states {
		c.states[i] = k.alg.clone(s)
	}
	return c
}
