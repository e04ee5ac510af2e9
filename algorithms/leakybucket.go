package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// LeakyBucket: a shaper (nginx limit_req with burst, without nodelay)
// releasing one unit per interval I = Per/N. With free = max(the time the
// pipe is next free, now) and delay = free − now: admitted iff delay +
// (c − 1) × I ≤ Queue × I, released at free (Delayed by delay if it is
// positive, else Allowed), and the pipe is next free at free + c × I.
// RetryAfter: delay + (c − 1) × I − Queue × I.
const LeakyBucket Algorithm = "leaky-bucket"

// QueueParam is the leaky bucket's queue: how many may wait.
var QueueParam = Param{Name: "queue", Kind: Count, Amount: true, Want: "a positive whole number of waiting requests",
	field: func(p *Policy) any { return &p.Queue }}

func init() {
	register(sizedDescription(QueueParam, Description{
		Algorithm: LeakyBucket,
		explain:   explainLeakyBucket,
		InFlight:  1, // one in the pipe beside a full queue
		Rule:      "I = period/N; delay = max(next free, now) − now; admitted iff delay + (c−1)×I ≤ queue×I, released after delay",
		Words: func(p Policy) string {
			return "leaky bucket: queue " + strconv.FormatInt(p.Queue, 10) + ", releasing " + p.Rate.String() + " evenly; delays instead of rejecting"
		},
		// delay ≤ Queue × I, rounded up: the Horizon, the time to drain a full queue.
		MaxDelay: func(p Policy) time.Duration { return p.Horizon() },
		CostBound: func(p Policy) string {
			return fmt.Sprintf("it holds at most %d: its queue of %d and 1 in the pipe", p.Queue+1, p.Queue)
		},
		check: func(p Policy) error {
			if !mulFits(p.Queue+1, int64(p.Rate.Per)) {
				return fmt.Errorf("(queue %d + 1) × rate period %s is too large for exact arithmetic (at most 2^62 ns)", p.Queue, FormatDuration(p.Rate.Per))
			}
			return nil
		},
		Examples: []Example{
			{Name: "shaper", Policy: Policy{Algorithm: LeakyBucket, Queue: 10, Rate: Rate{N: 2, Per: time.Second}}},
		},
		Edges: []Policy{
			{Algorithm: LeakyBucket, Queue: 3, Rate: Rate{N: 7, Per: time.Second}},
			{Algorithm: LeakyBucket, Queue: 5, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
			{Algorithm: LeakyBucket, Queue: 1, Rate: Rate{N: 1, Per: time.Minute}},
			{Algorithm: LeakyBucket, Queue: 2, Rate: Rate{N: 1000, Per: 7}}, // I below 1ns: releases share an instant
			{Algorithm: LeakyBucket, Queue: 40, Rate: Rate{N: 13, Per: 100 * time.Millisecond}},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[leakyBucketState](newLeakyBucket(p), ks) },
		State: leakyBucketForm,
	}))
}

// leakyBucket: a shaper, as nginx's limit_req with burst and without nodelay.
// Requests leave through a pipe one unit every interval I = Per/N; a request
// of cost c occupies the pipe for c × I from its release. The state is the
// instant the pipe is next free, where an idle key starts (now). For a
// request of cost c at now:
//
//	free  = max(next free, now)
//	delay = free − now
//
// it is admitted iff delay + (c − 1) × I ≤ Queue × I, then released at free
// (Allowed if delay is zero, else Delayed by delay rounded up) and next free
// = free + c × I. Otherwise it is Rejected, changing nothing, with RetryAfter
// = delay + (c − 1) × I − Queue × I rounded up: the wait until the condition
// holds if nothing else is admitted. Hence MaxCost is Queue + 1, and the
// admitted requests waiting (not yet released) never cost more than Queue in
// total.
//
// Instants live on the grid of 1/N ns (see instant). The state also keeps
// the requests waiting, for Snapshot and the exported state, as runs of
// evenly stepped requests (releaseRuns): a burst or a steady stream is one
// run, so the queue's memory grows with the runs, not the requests.
// Released ones are dropped on each decision, and a decision allocates only
// when a request starts a run and the runs outgrow every length they had
// before.
type leakyBucket struct {
	p Policy
}

type leakyBucketState struct {
	next  instant // when the pipe is next free
	last  time.Duration
	queue releaseRuns // the requests waiting at last, in release order
}

func newLeakyBucket(p Policy) *leakyBucket { return &leakyBucket{p: p} }

func (l *leakyBucket) policy() *Policy { return &l.p }

func (l *leakyBucket) start(now time.Duration) leakyBucketState {
	return leakyBucketState{next: at(now), last: now}
}

func (l *leakyBucket) decide(s *leakyBucketState, m *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	s.last = eff
	per, n := int64(l.p.Rate.Per), l.p.Rate.N
	if s.queue.n > 0 && s.queue.frontAt <= eff {
		s.queue.release(m, eff, per, n)
	}
	d = Decision{At: now, Cost: cost, policy: &l.p, explain: explainLeakyBucket, v: [4]int64{s.next.ns, s.next.frac, int64(eff)}}
	if cost > l.p.Queue+1 {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	t := at(eff)
	free := max2(s.next, t)
	// delay + (cost − 1) × I ≤ Queue × I ⟺ free ≤ now + (Queue − cost + 1) × I
	if limit := t.add((l.p.Queue-cost+1)*per, n); limit.before(free) {
		d.Outcome = Rejected
		d.RetryAfter = time.Duration(free.minus(limit, n).ceil()) + eff - now
	} else {
		s.next = free.add(cost*per, n) // ≤ now + (Queue + 1) × I
		release := time.Duration(free.ceil())
		if d.Delay = release - now; d.Delay > 0 {
			d.Outcome = Delayed
		}
		if release > eff {
			s.queue.push(m, now, free, cost)
		}
	}
	d.v[3] = s.queue.n
	return d
}

// Release is a request waiting in a leaky bucket's queue.
type Release struct {
	// Arrived is when the request came; At is when it is released (rounded up).
	Arrived, At time.Duration
	Cost        int64
}

// LeakyBucketSnapshot shows the shaper's queue.
type LeakyBucketSnapshot struct {
	Now   time.Duration
	Queue int64
	Rate  Rate
	// Interval is the release pace I = Per/N, in nanoseconds.
	Interval Quantity
	// Waiting are the admitted requests not yet released at Now, in release
	// order. The slice is a copy.
	Waiting []Release
	// NextFree is when the pipe can next release a request (rounded up); Now
	// when it is idle.
	NextFree time.Duration
}

func (s LeakyBucketSnapshot) Moment() time.Duration { return s.Now }

func (l *leakyBucket) snapshot(s leakyBucketState, now time.Duration) Snapshot {
	now = max(now, s.last)
	snap := LeakyBucketSnapshot{
		Now:      now,
		Queue:    l.p.Queue,
		Rate:     l.p.Rate,
		Interval: Quantity{int64(l.p.Rate.Per), l.p.Rate.N},
		NextFree: time.Duration(max2(s.next, at(now)).ceil()),
	}
	snap.Waiting = s.queue.items(now, int64(l.p.Rate.Per), l.p.Rate.N)
	return snap
}

// clone copies the queue's few words of its own and shares its runs: see
// releaseRuns.
func (l *leakyBucket) clone(s *leakyBucketState, m *mem) leakyBucketState {
	c := *s
	c.queue = s.queue.clone(m)
	return c
}

func (l *leakyBucket) tables(s *leakyBucketState) int64 { return s.queue.tables() }

func (l *leakyBucket) dropItems(s *leakyBucketState, m *mem) { s.queue.free(m) }

// copyState shares src's runs, owned by neither instance from then on, as
// releaseRuns.copyRuns does. A racy gateway's read of a key it read before,
// into a runLog of its own, while requests wait, is copyRuns's usual case,
// written out here: a call fewer on the racy read's path (809 instructions
// a leaky bucket's racy decision calling copyRuns, 790 with this).
func (l *leakyBucket) copyState(dst, src *leakyBucketState, m, from *mem) {
	d := dst.queue.log
	if d == nil || src.queue.n == 0 {
		dst.next, dst.last = src.next, src.last
		dst.queue.copyRuns(&src.queue, m, from)
		return
	}
	d.runs.copyFrom(&src.queue.log.runs, m, from)
	*d = *src.queue.log // the runLog's words, its runs as copyFrom left them
	*dst = *src
	dst.queue.log = d
}

// leakyBucketForm: the instant the pipe is next free, next_ns + next_frac/N
// ns (N the rate's, 0 ≤ next_frac < N: the grid of 1/N ns that I = period/N
// falls on), the time of the last request, and the queue of requests still
// waiting at last, in release order: when each arrived, when it is released
// (ns, rounded up) and its cost.
var leakyBucketForm = StateForm{Fields: []string{"next_ns", "next_frac", "last"}, Log: "queue", Item: []string{"arrived", "at", "cost"}}

func (l *leakyBucket) encode(s *leakyBucketState) State {
	st := State{Fields: []int64{s.next.ns, s.next.frac, int64(s.last)}}
	if n := s.queue.n; n > 0 {
		st.Log = make([]int64, 0, 3*n)
		for r := range s.queue.all(int64(l.p.Rate.Per), l.p.Rate.N) {
			st.Log = append(st.Log, int64(r.Arrived), int64(r.At), r.Cost)
		}
	}
	return st
}

// decode checks what decide keeps true: the pipe free at most (queue + 1)
// × I after last; every request waiting come at or before last, released
// after last and by the time the pipe is free, in release order, of a cost
// the queue admits.
func (l *leakyBucket) decode(st State, m *mem) (leakyBucketState, error) {
	s := leakyBucketState{next: instant{st.Fields[0], st.Fields[1]}, last: time.Duration(st.Fields[2])}
	per, n := int64(l.p.Rate.Per), l.p.Rate.N
	if s.next.ns < 0 || s.next.frac < 0 || s.next.frac >= n || s.last < 0 ||
		at(s.last).add((l.p.Queue+1)*per, n).before(s.next) {
		return s, fmt.Errorf("leaky bucket state %v out of range", st.Fields)
	}
	prev := s.last + 1 // the earliest release still waiting
	for i := 0; i < len(st.Log); i += 3 {
		r := Release{Arrived: time.Duration(st.Log[i]), At: time.Duration(st.Log[i+1]), Cost: st.Log[i+2]}
		if r.Arrived < 0 || r.Arrived > s.last || r.At < prev || r.At > time.Duration(s.next.ceil()) || r.Cost < 1 || r.Cost > l.p.Queue+1 {
			return s, fmt.Errorf("leaky bucket's queue: request %v out of range (last %d, next free %v)", st.Log[i:i+3], s.last, st.Fields[:2])
		}
		prev = r.At // release order (requests of less than 1ns each may share one)
	}
	// The exact release instants: back from the pipe's next free, each
	// request's cost × I before the next's, for as long as they round to
	// the releases written, as they do in every state decide makes; before
	// that (a state made otherwise) each release's own whole nanosecond.
	chain, f := len(st.Log), s.next
	for i := len(st.Log) - 3; i >= 0; i -= 3 {
		g := f.sub(st.Log[i+2]*per, n)
		if g.ceil() != st.Log[i+1] {
			break
		}
		chain, f = i, g
	}
	var end instant // the back run's instant after its last request
	for i := 0; i < len(st.Log); i += 3 {
		inst := at(time.Duration(st.Log[i+1]))
		if i >= chain {
			inst, f = f, f.add(st.Log[i+2]*per, n)
		}
		s.queue.add(m, time.Duration(st.Log[i]), inst, st.Log[i+2], s.queue.n > 0 && inst == end)
		end = inst.add(st.Log[i+2]*per, n)
	}
	if s.queue.n > 0 {
		s.queue.log.chained = end == s.next
	}
	return s, nil
}

// held is the requests still waiting at now.
func (l *leakyBucket) held(s leakyBucketState, now time.Duration) int64 {
	// What a plain list of the requests would hold, 24 bytes each, rather
	// than the runs that stand for them (see Limiter.KeyBytes).
	return s.queue.waiting(max(now, s.last), int64(l.p.Rate.Per), l.p.Rate.N) * sizeOf[Release]()
}

// explainLeakyBucket: v = {next free before (ns, frac), time decided at,
// requests waiting after the decision}.
func explainLeakyBucket(b []byte, d Decision) []byte {
	// Appended piece by piece, as explainFixedWindow.
	p := d.policy
	per, n := int64(p.Rate.Per), p.Rate.N
	next, eff, waiting := instant{d.v[0], d.v[1]}, time.Duration(d.v[2]), d.v[3]
	t := at(eff)
	free := max2(next, t)
	delay := free.minus(t, n)
	I := gridSecs(per, n)
	b = lateNote(&d, eff).appendTo(b)
	b = appendInstantSeconds(append(b, "free = max(next free "...), next, n, d.times)
	b = d.times.seconds(append(b, ", now "...), eff)
	b = appendInstantSeconds(append(b, ") = "...), free, n, d.times)
	b = appendInstantSeconds(append(b, "; delay = "...), free, n, d.times)
	b = d.times.seconds(append(b, " − "...), eff)
	b = appendInstantSeconds(append(b, " = "...), delay, n, d.times)
	need := delay
	if d.Cost > 1 {
		need = delay.add((d.Cost-1)*per, n) // < 2 × (Queue + 1) × Per units: fits
		b = appendInstantSeconds(append(b, "; "...), delay, n, d.times)
		b = appendInt(append(b, " + ("...), d.Cost)
		b = I.appendTo(append(b, " − 1) × "...), d.times)
		b = appendInstantSeconds(append(b, " = "...), need, n, d.times)
	}
	if d.Outcome == Rejected {
		b = append(b, " > "...)
	} else {
		b = append(b, " ≤ "...)
	}
	b = appendInt(append(b, "queue "...), p.Queue)
	b = I.appendTo(append(b, " × "...), d.times)
	b = gridSecs(p.Queue*per, n).appendTo(append(b, " = "...), d.times)
	switch d.Outcome {
	case Allowed:
		return append(appendInt(append(b, " → allowed, released now; "...), waiting), " waiting"...)
	case Delayed:
		b = d.times.seconds(append(b, " → delayed "...), d.Delay)
		return append(appendInt(append(b, "; "...), waiting), " waiting"...)
	}
	b = appendInt(append(b, " → rejected ("...), waiting)
	b = appendInstantSeconds(append(b, " waiting); retry after "...), need, n, d.times)
	b = gridSecs(p.Queue*per, n).appendTo(append(b, " − "...), d.times)
	return retryFrom(&d, eff).appendTo(append(b, " = "...))
}
