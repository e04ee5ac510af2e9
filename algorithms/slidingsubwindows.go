package algorithms

import (
	"fmt"
	"strings"
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
// RetryAfter is the wait until the first whole nanosecond at which it does,
// found sub-window by sub-window (at most N + 1 of them: then every count
// has left the window).
type subWindowCounter struct {
	p Policy
	n int64 // N
	s int64 // S in ns
}

// subWindowState is a key's counts: counts[i mod (N+1)] is the admitted
// cost of sub-window i, for the current sub-window win and the N before it;
// inner is the sum of the N most recent. counts is nil until the key's first
// decision (all zero).
type subWindowState struct {
	win    int64 // index of the current sub-window: ⌊last / S⌋
	inner  int64
	counts []int64
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

// count is the admitted cost of the sub-window age sub-windows before the
// current one, 0 ≤ age ≤ N.
func (c *subWindowCounter) count(st *subWindowState, age int64) int64 {
	if st.counts == nil {
		return 0
	}
	return st.counts[(st.win+c.n+1-age)%(c.n+1)]
}

// roll moves st to the sub-window holding now (≥ st.last): each sub-window
// entered starts at 0, and the one that leaves the N most recent leaves
// inner (it stays as the oldest).
func (c *subWindowCounter) roll(st *subWindowState, now time.Duration) {
	w := floorDiv(int64(now), c.s)
	st.last = now
	if w == st.win {
		return
	}
	if w-st.win > c.n || st.counts == nil {
		st.win, st.inner = w, 0
		clear(st.counts)
		return
	}
	for st.win < w {
		st.win++
		st.inner -= st.counts[(st.win+1)%(c.n+1)] // sub-window win − N
		st.counts[st.win%(c.n+1)] = 0
	}
}

// fits reports whether cost fits with inner and oldest at elapsed e.
func (c *subWindowCounter) fits(inner, oldest, e, cost int64) bool {
	l := c.p.Limit
	return inner+cost <= l && oldest*(c.s-e) <= (l-inner-cost)*c.s
}

// wait is the least x > 0 such that cost fits at elapsed e + x, nothing else
// admitted, for a cost ≤ Limit that does not fit at e. Sub-window j later
// (0 ≤ j ≤ N) the N most recent are those of ages 0 to N − 1 − j now and the
// oldest is the one of age N − j; at j = N + 1 every count has left.
func (c *subWindowCounter) wait(st *subWindowState, e, cost int64) int64 {
	l, s := c.p.Limit, c.s
	inner := st.inner
	for j := int64(0); j <= c.n; j++ {
		if j > 0 {
			inner -= c.count(st, c.n-j) // it was among the most recent; it is the oldest now
		}
		if inner+cost > l {
			continue
		}
		// oldest × (S − e') ≤ room × S ⟺ e' ≥ S − ⌊room × S / oldest⌋.
		room, oldest := l-inner-cost, c.count(st, c.n-j)
		from := int64(0)
		if oldest > 0 {
			from = max(s-room*s/oldest, 0)
		}
		if j == 0 {
			// It does not fit at e, so from > e.
			if from < s {
				return from - e
			}
			continue
		}
		if from < s {
			return j*s - e + from
		}
	}
	return (c.n+1)*s - e
}

func (c *subWindowCounter) decide(st *subWindowState, m *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, st.last)
	c.roll(st, eff)
	e := int64(eff) - st.win*c.s
	cur, oldest := c.count(st, 0), c.count(st, c.n)
	d = Decision{At: now, Cost: cost, policy: &c.p, explain: explainSubWindows, v: [4]int64{cur, st.inner - cur, oldest, int64(eff)}}
	switch {
	case cost > c.p.Limit:
		d.Outcome, d.RetryAfter = Rejected, Never
	case c.fits(st.inner, oldest, e, cost):
		d.Outcome = Allowed
		if st.counts == nil {
			st.counts = make([]int64, c.n+1)
			m.bytes += c.tables(st)
		}
		st.counts[st.win%(c.n+1)] += cost
		st.inner += cost
	default:
		d.Outcome = Rejected
		d.RetryAfter = time.Duration(c.wait(st, e, cost)) + eff - now
	}
	return d
}

func (c *subWindowCounter) snapshot(st subWindowState, now time.Duration) Snapshot {
	c.rollCopy(&st, max(now, st.last))
	e := int64(st.last) - st.win*c.s
	counts := make([]int64, c.n+1)
	for age := range c.n + 1 {
		counts[c.n-age] = c.count(&st, age)
	}
	cur, oldest := counts[c.n], counts[0]
	return SlidingCounterSnapshot{
		Now:        st.last,
		Limit:      c.p.Limit,
		Window:     c.p.Window,
		SubWindows: c.n,
		SubWindow:  time.Duration(c.s),
		Start:      time.Duration(st.win * c.s),
		Current:    cur,
		Middle:     st.inner - cur,
		Previous:   oldest,
		Counts:     counts,
		Weight:     Quantity{c.s - e, c.s},
		// Every admission keeps the estimate ≤ Limit and it only falls
		// with time, so this is at most Limit × S.
		Estimate: Quantity{st.inner*c.s + oldest*(c.s-e), c.s},
	}
}

// rollCopy is roll on a state whose counts another holds: it rolls a copy.
func (c *subWindowCounter) rollCopy(st *subWindowState, now time.Duration) {
	if st.counts != nil && floorDiv(int64(now), c.s) != st.win {
		st.counts = append([]int64(nil), st.counts...)
	}
	c.roll(st, now)
}

// clone copies the counts, which decide changes in place.
func (c *subWindowCounter) clone(st *subWindowState, m *mem) subWindowState {
	n := *st
	if st.counts != nil {
		n.counts = append([]int64(nil), st.counts...)
		m.bytes += c.tables(&n)
	}
	return n
}

func (c *subWindowCounter) tables(st *subWindowState) int64 { return int64(cap(st.counts)) * 8 }

// subWindowForm is the state of a sliding counter of N > 1 sub-windows:
// last, the time of the latest request in ns (a late request is decided at
// it; the current sub-window is number ⌊last / S⌋); counts, the cost
// admitted in each of the N + 1 sub-windows up to the one holding last,
// oldest first, the current one last; none until the key's first
// admission. The sum of the N most recent (inner) is not kept: the counts
// give it.
var subWindowForm = StateForm{Fields: []string{"last"}, Log: "counts", Item: []string{"count"}}

func (c *subWindowCounter) encode(st *subWindowState) State {
	out := State{Fields: []int64{int64(st.last)}}
	if st.counts != nil {
		out.Log = make([]int64, c.n+1)
		for age := range c.n + 1 {
			out.Log[c.n-age] = c.count(st, age)
		}
	}
	return out
}

// decode rejects counts below 0 or above the limit, counts of sub-windows
// before t = 0, and a state whose estimate at last is above the limit
// (every admission keeps it at most the limit, and it never rises with
// time), the N most recent counts' sum included.
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
	s.counts = make([]int64, c.n+1)
	for i, v := range st.Log {
		age := c.n - int64(i)
		if v < 0 || v > c.p.Limit {
			return s, fmt.Errorf("%s state: count %d out of range (0 to the limit %d)", c.p.Algorithm, v, c.p.Limit)
		}
		if v != 0 && age > s.win {
			return s, fmt.Errorf("%s state: count %d in a sub-window before t = 0", c.p.Algorithm, v)
		}
		s.counts[(s.win+c.n+1-age)%(c.n+1)] = v
		if age < c.n {
			s.inner += v
		}
	}
	if !c.fits(s.inner, c.count(&s, c.n), last-s.win*c.s, 0) {
		return s, fmt.Errorf("%s state %v: the estimate at %s is above the limit %d", c.p.Algorithm, st.Log, FormatSeconds(s.last), c.p.Limit)
	}
	m.bytes += c.tables(&s)
	return s, nil
}

// held is the counts: N + 1 of them once the key has admitted something.
func (c *subWindowCounter) held(st subWindowState, _ time.Duration) int64 {
	if st.counts == nil {
		return 0
	}
	return (c.n + 1) * 8
}

// explainSubWindows: v = {current sub-window's count, the N − 1 whole ones
// before it, the oldest's, time decided at}.
func explainSubWindows(d *Decision) string {
	p := d.policy
	n := subWindows(*p)
	s := int64(p.Window) / n
	cur, middle, oldest, eff := d.v[0], d.v[1], d.v[2], time.Duration(d.v[3])
	e := int64(eff) % s
	est := (cur+middle)*s + oldest*(s-e) // ≤ Limit × S
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d sub-windows of %s; estimate = current %d + %d in the %d before + oldest %d × (%s − %s)/%s = %s; %s + cost %d = %s",
		lateNote(d, eff), n, FormatSeconds(time.Duration(s)), cur, middle, n-1, oldest,
		FormatSeconds(time.Duration(s)), FormatSeconds(time.Duration(e)), FormatSeconds(time.Duration(s)),
		exactish(est, s), exactish(est, s), d.Cost, exactishU(uint64(est)+uint64(d.Cost*s), s))
	if d.Outcome == Allowed {
		fmt.Fprintf(&b, " ≤ limit %d → allowed", p.Limit)
		return b.String()
	}
	fmt.Fprintf(&b, " > limit %d → rejected; retry after %s", p.Limit, retryFrom(d, eff))
	if e2 := e + int64(d.RetryAfter-(eff-d.At)); e2 < s {
		// Within this sub-window: only the oldest's weight has fallen.
		then := (cur+middle)*s + oldest*(s-e2)
		fmt.Fprintf(&b, ", when the oldest weighs %d × (%s − %s)/%s and estimate = %s, + cost %d ≤ %d",
			oldest, FormatSeconds(time.Duration(s)), FormatSeconds(time.Duration(e2)), FormatSeconds(time.Duration(s)),
			exactish(then, s), d.Cost, p.Limit)
	} else {
		fmt.Fprintf(&b, ", when enough of the oldest sub-windows have slid out for cost %d to fit", d.Cost)
	}
	return b.String()
}
