package algorithms

import (
	"fmt"
	"time"
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
func (l Layer) Scope() string {
	if l.AllKeys {
		return "all keys together"
	}
	return "per key"
}

// AllKeysKey is the key a layer over all keys keeps its one state under: a
// name no request key can have (request keys hold no control character).
const AllKeysKey = "\x00all"

// stack applies several policies to each request: it is admitted only if
// every layer admits it, and then spent in every layer; a request one layer
// refuses leaves every layer as it was, as nginx's several limit_req zones
// do (they account a request only once the last zone admits it).
type stack struct {
	Decider
	layers []Layer
	lims   []Limiter
	ids    *Keys
	all    Key // AllKeysKey in ids
	// saved holds, while a request is decided, each layer's state for its
	// key before it: what a refusal puts back.
	saved []State
	had   []bool
}

// NewStack makes the limiter of a stack of layers (at least one), numbering
// keys by ks. Every layer must admit or refuse at once: a layer that can
// delay (a Policy with MaxDelay above 0) is refused, since a request
// waiting in one queue while another layer has spent it has no single
// answer.
func NewStack(layers []Layer, ks *Keys) (Limiter, error) {
	if len(layers) == 0 {
		return nil, fmt.Errorf("a stack needs at least one policy")
	}
	s := &stack{layers: layers, ids: ks, all: ks.Key(AllKeysKey), saved: make([]State, len(layers)), had: make([]bool, len(layers))}
	s.Decider = NewDecider(s, ks)
	for _, l := range layers {
		if l.Policy.MaxDelay() > 0 {
			return nil, fmt.Errorf("policy %s: %s delays requests, and a stack's policies must each admit or refuse at once", l.Name, l.Policy.Algorithm)
		}
		lim, err := NewWithKeys(l.Policy, ks)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", l.Name, err)
		}
		s.lims = append(s.lims, lim)
	}
	return s, nil
}

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
	if s.layers[i].AllKeys {
		return s.all
	}
	return key
}

// DecideInto decides the request in every layer in order. If one refuses,
// every layer's state for the request's key is put back; the decision is
// the first refusal's, with RetryAfter the longest of the refusals' (no
// layer admits sooner) and every layer's reasoning in its explanation.
func (s *stack) DecideInto(d *Decision, now time.Duration, key Key, cost int64) {
	// Each decision keeps its layers' verdicts for its explanation, which
	// may be asked for long after: the one allocation a stack makes a
	// decision, beside what ExportKey copies.
	verdicts := make([]Decision, len(s.lims))
	layers := s.layers
	if len(s.lims) == 1 {
		// One policy (a lane over all keys): nothing to put back; it
		// decides as that policy alone.
		s.lims[0].DecideInto(&verdicts[0], now, s.keyOf(0, key), cost)
		*d = verdicts[0]
		if d.RetryAfter != Never {
			d.explain = func(d *Decision) string { return explainStack(layers, verdicts, d) }
		}
		return
	}
	refused := -1
	var wait time.Duration
	for i, lim := range s.lims {
		k := s.keyOf(i, key)
		s.saved[i], s.had[i] = lim.(StateCodec).ExportKey(k)
		lim.DecideInto(&verdicts[i], now, k, cost)
		if verdicts[i].Outcome == Rejected {
			if refused < 0 {
				refused = i
			}
			wait = max(wait, verdicts[i].RetryAfter)
		}
	}
	if refused >= 0 {
		for i, lim := range s.lims {
			k := s.keyOf(i, key)
			if s.had[i] {
				if err := lim.(StateCodec).ImportKey(k, s.saved[i]); err != nil {
					panic("algorithms: a stack cannot put back its own state: " + err.Error())
				}
			} else {
				lim.(KeyCopier).ForgetKey(k)
			}
		}
		if wait == Never {
			// A layer it can never fit: that is the whole story.
			for _, v := range verdicts {
				if v.RetryAfter == Never {
					*d = v
					return
				}
			}
		}
		*d = verdicts[refused]
		d.RetryAfter = wait
	} else {
		*d = verdicts[0]
	}
	d.explain = func(d *Decision) string { return explainStack(layers, verdicts, d) }
}

// Snapshot is the first layer's state for key.
func (s *stack) Snapshot(now time.Duration, key string) Snapshot { return s.LayerSnapshot(0, now, key) }

func (s *stack) Clone() Limiter {
	c := &stack{layers: s.layers, ids: s.ids, all: s.all, lims: make([]Limiter, len(s.lims)), saved: make([]State, len(s.lims)), had: make([]bool, len(s.lims))}
	c.Decider = NewDecider(c, s.ids)
	for i, lim := range s.lims {
		c.lims[i] = lim.Clone()
	}
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
