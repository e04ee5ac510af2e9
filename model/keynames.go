package model

import "ratelab/scenarios"

// keyNames numbers a lab's keys in the order of their first requests. A
// key its scenario's file numbered (scenarios.Scenario.KeyNumbers) is
// numbered without being indexed and found by name through the file's own
// index: 100,000 keys cost the lab no map of its own. Any other key (fired
// by the learner, a log's, or every key of a scenario a program built) is
// interned.
type keyNames struct {
	interned[string] // list is every key; index holds the interned ones
	// file numbered the keys, when set; byFile[n] is the lab's number of
	// the key the file numbered n, −1 until the key's first request.
	file   *scenarios.Scenario
	byFile []int32
}

// numberedBy makes the file's numbers the way keys are found, count of
// them, none of them numbered yet.
func (k *keyNames) numberedBy(file *scenarios.Scenario, count int) {
	k.file, k.byFile = file, make([]int32, count)
	for n := range k.byFile {
		k.byFile[n] = -1
	}
}

// ofFile is the number of the key the file numbered n (named key),
// numbered anew if it has none yet, and whether it had one.
func (k *keyNames) ofFile(n int32, key string) (int32, bool) {
	if i := k.byFile[n]; i >= 0 {
		return i, true
	}
	i := k.add(key)
	k.byFile[n] = i
	return i, false
}

// lookup is key's number, if the lab has seen it.
func (k *keyNames) lookup(key string) (int32, bool) {
	if k.file != nil {
		// A file's key is numbered at the timeline's building, before
		// any key truncate can forget; one the file names but that had
		// no request there is interned if fired.
		if n, ok := k.file.KeyNumber(key); ok && int(n) < len(k.byFile) {
			if i := k.byFile[n]; i >= 0 {
				return i, true
			}
		}
	}
	return k.interned.lookup(key)
}

// of is key's number, numbered anew if unseen.
func (k *keyNames) of(key string) int32 {
	if i, ok := k.lookup(key); ok {
		return i
	}
	return k.interned.of(key)
}
