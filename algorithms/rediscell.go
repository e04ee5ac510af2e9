package algorithms

import (
	"fmt"
	"strconv"
	"time"
)

// RedisCell: redis-cell's CL.THROTTLE key max_burst count_per_period period
// [quantity], a GCRA. The emission interval T = period ÷ count_per_period,
// truncated to a whole nanosecond (redis-cell's Rate::per_period); the delay
// variation tolerance DVT = T × (max_burst + 1), so that limit = max_burst +
// 1 requests pass at once: max_burst N admits N + 1. For a request of
// quantity c at now, with tat = now for a key not stored: new_tat =
// max(tat, now) + c × T, allow_at = new_tat − DVT; admitted iff now ≥
// allow_at, and then tat = new_tat. A quantity above max_burst + 1 never
// fits (redis-cell then replies retry_after −1). RetryAfter: allow_at −
// now, exact in nanoseconds. The reply's retry_after and reset_after are
// whole seconds, rounded up only when their fraction holds a whole
// millisecond: 1.0004s is reported as 1. All integers, as redis-cell's
// time::Duration are; period is whole seconds, as CL.THROTTLE takes it.
const RedisCell Algorithm = "redis-cell"

// The parameters of CL.THROTTLE.
var (
	MaxBurstParam = Param{Name: "max_burst", Kind: Count, Amount: true, Want: "a whole number of requests beyond the first (max_burst N admits N + 1 at once), 0 if left out",
		Optional: true, field: func(p *Policy) any { return &p.MaxBurst }}
	CountPerPeriodParam = Param{Name: "count_per_period", Kind: Count, Amount: true, Want: "a positive whole number of requests per period",
		field: func(p *Policy) any { return &p.CountPerPeriod }}
	PeriodParam = Param{Name: "period", Kind: Duration, Want: "a positive whole number of seconds such as 60s",
		field: func(p *Policy) any { return &p.Period }}
)

func init() {
	register(Description{
		Algorithm: RedisCell,
		explain:   explainRedisCell,
		Family:    Library,
		Source:    "brandur/redis-cell redis-cell-impl/src/lib.rs (RateLimiter::rate_limit) and redis-cell/src/lib.rs (CL.THROTTLE's reply)",
		Params:    []Param{MaxBurstParam, CountPerPeriodParam, PeriodParam},
		Size:      "max_burst",
		InFlight:  1,
		Rule:      "T = ⌊period/count_per_period⌋ ns; DVT = T × (max_burst + 1); new_tat = max(tat, now) + c×T; admitted iff now ≥ new_tat − DVT, then tat = new_tat (max_burst N admits N + 1)",
		Words: func(p Policy) string {
			return "redis-cell CL.THROTTLE: max_burst " + strconv.FormatInt(p.MaxBurst, 10) + " (admits " + strconv.FormatInt(p.MaxBurst+1, 10) +
				" at once), " + strconv.FormatInt(p.CountPerPeriod, 10) + " per " + FormatSeconds(p.Period)
		},
		Line: func(p Policy) string {
			return fmt.Sprintf("%s max_burst %d, %d per %s", p.Algorithm, p.MaxBurst, p.CountPerPeriod, FormatDuration(p.Period))
		},
		CostBound: func(p Policy) string {
			return fmt.Sprintf("its limit is max_burst + 1 = %d at once", p.MaxBurst+1)
		},
		Horizon: func(p Policy) time.Duration { return cellInterval(p) * time.Duration(p.MaxBurst+1) },
		check: func(p Policy) error {
			if p.MaxBurst < 0 || p.MaxBurst > MaxCount {
				return fmt.Errorf("max_burst %d must be 0 or more, at most 2^40", p.MaxBurst)
			}
			if err := checkCount("count_per_period", p.CountPerPeriod); err != nil {
				return err
			}
			if p.Period <= 0 || p.Period%time.Second != 0 {
				return fmt.Errorf("period %s must be a positive whole number of seconds (CL.THROTTLE takes seconds)", FormatDuration(p.Period))
			}
			if p.CountPerPeriod > int64(p.Period) {
				return fmt.Errorf("count_per_period %d above period %s in ns makes an emission interval of 0 (redis-cell: zero rates are not supported)", p.CountPerPeriod, FormatDuration(p.Period))
			}
			if !mulFits(p.MaxBurst+1, int64(cellInterval(p))) {
				return fmt.Errorf("(max_burst %d + 1) × emission interval %s is too large for exact arithmetic (at most 2^62 ns)", p.MaxBurst, FormatSeconds(cellInterval(p)))
			}
			return nil
		},
		Examples: []Example{
			{Name: "cell", Policy: Policy{Algorithm: RedisCell, MaxBurst: 9, CountPerPeriod: 2, Period: time.Second}},
		},
		Edges: []Policy{
			{Algorithm: RedisCell, CountPerPeriod: 7, Period: time.Second},                  // max_burst left out: 0, one at a time
			{Algorithm: RedisCell, MaxBurst: 4, CountPerPeriod: 3, Period: 2 * time.Second}, // T = 2s/3 truncated to 666666666 ns
			{Algorithm: RedisCell, MaxBurst: 50, CountPerPeriod: 1000, Period: 60 * time.Second},
		},
		new:   func(p Policy, ks *Keys) Limiter { return newKeyed[redisCellState](newRedisCell(p), ks) },
		State: redisCellForm,
	})
}

// cellInterval is redis-cell's emission interval: period ÷ count, truncated
// to a whole nanosecond (it divides as f64 and truncates, which is the
// integer quotient for any period below 2^53 ns, about 104 days).
func cellInterval(p Policy) time.Duration { return p.Period / time.Duration(p.CountPerPeriod) }

type redisCell struct {
	p   Policy
	t   int64 // emission interval, ns
	dvt int64 // T × (max_burst + 1)
}

type redisCellState struct {
	tat  time.Duration // theoretical arrival time; a new key's is its first now
	last time.Duration
}

func newRedisCell(p Policy) *redisCell {
	t := int64(cellInterval(p))
	return &redisCell{p: p, t: t, dvt: t * (p.MaxBurst + 1)}
}

func (c *redisCell) policy() *Policy { return &c.p }

func (c *redisCell) start(now time.Duration) redisCellState {
	return redisCellState{tat: now, last: now}
}

func (c *redisCell) decide(s *redisCellState, _ *mem, now time.Duration, cost int64) (d Decision) {
	eff := max(now, s.last)
	s.last = eff
	d = Decision{At: now, Cost: cost, policy: &c.p, explain: explainRedisCell, v: [4]int64{int64(s.tat), int64(eff), c.t, c.dvt}}
	if cost > c.p.MaxBurst+1 {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	base := max(s.tat, eff)
	// allow_at = base + cost × T − DVT, as a subtraction: base ≤ eff + DVT.
	allowAt := base - time.Duration((c.p.MaxBurst+1-cost)*c.t)
	if eff >= allowAt {
		d.Outcome = Allowed
		s.tat = allowAt + time.Duration(c.dvt) // new_tat ≤ eff + DVT
		return d
	}
	d.Outcome = Rejected
	d.RetryAfter = allowAt - now
	return d
}

// cellSeconds is how CL.THROTTLE writes a duration in its reply: whole
// seconds, plus one when the fraction holds at least a whole millisecond
// (Rust's whole_seconds and subsec_milliseconds, both truncating toward
// zero).
func cellSeconds(d time.Duration) int64 {
	s := int64(d / time.Second)
	if (d%time.Second)/time.Millisecond > 0 {
		s++
	}
	return s
}

// cellRemaining is the reply's remaining for a time to live ttl = TAT − now
// after the decision: (DVT − ttl) ÷ T in whole microseconds, as f64,
// truncated; 0 unless DVT − ttl > −T.
func cellRemaining(t, dvt int64, ttl time.Duration) int64 {
	next := dvt - int64(ttl)
	tµs := t / 1000
	if next <= -t || tµs == 0 {
		return 0
	}
	return (next / 1000) / tµs // Go truncates toward zero, as Rust's f64 → i64 does
}

// RedisCellSnapshot shows redis-cell's TAT and what CL.THROTTLE would reply.
type RedisCellSnapshot struct {
	Now            time.Duration
	MaxBurst       int64
	CountPerPeriod int64
	Period         time.Duration
	// Limit is max_burst + 1, the reply's limit.
	Limit int64
	// Interval is the emission interval T, Tolerance the DVT = T × Limit.
	Interval, Tolerance time.Duration
	// TAT is the theoretical arrival time, Now when the key is idle.
	TAT time.Duration
	// Available is the equivalent balance (DVT − (TAT − Now)) ÷ T, of
	// Limit; Remaining is the reply's remaining for a peek (quantity 0):
	// Available truncated.
	Available Quantity
	Remaining int64
}

func (s RedisCellSnapshot) Moment() time.Duration { return s.Now }

func (c *redisCell) snapshot(s redisCellState, now time.Duration) Snapshot {
	now = max(now, s.last)
	tat := max(s.tat, now)
	return RedisCellSnapshot{
		Now:            now,
		MaxBurst:       c.p.MaxBurst,
		CountPerPeriod: c.p.CountPerPeriod,
		Period:         c.p.Period,
		Limit:          c.p.MaxBurst + 1,
		Interval:       time.Duration(c.t),
		Tolerance:      time.Duration(c.dvt),
		TAT:            tat,
		Available:      Quantity{c.dvt - int64(tat-now), c.t},
		Remaining:      cellRemaining(c.t, c.dvt, tat-now),
	}
}

func (c *redisCell) clone(s *redisCellState, _ *mem) redisCellState { return *s }

func (c *redisCell) tables(*redisCellState) int64 { return 0 }

// redisCellForm: tat, the theoretical arrival time in ns (redis-cell keeps
// it as the key's value, in ns since the epoch), and last, the time of the
// latest request in ns. A TAT before last decides as one at last (an idle
// key; redis-cell's key has expired), so it is written as last: the written
// tat is never before last, and at most DVT after it.
var redisCellForm = StateForm{Fields: []string{"tat", "last"}}

func (c *redisCell) encode(s *redisCellState) State {
	return State{Fields: []int64{int64(max(s.tat, s.last)), int64(s.last)}}
}

func (c *redisCell) decode(st State, _ *mem) (redisCellState, error) {
	s := redisCellState{tat: time.Duration(st.Fields[0]), last: time.Duration(st.Fields[1])}
	if s.tat < 0 || s.last < 0 || s.tat-s.last > time.Duration(c.dvt) {
		return s, fmt.Errorf("redis-cell state %v out of range (tat at most DVT %s past last)", st.Fields, FormatSeconds(time.Duration(c.dvt)))
	}
	return s, nil
}

// cellReply is what CL.THROTTLE replies, before its rounding to seconds:
// [limited, limit, remaining, retry_after, reset_after], retry_after and
// reset_after exact (−1s when none).
type cellReply struct {
	limited          bool
	limit, remaining int64
	retry, reset     time.Duration
}

// replyOf is redis-cell's reply to the decision d of a redis-cell lane: for
// an admission ttl = new_tat − now, for a rejection ttl = tat − now (and
// retry_after = allow_at − now, −1 for a quantity above the limit);
// reset_after = ttl and remaining from ttl (cellRemaining).
func replyOf(d *Decision) cellReply {
	p := d.policy
	tat, eff, t, dvt := time.Duration(d.v[0]), time.Duration(d.v[1]), time.Duration(d.v[2]), time.Duration(d.v[3])
	r := cellReply{limited: d.Outcome == Rejected, limit: p.MaxBurst + 1, retry: -time.Second}
	ttl := tat - eff
	if !r.limited {
		ttl = max(tat, eff) + time.Duration(d.Cost)*t - eff
	} else if d.RetryAfter != Never {
		r.retry = d.RetryAfter - (eff - d.At)
	}
	r.reset, r.remaining = ttl, cellRemaining(int64(t), int64(dvt), ttl)
	return r
}

// explainRedisCell: v = {tat before, time decided at, T, DVT}.
func explainRedisCell(b []byte, d Decision) []byte {
	p := d.policy
	tat, eff, t, dvt := time.Duration(d.v[0]), time.Duration(d.v[1]), time.Duration(d.v[2]), time.Duration(d.v[3])
	base := max(tat, eff)
	allowAt := base - time.Duration(p.MaxBurst+1-d.Cost)*t
	b = appendf(b, d.times, "%sT = %s; DVT = T × (max_burst %d + 1) = %s; allow_at = max(tat %s, now %s) + %d×T − DVT = %s",
		lateNote(&d, eff), secs(t), p.MaxBurst, secs(dvt), secs(tat), secs(eff), d.Cost, secs(allowAt))
	r := replyOf(&d)
	if d.Outcome == Allowed {
		return appendf(b, d.times, " ≤ now → allowed; CL.THROTTLE replies [0, limit %d, remaining %d, retry_after -1, reset_after %d] (redis-cell lib.rs)",
			r.limit, r.remaining, cellSeconds(r.reset))
	}
	return appendf(b, d.times, " > now → rejected; retry after %s; CL.THROTTLE replies [1, limit %d, remaining %d, retry_after %d, reset_after %d] (%s in whole seconds, rounded up only for a whole millisecond over; redis-cell lib.rs)",
		retryFrom(&d, eff), r.limit, r.remaining, cellSeconds(r.retry), cellSeconds(r.reset), secs(r.retry))
}
