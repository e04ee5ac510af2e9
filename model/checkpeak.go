package model

import (
	"math"
	"slices"
	"time"

	"ratelab/model/internal/peak"
)

// Check's peaks. An expectation's peak is measured over the admissions of
// its selection (a lane, and a key or every key) passing while it is
// between its From and Until: once per lane, key and window by a group for
// the windows wholly inside the range, and at the edges from the running
// cost or, on a lane that delays, by trackers alive only over each edge.

// edgeTracker measures an edge's windows (see peakEdges): it takes what
// its group lets pass from its eventOn to its eventOff (release times) and
// arrived in [lo, hi), shared by the expectations that need the same.
type edgeTracker struct {
	g      *peakGroup
	lo, hi time.Duration
	pos    int        // its index in g.edges while on
	on     *edgeState // while on
	peak   int64      // after eventOff
	peakAt time.Duration
}

// edgeState is an on tracker's window and peak; the checker reuses it for
// the next tracker that comes on. An edge is short (window + D of
// arrivals), so its window's passages are kept plainly, one per instant, in
// win[head:], until they are more than edgePlain: then they move to kept,
// a braid, which keeps a long window compressed.
type edgeState struct {
	window time.Duration
	peak   int64
	peakAt time.Duration
	kept   peak.Braid // once braid is set
	win    []peak.Passage
	head   int
	sum    int64 // the cost in win[head:]
	braid  bool
}

// edgePlain is a variable for the tests, which make edges move to a braid.
var edgePlain = 1024

// pass lets x pass: the window ending at x.At holds it.
func (e *edgeState) pass(x peak.Passage) {
	if e.braid {
		e.passKept(x)
		return
	}
	cut := x.At - e.window
	for e.head < len(e.win) && e.win[e.head].At <= cut {
		e.sum -= e.win[e.head].Cost
		e.head++
	}
	switch n := len(e.win); {
	case n > e.head && e.win[n-1].At == x.At:
		e.win[n-1].Cost += x.Cost
	case n-e.head >= edgePlain:
		for _, y := range e.win[e.head:] {
			e.kept.Add(y, e.window)
		}
		e.win, e.head, e.sum, e.braid = e.win[:0], 0, 0, true
		e.passKept(x)
		return
	default:
		if e.head == n {
			e.win, e.head = e.win[:0], 0
		} else if e.head >= 256 && 2*e.head >= n {
			e.win, e.head = e.win[:copy(e.win, e.win[e.head:])], 0
		}
		e.win = append(e.win, x)
	}
	if e.sum += x.Cost; e.sum > e.peak {
		e.peak, e.peakAt = e.sum, x.At
	}
}

// passKept lets x pass through the braid.
func (e *edgeState) passKept(x peak.Passage) {
	e.kept.Add(x, e.window)
	if s := e.kept.Sum(); s > e.peak {
		e.peak, e.peakAt = s, x.At
	}
}

// start puts t on its group, with free's last state if any.
func (t *edgeTracker) start(free *[]*edgeState) {
	if n := len(*free); n > 0 {
		t.on, *free = (*free)[n-1], (*free)[:n-1]
	} else {
		t.on = new(edgeState)
	}
	t.on.window = t.g.window
	t.pos = len(t.g.edges)
	t.g.edges = append(t.g.edges, t)
}

// stop takes t off its group: the peak is kept and the state goes to free,
// emptied but for its buffers.
func (t *edgeTracker) stop(free *[]*edgeState) {
	g := t.g
	last := g.edges[len(g.edges)-1]
	g.edges[t.pos], last.pos = last, t.pos
	g.edges = g.edges[:len(g.edges)-1]
	e := t.on
	t.peak, t.peakAt, t.on = e.peak, e.peakAt, nil
	e.kept.Reset()
	*e = edgeState{kept: e.kept, win: e.win[:0]}
	*free = append(*free, e)
}

// peakGroup measures the peaks of the expectations on one lane, key and
// window w whatever their From and Until. The group takes the selection's
// admissions while one of its expectations is between From and Until and
// lets them pass in release order (on a lane that delays, through a queue
// of what is still due), keeping the sum of the window ending at each
// passage, and handing each passage to the edge trackers on.
//
// A passage released in (t − w, t] arrived in (t − w − D, t], D the lane's
// longest delay. So for t in [From + w + D, Until) every passage of the
// window was selected, and the window sums there are the group's: their
// largest is the largest the group passed while the expectation's query
// was open (rangeMax), from release From + w + D to release Until. The
// other windows are the edges (see peakEdges). With D = 0 they need no
// tracker: the windows ending at t in [From, From + w) hold what passed in
// [From, t], most at the last passage before From + w, which two readings
// of the selection's admitted cost measure, and those ending at Until or
// later hold less than the one ending at the last passage before Until.
type peakGroup struct {
	window time.Duration
	kept   peak.Braid
	max    rangeMax
	due    dueQueue // the releases still due
	// trackers are all the group's edge trackers; bounds their lo and
	// hi, sorted, once releases wait grouped (see dueQueue).
	trackers []*edgeTracker
	bounds   []time.Duration
	active   int            // expectations between From and Until
	edges    []*edgeTracker // the edge trackers on
	// windowed counts the expectations between From and Until whose
	// middle windows the group measures: the window is kept only then
	// (each one's From is before its first window's start: From + D).
	windowed int
}

// peakEdges: on a lane that delays by up to D, the windows of an
// expectation's peak that end at t in [From, From + w + D) may miss a
// passage arrived before From, and those ending at Until or later (up to
// the last release, before Until + D) may count one arrived at Until or
// later. Two trackers measure them, each taking from the group what passes
// over its edge and was selected: the first, from release From to From +
// w + D, what arrived at From or later (a passage released by t arrived by
// t, before Until), exactly; the second, from release Until − w to Until +
// D, what arrived before Until (a passage released in (t − w, t], t ≥
// Until, arrived after t − w − D > From), exactly for the windows ending
// at Until or later. Every other window either measures is a sum of
// selected passages only, never above the window's true sum. So the
// largest of the trackers' peaks and the group's answer, the earliest on a
// tie, is the expectation's peak. Each tracker takes w + D of releases; a
// range no longer than that gets one tracker, from release From to Until +
// D taking what arrived in [From, Until), and no query.

// pass lets x, arrived at arrival, pass: the window ending at x.at holds
// it. (The passages of one instant may pass at once: the windows ending
// there hold them all.)
func (g *peakGroup) pass(x peak.Passage, arrival time.Duration) {
	if g.windowed > 0 {
		g.kept.Add(x, g.window)
		g.max.push(g.kept.Sum(), x.At)
	}
	for _, t := range g.edges {
		if t.lo <= arrival && arrival < t.hi {
			t.on.pass(x)
		}
	}
}

// release lets pass the releases due at or before t (before t when strict).
func (g *peakGroup) release(t time.Duration, strict bool) {
	if strict {
		t-- // times are whole nanoseconds
	}
	for {
		x, arrival, ok := g.due.popBy(t, g)
		if !ok {
			return
		}
		g.pass(x, arrival)
	}
}

// The edge trackers only ask whether a passage arrived in their [lo, hi):
// so an arrival can be told by its class, how many of the bounds (every
// tracker's lo and hi) are at or before it, one of len(bounds) + 1, and
// the earliest time of its class, which is the lowest bound at or before
// it, stands for it. A source of releases in a peak.InFlight is a key's, a
// gateway's and a class's: a key's releases of one class come in order
// as its releases do, and the class comes back with them.

// class is the class of an arrival at t.
func (g *peakGroup) class(t time.Duration) int64 {
	if g.bounds == nil {
		for _, tr := range g.trackers {
			g.bounds = append(g.bounds, tr.lo, tr.hi)
		}
		slices.Sort(g.bounds)
		g.bounds = slices.Compact(g.bounds)
	}
	i, found := slices.BinarySearch(g.bounds, t)
	if found {
		i++
	}
	return int64(i)
}

// arrivalOf is an arrival of class c: every tracker takes it or leaves it
// as it does every arrival of its class.
func (g *peakGroup) arrivalOf(c int64) time.Duration {
	if c == 0 {
		return math.MinInt64
	}
	return g.bounds[c-1]
}

// dueQueue holds a group's releases still due. While they are few and
// come in time order (a leaky bucket releases each key's requests in
// arrival order) they wait plainly in a queue with their arrivals;
// beyond duePlain, or out of order, in a peak.InFlight, grouped by source as
// a peak tracker's pending ones, where a shaper's queue of millions costs
// a few runs (a source there is a key's, a gateway's and an arrival
// class's, see peakGroup.class). Taking from the plain queue costs less
// than from a trail, and most queues are short.
type dueQueue struct {
	fifo []release // fifo[head:], in time order
	head int
	far  peak.InFlight
}

// release is an admission's passage, with its arrival.
type release struct {
	peak.Passage
	arrival time.Duration
}

// duePlain bounds the releases a dueQueue keeps plainly; a variable for
// the tests.
var duePlain = 1024

// push adds x, arrived at arrival, released for key by gateway (at most
// 64) into g's queue; c numbers the key when x goes to the peak.InFlight.
func (q *dueQueue) push(x peak.Passage, arrival time.Duration, g *peakGroup, c *checker, key string, gateway uint16) {
	n := len(q.fifo)
	if !q.far.Held() && n-q.head < duePlain && (n == q.head || q.fifo[n-1].At <= x.At) {
		if n == q.head {
			q.fifo, q.head = q.fifo[:0], 0
		} else if q.head >= 256 && 2*q.head >= n {
			q.fifo, q.head = q.fifo[:copy(q.fifo, q.fifo[q.head:])], 0
		}
		q.fifo = append(q.fifo, release{x, arrival})
		return
	}
	class := g.class(arrival)
	src := c.keyNumber(key)*65 + int64(gateway)
	q.far.Push(x, src*(int64(len(g.bounds))+1)+class)
}

// popBy removes and returns the earliest passages due at or before t (of
// one instant, and of one source for those in the peak.InFlight) and their
// arrival (for those in the peak.InFlight, one of their class).
func (q *dueQueue) popBy(t time.Duration, g *peakGroup) (peak.Passage, time.Duration, bool) {
	if q.head < len(q.fifo) {
		if x := q.fifo[q.head]; x.At <= t && !q.far.DueBy(x.At-1) {
			q.head++
			return x.Passage, x.arrival, true
		}
	}
	x, src, ok := q.far.PopBy(t)
	if !ok {
		return x, 0, false
	}
	return x, g.arrivalOf(src % (int64(len(g.bounds)) + 1)), true
}

// rangeMax answers, for queries opened and closed while values arrive,
// the largest value that arrived while each was open, and when it first
// did. The open queries' maxima only decrease from the oldest query to the
// newest, so a new value raises a newest stretch of them to itself: those
// are merged into one class (union-find) on a stack of classes. Amortised
// O(α) per value, query and answer; memory O(queries).
type rangeMax struct {
	parent []int32
	best   []int64 // a class's maximum (its root's), −1 before any value
	at     []time.Duration
	stack  []int32 // class roots, best non-increasing upwards
}

func (m *rangeMax) open() int32 {
	id := int32(len(m.parent))
	m.parent = append(m.parent, id)
	m.best = append(m.best, -1)
	m.at = append(m.at, 0)
	m.stack = append(m.stack, id)
	return id
}

// push offers value v arriving at time at to the open queries.
func (m *rangeMax) push(v int64, at time.Duration) {
	n := len(m.stack)
	if n == 0 || m.best[m.stack[n-1]] >= v {
		return
	}
	r := m.stack[n-1]
	for n--; n > 0 && m.best[m.stack[n-1]] < v; n-- {
		m.parent[m.stack[n-1]] = r
	}
	m.best[r], m.at[r] = v, at
	m.stack = append(m.stack[:n], r)
}

// result is query q's maximum so far (−1: no value) and when it came.
func (m *rangeMax) result(q int32) (int64, time.Duration) {
	r := q
	for m.parent[r] != r {
		r = m.parent[r]
	}
	for m.parent[q] != r { // path compression
		m.parent[q], q = r, m.parent[q]
	}
	return m.best[r], m.at[r]
}
