package algorithms

// Keys numbers request keys in order of first use, for limiters that share
// one numbering: a caller deciding each request on several limiters looks
// its key up once (Keys.Key) and passes the Key to each (Limiter.DecideKey)
// instead of each limiter looking it up in a map of its own. The numbering
// only grows; limiters made with it (NewWithKeys) and all their clones keep
// their states by these numbers. Not safe for concurrent use.
type Keys struct{ index map[string]int }

// NewKeys is an empty numbering.
func NewKeys() *Keys { return &Keys{index: map[string]int{}} }

// Key is key with its number, given at its first use.
func (ks *Keys) Key(key string) Key {
	i, ok := ks.index[key]
	if !ok {
		i = len(ks.index)
		ks.index[key] = i
	}
	return Key{key, i}
}

// Lookup is key with its number if it has one; otherwise ok is false and
// the Key stands for a key no limiter has seen.
func (ks *Keys) Lookup(key string) (k Key, ok bool) {
	i, ok := ks.index[key]
	if !ok {
		return Key{key, -1}, false
	}
	return Key{key, i}, true
}

// Key is a request key and its number in a Keys.
type Key struct {
	name string
	id   int
}

// String is the key itself.
func (k Key) String() string { return k.name }

// ID is k's number in its Keys, from 0 in order of first appearance; −1
// for a key a Lookup did not find.
func (k Key) ID() int { return k.id }

// Len is how many keys are numbered.
func (ks *Keys) Len() int { return len(ks.index) }

// All calls yield with every numbered key, in no particular order, until it
// returns false.
func (ks *Keys) All(yield func(Key) bool) {
	for name, i := range ks.index {
		if !yield(Key{name, i}) {
			return
		}
	}
}
