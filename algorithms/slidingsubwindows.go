package algorithms

import (
	"fmt"
	"time"
)

// subWindowCounter is the sliding counter with its window split into N =
// SubWindows > 1 equal sub-windows of S = Window / N, aligned to t = 0 (the
// description picks the two-window slidingCounter for N = 1; this one
// decides the same there, see TestSubWindowsOneIsTheSlidingCounter). A key
// keeps the admitted cost of the current sub-window and of the N before it.
// With elapsed e = now − start of the current sub-window, 0 ≤ e < S, the
// trailing window (now − Window, now] is estimated as
//
//	estimate = inner + oldest × (S − e) / S
//
// where inner is the cost of the N most recent sub-windows (the current
// one and the N − 1 whole ones before it) and oldest that of the sub-window
// before those, of which the part (S − e)/S still overlaps the window. A
// request of cost c is admitted iff estimate + c ≤ Limit, compared exactly
// as
//
//	inner + c ≤ Limit and oldest × (S − e) ≤ (Limit − inner − c) × S
//
// then c is counted in the current sub-window. Every count and inner stay
// at most Limit, so each product is at most Limit × Window ≤ 2^62.
//
// As time passes with nothing admitted the estimate never rises (at a
// sub-window's end the oldest's weight has fallen to 0, and the next oldest
// enters with weight 1), so a rejected request fits from some instant on:
// RetryAfter is the wait until the first whole nanosecond at which it does:
// in the sub-window where enough of the oldest counts have slid out of the
// N most recent for inner + c ≤ Limit, once the oldest's weight has fallen
// far enough, or else at the start of the next (at most N + 1 sub-windows
// on: then every count has left the window).
//
// A decision costs O(1), plus O(1) per sub-window entered since the key's
// last request up to N (after more every count has left, and all are
// cleared at once), plus O(log N) for a rejection's retry: the counts are
// kept as running totals in a ring, so that the N most recent sum to a
// difference and the sub-windows that must slide out for a cost to fit are
// found by binary search. Walking the sub-windows for a retry made a
// decision with N = 1000 ten to thirty times as slow as with N = 10.
type subWindowCounter struct {
	p Policy
	n int64 // N
	s int64 // S in ns
}

// subWindowState is a key's counts as running totals: totals[i mod (N+1)]
// is the cost admitted in sub-windows up to and including i, for the
// current sub-window win and the N before it, and base the cost admitted
// before those; sub-window i's count is totals[i] − totals[i − 1] (base
// for i − 1 = win − N − 1), and inner, the N most recent's sum, is
// totals[win] − totals[win − N]. The totals only grow and may wrap around
// int64; their differences, at most inner + oldest ≤ 2 × Limit, are exact.
// totals is nil until the key's first admission (all counts 0, base 0).
type subWindowState struct {
	win    int64 // index of the current sub-window: ⌊last / S⌋
	base   int64
	totals []int64
	last   time.Duration
}

func newSubWindowCounter(p Policy) *subWindowCounter {
	n := subWindows(p)
	return &subWindowCounter{p: p, n: n, s: int64(p.Window) / n}
}

func (c *subWindowCounter) policy() *Policy { return &c.p }

func (c *subWindowCounter) start(now time.Duration) subWindowState {
	return subWindowState{win: floorDiv(int64(now), c.s), last: now}
}

// next is the ring slot after k: that of the sub-window after k's, and of
// the oldest for the current one's.
func (c *subWindowCounter) next(k int64) int64 {
	if k == c.n {
		return 0
	}
	return k + 1
}

// roll moves st to the sub-window holding now (≥ st.last) and returns the
// current sub-window's slot (0 while totals is nil): each sub-window
// entered starts with nothing admitted, its total the current one's, in
// the slot of the sub-window that leaves the N + 1, whose total becomes
// base. More than N sub-windows on every count has left: the totals and
// base start again from 0.
func (c *subWindowCounter) roll(st *subWindowState, now time.Duration) (cur int64) {
	w := floorDiv(int64(now), c.s)
	st.last = now
	switch {
	case st.totals == nil:
		st.win = w
		return 0
	case w-st.win > c.n:
		st.win, st.base = w, 0
		clear(st.totals)
		return w % (c.n + 1)
	}
	k := st.win % (c.n + 1)
	total := st.totals[k]
	for ; st.win < w; st.win++ {
		k = c.next(k)
		st.base, st.totals[k] = st.totals[k], total
	}
	return k
}

// parts are the current sub-window's count, the N most recent's (inner)
// and the oldest's, cur being the current sub-window's slot.
func (c *subWindowCounter) parts(st *subWindowState, cur int64) (current, inner, oldest int64) {
	if st.totals == nil {
		return 0, 0, 0
	}
	o := c.next(cur)
	prev := cur - 1
	if cur == 0 {
		prev = c.n
	}
	t := st.totals
	return t[cur] - t[prev], t[cur] - t[o], t[o] - st.base
}

// counts writes the N + 1 counts into out, oldest first, the current
// sub-window's last.
func (c *subWindowCounter) counts(st *subWindowState, out []int64) {
	if st.totals == nil {
		clear(out)
		return
	}
	k := c.next(st.win % (c.n + 1)) // the oldest's slot
	prev := st.base
	for i := range out {
		out[i] = st.totals[k] - prev
		prev = st.totals[k]
		k = c.next(k)
	}
}

// fits reports whether cost fits with inner and oldest at elapsed e.
func (c *subWindowCounter) fits(inner, oldest, e, cost int64) bool {
	l := c.p.Limit
	return inner+cost <= l && oldest*(c.s-e) <= (l-inner-cost)*c.s
}

// from is the least elapsed e in a sub-window (or S or more if none) from
// which a cost whose room, Limit − inner − cost, is room ≥ 0 fits beside
// oldest: oldest × (S − e) ≤ room × S ⟺ e ≥ S − ⌊room × S / oldest⌋.
func (c *subWindowCounter) from(room, oldest int64) int64 {
	if oldest == 0 {
		return 0
	}
	return max(c.s-room*c.s/oldest, 0)
}

// wait is the least x > 0 such that cost fits at elapsed e + x, nothing else
// admitted, for a cost ≤ Limit that does not fit at e; cur is the current
// sub-window's slot, inner and oldest its parts. Sub-window j later
// (0 ≤ j ≤ N) the N most recent are those of ages 0 to N − 1 − j now, of
// cost inner − D(j), D(j) that of the j oldest of the N most recent now
// (D(0) = 0), and the oldest is the one of age N − j; at j = N + 1 every
// count has left. D grows with j, so the first sub-window where inner +
// cost ≤ Limit, D(j) ≥ inner + cost − Limit, is found by binary search on
// the running totals: D(j) = totals[win − N + j] − totals[win − N]. There
// the cost fits once the oldest's weight has fallen far enough, or else
// from the start of the next: its oldest, of count o, has just left inner
// and left its room, so o × S ≤ (room + o) × S (and at j = N + 1 nothing is
// left).
func (c *subWindowCounter) wait(st *subWindowState, cur, e, inner, oldest, cost int64) int64 {
	l, s := c.p.Limit, c.s
	if inner+cost <= l {
		// It does not fit at e, so from > e.
		if from := c.from(l-inner-cost, oldest); from < s {
			return from - e
		}
	}
	need := inner + cost - l
	o := c.next(cur) // the oldest's slot; sub-window win − N + j is in slot o + j mod (N + 1)
	t, t0 := st.totals, st.totals[o]
	slot := func(j int64) int64 {
		if k := o + j; k <= c.n {
			return k
		}
		return o + j - (c.n + 1)
	}
	// D(N) = inner ≥ need as cost ≤ Limit: the search ends in [1, N].
	lo, hi := int64(1), c.n
	for lo < hi {
		mid := lo + (hi-lo)/2
		if t[slot(mid)]-t0 >= need {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	j, k := lo, slot(lo)
	room := l - (inner - (t[k] - t0)) - cost
	if from := c.from(room, t[k]-t[slot(j-1)]); from < s {
		return j*s - e + from
	}
	return (j+1)*s - e
}

func (c *subWindowCounter) decide(st *subWindowState, m *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, st.last)
	k := c.roll(st, eff)
	e := int64(eff) - st.win*c.s
	cur, inner, oldest := c.parts(st, k)
	d = Decision{At: now, Cost: cost, policy: &c.p, explain: explainSubWindows, v: [4]int64{cur, inner - cur, oldest, int64(eff)}}
	switch {
	case cost > c.p.Limit:
		d.Outcome, d.RetryAfter = Rejected, Never
	case c.fits(inner, oldest, e, cost):
		d.Outcome = Allowed
		if st.totals == nil {
			st.totals = make([]int64, c.n+1)
			m.bytes += c.tables(st)
			k = st.win % (c.n + 1)
		}
		st.totals[k] += cost
	default:
		d.Outcome = Rejected
		d.RetryAfter = time.Duration(c.wait(st, k, e, inner, oldest, cost)) + eff - now
	}
	return d
}

func (c *subWindowCounter) snapshot(st subWindowState, now time.Duration) Snapshot {
	k := c.rollCopy(&st, max(now, st.last))
	e := int64(st.last) - st.win*c.s
	cur, inner, oldest := c.parts(&st, k)
	counts := make([]int64, c.n+1)
	c.counts(&st, counts)
	return SlidingCounterSnapshot{
		Now:        st.last,
		Limit:      c.p.Limit,
		Window:     c.p.Window,
		SubWindows: c.n,
		SubWindow:  time.Duration(c.s),
		Start:      time.Duration(st.win * c.s),
		Current:    cur,
		Middle:     inner - cur,
		Previous:   oldest,
		Counts:     counts,
		Weight:     Quantity{c.s - e, c.s},
		// Every admission keeps the estimate ≤ Limit and it only falls
		// with time, so this is at most Limit × S.
		Estimate: Quantity{inner*c.s + oldest*(c.s-e), c.s},
	}
}

// rollCopy is roll on a state whose totals another holds: it rolls a copy.
func (c *subWindowCounter) rollCopy(st *subWindowState, now time.Duration) (cur int64) {
	if st.totals != nil && floorDiv(int64(now), c.s) != st.win {
		st.totals = append([]int64(nil), st.totals...)
	}
	return c.roll(st, now)
}

// clone copies the totals, which decide changes in place.
func (c *subWindowCounter) clone(st *subWindowState, m *mem) subWindowState {
	n := *st
	if st.totals != nil {
		n.totals = append([]int64(nil), st.totals...)
		m.bytes += c.tables(&n)
	}
	return n
}

func (c *subWindowCounter) tables(st *subWindowState) int64 { return int64(cap(st.totals)) * 8 }

// copyState copies src's totals into dst's own, allocating only when dst
// has none.
func (c *subWindowCounter) copyState(dst, src *subWindowState, m, _ *mem) {
	t := dst.totals
	switch {
	case src.totals == nil:
		m.release(c.tables(dst), m.epoch)
		*dst = *src
	case t == nil || len(t) != len(src.totals):
		m.release(c.tables(dst), m.epoch)
		*dst = c.clone(src, m)
	default:
		*dst = *src
		dst.totals = t
		copy(t, src.totals)
	}
}

// subWindowForm is the state of a sliding counter of N > 1 sub-windows:
// last, the time of the latest request in ns (a late request is decided at
// it; the current sub-window is number ⌊last / S⌋); counts, the cost
// admitted in each of the N + 1 sub-windows up to the one holding last,
// oldest first, the current one last; none until the key's first
// admission. The running totals the process keeps are not part of it: the
// counts give them, from any base.
var subWindowForm = StateForm{Fields: []string{"last"}, Log: "counts", Item: []string{"count"}}

func (c *subWindowCounter) encode(st *subWindowState) State {
	out := State{Fields: []int64{int64(st.last)}}
	if st.totals != nil {
		out.Log = make([]int64, c.n+1)
		c.counts(st, out.Log)
	}
	return out
}

// decode rejects counts below 0 or above the limit, counts of sub-windows
// before t = 0, and a state whose estimate at last is above the limit
// (every admission keeps it at most the limit, and it never rises with
// time), the N most recent counts' sum included. The totals it makes start
// from base 0.
func (c *subWindowCounter) decode(st State, m *mem) (subWindowState, error) {
	last := st.Fields[0]
	s := subWindowState{win: floorDiv(last, c.s), last: time.Duration(last)}
	if last < 0 {
		return s, fmt.Errorf("%s state: last %d before t = 0", c.p.Algorithm, last)
	}
	if len(st.Log) == 0 {
		return s, nil
	}
	if int64(len(st.Log)) != c.n+1 {
		return s, fmt.Errorf("%s state has %d sub-window counts, want none or %d", c.p.Algorithm, len(st.Log), c.n+1)
	}
	s.totals = make([]int64, c.n+1)
	k := c.next(s.win % (c.n + 1)) // the oldest's slot
	var total int64                // ≤ (N + 1) × Limit ≤ 2^62 + Limit
	for i, v := range st.Log {
		age := c.n - int64(i)
		if v < 0 || v > c.p.Limit {
			return s, fmt.Errorf("%s state: count %d out of range (0 to the limit %d)", c.p.Algorithm, v, c.p.Limit)
		}
		if v != 0 && age > s.win {
			return s, fmt.Errorf("%s state: count %d in a sub-window before t = 0", c.p.Algorithm, v)
		}
		total += v
		s.totals[k] = total
		k = c.next(k)
	}
	if !c.fits(total-st.Log[0], st.Log[0], last-s.win*c.s, 0) {
		return s, fmt.Errorf("%s state %v: the estimate at %s is above the limit %d", c.p.Algorithm, st.Log, FormatSeconds(s.last), c.p.Limit)
	}
	m.bytes += c.tables(&s)
	return s, nil
}

// held is the counts: N + 1 of them once the key has admitted something.
func (c *subWindowCounter) held(st subWindowState, _ time.Duration) int64 {
	if st.totals == nil {
		return 0
	}
	return (c.n + 1) * 8
}

// explainSubWindows: v = {current sub-window's count, the N − 1 whole ones
// before it, the oldest's, time decided at}.
func explainSubWindows(b []byte, d Decision) []byte {
	p := d.policy
	n := subWindows(*p)
	s := int64(p.Window) / n
	cur, middle, oldest, eff := d.v[0], d.v[1], d.v[2], time.Duration(d.v[3])
	e := int64(eff) % s
	est := (cur+middle)*s + oldest*(s-e) // ≤ Limit × S
	b = appendf(b, d.times, "%s%d sub-windows of %s; estimate = current %d + %d in the %d before + oldest %d × (%s − %s)/%s = %s; %s + cost %d = %s",
		lateNote(&d, eff), n, secs(s), cur, middle, n-1, oldest,
		secs(s), secs(e), secs(s),
		exact(est, s), exact(est, s), d.Cost, exactN{uint64(est) + uint64(d.Cost*s), s})
	if d.Outcome == Allowed {
		return appendf(b, d.times, " ≤ limit %d → allowed", p.Limit)
	}
	b = appendf(b, d.times, " > limit %d → rejected; retry after %s", p.Limit, retryFrom(&d, eff))
	if e2 := e + int64(d.RetryAfter-(eff-d.At)); e2 < s {
		// Within this sub-window: only the oldest's weight has fallen.
		then := (cur+middle)*s + oldest*(s-e2)
		return appendf(b, d.times, ", when the oldest weighs %d × (%s − %s)/%s and estimate = %s, + cost %d ≤ %d",
			oldest, secs(s), secs(e2), secs(s), exact(then, s), d.Cost, p.Limit)
	}
	return appendf(b, d.times, ", when enough of the oldest sub-windows have slid out for cost %d to fit", d.Cost)
}
