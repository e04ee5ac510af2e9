package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// SlidingLog: every admission is logged; one at t counts while t > now −
// Window, so not at t + Window. Admitted iff the logged cost still
// counting + c ≤ Limit. RetryAfter: until the oldest admissions that
// must go for c to fit have stopped counting.
const SlidingLog Algorithm = "sliding-log"

func init() {
	register(windowedDescription(Description{
		Algorithm: SlidingLog,
		explain:   explainSlidingLog,
		Rule:      "admitted iff the cost of admissions at times > now − window, + c ≤ limit",
		Words: func(p Policy) string {
			return "sliding log: at most " + strconv.FormatInt(p.Limit, 10) + " in any " + FormatSeconds(p.Window) + ", every admission remembered"
		},
		Examples: []Example{
			{Name: "log", Policy: Policy{Algorithm: SlidingLog, Limit: 12, Window: 10 * time.Second}},
		},
		Edges: []Policy{
			{Algorithm: SlidingLog, Limit: 1, Window: 700 * time.Millisecond},
			{Algorithm: SlidingLog, Limit: 7, Window: time.Second},
			{Algorithm: SlidingLog, Limit: 3, Window: 700*time.Millisecond + 3},
			{Algorithm: SlidingLog, Limit: 120, Window: time.Minute},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[slidingLogState](newSlidingLog(p), ks) },
		State: slidingLogForm,
	}))
}

// slidingLog: every admission is logged with its time and cost. An admission
// at t is recent at now iff t > now − Window, so it stops counting exactly
// at t + Window. A request is admitted iff the recent cost + its cost ≤
// Limit; then it is logged. A rejection is not logged.
//
// A rejected request fits again once the oldest recent admissions, taken in
// order, have freed at least recent + cost − Limit: the wait is until the
// last of those expires. Each entry carries the running total of logged cost
// so that this entry is found by binary search.
//
// The log is a fifo, so a decision costs amortised O(1) time (O(log n) for a
// rejection's retry-after) and allocates only when the log outgrows its
// capacity (or first changes after a Clone).
type slidingLog struct {
	p Policy
}

// logItem is a logged admission; cum is the running total of logged cost up
// to and including it.
type logItem struct {
	at   time.Duration
	cost int64
	cum  int64
}

type slidingLogState struct {
	log   fifo[logItem] // the admissions recent as of last
	base  int64         // running total before the log's oldest: recent cost = total − base
	total int64         // running total of all logged cost
	last  time.Duration
}

func newSlidingLog(p Policy) *slidingLog { return &slidingLog{p: p} }

func (l *slidingLog) policy() *Policy { return &l.p }

func (l *slidingLog) start(now time.Duration) slidingLogState {
	return slidingLogState{last: now}
}

// expired is how many of the log's oldest entries no longer count at now.
func (l *slidingLog) expired(s *slidingLogState, now time.Duration) int {
	limit := now - l.p.Window
	front := s.log.front()
	n := 0
	for n < len(front) && front[n].at <= limit {
		n++
	}
	if n < len(front) {
		return n
	}
	for size := s.log.len(); n < size && s.log.at(n).at <= limit; n++ {
	}
	return n
}

// push logs an admission, rebasing the running totals long before they
// could overflow.
func (s *slidingLogState) push(m *mem, at time.Duration, cost int64) {
	if s.total > maxScaled {
		// Logged items may be shared with clones: rebase a copy.
		var log fifo[logItem]
		for i := range s.log.len() {
			x := *s.log.at(i)
			x.cum -= s.base
			log.push(m, x)
		}
		s.log.drop(m, s.log.len())
		s.log = log
		s.total -= s.base
		s.base = 0
	}
	s.total += cost
	s.log.push(m, logItem{at: at, cost: cost, cum: s.total})
}

// expire moves s to now (not before its last request) and drops the
// entries that no longer count then.
func (l *slidingLog) expire(s *slidingLogState, m *mem, now time.Duration) {
	s.last = now
	if n := l.expired(s, now); n > 0 {
		s.base = s.log.at(n - 1).cum
		s.log.drop(m, n)
	}
}

// freeing is the oldest entry whose leaving brings the running total of s
// to target, and the wait from now until it leaves, the request having been
// decided at eff: e.at + Window − now, written Window − age so as not to
// overflow. The entry exists when target ≤ the total.
func (l *slidingLog) freeing(s *slidingLogState, target int64, eff, now time.Duration) (*logItem, time.Duration) {
	e := s.log.at(s.firstCum(target))
	return e, l.p.Window - (eff - e.at) + eff - now
}

func (l *slidingLog) decide(s *slidingLogState, m *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	l.expire(s, m, eff)
	recent := s.total - s.base
	d = Decision{At: now, Cost: cost, policy: &l.p, explain: explainSlidingLog, v: [4]int64{recent, int64(eff)}}
	switch {
	case cost > l.p.Limit:
		d.Outcome, d.RetryAfter = Rejected, Never
	case recent+cost <= l.p.Limit:
		d.Outcome = Allowed
		s.push(m, eff, cost)
	default:
		d.Outcome = Rejected
		// The first entry whose running total frees enough; it exists
		// because cost ≤ Limit means need ≤ recent.
		var e *logItem
		e, d.RetryAfter = l.freeing(s, s.base+recent+cost-l.p.Limit, eff, now)
		d.v[2], d.v[3] = int64(e.at), e.cum-s.base
	}
	return d
}

// firstCum is the index of the oldest logged admission whose running total
// reaches target: a binary search, over a plain slice when the log fits one
// chunk.
func (s *slidingLogState) firstCum(target int64) int {
	if f := s.log.front(); len(f) == s.log.len() {
		lo, hi := 0, len(f)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if f[mid].cum < target {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return lo
	}
	return s.log.search(func(x *logItem) bool { return x.cum >= target })
}

// LogEntry is one admission in a sliding log.
type LogEntry struct {
	At   time.Duration
	Cost int64
}

// SlidingLogSnapshot shows the admissions inside (Now − Window, Now].
type SlidingLogSnapshot struct {
	Now    time.Duration
	Limit  int64
	Window time.Duration
	// Entries are the recent admissions, oldest first. The slice is a copy.
	Entries []LogEntry
	// Count is the sum of the entries' costs.
	Count int64
	// OldestExpiresAt is when the oldest entry stops counting (its At +
	// Window); zero when there are no entries.
	OldestExpiresAt time.Duration
}

func (s SlidingLogSnapshot) Moment() time.Duration { return s.Now }

func (l *slidingLog) snapshot(s slidingLogState, now time.Duration) Snapshot {
	now = max(now, s.last)
	snap := SlidingLogSnapshot{Now: now, Limit: l.p.Limit, Window: l.p.Window}
	snap.Entries, snap.Count, snap.OldestExpiresAt = l.recent(&s, now)
	return snap
}

// recent copies the entries of s still inside the window at now (≥ its
// last request), oldest first, with their total cost and when the oldest
// leaves; nil, 0, 0 when there are none. The snapshots of the sliding log
// and of the logs that get it wrong (attempts, collapsing members) show it.
func (l *slidingLog) recent(s *slidingLogState, now time.Duration) (entries []LogEntry, count int64, oldestExpiresAt time.Duration) {
	items := s.log.items(l.expired(s, now))
	if len(items) == 0 {
		return nil, 0, 0
	}
	entries = make([]LogEntry, len(items))
	for i, e := range items {
		entries[i] = LogEntry{At: e.at, Cost: e.cost}
		count += e.cost
	}
	return entries, count, items[0].at + l.p.Window
}

// clone shares the log: see fifo.
func (l *slidingLog) clone(s *slidingLogState, _ *mem) slidingLogState { return *s }

func (l *slidingLog) tables(*slidingLogState) int64 { return 0 }

func (l *slidingLog) dropItems(s *slidingLogState, m *mem) { s.log.free(m) }

// copyState shares src's log, owned by neither instance from then on.
func (l *slidingLog) copyState(dst, src *slidingLogState, m, from *mem) { dst.copyLog(src, m, from) }

// rewind: see rewinder.
func (l *slidingLog) rewind(live, saved *slidingLogState) { live.log.rewind(&saved.log) }

// copyLog sets *dst to a copy of src sharing its log: see copier. What
// dst's log already shares with src's stays (fifo.copyFrom): a racy read
// of a key read before copies what the log took in and let go since, not
// the whole log.
func (dst *slidingLogState) copyLog(src *slidingLogState, m, from *mem) {
	dst.log.copyFrom(&src.log, m, from)
	*dst = *src // the log's words, as copyFrom left them
}

// slidingLogForm: the time of the last request (ns), and the admissions
// still counting then, oldest first, each its time (ns) and cost. The
// running totals the process keeps beside them are not written: they are
// sums of the costs.
var slidingLogForm = StateForm{Fields: []string{"last"}, Log: "log", Item: []string{"at", "cost"}}

func (l *slidingLog) encode(s *slidingLogState) State {
	st := State{Fields: []int64{int64(s.last)}, Log: make([]int64, 0, 2*s.log.len())}
	for i := range s.log.len() {
		e := s.log.at(i)
		st.Log = append(st.Log, int64(e.at), e.cost)
	}
	return st
}

func (l *slidingLog) decode(st State, m *mem) (slidingLogState, error) {
	s := slidingLogState{last: time.Duration(st.Fields[0])}
	if err := l.checkLog(s.last, st.Log, 2, false, -1); err != nil {
		return s, err
	}
	if sum := logCost(st.Log, 2, len(st.Log)); sum > l.p.Limit {
		return s, fmt.Errorf("sliding log state: the log's cost %d is past the limit %d", sum, l.p.Limit)
	}
	l.pushLog(&s, m, st.Log, 2, nil)
	return s, nil
}

// checkLog reports why log, items of stride numbers each starting with a
// time and a cost, is not a log a key's state holds at last (≥ 0): times
// in order (strictly, for a strict log), each inside the window at last —
// or at also, a time a log may hold though outside it (−1 for none) — and
// costs in [1, Limit].
func (l *slidingLog) checkLog(last time.Duration, log []int64, stride int, strict bool, also time.Duration) error {
	if last < 0 {
		return fmt.Errorf("%s state: last %d is negative", l.p.Algorithm, last)
	}
	prev := time.Duration(-1)
	for i := 0; i < len(log); i += stride {
		at, cost := time.Duration(log[i]), log[i+1]
		if at < 0 || at < prev || strict && at == prev || at > last || at <= last-l.p.Window && at != also {
			return fmt.Errorf("%s state: item %d at %d is out of order or outside the window (%d, %d] at last", l.p.Algorithm, i/stride, at, last-l.p.Window, last)
		}
		if cost < 1 || cost > l.p.Limit {
			return fmt.Errorf("%s state: item %d's cost %d is outside [1, %d]", l.p.Algorithm, i/stride, cost, l.p.Limit)
		}
		prev = at
	}
	return nil
}

// logCost is the cost of log's items, of stride numbers each (costs in
// [1, Limit], checked), before index end; past maxScaled, maxScaled + 1.
func logCost(log []int64, stride, end int) int64 {
	var sum int64
	for i := 0; i < end; i += stride {
		if log[i+1] > maxScaled-sum {
			return maxScaled + 1
		}
		sum += log[i+1]
	}
	return sum
}

// pushLog logs the items of log (stride numbers each: a time, a cost, ...)
// into s, those keep says to when keep is set.
func (l *slidingLog) pushLog(s *slidingLogState, m *mem, log []int64, stride int, keep func(item []int64) bool) {
	for i := 0; i < len(log); i += stride {
		if keep == nil || keep(log[i:i+stride]) {
			s.push(m, time.Duration(log[i]), log[i+1])
		}
	}
}

// held is the logged admissions still inside the window at now.
func (l *slidingLog) held(s slidingLogState, now time.Duration) int64 {
	live := s.log.len() // at last, decide has dropped every expired entry
	if now > s.last {
		limit := now - l.p.Window
		live -= s.log.search(func(x *logItem) bool { return x.at > limit })
	}
	return int64(live) * sizeOf[logItem]()
}

// explainSlidingLog: v = {recent cost before, time decided at, and for a
// rejection: the time of the admission whose expiry makes room, the cost
// freed by then}.
func explainSlidingLog(b []byte, d Decision) []byte {
	// Appended piece by piece, as explainFixedWindow.
	p := d.policy
	recent, eff := d.v[0], time.Duration(d.v[1])
	b = lateNote(&d, eff).appendTo(b)
	b = d.times.seconds(append(b, "recent = cost admitted in ("...), eff-p.Window)
	b = d.times.seconds(append(b, ", "...), eff)
	b = appendInt(append(b, "] = "...), recent)
	b = appendInt(append(b, "; "...), recent)
	b = appendInt(append(b, " + cost "...), d.Cost)
	b = appendInt(append(b, " = "...), recent+d.Cost)
	if d.Outcome == Allowed {
		return append(appendInt(append(b, " ≤ limit "...), p.Limit), " → allowed"...)
	}
	oldest, freed := time.Duration(d.v[2]), d.v[3]
	expiry := oldest + p.Window
	b = appendInt(append(b, " > limit "...), p.Limit)
	b = appendInt(append(b, " → rejected; "...), recent+d.Cost-p.Limit)
	b = d.times.seconds(append(b, " must expire: the admissions up to "...), oldest)
	b = appendInt(append(b, " free "...), freed)
	b = d.times.seconds(append(b, " at "...), oldest)
	b = d.times.seconds(append(b, " + "...), p.Window)
	b = d.times.seconds(append(b, " = "...), expiry)
	b = d.times.seconds(append(b, "; retry after "...), expiry)
	b = d.times.seconds(append(b, " − "...), d.At)
	return d.times.seconds(append(b, " = "...), d.RetryAfter)
}
