package model

import (
	"encoding/binary"
	mbits "math/bits"
	"slices"
	"strconv"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// Stats are one lane's running totals over the requests decided so far.
type Stats struct {
	// Admitted counts requests that got through, now or after a delay;
	// Delayed counts those of them that waited; Rejected the rest.
	Admitted, Delayed, Rejected int64
	// AdmittedCost is the admitted requests' total cost.
	AdmittedCost int64
	// Peak is the largest admitted cost passing in any trailing window (t −
	// PeakWindow, t]. A request passes when it is released: at its arrival,
	// or for a delayed one at arrival + delay, which is what the service
	// behind the limiter sees. PeakAt is the end t of the first window that
	// reached the peak.
	Peak       int64
	PeakAt     time.Duration
	PeakWindow time.Duration
	// KeyBytes is the largest state one key held just after a decided
	// request, in bytes, as algorithms.Limiter.KeyBytes measures it: what
	// the limiter must keep for its busiest key. Only Run measures it; the
	// Lab's totals leave it 0 (Lab.KeyStateBytes tells a key's state at
	// the clock), and so do the totals of one key among several (RunByKey).
	KeyBytes int64
	// Beyond is, for a lane of several gateways, how many more requests it
	// admitted than its policy on one shared atomic store admits on the
	// same traffic (negative if fewer); 0 for a plain lane.
	Beyond int64
	// FallbackAdmitted and FallbackRejected count the requests a fallback
	// decided while the lane's store did not answer (counted in Admitted
	// and Rejected too): its 503s are FallbackRejected, not the limiter's.
	FallbackAdmitted, FallbackRejected int64
	// Forgot is how many more requests the lane admitted through an idle
	// expiry or a store that came back empty than the same lane
	// forgetting nothing, on the same traffic (part of Beyond).
	Forgot int64

	// The counts above count attempts: every decision, the retries
	// included. Originals counts the requests of the traffic decided;
	// each of them is then Served (finally admitted, within any
	// deadline), Abandoned (its client gave up; TimedOut of them at their
	// deadline), Unfinished (its next attempt would come after the
	// scenario's end), or still retrying (Pending).
	Originals, Served, Abandoned, TimedOut, Unfinished int64
	// Latency is the time from the first attempt to the release of the
	// served requests, in a scenario with clients (zero without: nobody
	// reads it there, and it would cost a run memory per request); set by
	// Run, RunByKey, Lab.Stats and, with clients, Lab.StatsFor.
	Latency Latency
}

// settle counts what attempt a left of its request.
func (s *Stats) settle(a *Attempt) {
	if a.N == 1 {
		s.Originals++
	}
	switch a.Fate {
	case Served:
		s.Served++
	case Abandoned:
		s.Abandoned++
		if a.Ending == scenarios.PastDeadline {
			s.TimedOut++
		}
	case Unfinished:
		s.Unfinished++
	}
}

// Pending is how many requests the lane has refused and will try again.
func (s Stats) Pending() int64 { return s.Originals - s.Served - s.Abandoned - s.Unfinished }

// Amplification is attempts ÷ originals, the load retries multiply the
// traffic by, in thousandths rounded down (1000 with no retry; 0 before
// any request).
func (s Stats) Amplification() int64 {
	if s.Originals == 0 {
		return 0
	}
	return s.Requests() * 1000 / s.Originals
}

// AmplificationText is Amplification to two decimals, rounded down:
// "2.81"; "–" before any request.
func (s Stats) AmplificationText() string {
	if s.Originals == 0 {
		return "–"
	}
	a := s.Amplification()
	return strconv.FormatInt(a/1000, 10) + "." + strconv.FormatInt(a%1000/100, 10) + strconv.FormatInt(a%100/10, 10)
}

// Latency is the distribution of the served requests' latencies, by the
// nearest-rank method: Pq is the smallest latency that at least q% of them
// do not exceed (the ⌈q × N / 100⌉-th smallest); all zero when N is 0.
type Latency struct {
	N             int64
	P50, P95, P99 time.Duration
	Max           time.Duration
}

// latencyCounts counts latencies above 0 by value: a run's memory grows
// with the distinct latencies its lanes gave, not with its requests.
type latencyCounts map[time.Duration]int64

func (c *latencyCounts) add(d time.Duration) {
	if *c == nil {
		*c = latencyCounts{}
	}
	(*c)[d]++
}

// latency is the Latency of n served requests, those not counted waiting 0.
func (c latencyCounts) latency(n int64) Latency {
	if n == 0 {
		return Latency{}
	}
	values := make([]time.Duration, 0, len(c))
	for d := range c {
		values = append(values, d)
	}
	slices.Sort(values)
	var waited int64
	for _, d := range values {
		waited += c[d]
	}
	zeros := n - waited
	at := func(q int64) time.Duration {
		rank := (q*n + 99) / 100 // 1-based
		if rank <= zeros {
			return 0
		}
		rank -= zeros
		for _, d := range values {
			if rank <= c[d] {
				return d
			}
			rank -= c[d]
		}
		return values[len(values)-1]
	}
	l := Latency{N: n, P50: at(50), P95: at(95), P99: at(99)}
	if len(values) > 0 {
		l.Max = values[len(values)-1]
	}
	return l
}

// Requests is the number of requests decided.
func (s Stats) Requests() int64 { return s.Admitted + s.Rejected }

// count adds one decision to the totals, not to the peak.
func (s *Stats) count(d *algorithms.Decision) {
	s.add(d.Outcome, d.Cost)
	s.Beyond += int64(d.Beyond)
	s.Forgot += int64(d.Forgot)
	if d.Fallback != algorithms.NoFallback {
		if d.Outcome.Admitted() {
			s.FallbackAdmitted++
		} else {
			s.FallbackRejected++
		}
	}
}

// add counts one request of the given cost with outcome o, not in the peak.
func (s *Stats) add(o algorithms.Outcome, cost int64) {
	switch o {
	case algorithms.Rejected:
		s.Rejected++
		return
	case algorithms.Delayed:
		s.Delayed++
	}
	s.Admitted++
	s.AdmittedCost += cost
}

// passage is an admitted request passing the limiter at a time, with its cost.
type passage struct {
	at   time.Duration
	cost int64
}

// peakTracker finds the largest cost passing in any window (t − w, t]. The
// maximum over all t is reached when something passes, so it is enough to
// measure after each passage. Requests must be admitted in arrival order;
// delayed ones wait, pending, until the clock reaches their release.
//
// The passages inside the window are kept compressed and exactly (see
// braid and trail): the tracker's memory does not grow with the window's
// length for traffic made of up to maxStrands regular streams (bursts at
// one instant included), grows by a bit per passing instant for an uneven
// burst, and by a few bytes per instant for irregular traffic. (No exact
// tracker can do without the window's instants in general: a later
// passage can make any of them decide the peak.) The pending releases are
// kept as trails too, one per source in flight (see inFlight): a shaper's
// queue of millions costs a few runs. Amortised O(1) per passage, plus
// O(log sources in flight) for a delayed one.
type peakTracker struct {
	window  time.Duration
	kept    braid // the passages inside the window
	pending inFlight
	peak    int64
	peakAt  time.Duration
	// admitted tells whether anything was admitted yet, and lastAdmit is
	// the arrival of the latest admission: every release up to it has
	// passed, every later one is still pending.
	admitted  bool
	lastAdmit time.Duration
	// reorder holds, while restore refills the window, the passages
	// released after the latest arrival refilled (see refill); nil
	// otherwise.
	reorder *inFlight
}

// admit records an admission arriving at, released after delay, by source
// src (see source; any number will do where there is one source, only
// memory depends on it).
func (p *peakTracker) admit(at, delay time.Duration, cost int64, src int64) {
	p.advance(at)
	p.admitted, p.lastAdmit = true, at
	if delay > 0 {
		p.pending.push(passage{at + delay, cost}, src)
		return
	}
	p.pass(passage{at, cost})
}

// advance lets every delayed request released at or before t pass.
func (p *peakTracker) advance(t time.Duration) {
	for {
		x, _, ok := p.pending.popBy(t)
		if !ok {
			return
		}
		p.pass(x)
	}
}

func (p *peakTracker) pass(x passage) {
	p.kept.add(x, p.window)
	if p.kept.sum > p.peak {
		p.peak, p.peakAt = p.kept.sum, x.at
	}
}

// refill puts a passage back into the window of a tracker that keeps only
// its peak and latest admission (a checkpoint's clone), without changing
// the peak: restore calls it for each admission that had passed by
// lastAdmit and is inside the window then, in arrival order, with arrival
// the request's arrival and src its source, and then refilled. Delayed
// passages are put in release order through an inFlight that holds those
// released after the latest arrival refilled: at most what the lane's
// queues held, compressed as the pending ones are.
func (p *peakTracker) refill(arrival time.Duration, x passage, src int64) {
	if p.reorder != nil {
		for {
			y, _, ok := p.reorder.popBy(arrival)
			if !ok {
				break
			}
			p.kept.add(y, p.window)
		}
	}
	if x.at > arrival {
		if p.reorder == nil {
			p.reorder = &inFlight{}
		}
		p.reorder.push(x, src)
		return
	}
	p.kept.add(x, p.window)
}

// refilled ends a refill.
func (p *peakTracker) refilled() {
	if p.reorder != nil {
		for {
			y, _, ok := p.reorder.popBy(endOfTime)
			if !ok {
				break
			}
			p.kept.add(y, p.window)
		}
	}
	p.reorder = nil
}

// peakBy is the peak counting also the delayed requests released by t,
// without changing p.
func (p *peakTracker) peakBy(t time.Duration) (int64, time.Duration) {
	if !p.pending.dueBy(t) {
		return p.peak, p.peakAt
	}
	peak, peakAt := p.peak, p.peakAt
	sum := p.kept.sum
	c := p.kept.cursor() // reads p.kept's strands, leaving them alone
	// due reads the pending passages released by t, in release order;
	// gone reads the same behind it, the ones that left the window since.
	due, gone := p.pending.reader(), p.pending.reader()
	for {
		x, ok := due.next(t)
		if !ok {
			return peak, peakAt
		}
		// Evict from the kept passages, then from those due read
		// before, which all come later: the whole window is that
		// sequence, in time order.
		cut := x.at - p.window
		sum -= c.evict(cut)
		for {
			y, ok := gone.next(cut)
			if !ok {
				break
			}
			sum -= y.cost
		}
		sum += x.cost
		if sum > peak {
			peak, peakAt = sum, x.at
		}
	}
}

// push adds a delayed passage of source src to the pending ones.
func (p *peakTracker) push(x passage, src int64) { p.pending.push(x, src) }

// timed is what a min-heap by time holds: a passage released out of its
// source's order, or a group of passages in flight (see inFlight).
type timed interface{ when() time.Duration }

func (x passage) when() time.Duration { return x.at }

// heapPush and heapPop keep h a min-heap by time.
func heapPush[T timed](h []T, x T) []T {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if h[parent].when() <= h[i].when() {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
	return h
}

func heapPop[T timed](h []T) (T, []T) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		small, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].when() < h[small].when() {
			small = l
		}
		if r < len(h) && h[r].when() < h[small].when() {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	return top, h
}

// run is n passing instants of cost each, from at to end: at, at + step,
// …, end (step is meaningless when n is 1), or, when bits is set, with
// gaps of step or step + 1 (an uneven burst: the i-th request at at +
// ⌊i × spread / count⌋): the gap after the point at is step + bit pos of
// bits, the next one step + bit pos + 1, and so on. n = 0 is no run.
type run struct {
	at, end, step time.Duration
	cost, n       int64
	bits          []byte // bit i is bits[i/8] >> (i%8) & 1
	pos           int64
}

func (r *run) bit(i int64) time.Duration { return time.Duration(r.bits[i>>3] >> (i & 7) & 1) }

// setBit sets bit i of bits, the first not yet written, to v.
func setBit(bits []byte, i int64, v time.Duration) []byte {
	for int64(len(bits)) <= i>>3 {
		bits = append(bits, 0)
	}
	bits[i>>3] |= byte(v) << (i & 7)
	return bits
}

// twoStepsUpTo is the longest regular run that a gap one off its step
// turns into a run of two steps (longer, it ends there): converting costs
// a bit per point.
const twoStepsUpTo = 64

// trail is the passages inside a trailing window, in time order, summed:
// passages at one instant are one point of their total cost, and points
// at a regular step with the same cost are one run, or with gaps of two
// adjacent lengths a run of one bit per point. The oldest run (head)
// and the newest (tail, still growing) are kept as they are; the runs
// between them are varint-encoded in buf. Regular traffic is a run per
// regularity, whatever the window's length; each irregular point costs
// its gap from the previous one and its cost, varint-encoded: 2 to 6
// bytes for gaps up to 2^35 ns (34 s) and costs under 64, at most 40
// bytes for a run. buf is compacted once half of it has been read, so the
// memory is at most twice the encoded window plus a fixed part.
type trail struct {
	cursor
	buf []byte
	// encEnd is the last instant before the tail's run: the end of the
	// last run encoded, or of the head when buf holds none.
	encEnd time.Duration
	sum    int64 // the cost of every passage kept
}

// cursor is the oldest part of a trail: its head run, where to decode the
// next one, the tail and the open point. Copying it lets peakBy evict
// without changing the trail.
type cursor struct {
	head   run
	off    int           // buf[off:] is still to decode
	decEnd time.Duration // the end of the last run decoded (the head's)
	tail   run
	// point is the latest instant, with the cost passing at it so far
	// (pointCost 0: none), not yet in the tail.
	point     time.Duration
	pointCost int64
}

// add puts x, no earlier than any passage kept, in the window (x.at − w,
// x.at] and drops what leaves it.
func (t *trail) add(x passage, w time.Duration) {
	if t.put(x) {
		// A new instant: what it leaves behind goes (never the instant
		// itself, the open point, at x.at > x.at − w).
		t.sum -= t.evict(t.buf, x.at-w)
		t.readAll()
	}
}

// commit moves the open point into the tail's run, or starts a new one.
func (t *trail) commit() {
	at, cost := t.point, t.pointCost
	t.pointCost = 0
	tl := &t.tail
	if tl.n > 0 && tl.cost == cost {
		g := at - tl.end
		switch {
		case tl.n == 1:
			tl.step, tl.end, tl.n, tl.bits, tl.pos = g, at, 2, nil, 0
			return
		case tl.bits == nil && g == tl.step:
			tl.end, tl.n = at, tl.n+1
			return
		case tl.bits == nil && tl.n <= twoStepsUpTo && (g == tl.step+1 || g == tl.step-1 && g > 0):
			q := min(g, tl.step)
			tl.bits, tl.pos = make([]byte, 0, 16), 0
			for i := range tl.n - 1 {
				tl.bits = setBit(tl.bits, i, tl.step-q)
			}
			tl.step = q
		}
		if tl.bits != nil && (g == tl.step || g == tl.step+1) {
			tl.bits = setBit(tl.bits, tl.pos+tl.n-1, g-tl.step)
			tl.end, tl.n = at, tl.n+1
			if tl.pos >= 8192 { // drop the bits of points evicted
				drop := tl.pos >> 3
				tl.bits = tl.bits[:copy(tl.bits, tl.bits[drop:])]
				tl.pos -= drop << 3
			}
			return
		}
	}
	t.closeTail()
	t.tail = run{at: at, end: at, cost: cost, n: 1}
}

// closeTail makes the tail's run the head, when nothing else is kept, or
// encodes it after the others.
func (t *trail) closeTail() {
	tl := t.tail
	if tl.n == 0 {
		return
	}
	t.tail = run{}
	if t.head.n == 0 { // then buf holds nothing unread either
		t.head, t.decEnd, t.encEnd = tl, tl.end, tl.end
		t.buf, t.off = t.buf[:0], 0
		return
	}
	if t.off >= 256 && t.off*2 >= len(t.buf) {
		t.buf = t.buf[:copy(t.buf, t.buf[t.off:])]
		t.off = 0
	}
	b := binary.AppendUvarint(t.buf, uint64(tl.at-t.encEnd))
	switch {
	case tl.n == 1:
		b = binary.AppendUvarint(b, uint64(tl.cost)<<2)
	case tl.bits == nil:
		b = binary.AppendUvarint(b, uint64(tl.cost)<<2|1)
		b = binary.AppendUvarint(b, uint64(tl.n-2))
		b = binary.AppendUvarint(b, uint64(tl.step))
	default: // then the n − 1 gaps' bits, from pos
		b = binary.AppendUvarint(b, uint64(tl.cost)<<2|2)
		b = binary.AppendUvarint(b, uint64(tl.n-2))
		b = binary.AppendUvarint(b, uint64(tl.step))
		for i := int64(0); i < tl.n-1; i += 8 {
			var by byte
			for j := i; j < min(i+8, tl.n-1); j++ {
				by |= byte(tl.bit(tl.pos+j)) << (j - i)
			}
			b = append(b, by)
		}
	}
	t.buf, t.encEnd = b, tl.end
}

// evict drops the passages at or before cut, oldest first, and returns
// their cost.
func (c *cursor) evict(buf []byte, cut time.Duration) (gone int64) {
	for {
		r := &c.head
		if r.n == 0 {
			if c.off < len(buf) {
				c.decode(buf)
				continue
			}
			r = &c.tail
			if r.n == 0 {
				if c.pointCost > 0 && c.point <= cut {
					gone += c.pointCost
					c.pointCost = 0
				}
				return gone
			}
		}
		if r.at > cut {
			return gone
		}
		if r.bits != nil {
			for r.n > 0 && r.at <= cut {
				gone += r.cost
				if r.n--; r.n > 0 {
					r.at += r.step + r.bit(r.pos)
					r.pos++
				}
			}
			if r.n > 0 {
				return gone
			}
			continue // the next run, or the point, may go too
		}
		k := int64(1)
		if r.n > 1 && r.at+r.step <= cut {
			k = min(r.n, int64((cut-r.at)/r.step)+1)
		}
		gone += k * r.cost
		r.n -= k
		if r.n > 0 {
			r.at += time.Duration(k) * r.step
			return gone
		}
	}
}

// decode reads the next run from buf into the head.
func (c *cursor) decode(buf []byte) {
	next := func() uint64 {
		v, n := binary.Uvarint(buf[c.off:])
		c.off += n
		return v
	}
	at := c.decEnd + time.Duration(next())
	costKind := next()
	r := run{at: at, end: at, cost: int64(costKind >> 2), n: 1}
	if costKind&3 != 0 {
		r.n = int64(next()) + 2
		r.step = time.Duration(next())
		r.end = at + time.Duration(r.n-1)*r.step
	}
	if costKind&3 == 2 { // a copy: compacting buf moves what it reads
		nb := int((r.n - 1 + 7) / 8)
		r.bits = append([]byte(nil), buf[c.off:c.off+nb]...)
		c.off += nb
		for _, by := range r.bits {
			r.end += time.Duration(mbits.OnesCount8(by))
		}
	}
	c.head, c.decEnd = r, r.end
}
