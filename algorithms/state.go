package algorithms

import (
	"fmt"
	"time"
)

// StateForm names the whole numbers a key's state is written as, for a
// store outside the process (package redisstore keeps them in one Redis
// hash a key): scalar fields, then, for a state that keeps items beside
// them (a log's admissions, a queue's requests), a list of items of a few
// numbers each. Every number is a whole number; times are nanoseconds from
// the scenario's start.
type StateForm struct {
	// Fields name State.Fields, in order.
	Fields []string
	// Log names the list of items, "" for a state that keeps none.
	Log string
	// Item names the numbers of one item of Log, in order: State.Log holds
	// len(Item) numbers an item, oldest item first.
	Item []string
}

// State is one key's state as whole numbers, in its algorithm's StateForm.
// Two limiters of one policy whose States of a key are equal decide that
// key's next requests alike: a State holds what decides, not how the
// process happens to keep it (a log's running totals, a table's spare
// room), so it is the form two stores of a key are compared in.
type State struct {
	Fields []int64
	Log    []int64
}

// StateCodec is a Limiter whose keys' states can be written as whole
// numbers and read back: every limiter of an algorithm whose Description
// has a StateForm.
type StateCodec interface {
	// ExportKey is key's state, or false for a key the limiter has no
	// state for (never seen, or forgotten).
	ExportKey(key Key) (State, bool)
	// ImportKey sets key's state, or says why st is not a state of the
	// limiter's policy (wrong lengths, a value out of range).
	ImportKey(key Key, st State) error
}

// codec is an algorithm whose states can be written as whole numbers.
type codec[S any] interface {
	// encode writes s in the algorithm's StateForm.
	encode(s *S) State
	// decode is the state st stands for, its tables (a log's chunks)
	// accounted to m, or why st is not one.
	decode(st State, m *mem) (S, error)
}

// checkShape reports whether st has the lengths form asks for.
func (form *StateForm) checkShape(st State) error {
	if len(st.Fields) != len(form.Fields) {
		return fmt.Errorf("state has %d fields, want %d (%v)", len(st.Fields), len(form.Fields), form.Fields)
	}
	if form.Log == "" && len(st.Log) > 0 || len(form.Item) > 0 && len(st.Log)%len(form.Item) != 0 {
		return fmt.Errorf("state's %s has %d numbers, not whole items of %v", form.Log, len(st.Log), form.Item)
	}
	return nil
}

// ExportKey is key's state in the algorithm's StateForm; false for a key
// without one. It panics for an algorithm without a StateForm.
func (k *keyed[S]) ExportKey(key Key) (State, bool) {
	s := k.seenSlot(key.id)
	if s == nil {
		return State{}, false
	}
	return k.alg.(codec[S]).encode(&s.s), true
}

// ImportKey sets key's state from st, as CopyKey does from a limiter.
func (k *keyed[S]) ImportKey(key Key, st State) error {
	c, ok := k.alg.(codec[S])
	if !ok {
		return fmt.Errorf("%s has no whole-number form of its state", k.alg.policy().Algorithm)
	}
	form := k.alg.policy().StateForm()
	if err := form.checkShape(st); err != nil {
		return err
	}
	if key.id < 0 {
		return fmt.Errorf("key %q has no number", key.name)
	}
	s, err := c.decode(st, &k.m)
	if err != nil {
		return err
	}
	dst := k.slot(key.id, 0)
	k.discard(dst)
	*dst = s
	return nil
}

// HasStateForm reports whether limiters of the algorithm can write their
// states as whole numbers (StateCodec).
func (d *Description) HasStateForm() bool { return d.State.Fields != nil || d.StateFor != nil }

// StateForm is the form p's limiters write a key's state in (StateCodec);
// its Fields are nil for an algorithm without one. p must be valid.
func (p Policy) StateForm() StateForm {
	d := Describe(p.Algorithm)
	if d.StateFor != nil {
		return d.StateFor(p)
	}
	return d.State
}

// StoreView is where a key's state lives in a store outside the process,
// as the explorer shows it. Every string is the store's own words: its
// key, its contents, the command it ran.
type StoreView struct {
	// Store names the store: "redis 127.0.0.1:6379/0".
	Store string
	// Key is the store's key for the lane's key: "rl:v1:{bucket:alice}".
	Key string
	// Contents are what the store holds under Key now, a line a field in
	// the StateForm's order ("balance 119000000000"); none for a key it
	// holds nothing under.
	Contents []string
	// Last is the command the key's latest decision or write ran, empty
	// before the first.
	Last string
	// Err is the store's failure, if it has failed: then the lane decides
	// in memory only.
	Err error
}

// Inspector is a Limiter whose state lives in a store outside the
// process (package redisstore), which can show where a key's is.
type Inspector interface {
	// Inspect is where key's state is, as the store holds it now.
	Inspect(key string) StoreView
	// Hold makes the store hold this limiter's states as of now: an
	// instance rewound from a checkpoint writes its keys back, writes in
	// flight that have landed by now are written. Then what the store
	// holds is what the limiter shows. It returns the store's failure, if
	// it has failed (then the limiter decides in memory only).
	Hold(now time.Duration) error
}
