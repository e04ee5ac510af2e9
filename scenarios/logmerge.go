package scenarios

import (
	"iter"
	"sync"
	"time"
)

// passErrors keeps the error that ended a pass over a log early; a
// scenario and its copies share it.
type passErrors struct {
	mu  sync.Mutex
	err error
}

// Err is the error that ended the latest pass over the requests early
// (Requests and the others stop yielding then): a log that could no
// longer be read as it was when the scenario was read, or a line beyond
// its look-behind. It is nil when that pass read every log to its end,
// or stopped because its reader stopped it, and for a scenario without
// logs.
func (s *Scenario) Err() error {
	if s.passErr == nil {
		return nil
	}
	s.passErr.mu.Lock()
	defer s.passErr.mu.Unlock()
	return s.passErr.err
}

func (s *Scenario) setErr(err error) {
	if s.passErr == nil {
		return
	}
	s.passErr.mu.Lock()
	s.passErr.err = err
	s.passErr.mu.Unlock()
}

// mergeLogs is merge for a scenario with logs: the items' requests (as
// mergeItems orders them) and each log's, in time order; at one time the
// items' requests come first, then each log's in file order. A log's
// requests have the item len(s.Traffic) + its index in s.Logs.
func (s *Scenario) mergeLogs(yield func(item int, r Request) bool) {
	s.setErr(nil)
	fail := func(err error) {
		if err != nil {
			s.setErr(err)
		}
	}
	if len(s.Logs) == 1 && s.countItems() == 0 {
		item := len(s.Traffic)
		fail(s.Logs[0].pass(false, func(at time.Duration, key string, cost int64) bool {
			return yield(item, Request{At: at, Key: key, Cost: cost})
		}))
		return
	}
	type source struct {
		next func() (int, Request, bool)
		stop func()
		item int
		r    Request
	}
	var srcs []*source
	add := func(seq iter.Seq2[int, Request]) {
		next, stop := iter.Pull2(seq)
		srcs = append(srcs, &source{next: next, stop: stop})
	}
	add(func(yield func(int, Request) bool) { s.mergeItems(yield) })
	errs := make([]error, len(s.Logs))
	for j, l := range s.Logs {
		item := len(s.Traffic) + j
		add(func(yield func(int, Request) bool) {
			errs[j] = l.pass(false, func(at time.Duration, key string, cost int64) bool {
				return yield(item, Request{At: at, Key: key, Cost: cost})
			})
		})
	}
	defer func() {
		for _, src := range srcs {
			src.stop()
		}
		for _, err := range errs {
			fail(err)
		}
	}()
	live := srcs[:0]
	for _, src := range srcs {
		var ok bool
		if src.item, src.r, ok = src.next(); ok {
			live = append(live, src)
		}
	}
	for len(live) > 0 {
		// A handful of sources: the earliest is found by looking at each.
		first := 0
		for j := 1; j < len(live); j++ {
			if a, b := live[j], live[first]; a.r.At < b.r.At || a.r.At == b.r.At && a.item < b.item {
				first = j
			}
		}
		src := live[first]
		if !yield(src.item, src.r) {
			return
		}
		var ok bool
		if src.item, src.r, ok = src.next(); !ok {
			live = append(live[:first], live[first+1:]...)
		}
	}
}

// countItems is the requests of s.Traffic's items.
func (s *Scenario) countItems() int64 {
	var n int64
	for _, t := range s.Traffic {
		n += t.Count
	}
	return n
}
