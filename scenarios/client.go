package scenarios

import (
	"math/bits"
	"strconv"
	"time"

	"ratelab/algorithms"
)

// Retry is what a client does when a request of its is refused.
type Retry uint8

const (
	// GiveUp drops the request: today's open-loop traffic.
	GiveUp Retry = iota
	// AtOnce sends it again at the same instant.
	AtOnce
	// AfterRetryAfter sends it again after the Retry-After header it was
	// sent: the refusal's RetryAfter in whole seconds, rounded up.
	AfterRetryAfter
	// Backoff sends it again after an exponential backoff with jitter.
	Backoff
)

var retryNames = [...]string{GiveUp: "give-up", AtOnce: "at-once", AfterRetryAfter: "retry-after", Backoff: "backoff"}

// String is the rule's name in a file: give-up, at-once, retry-after or
// backoff.
func (r Retry) String() string { return retryNames[r] }

// Jitter is how a backoff's wait is drawn around its nominal length.
type Jitter uint8

const (
	// NoJitter waits exactly the nominal length.
	NoJitter Jitter = iota
	// FullJitter waits a whole number of nanoseconds drawn uniformly from
	// [0, nominal].
	FullJitter
	// EqualJitter waits half the nominal length (rounded down) plus one
	// drawn uniformly from [0, the other half].
	EqualJitter
)

var jitterNames = [...]string{NoJitter: "none", FullJitter: "full", EqualJitter: "equal"}

// String is the jitter's name in a file: none, full or equal.
func (j Jitter) String() string { return jitterNames[j] }

// Client is a named client of the traffic: what its requests do when
// refused, and how long its callers wait. Every request of an item with
// `client: NAME` follows its rules; a request of no client gives up at its
// first refusal and waits for any delay, as the lab's traffic did before
// clients existed.
type Client struct {
	Name  string
	Retry Retry
	// Attempts is the most attempts one request gets, the first included:
	// 1 with GiveUp.
	Attempts int
	// Base, Cap and Factor set a backoff's nominal wait after attempt n:
	// min(Cap, Base × Factor^(n−1)). Jitter then draws the wait.
	Base, Cap time.Duration
	Factor    int64
	Jitter    Jitter
	// Deadline, when not zero, is how long after a request's first attempt
	// its caller stops waiting: a delayed admission that would be released
	// later, or a retry that would be sent later, is abandoned.
	Deadline time.Duration
	// Cancel tells that a caller abandoning a delayed admission gives its
	// slot back: the lane's state for the key is as if that attempt never
	// came, as x/time/rate's Wait, which never reserves what it cannot
	// wait for. Without it the slot stays spent, as in a plain queue.
	Cancel bool
	// Line is the client's line in its file, 0 when not read from one.
	Line int
}

// Ending is why a request stops being tried.
type Ending uint8

const (
	// TryAgain: it is not over; NextTry gave the time of the next attempt.
	TryAgain Ending = iota
	// GaveUpRule: the client's rule is to give up.
	GaveUpRule
	// AttemptsUsed: its last attempt was refused.
	AttemptsUsed
	// NeverFits: the lane can never admit its cost.
	NeverFits
	// PastDeadline: the next attempt would come after its deadline.
	PastDeadline
)

var endingWords = [...]string{TryAgain: "tries again", GaveUpRule: "gives up (its rule)", AttemptsUsed: "gives up (attempts used)", NeverFits: "gives up (it can never fit)", PastDeadline: "gives up (past its deadline)"}

// String says the ending in a few words, such as "gives up (attempts used)".
func (e Ending) String() string { return endingWords[e] }

// NextTry is when the client sends again a request it first sent at first,
// whose attempt n (1 for the first) the decision d refused at d.At; draw is
// the attempt's jitter draw (see JitterDraw). The time is never before d.At
// and comes from the rule alone: at once, d.At; after Retry-After, d.At
// plus RetryAfter rounded up to whole seconds (at least 1 s, what a client
// told "retry after 0" or nothing does at the soonest); after a backoff,
// d.At plus Backoff(n, draw) (TryAfter). It returns an Ending other than
// TryAgain when the client stops instead.
func (c *Client) NextTry(n int, first time.Duration, d *algorithms.Decision, draw uint64) (time.Duration, Ending) {
	switch {
	case c.Retry == GiveUp:
		return 0, GaveUpRule
	case n >= c.Attempts:
		return 0, AttemptsUsed
	case d.RetryAfter == algorithms.Never:
		return 0, NeverFits
	}
	var wait time.Duration
	switch c.Retry {
	case AfterRetryAfter:
		wait = time.Duration(max(algorithms.RetryAfterHeader(d.RetryAfter), 1)) * time.Second
	case Backoff:
		wait = c.Backoff(n, draw)
	}
	return c.TryAfter(wait, first, d)
}

// TryAfter is NextTry's time for a request that the client sends again
// wait after d refused it, wait being what its rule says (Backoff(n, draw)
// for a backoff before its last attempt, when d says it can fit): d.At
// plus wait, cut at MaxTime, or PastDeadline when that comes after its
// deadline. A caller that decides many attempts of a backoff works each
// Step out once and passes its Wait.
func (c *Client) TryAfter(wait, first time.Duration, d *algorithms.Decision) (time.Duration, Ending) {
	at := d.At + min(wait, MaxTime)
	if c.Deadline > 0 && at-first > c.Deadline {
		return 0, PastDeadline
	}
	return at, TryAgain
}

// Nominal is a backoff's wait after attempt n ≥ 1 before jitter:
// min(Cap, Base × Factor^(n−1)), computed without overflow.
func (c *Client) Nominal(n int) time.Duration {
	w := c.Base
	for range n - 1 {
		if hi, lo := bits.Mul64(uint64(w), uint64(c.Factor)); hi != 0 || lo >= uint64(c.Cap) {
			return c.Cap
		}
		w *= time.Duration(c.Factor)
	}
	return min(w, c.Cap)
}

// Backoff is the wait after attempt n ≥ 1 with its jitter drawn from draw:
// the nominal wait W with none; ⌊draw × (W+1) / 2^64⌋ with full, uniform on
// [0, W]; ⌊W/2⌋ plus ⌊draw × (W−⌊W/2⌋+1) / 2^64⌋ with equal.
func (c *Client) Backoff(n int, draw uint64) time.Duration { return c.Step(n).Wait(draw) }

// Step is the waits a backoff draws from after one attempt, its jitter
// around its nominal wait W worked out: Least plus one of Span whole
// nanoseconds, each as likely (none, Span 0: W exactly; full: 0 plus one
// of W+1; equal: ⌊W/2⌋ plus one of W−⌊W/2⌋+1). A caller that decides many
// attempts works each step out once, and a wait is then one multiply.
type Step struct {
	Least time.Duration
	Span  uint64
}

// Step is the step after attempt n ≥ 1 (see Backoff).
func (c *Client) Step(n int) Step {
	w := c.Nominal(n)
	switch c.Jitter {
	case FullJitter:
		return Step{Least: 0, Span: uint64(w) + 1}
	case EqualJitter:
		half := w / 2
		return Step{Least: half, Span: uint64(w-half) + 1}
	}
	return Step{Least: w}
}

// Wait is the wait draw picks in s: Least plus ⌊draw × Span / 2^64⌋,
// uniform on Span values without bias beyond 2^-64 per value.
func (s Step) Wait(draw uint64) time.Duration {
	hi, _ := bits.Mul64(draw, s.Span)
	return s.Least + time.Duration(hi)
}

// JitterDraw is the random word behind the jitter of attempt n of a
// request of client c (its index in Scenario.Clients) first sent at first,
// the rank-th (from 0) of the requests arriving at that instant: SplitMix64
// over those four numbers, seeded with the scenario's seed. It depends on
// nothing else, so a rewound or edited timeline draws the same waits for
// the same requests, and runs repeat exactly.
func JitterDraw(seed uint64, c int, first time.Duration, rank int, n int) uint64 {
	return JitterOfAttempt(JitterSalt(seed, c, first, rank), n)
}

// JitterSalt is JitterDraw's work before the attempt's number: SplitMix64
// over the seed, the client, the first arrival and the rank. It is the same
// for every attempt of a request, so a caller that draws for several of
// them computes it once and finishes each draw with JitterOfAttempt.
func JitterSalt(seed uint64, c int, first time.Duration, rank int) uint64 {
	return splitmix(splitmix(splitmix(seed^uint64(c))^uint64(first)) ^ uint64(rank))
}

// JitterOfAttempt is the draw of attempt n of the request whose JitterSalt
// is salt: JitterOfAttempt(JitterSalt(seed, c, first, rank), n) is
// JitterDraw(seed, c, first, rank, n).
func JitterOfAttempt(salt uint64, n int) uint64 { return splitmix(salt ^ uint64(n)) }

// splitmix is SplitMix64's step and finaliser.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Rule says the client's rule in a few words, as the why panel shows it:
// "at once, 5 attempts", "backoff 100ms×2 up to 10s, full jitter, 6
// attempts, deadline 2s, cancels".
func (c *Client) Rule() string {
	var s string
	switch c.Retry {
	case GiveUp:
		s = "gives up when refused"
	case AtOnce:
		s = "retries at once"
	case AfterRetryAfter:
		s = "retries after Retry-After"
	case Backoff:
		s = "backs off " + algorithms.FormatDuration(c.Base) + "×" + strconv.FormatInt(c.Factor, 10)
		if c.Cap != MaxTime { // no cap written
			s += " up to " + algorithms.FormatDuration(c.Cap)
		}
		if c.Jitter != NoJitter {
			s += ", " + c.Jitter.String() + " jitter"
		}
	}
	if c.Retry != GiveUp {
		s += ", " + strconv.Itoa(c.Attempts) + " attempts"
	}
	if c.Deadline > 0 {
		s += ", deadline " + algorithms.FormatDuration(c.Deadline)
		if c.Cancel {
			s += " (cancels)"
		}
	}
	return s
}
