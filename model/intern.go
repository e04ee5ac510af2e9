package model

// interned numbers values in order of first appearance, so that a timeline
// stores a small number for each: the lab's keys, and its kinds of request
// (key, cost, fire action). Numbers past n are forgotten by truncate when
// the requests naming them are gone.
type interned[T comparable] struct {
	list  []T
	index map[T]int32
}

// of is v's number, v numbered anew if unseen.
func (in *interned[T]) of(v T) int32 {
	if i, ok := in.index[v]; ok {
		return i
	}
	if in.index == nil {
		in.index = map[T]int32{}
	}
	i := int32(len(in.list))
	in.list = append(in.list, v)
	in.index[v] = i
	return i
}

// add numbers v without indexing it, for a value its caller finds
// another way (keyNames: a key its file numbered); v must be new.
func (in *interned[T]) add(v T) int32 {
	in.list = append(in.list, v)
	return int32(len(in.list) - 1)
}

// lookup is v's number, if v was seen.
func (in *interned[T]) lookup(v T) (int32, bool) {
	i, ok := in.index[v]
	return i, ok
}

// truncate forgets every value after the first n.
func (in *interned[T]) truncate(n int) {
	for _, v := range in.list[n:] {
		delete(in.index, v)
	}
	in.list = in.list[:n]
}
