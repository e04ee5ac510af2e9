package algorithms

import (
	"math/big"
	"time"
)

// The reference models below restate each contract as directly as possible
// (whole admission histories, big.Rat arithmetic, brute-force searches), to
// check the limiters' integer shortcuts against. They take the time a
// request is decided at and return waits counted from it.
type refModel interface {
	decide(now time.Duration, cost int64) (o Outcome, delay, retry time.Duration)
}

func newRef(p Policy) refModel {
	switch p.Algorithm {
	case FixedWindow:
		return &fixedRef{p: p, perWin: map[int64]int64{}}
	case SlidingLog:
		return &logRef{p: p}
	case SlidingCounter:
		return &counterRef{p: p, perSub: map[int64]int64{}}
	case TokenBucket, GCRA:
		// GCRA must decide exactly as a token bucket of capacity Burst.
		_, size := p.sizeParam()
		return &bucketRef{p: p, size: size}
	case LeakyBucket:
		return &leakyRef{p: p}
	case IntervalBucket:
		return &intervalRef{p: p}
	}
	panic("no reference for " + p.Algorithm)
}

type fixedRef struct {
	p      Policy
	perWin map[int64]int64
}

func (m *fixedRef) decide(now time.Duration, cost int64) (Outcome, time.Duration, time.Duration) {
	if cost > m.p.Limit {
		return Rejected, 0, Never
	}
	k := floorDiv(int64(now), int64(m.p.Window))
	if m.perWin[k]+cost <= m.p.Limit {
		m.perWin[k] += cost
		return Allowed, 0, 0
	}
	return Rejected, 0, time.Duration(k+1)*m.p.Window - now
}

type logRef struct {
	p   Policy
	log []req
}

func (m *logRef) decide(now time.Duration, cost int64) (Outcome, time.Duration, time.Duration) {
	if cost > m.p.Limit {
		return Rejected, 0, Never
	}
	var recent []req
	var sum int64
	for _, a := range m.log {
		if a.at > now-m.p.Window {
			recent = append(recent, a)
			sum += a.cost
		}
	}
	if sum+cost <= m.p.Limit {
		m.log = append(m.log, req{now, cost})
		return Allowed, 0, 0
	}
	// Try each expiry instant in order; the first at which it fits.
	for _, a := range recent {
		later := a.at + m.p.Window
		var still int64
		for _, b := range recent {
			if b.at > later-m.p.Window {
				still += b.cost
			}
		}
		if still+cost <= m.p.Limit {
			return Rejected, 0, later - now
		}
	}
	panic("sliding-log reference: never fits")
}

type counterRef struct {
	p      Policy
	perSub map[int64]int64 // admitted cost per sub-window (per window when N = 1)
}

func (m *counterRef) fits(t time.Duration, cost int64) bool {
	s := int64(m.p.Window) / max(m.p.SubWindows, 1)
	return counterEstimate(m.p, m.perSub, t).add(mul128(cost, s)).le(mul128(m.p.Limit, s))
}

func (m *counterRef) decide(now time.Duration, cost int64) (Outcome, time.Duration, time.Duration) {
	if cost > m.p.Limit {
		return Rejected, 0, Never
	}
	if m.fits(now, cost) {
		m.perSub[subWindow(m.p, now)] += cost
		return Allowed, 0, 0
	}
	// The estimate only falls while nothing is admitted: binary search for
	// the first instant that fits, within a window and a sub-window.
	lo, hi := time.Duration(1), m.p.Horizon()
	if !m.fits(now+hi, cost) {
		panic("sliding-counter reference: does not fit a horizon later")
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if m.fits(now+mid, cost) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return Rejected, 0, lo
}

// bucketRef is a token bucket with a big.Rat balance.
type bucketRef struct {
	p       Policy
	size    int64
	balance *big.Rat
	last    time.Duration
}

func (m *bucketRef) decide(now time.Duration, cost int64) (Outcome, time.Duration, time.Duration) {
	rate := big.NewRat(m.p.Rate.N, int64(m.p.Rate.Per)) // tokens per ns
	capacity := big.NewRat(m.size, 1)
	if m.balance == nil {
		m.balance, m.last = capacity, now
		if m.p.StartsEmpty {
			m.balance = new(big.Rat)
		}
	}
	refill := new(big.Rat).Mul(rate, big.NewRat(int64(now-m.last), 1))
	m.balance = new(big.Rat).Add(m.balance, refill)
	if m.balance.Cmp(capacity) > 0 {
		m.balance = capacity
	}
	m.last = now
	if cost > m.size {
		return Rejected, 0, Never
	}
	c := big.NewRat(cost, 1)
	if m.balance.Cmp(c) >= 0 {
		m.balance = new(big.Rat).Sub(m.balance, c)
		return Allowed, 0, 0
	}
	wait := new(big.Rat).Quo(new(big.Rat).Sub(c, m.balance), rate)
	return Rejected, 0, ceilRat(wait)
}

// intervalRef is the interval bucket with big.Int tokens: the fills in
// (last, now] are the instants first + k × fill_interval in it, and a
// rejection's wait is found by a binary search over time for the first
// instant whose fills cover the cost.
type intervalRef struct {
	p      Policy
	tokens *big.Int
	first  time.Duration
	last   time.Duration
}

// fillsIn counts the fill instants first + k × interval (k ≥ 1) in (a, b].
func (m *intervalRef) fillsIn(a, b time.Duration) *big.Int {
	i := big.NewInt(int64(m.p.FillInterval))
	ka := new(big.Int).Div(big.NewInt(int64(a-m.first)), i)
	kb := new(big.Int).Div(big.NewInt(int64(b-m.first)), i)
	return kb.Sub(kb, ka)
}

// at is the balance at t ≥ last, from tokens at last.
func (m *intervalRef) at(t time.Duration) *big.Int {
	add := new(big.Int).Mul(m.fillsIn(m.last, t), big.NewInt(m.p.TokensPerFill))
	sum := add.Add(add, m.tokens)
	if c := big.NewInt(m.p.Capacity); sum.Cmp(c) > 0 {
		return c
	}
	return sum
}

func (m *intervalRef) decide(now time.Duration, cost int64) (Outcome, time.Duration, time.Duration) {
	if m.tokens == nil {
		m.first, m.last, m.tokens = now, now, big.NewInt(m.p.Capacity)
		if m.p.StartsEmpty {
			m.tokens = new(big.Int)
		}
	}
	m.tokens, m.last = m.at(now), now
	if cost > m.p.Capacity {
		return Rejected, 0, Never
	}
	c := big.NewInt(cost)
	if m.tokens.Cmp(c) >= 0 {
		m.tokens.Sub(m.tokens, c)
		return Allowed, 0, 0
	}
	lo, hi := time.Duration(1), time.Duration(m.p.Capacity)*m.p.FillInterval+m.p.FillInterval
	if m.at(now+hi).Cmp(c) < 0 {
		panic("interval-bucket reference: does not fit after capacity fills")
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if m.at(now+mid).Cmp(c) >= 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return Rejected, 0, lo
}

// leakyRef is the leaky bucket with a big.Rat next-free instant.
type leakyRef struct {
	p    Policy
	next *big.Rat
}

func (m *leakyRef) decide(now time.Duration, cost int64) (Outcome, time.Duration, time.Duration) {
	t := big.NewRat(int64(now), 1)
	if m.next == nil {
		m.next = t
	}
	if cost > m.p.Queue+1 {
		return Rejected, 0, Never
	}
	interval := big.NewRat(int64(m.p.Rate.Per), m.p.Rate.N)
	free := m.next
	if free.Cmp(t) < 0 {
		free = t
	}
	delay := new(big.Rat).Sub(free, t)
	need := new(big.Rat).Add(delay, new(big.Rat).Mul(big.NewRat(cost-1, 1), interval))
	room := new(big.Rat).Mul(big.NewRat(m.p.Queue, 1), interval)
	if need.Cmp(room) > 0 {
		return Rejected, 0, ceilRat(new(big.Rat).Sub(need, room))
	}
	m.next = new(big.Rat).Add(free, new(big.Rat).Mul(big.NewRat(cost, 1), interval))
	if delay.Sign() > 0 {
		return Delayed, ceilRat(delay), 0
	}
	return Allowed, 0, 0
}

// ceilRat is ⌈x⌉ for x ≥ 0, as a Duration.
func ceilRat(x *big.Rat) time.Duration {
	q, r := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return time.Duration(q.Int64())
}
