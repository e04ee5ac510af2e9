package algorithms

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/time/rate"
)

// XTimeRate: the real golang.org/x/time/rate Limiter, one per key, asked
// AllowN(t, c) with t = a fixed epoch + now. It is a token bucket of Burst
// tokens, starting full, refilled at rate.Limit = N / Per-in-seconds tokens
// per second, all in float64: admitted iff c ≤ Burst and the float balance
// covers c with a wait that truncates to 0ns. RetryAfter: the delay a
// Reservation for the same c would give (ReserveN on a copy of the key's
// limiter, DelayFrom); Never for c > Burst. Burst 0 admits nothing.
// Floating point decides here: it is the library's own arithmetic.
const XTimeRate Algorithm = "x-time-rate"

// XTimeRateReserve: the same library's ReserveN(t, c): every c ≤ Burst is
// granted, Delayed by r.DelayFrom(t) while the float balance goes negative
// (into debt: a shaper whose queue is unbounded). With MaxWait set, a
// reservation whose delay would exceed it is refused and changes nothing,
// as WaitN with a context deadline MaxWait away refuses it (the library's
// reserveN with maxFutureReserve); RetryAfter is then the delay it would
// have had less MaxWait. Floating point decides: the library's arithmetic.
const XTimeRateReserve Algorithm = "x-time-rate-reserve"

// xtimerateSource is the file both lanes follow.
const xtimerateSource = "golang.org/x/time/rate rate.go"

// MaxWaitParam is the longest wait a reservation accepts.
var MaxWaitParam = Param{Name: "max_wait", Kind: Duration,
	Want:  "a Go duration such as 500ms: the longest wait a reservation accepts (a WaitN deadline); left out or 0s, no limit",
	field: func(p *Policy) any { return &p.MaxWait }, Optional: true}

// xtimerateBurst is x/time/rate's burst: the library allows 0, which admits
// nothing.
var xtimerateBurst = Optional(BurstParam, "a whole number of tokens (the bucket's size and the largest n); 0 if left out, which admits nothing")

// xtimerateEpoch is the wall time the virtual clock's 0 maps to.
var xtimerateEpoch = time.Unix(0, 0)

func init() {
	for _, reserve := range []bool{false, true} {
		d := Description{
			Algorithm: XTimeRate,
			explain:   explainXTimeRate,
			Family:    Library,
			Source:    xtimerateSource + " (Limiter.AllowN)",
			Params:    []Param{xtimerateBurst, RateParam},
			Size:      "burst",
			Rule:      "the library's float64 bucket: tokens = min(burst, tokens + elapsed × rate); AllowN admits iff c ≤ burst and tokens ≥ c (to the ns), then tokens −= c",
			Words: func(p Policy) string {
				return "x/time/rate AllowN: burst " + strconv.FormatInt(p.Burst, 10) + " at " + p.Rate.String() + ", float64 tokens, starts full"
			},
			Line: func(p Policy) string {
				return fmt.Sprintf("%s burst %d, rate %s", p.Algorithm, p.Burst, p.Rate)
			},
			CostBound: func(p Policy) string {
				return fmt.Sprintf("x/time/rate refuses any n above its burst, %d", p.Burst)
			},
			Horizon: func(p Policy) time.Duration {
				return time.Duration(ceilDiv(max(p.Burst, 1)*int64(p.Rate.Per), p.Rate.N))
			},
			check: checkXTimeRate,
			State: xtimerateForm,
			Examples: []Example{
				{Name: "xrate", Policy: Policy{Algorithm: XTimeRate, Burst: 10, Rate: Rate{N: 2, Per: time.Second}}},
			},
			Edges: []Policy{
				{Algorithm: XTimeRate, Burst: 0, Rate: Rate{N: 7, Per: time.Second}},
				{Algorithm: XTimeRate, Burst: 1, Rate: Rate{N: 7, Per: time.Second}},
				{Algorithm: XTimeRate, Burst: 5, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
				{Algorithm: XTimeRate, Burst: 3, Rate: Rate{N: 1000000007, Per: time.Second}},
				{Algorithm: XTimeRate, Burst: 1000, Rate: Rate{N: 333, Per: time.Minute}},
			},
			new: func(p Policy, ks *Keys) Limiter {
				return newKeyed[xtimerateState](newXTimeRate(p, false), ks)
			},
		}
		if reserve {
			d.Algorithm = XTimeRateReserve
			d.Examples = []Example{
				{Name: "reserve", Policy: Policy{Algorithm: XTimeRateReserve, Burst: 10, Rate: Rate{N: 2, Per: time.Second}, MaxWait: 10 * time.Second}},
			}
			d.Edges = []Policy{
				{Algorithm: XTimeRateReserve, Burst: 0, Rate: Rate{N: 5, Per: time.Second}},
				{Algorithm: XTimeRateReserve, Burst: 3, Rate: Rate{N: 3, Per: 700 * time.Millisecond}},
				{Algorithm: XTimeRateReserve, Burst: 1000, Rate: Rate{N: 333, Per: time.Minute}},
				{Algorithm: XTimeRateReserve, Burst: 1, Rate: Rate{N: 7, Per: time.Second}, MaxWait: 500 * time.Millisecond},
				{Algorithm: XTimeRateReserve, Burst: 4, Rate: Rate{N: 3, Per: 700 * time.Millisecond}, MaxWait: 1999},
				{Algorithm: XTimeRateReserve, Burst: 100, Rate: Rate{N: 333, Per: time.Minute}, MaxWait: 3 * time.Second},
				{Algorithm: XTimeRateReserve, Burst: 0, Rate: Rate{N: 5, Per: time.Second}, MaxWait: time.Second},
			}
			d.Source = xtimerateSource + " (Limiter.ReserveN, reserveN's maxFutureReserve)"
			d.Params = []Param{xtimerateBurst, RateParam, MaxWaitParam}
			d.Rule = "ReserveN: every c ≤ burst is granted; tokens −= c may go negative, and it waits until they are back to 0 (refused, changing nothing, if that exceeds max_wait)"
			d.Words = func(p Policy) string {
				w := "x/time/rate ReserveN: burst " + strconv.FormatInt(p.Burst, 10) + " at " + p.Rate.String() + "; into debt, the request waits"
				if p.MaxWait > 0 {
					w += " ≤ " + FormatSeconds(p.MaxWait)
				}
				return w
			}
			d.Line = func(p Policy) string {
				s := fmt.Sprintf("%s burst %d, rate %s", p.Algorithm, p.Burst, p.Rate)
				if p.MaxWait > 0 {
					s += ", max_wait " + FormatDuration(p.MaxWait)
				}
				return s
			}
			d.MaxDelay = func(p Policy) time.Duration {
				if p.MaxWait > 0 {
					return p.MaxWait
				}
				return Never // the debt has no bound
			}
			d.new = func(p Policy, ks *Keys) Limiter {
				return newKeyed[xtimerateState](newXTimeRate(p, true), ks)
			}
		}
		register(d)
	}
}

func checkXTimeRate(p Policy) error {
	if err := p.Rate.Validate(); err != nil {
		return err
	}
	switch {
	case p.Burst < 0:
		return fmt.Errorf("burst %d must not be negative", p.Burst)
	case p.Burst > MaxCount:
		return fmt.Errorf("burst %d is too large (at most 2^40)", p.Burst)
	case !mulFits(max(p.Burst, 1), int64(p.Rate.Per)):
		return fmt.Errorf("burst %d × rate period %s is too large (at most 2^62 ns)", p.Burst, FormatDuration(p.Rate.Per))
	case p.MaxWait < 0:
		return fmt.Errorf("max_wait %s must not be negative", FormatDuration(p.MaxWait))
	}
	return nil
}

// xtimerate: each key holds a real *rate.Limiter, made as
// rate.NewLimiter(rate.Limit(N / Per.Seconds()), Burst), and a spare one
// beside it (one allocation of two limiters per key). Virtual time now is
// the wall time xtimerateEpoch + now; times never go backwards for a key (a
// late request is given the key's latest time, which the library would
// otherwise take as a new "last" and refill twice).
//
// A rejection's RetryAfter is what a Reservation would say: the key's
// limiter is copied into the spare, ReserveN(t, c) asked of the spare, and
// its DelayFrom read; the key's own limiter is untouched. With max_wait the
// reservation is made on the spare the same way, and kept (the two swap)
// only if its delay is within max_wait: the library's reserveN with a
// maxFutureReserve, which only WaitN reaches, on the wall clock.
//
// The copies are struct copies through reflect (a rate.Limiter holds a
// sync.Mutex, never locked when copied: a Limiter is not for concurrent
// use), which allocate nothing.
type xtimerate struct {
	p       Policy
	limit   rate.Limit
	reserve bool
	// fresh is rate.NewLimiter(limit, Burst), the state every key starts
	// from. It is only ever copied, never used, so that clones deciding in
	// several goroutines may share it.
	fresh *rate.Limiter
}

type xtimerateState struct {
	lim, spare *rate.Limiter // the key's limiter and its scratch copy; nil until its first decision
	last       time.Duration // the latest time decided at
	// at is the library's own last (Limiter.last, which its API does not
	// show): when lim's tokens were last set, by a granted reservation.
	// Only meaningful once lim is made.
	at time.Duration
}

// xtimeratePair is what a key's two limiters take.
const xtimeratePair = int64(unsafe.Sizeof([2]rate.Limiter{}))

func newXTimeRate(p Policy, reserve bool) *xtimerate {
	limit := rate.Limit(float64(p.Rate.N) / p.Rate.Per.Seconds())
	return &xtimerate{p: p, limit: limit, reserve: reserve, fresh: rate.NewLimiter(limit, int(p.Burst))}
}

// copyLimiter makes *dst a copy of *src, the mutex (unlocked) included.
func copyLimiter(dst, src *rate.Limiter) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}

func (x *xtimerate) policy() *Policy { return &x.p }

func (x *xtimerate) start(now time.Duration) xtimerateState { return xtimerateState{last: now} }

// own gives s its two limiters, the first a fresh one, on its first decision.
func (x *xtimerate) own(s *xtimerateState, m *mem) {
	if s.lim != nil {
		return
	}
	pair := new([2]rate.Limiter)
	copyLimiter(&pair[0], x.fresh)
	s.lim, s.spare = &pair[0], &pair[1]
	m.bytes += xtimeratePair
}

func (x *xtimerate) decide(s *xtimerateState, m *mem, now time.Duration, cost int64) (d Decision) {
	x.own(s, m)
	eff := max(now, s.last)
	s.last = eff
	t, arrived := xtimerateEpoch.Add(eff), xtimerateEpoch.Add(now)
	before := s.lim.TokensAt(t)
	d = Decision{At: now, Cost: cost, policy: &x.p, explain: explainXTimeRate,
		v: [4]int64{int64(math.Float64bits(before)), int64(eff)}}
	if cost > x.p.Burst {
		d.Outcome, d.RetryAfter = Rejected, Never
		return d
	}
	n := int(cost)
	switch {
	case !x.reserve:
		if s.lim.AllowN(t, n) {
			d.Outcome, s.at = Allowed, eff
			break
		}
		copyLimiter(s.spare, s.lim)
		r := s.spare.ReserveN(t, n)
		d.Outcome, d.RetryAfter = Rejected, r.DelayFrom(arrived)
		d.v[2] = int64(r.DelayFrom(t))
	case x.p.MaxWait == 0:
		r := s.lim.ReserveN(t, n)
		d.Delay, s.at = r.DelayFrom(arrived), eff
		d.v[2] = int64(r.DelayFrom(t))
	default:
		copyLimiter(s.spare, s.lim)
		r := s.spare.ReserveN(t, n)
		wait := r.DelayFrom(t)
		d.v[2] = int64(wait)
		if wait > x.p.MaxWait {
			d.Outcome, d.RetryAfter = Rejected, wait-x.p.MaxWait+eff-now
			break
		}
		s.lim, s.spare, s.at = s.spare, s.lim, eff
		d.Delay = r.DelayFrom(arrived)
	}
	if d.Outcome != Rejected && d.Delay > 0 {
		d.Outcome = Delayed
	}
	// What TokensAt(t) would now say, without asking: reserveN left
	// advance(t) − n (a refusal, advance(t)), and no time has passed.
	after := before
	if d.Outcome != Rejected {
		after -= float64(n)
	}
	d.v[3] = int64(math.Float64bits(after))
	return d
}

// XTimeRateSnapshot shows an x/time/rate Limiter's float64 balance.
type XTimeRateSnapshot struct {
	Now   time.Duration
	Burst int64
	Rate  Rate
	// Limit is the library's rate.Limit, N / Per in seconds, tokens per
	// second as a float64.
	Limit float64
	// Reserve is true for the ReserveN lane, whose Tokens may be negative
	// (reserved ahead: a debt the next requests wait for); MaxWait is its
	// max_wait, 0 for none.
	Reserve bool
	MaxWait time.Duration
	// Tokens is the library's TokensAt(now): the float64 balance, refill
	// included.
	Tokens float64
	// FullAt is when the balance reaches Burst if nothing is taken, and
	// PaidAt when a debt is paid off (the balance back to 0; Now when there
	// is none): from the float balance, rounded up, for display only.
	FullAt, PaidAt time.Duration
}

func (s XTimeRateSnapshot) Moment() time.Duration { return s.Now }

func (x *xtimerate) snapshot(s xtimerateState, now time.Duration) Snapshot {
	now = max(now, s.last)
	tokens := float64(x.p.Burst) // a key not yet decided holds a fresh limiter
	if s.lim != nil {
		tokens = s.lim.TokensAt(xtimerateEpoch.Add(now))
	}
	after := func(short float64) time.Duration {
		if short <= 0 {
			return now
		}
		return now + time.Duration(math.Ceil(short/float64(x.limit)*1e9))
	}
	return XTimeRateSnapshot{
		Now: now, Burst: x.p.Burst, Rate: x.p.Rate, Limit: float64(x.limit),
		Reserve: x.reserve, MaxWait: x.p.MaxWait, Tokens: tokens,
		FullAt: after(float64(x.p.Burst) - tokens), PaidAt: after(-tokens),
	}
}

// clone gives the copy limiters of its own.
func (x *xtimerate) clone(s *xtimerateState, m *mem) xtimerateState {
	c := xtimerateState{last: s.last, at: s.at}
	if s.lim != nil {
		pair := new([2]rate.Limiter)
		copyLimiter(&pair[0], s.lim)
		c.lim, c.spare = &pair[0], &pair[1]
		m.bytes += xtimeratePair
	}
	return c
}

// copyState copies src's limiter into dst's own pair, allocating one only
// when dst has none.
func (x *xtimerate) copyState(dst, src *xtimerateState, m, _ *mem) {
	switch {
	case src.lim == nil:
		m.release(x.tables(dst), m.epoch)
		*dst = *src
	case dst.lim == nil:
		*dst = x.clone(src, m)
	default:
		copyLimiter(dst.lim, src.lim)
		dst.last, dst.at = src.last, src.at
	}
}

func (x *xtimerate) tables(s *xtimerateState) int64 {
	if s.lim == nil {
		return 0
	}
	return xtimeratePair
}

// FormatFloat writes a float64 as the shortest decimal that reads back as
// it: 0.30000000000000004 stays so, for the lanes whose arithmetic is a
// library's floats.
// Between 1e-4 and 1e15 it is written without an exponent (1000000, not
// 1e+06).
func FormatFloat(f float64) string { return string(AppendFloat(nil, f)) }

// AppendFloat appends FormatFloat(f) to b.
func AppendFloat(b []byte, f float64) []byte {
	if a := math.Abs(f); a == 0 || a >= 1e-4 && a < 1e15 {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// explainXTimeRate: v = {tokens at the decision before it (float64 bits),
// time decided at, the reservation's wait from then, tokens after (bits)}.
func explainXTimeRate(b []byte, d Decision) []byte {
	p := d.policy
	before, eff := math.Float64frombits(uint64(d.v[0])), time.Duration(d.v[1])
	wait, after := time.Duration(d.v[2]), math.Float64frombits(uint64(d.v[3]))
	b = appendf(b, d.times, "%sTokensAt(%s) = %s (float64, at %s up to burst %d)",
		lateNote(&d, eff), secs(eff), flt(before), p.Rate, p.Burst)
	short := shortfall{d.Cost, before, p.Rate}
	if p.Algorithm == XTimeRate {
		if d.Outcome == Allowed {
			return appendf(b, d.times, " ≥ n %d → allowed by AllowN; %s left", d.Cost, flt(after))
		}
		return appendf(b, d.times, " < n %d → rejected by AllowN, nothing taken; a reservation on a copy would wait %s = %s (truncated to the ns): retry after %s",
			d.Cost, short, secs(wait), retryFrom(&d, eff))
	}
	switch d.Outcome {
	case Allowed:
		return appendf(b, d.times, " ≥ n %d → allowed by ReserveN at once; %s left", d.Cost, flt(after))
	case Delayed:
		if wait == 0 {
			return appendf(b, d.times, " ≥ n %d → granted by ReserveN at once when decided, delayed %s from arrival; %s left",
				d.Cost, secs(d.Delay), flt(after))
		}
		return appendf(b, d.times, " < n %d: ReserveN takes them anyway, leaving %s, and waits %s = %s → delayed %s; the next caller waits behind it",
			d.Cost, flt(after), short, secs(wait), secs(d.Delay))
	}
	return appendf(b, d.times, " < n %d: the reservation would wait %s = %s > max_wait %s → rejected, nothing reserved; retry after %s − %s = %s",
		d.Cost, short, secs(wait), secs(p.MaxWait), secs(wait), secs(p.MaxWait), retryFrom(&d, eff))
}

// shortfall is the wait's formula, "(n − tokens) / rate", written with a
// plus for a negative balance; an argument of appendf.
type shortfall struct {
	cost   int64
	tokens float64
	rate   Rate
}

func (s shortfall) appendTo(b []byte) []byte {
	// No time in it: ExactTimes writes it in any form.
	if s.tokens < 0 {
		return appendf(b, ExactTimes, "(%d + %s) / %s", s.cost, flt(-s.tokens), s.rate)
	}
	return appendf(b, ExactTimes, "(%d − %s) / %s", s.cost, flt(s.tokens), s.rate)
}

// held is the key's two rate.Limiters (its own and the spare a rejection's
// reservation is tried on), once its first decision has made them.
func (x *xtimerate) held(s xtimerateState, _ time.Duration) int64 {
	if s.lim == nil {
		return 0
	}
	return xtimeratePair
}

// xtimerateForm: the library's Limiter as it decides, which is its tokens
// (a float64, kept as tokens_mant × 2^tokens_exp: see FloatParts, the
// double exactly as two whole numbers) at its last (Limiter.last: when the
// tokens were last set, in ns from the scenario's start), and latest, the
// latest time a request of the key was decided at (ns; a late request is
// decided then). Limit and burst are the policy's; the Limiter's
// lastEvent only matters to a Reservation's Cancel, which the lanes never
// call, and is not kept.
//
// Canonical form: a limiter that is full at latest (TokensAt(latest) ==
// burst, a fresh key's included) stays full whatever its last was, and is
// written as tokens burst at last = latest. Tokens may be negative: the
// reserve lane's debt, and in the AllowN lane a shortfall so small that
// its wait truncates to 0ns.
var xtimerateForm = StateForm{Fields: []string{"tokens_mant", "tokens_exp", "last", "latest"}}

func (x *xtimerate) encode(s *xtimerateState) State {
	tokens, at := float64(x.p.Burst), s.last
	// TokensAt at or before the library's last is its tokens, unchanged
	// (advance adds nothing for no time).
	if s.lim != nil && s.lim.TokensAt(xtimerateEpoch.Add(s.last)) < tokens {
		tokens, at = s.lim.TokensAt(xtimerateEpoch.Add(s.at)), s.at
	}
	m, e := FloatParts(tokens)
	return State{Fields: []int64{m, e, int64(at), int64(s.last)}}
}

// decode builds the key's Limiter through the library's public API only
// (xtimerateLimiter), and checks it holds exactly the state's tokens.
func (x *xtimerate) decode(st State, m *mem) (xtimerateState, error) {
	tokens, err := FromFloatParts(st.Fields[0], st.Fields[1])
	if err != nil {
		return xtimerateState{}, fmt.Errorf("x/time/rate tokens: %w", err)
	}
	at, last := time.Duration(st.Fields[2]), time.Duration(st.Fields[3])
	switch {
	case at < 0 || last < at:
		return xtimerateState{}, fmt.Errorf("x/time/rate state %v: want 0 ≤ last ≤ latest", st.Fields)
	case tokens > float64(x.p.Burst):
		return xtimerateState{}, fmt.Errorf("x/time/rate tokens %s past the burst %d", FormatFloat(tokens), x.p.Burst)
	case tokens < 0 && !x.reserve && xtimerateWait(x.limit, -tokens) != 0:
		return xtimerateState{}, fmt.Errorf("x/time/rate tokens %s: AllowN never leaves a shortfall whose wait is 1ns or more", FormatFloat(tokens))
	case tokens < 0 && x.reserve && x.p.MaxWait > 0 && xtimerateWait(x.limit, -tokens) > x.p.MaxWait:
		return xtimerateState{}, fmt.Errorf("x/time/rate tokens %s: a debt whose wait is past max_wait %s", FormatFloat(tokens), FormatSeconds(x.p.MaxWait))
	case tokens < -(1 << 62):
		return xtimerateState{}, fmt.Errorf("x/time/rate tokens %s: a debt past 2^62", FormatFloat(tokens))
	}
	pair := new([2]rate.Limiter)
	if err := xtimerateLimiter(&pair[0], x.limit, int(x.p.Burst), tokens, xtimerateEpoch.Add(at)); err != nil {
		return xtimerateState{}, err
	}
	m.bytes += xtimeratePair
	return xtimerateState{lim: &pair[0], spare: &pair[1], last: last, at: at}, nil
}

// xtimerateWait is the library's durationFromTokens(short) for limit > 0.
func xtimerateWait(limit rate.Limit, short float64) time.Duration {
	d := (short / float64(limit)) * float64(time.Second)
	if d > float64(math.MaxInt64) {
		return rate.InfDuration
	}
	return time.Duration(d)
}

// xtimerateLimiter makes lim, a zero Limiter (limit 0, burst 0, tokens 0),
// hold exactly tokens at last, then limit and burst, through the library's
// public API only: its arithmetic is all there is to set tokens with.
//
// The moves: with the limit 0 nothing refills, so SetBurstAt and
// SetLimitAt change no tokens; SetLimitAt(t, y) then SetLimitAt(t + 1s, 0)
// adds y exactly (advance adds 1s.Seconds() × y = 1.0 × y, one rounding of
// tokens + y); ReserveN(t, n) takes n (tokens − n, one rounding). Tokens
// ≥ 0 are 0 + tokens. A debt −D takes n = ⌈D⌉ first; when n ≤ 2D (every
// D ≥ 1/2) adding n − D, a double by Sterbenz's lemma, lands on −D
// exactly. A smaller D hops from −1 through powers of two −2^k (adding
// 2^j − 2^k, at most 53 bits, each step exact) down to the one within a
// factor 2 of D, then adds 2^k − D, exact again: at most 21 hops down to
// the smallest subnormal.
func xtimerateLimiter(lim *rate.Limiter, limit rate.Limit, burst int, tokens float64, last time.Time) error {
	type move struct {
		add  float64 // add this many tokens (over 1s of the limit add)
		take int     // or take this many (a reservation)
	}
	var moves []move
	room := burst
	if tokens >= 0 {
		moves = append(moves, move{add: tokens})
	} else {
		debt := -tokens
		n := math.Ceil(debt)
		moves = append(moves, move{take: int(n)})
		room = max(room, int(n))
		v := n // the debt so far: n, then powers of two
		for v > 2*debt {
			// v = 2^j: hop to 2^k, k ≥ j − 52, the least power ≥ debt.
			_, j := math.Frexp(v)
			frac, e := math.Frexp(debt)
			k := e
			if frac == 0.5 {
				k = e - 1
			}
			k = max(k, j-1-52)
			next := math.Ldexp(1, k)
			moves = append(moves, move{add: v - next})
			v = next
		}
		if v != debt {
			moves = append(moves, move{add: v - debt})
		}
	}
	adds := 0
	for _, mv := range moves {
		if mv.take == 0 {
			adds++
		}
	}
	t := last.Add(-time.Duration(adds) * time.Second)
	lim.SetBurstAt(t, room)
	for _, mv := range moves {
		if mv.take > 0 {
			if r := lim.ReserveN(t, mv.take); !r.OK() {
				return fmt.Errorf("x/time/rate: a reservation of %d refused while building a limiter", mv.take)
			}
			continue
		}
		lim.SetLimitAt(t, rate.Limit(mv.add))
		t = t.Add(time.Second)
		lim.SetLimitAt(t, 0)
	}
	lim.SetBurstAt(last, burst)
	lim.SetLimitAt(last, limit)
	if got := lim.TokensAt(last); math.Float64bits(got) != math.Float64bits(tokens) {
		return fmt.Errorf("x/time/rate: a limiter built to hold %s tokens holds %s", FormatFloat(tokens), FormatFloat(got))
	}
	return nil
}
