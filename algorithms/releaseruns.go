package algorithms

import (
	"iter"
	"time"
	"unsafe"
)

// releaseRun is count requests waiting in a leaky bucket's queue, one after
// the other in release order, of one cost, whose arrivals and releases each
// step evenly: request j (0 ≤ j < count) arrived at arrived + j × step and
// is released at the instant (ns + frac/N) + j × cost × I, rounded up. The
// instants are those decide computed (the pipe's next free moves on by cost
// × I at each admission), so each release rounds exactly as its decision
// did, although the rounded steps alternate between two values when I is
// not a whole number of nanoseconds. A burst at one instant is one run
// (step 0), and so is a steady stream of delayed requests of one cost
// arriving less than 2^31 ns (2.1s) apart. 32 bytes: the cost and the count
// share a word.
type releaseRun struct {
	arrived int64  // the first request's arrival (ns)
	ns      int64  // the first request's release instant: ns + frac/N
	cc      uint64 // cost << runCountBits | count: cost ≤ queue + 1 ≤ 2^40 + 1, 1 ≤ count ≤ maxRunCount
	step    int32  // between arrivals (ns), of any sign (a late request arrives before the one decided before it); unused while count is 1
	frac    uint32 // < N ≤ 2^31
}

const (
	runCountBits = 23
	maxRunCount  = 1<<runCountBits - 1 // a run this long is closed: a burst of 20,000,000 takes 3
)

func (r *releaseRun) count() int64 { return int64(r.cc & maxRunCount) }
func (r *releaseRun) cost() int64  { return int64(r.cc >> runCountBits) }

func (r *releaseRun) first() instant { return instant{r.ns, int64(r.frac)} }

// runLog is the part of a releaseRuns that is not a few words: the runs, and
// where the oldest waiting request's run stands.
type runLog struct {
	runs fifo[releaseRun] // the closed runs, oldest first: they never grow
	back releaseRun       // the newest run, which the next request may extend
	// front is the exact release instant of the oldest request waiting
	// (request skip of the oldest run), frontStep that run's cost × I once
	// the drop has needed it (else zero): the drop steps the front on
	// without dividing.
	front, frontStep instant
	// chained: back's instant after its last request (+ cost × I) is the
	// pipe's next free. decide keeps it so: while requests wait the pipe is
	// busy, so the next one admitted is released at exactly that instant
	// and extends back if its cost and arrival step match. A state read
	// from its whole-number form (decode) may not be so.
	chained bool
}

// runLogBytes is what a runLog takes.
const runLogBytes = int64(unsafe.Sizeof(runLog{}))

// releaseRuns is a leaky bucket's queue of requests waiting, in release
// order, kept as runs (releaseRun): it holds a run, not 24 bytes, per
// burst or steady stream, however many requests it counts. Pushing at the
// back and dropping the released ones from the front cost amortised O(1);
// listing costs O(1) per request listed.
//
// It is 32 bytes, as the fifo it replaces, so that a key's fixed state
// (KeyBytes, which the README lists) stays 56 bytes: the rest is behind
// log. A runLog is changed in place, so a state changes only its own: clone
// (which keyed calls on every state of a chunk it copies before changing
// it, and in CopyKey) gives the copy a runLog of its own, a few words, and
// shares the runs' chunks, as fifo shares them between copies.
type releaseRuns struct {
	log     *runLog       // nil until the first request waits
	n       int64         // requests waiting
	frontAt time.Duration // the oldest waiting one's release (its instant rounded up), when n > 0
	skip    int64         // requests of the oldest run released and dropped
}

// plus is t + u, u an instant-shaped duration on the same grid of 1/den ns.
func (t instant) plus(u instant, den int64) instant {
	t.ns += u.ns
	if t.frac += u.frac; t.frac >= den {
		t.ns++
		t.frac -= den
	}
	return t
}

// run is the i-th oldest run, 0 ≤ i ≤ l.runs.len() (the last being back).
func (l *runLog) run(i int) *releaseRun {
	if i < l.runs.len() {
		return l.runs.at(i)
	}
	return &l.back
}

// frontRun is the oldest run.
func (l *runLog) frontRun() *releaseRun {
	if f := l.runs.front(); len(f) > 0 {
		return &f[0]
	}
	return &l.back
}

// released is how many of left requests of cost c, released at the
// instants f, f + c × I, …, are released by now (released at or before
// it): at most left, and left × c × per fits (the queue's bound).
func released(f instant, left, c, now, per, den int64) int64 {
	if f.ceil() > now {
		return 0
	}
	if f.add((left-1)*c*per, den).ceil() <= now {
		return left
	}
	// f ≤ now < f + (left − 1) × c × I: the difference fits in 1/den ns.
	return at(time.Duration(now)).minus(f, den).scaled(den)/(c*per) + 1
}

// release drops the requests released by now: every one whose release is
// at or before now; the oldest is (n > 0, frontAt ≤ now).
func (q *releaseRuns) release(m *mem, now time.Duration, per, den int64) {
	l := q.log
	r := l.frontRun()
	for {
		left := r.count() - q.skip
		if left > 1 {
			if l.frontStep == (instant{}) {
				l.frontStep = instant{}.add(r.cost()*per, den) // the first step into this run
			}
			// A decision usually releases one request or none: step.
			f, k := l.front.plus(l.frontStep, den), int64(1)
			for k < left && k < 4 && f.ceil() <= int64(now) {
				f = f.plus(l.frontStep, den)
				k++
			}
			if k == 4 && k < left && f.ceil() <= int64(now) {
				// After a pause: reckon how many.
				k = released(l.front, left, r.cost(), int64(now), per, den)
				f = l.front.add(k*r.cost()*per, den)
			}
			if k < left {
				q.n -= k
				q.skip += k
				l.front, q.frontAt = f, time.Duration(f.ceil())
				return
			}
		}
		// The whole oldest run is released.
		q.skip = 0
		if q.n -= left; q.n == 0 {
			return // it was back
		}
		l.runs.drop(m, 1)
		r = l.frontRun()
		if q.setFront(r); q.frontAt > now {
			return
		}
	}
}

// setFront makes r's first request the oldest waiting.
func (q *releaseRuns) setFront(r *releaseRun) {
	l := q.log
	l.front, l.frontStep = r.first(), instant{} // the step when first needed: most runs are single requests
	q.frontAt = time.Duration(l.front.ceil())
}

// push adds a request admitted by decide at the back: arrived at arrived,
// released at the instant at, after every request waiting. While requests
// wait, at is the pipe's next free (see runLog.chained).
func (q *releaseRuns) push(m *mem, arrived time.Duration, at instant, cost int64) {
	q.add(m, arrived, at, cost, q.n > 0 && q.log.chained)
	q.log.chained = true // the pipe is next free after this request
}

// add adds a request at the back: extending back when contiguous (at is
// back's instant after its last request) and its cost and arrival step
// match, else starting a run.
func (q *releaseRuns) add(m *mem, arrived time.Duration, at instant, cost int64, contiguous bool) {
	if !contiguous { // (then there is a back run)
		q.open(m, arrived, at, cost)
		return
	}
	if b := &q.log.back; b.cost() == cost && b.count() < maxRunCount {
		if d := int64(arrived) - b.arrived; b.count() == 1 {
			if d != int64(int32(d)) {
				q.open(m, arrived, at, cost)
				return
			}
			b.step = int32(d)
		} else if d != b.count()*int64(b.step) {
			q.open(m, arrived, at, cost)
			return
		}
		b.cc++
		q.n++
		return
	}
	q.open(m, arrived, at, cost)
}

// open starts a run of one request at the back.
func (q *releaseRuns) open(m *mem, arrived time.Duration, at instant, cost int64) {
	l := q.log
	if l == nil {
		l = new(runLog)
		m.bytes += runLogBytes
		q.log = l
	}
	r := releaseRun{arrived: int64(arrived), ns: at.ns, frac: uint32(at.frac), cc: uint64(cost)<<runCountBits | 1}
	if q.n > 0 {
		l.runs.push(m, l.back)
		l.back = r
	} else {
		// Empty: every run was dropped.
		l.back, q.skip = r, 0
		q.setFront(&l.back)
	}
	q.n++
}

// all is every request waiting, oldest first.
func (q *releaseRuns) all(per, den int64) iter.Seq[Release] {
	return func(yield func(Release) bool) {
		if q.n == 0 {
			return
		}
		l := q.log
		f, skip := l.front, q.skip
		for i := 0; i <= l.runs.len(); i++ {
			r := l.run(i)
			if i > 0 {
				f, skip = r.first(), 0
			}
			cost := r.cost()
			step := instant{}.add(cost*per, den)
			for j := skip; j < r.count(); j++ {
				if !yield(Release{Arrived: time.Duration(r.arrived + j*int64(r.step)), At: time.Duration(f.ceil()), Cost: cost}) {
					return
				}
				f = f.plus(step, den)
			}
		}
	}
}

// waiting is how many requests still wait at now (≥ the state's last).
func (q *releaseRuns) waiting(now time.Duration, per, den int64) int64 {
	if q.n == 0 || q.frontAt > now {
		return q.n
	}
	l := q.log
	n, f, skip := q.n, l.front, q.skip
	for i := 0; i <= l.runs.len(); i++ {
		r := l.run(i)
		if i > 0 {
			f, skip = r.first(), 0
		}
		left := r.count() - skip
		k := released(f, left, r.cost(), int64(now), per, den)
		if n -= k; k < left {
			break
		}
	}
	return n
}

// items is a copy of the requests still waiting at now (≥ the state's
// last), nil if none.
func (q *releaseRuns) items(now time.Duration, per, den int64) []Release {
	w := q.waiting(now, per, den)
	if w == 0 {
		return nil
	}
	out := make([]Release, 0, w)
	for r := range q.all(per, den) {
		if r.At > now { // the released ones come first
			out = append(out, r)
		}
	}
	return out
}

// clone is a copy of q of its own, sharing the runs' chunks: a copy of the
// runLog, whose bytes it adds to m.
func (q *releaseRuns) clone(m *mem) releaseRuns {
	if q.log == nil {
		return *q
	}
	if q.n == 0 {
		// Nothing waits: let go of what the runs kept for reuse.
		runs := q.log.runs
		runs.free(m)
		return releaseRuns{}
	}
	l := *q.log
	c := *q
	c.log = &l
	m.bytes += runLogBytes
	return c
}

// copyRuns sets *q, a queue of its own (its runLog its own), to src's
// requests, sharing src's runs' chunks, which it leaves owned by neither
// instance: see copier. It reuses q's runLog, allocating one only if q has
// none and src's requests wait (and, as clone, keeps none when nothing
// waits in src). What q's runs already share with src's (a racy read of a
// key read before: often the very same runs, neither having opened a run
// since) stays as it is: fifo.copyFrom.
func (q *releaseRuns) copyRuns(src *releaseRuns, m, from *mem) {
	l := q.log
	if src.n == 0 {
		// Nothing waits: let go of q's runLog, as clone does.
		if l != nil {
			l.runs.free(m)
			m.release(runLogBytes, m.epoch)
		}
		*q = releaseRuns{}
		return
	}
	if l == nil {
		l = new(runLog)
		m.bytes += runLogBytes
	}
	s := src.log
	l.runs.copyFrom(&s.runs, m, from)
	*l = *s // the runLog's words, its runs as copyFrom left them
	*q = *src
	q.log = l
}

// tables is what q holds beside its runs' chunks: its runLog.
func (q *releaseRuns) tables() int64 {
	if q.log == nil {
		return 0
	}
	return runLogBytes
}

// free gives back to m the runs' chunks (tables has the runLog), for a
// state about to be overwritten or forgotten.
func (q *releaseRuns) free(m *mem) {
	if q.log != nil {
		q.log.runs.free(m)
	}
	*q = releaseRuns{}
}
