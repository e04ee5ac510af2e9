package model

import (
	"fmt"
	"time"

	"ratelab/algorithms"
	"ratelab/internal/minheap"
	"ratelab/scenarios"
)

// Each lane sees its own retries: every lane gets the same original
// requests, and each lane's refusals make that lane's retries, which only
// that lane then decides. A lane keeps the retries it owes in a heap beside
// its limiter (in lanes, so a checkpoint holds them). Before an original
// request at t, every retry due at or before t is decided first, in time
// order (ties in the order they were made); a retry due at the same instant
// as an original therefore goes before it, and one a refusal makes for its
// own instant (retry: at-once) goes before the next original at that
// instant. Retries are sent only before the scenario's Duration: one that
// would come later leaves its request unfinished.

// Fate is what became of a request after one of its attempts was decided.
type Fate uint8

const (
	// Retrying: refused, and its client sends it again later.
	Retrying Fate = iota
	// Served: admitted (released after any delay), within any deadline.
	Served
	// Abandoned: its client gave up (its rule, its attempts used, a cost
	// that never fits, or its deadline).
	Abandoned
	// Unfinished: its next attempt would come after the scenario's end.
	Unfinished
)

var fateNames = [...]string{Retrying: "retrying", Served: "served", Abandoned: "abandoned", Unfinished: "unfinished"}

// String is "retrying", "served", "abandoned" or "unfinished".
func (f Fate) String() string { return fateNames[f] }

// Attempt is one try of a request by its client: the original request
// (N = 1) or a retry.
type Attempt struct {
	// N is the attempt's number, 1 for the original request.
	N int
	// Original is the original request's index in the timeline (Lab) or
	// stream (Run), and First its arrival.
	Original int
	First    time.Duration
	// Client is 1 + the index in Scenario.Clients of the request's client,
	// 0 for none.
	Client int
	// Fate is what became of the request after this attempt; Ending says
	// why it was abandoned (or scenarios.TryAgain); Next is, when Fate is
	// Retrying, when the next attempt comes.
	Fate   Fate
	Ending scenarios.Ending
	Next   time.Duration
	// Latency is, when Served, the time from the first attempt to the
	// release: At + Delay − First.
	Latency time.Duration
	// Cancelled tells that the attempt, admitted after a wait past its
	// deadline, was given back: the lane is as if it never came, and it
	// never passes.
	Cancelled bool
}

// retry is an attempt a lane owes: request key of cost, attempt n of the
// original request orig first sent at first.
type retry struct {
	at, first time.Duration
	key       algorithms.Key
	cost      int64
	orig      int
	rank      int32 // among the originals arriving at first, from 0
	n         int32
	client    int32
	seq       uint64 // the order the lane made its retries in: ties' order
}

// owedRetries are the retries one lane owes, taken in time order, ties
// in the order the lane made them (seq, never the same twice). They wait
// in a slab, and a min-heap of small references orders them (due At, Seq
// the retry's seq, V its slot in the slab): the heap's comparisons move
// three words, not a retry's ten.
type owedRetries struct {
	heap []minheap.Entry[int32]
	slab []retry
	free []int32 // the slab's empty slots
}

// push adds x.
func (o *owedRetries) push(x retry) {
	var s int32
	if n := len(o.free); n > 0 {
		s, o.free = o.free[n-1], o.free[:n-1]
		o.slab[s] = x
	} else {
		s = int32(len(o.slab))
		o.slab = append(o.slab, x)
	}
	o.heap = minheap.Push(o.heap, minheap.Entry[int32]{At: x.at, Seq: int64(x.seq), V: s})
}

// pop removes and returns the first retry; o must hold one.
func (o *owedRetries) pop() retry {
	var r minheap.Entry[int32]
	r, o.heap = minheap.Pop(o.heap)
	x := o.slab[r.V]
	o.slab[r.V] = retry{} // drop what it refers to
	o.free = append(o.free, r.V)
	return x
}

// clone is a copy of o that shares no memory with it, its retries in
// a slab of their own, no larger than they are.
func (o *owedRetries) clone() owedRetries {
	if len(o.heap) == 0 {
		return owedRetries{}
	}
	c := owedRetries{heap: make([]minheap.Entry[int32], len(o.heap)), slab: make([]retry, len(o.heap))}
	for i, r := range o.heap {
		c.slab[i] = o.slab[r.V]
		c.heap[i] = minheap.Entry[int32]{At: r.At, Seq: r.Seq, V: int32(i)}
	}
	return c
}

// clientBook is what the lanes know of a scenario's clients; nil when it
// has none, which leaves every request open-loop.
type clientBook struct {
	clients []scenarios.Client
	seed    uint64
	// end is the scenario's Duration: no retry is sent at or after it.
	end time.Duration
}

func newClientBook(s *scenarios.Scenario) *clientBook {
	if s == nil || len(s.Clients) == 0 {
		return nil
	}
	return &clientBook{clients: s.Clients, seed: s.Seed, end: s.Duration}
}

// client is the client numbered c (1 + its index), nil for 0.
func (b *clientBook) client(c int32) *scenarios.Client {
	if b == nil || c == 0 {
		return nil
	}
	return &b.clients[c-1]
}

// retryBytes is what one owed retry takes.
const retryBytes = 80

// Then says what became of a request after attempt a, in a few words: "served after
// 1.2s", "retries at 3s (attempt 2)", "abandoned: gives up (attempts
// used)", "unfinished: its next attempt at 31s is past the end".
func (a Attempt) Then() string {
	switch a.Fate {
	case Served:
		if a.Latency == 0 {
			return "served"
		}
		return "served " + algorithms.FormatSeconds(a.Latency) + " after its first attempt"
	case Retrying:
		return fmt.Sprintf("attempt %d at %s", a.N+1, algorithms.FormatSeconds(a.Next))
	case Unfinished:
		return fmt.Sprintf("unfinished: attempt %d would come at %s, past the end", a.N+1, algorithms.FormatSeconds(a.Next))
	}
	if a.Cancelled {
		return "abandoned: " + a.Ending.String() + ", its slot given back"
	}
	return "abandoned: " + a.Ending.String()
}
