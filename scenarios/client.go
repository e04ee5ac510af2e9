package scenarios

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

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

// MaxAttempts bounds a client's attempts at one request, the first
// included.
const MaxAttempts = 100

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
// d.At plus Backoff(n, draw). It returns an Ending other than TryAgain when
// the client stops instead.
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
func (c *Client) Backoff(n int, draw uint64) time.Duration {
	w := c.Nominal(n)
	switch c.Jitter {
	case FullJitter:
		return uniform(draw, w)
	case EqualJitter:
		half := w / 2
		return half + uniform(draw, w-half)
	}
	return w
}

// uniform maps draw to [0, w] without bias beyond 2^-64 per value.
func uniform(draw uint64, w time.Duration) time.Duration {
	hi, _ := bits.Mul64(draw, uint64(w)+1)
	return time.Duration(hi)
}

// JitterDraw is the random word behind the jitter of attempt n of a
// request of client c (its index in Scenario.Clients) first sent at first,
// the rank-th (from 0) of the requests arriving at that instant: SplitMix64
// over those four numbers, seeded with the scenario's seed. It depends on
// nothing else, so a rewound or edited timeline draws the same waits for
// the same requests, and runs repeat exactly.
func JitterDraw(seed uint64, c int, first time.Duration, rank int, n int) uint64 {
	h := seed
	for _, v := range [...]uint64{uint64(c), uint64(first), uint64(rank), uint64(n)} {
		h = splitmix(h ^ v)
	}
	return h
}

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

// MaxClients bounds the clients of a scenario.
const MaxClients = 100

// choice reads name as one of among's words, returning its index; ok is
// false when the file leaves it out.
func (f *fields) choice(name string, among []string) (i int, ok bool, err error) {
	v, ok, err := f.text(name, "one of "+strings.Join(among, ", "), false)
	if err != nil || !ok {
		return 0, false, err
	}
	i = slices.Index(among, v)
	if i < 0 {
		return 0, false, f.errorf(name, "want one of %s, got %s", strings.Join(among, ", "), strconv.Quote(shorten(v)))
	}
	return i, true, nil
}

// client decodes one item of clients; before are the clients above it.
func (d *decoder) client(n ast.Node, path string, before []Client) (Client, error) {
	f, err := d.fields(n, path, "a client such as {name: eager, retry: at-once, attempts: 5}", clientFields)
	if err != nil {
		return Client{}, err
	}
	c := Client{Attempts: 1}
	c.Line, _ = position(n)
	if c.Name, err = f.requiredText("name", "the client's name", false); err != nil {
		return Client{}, err
	}
	if err := CheckKey(c.Name); err != nil || c.Name == "" {
		return Client{}, f.errorf("name", "want a name of 1 to %d bytes, got %s", maxKeyLen, strconv.Quote(shorten(c.Name)))
	}
	for _, b := range before {
		if b.Name == c.Name {
			return Client{}, f.errorf("name", "client %s is already defined on line %d", strconv.Quote(c.Name), b.Line)
		}
	}
	rule, _, err := f.choice("retry", retryNames[:])
	if err != nil {
		return Client{}, err
	}
	c.Retry = Retry(rule)
	attempts, ok, err := f.integer("attempts", 1, MaxAttempts)
	switch {
	case err != nil:
		return Client{}, err
	case c.Retry == GiveUp && ok && attempts != 1:
		return Client{}, f.errorf("attempts", "a client that gives up makes 1 attempt, not %d: say how it retries with retry: at-once, retry-after or backoff", attempts)
	case c.Retry != GiveUp && !ok:
		return Client{}, f.missing("attempts", fmt.Sprintf("the most attempts of one request, the first included (2 to %d)", MaxAttempts))
	case c.Retry != GiveUp && attempts < 2:
		return Client{}, f.errorf("attempts", "a client that retries makes 2 to %d attempts, the first included, not 1", MaxAttempts)
	case ok:
		c.Attempts = int(attempts)
	}
	backoff := []string{"base", "cap", "factor", "jitter"}
	if c.Retry != Backoff {
		for _, name := range backoff {
			if f.present(name) {
				return Client{}, f.keyErrorf(name, "%s belongs to retry: backoff", name)
			}
		}
	} else {
		if c.Base, ok, err = f.duration("base", true); err != nil {
			return Client{}, err
		} else if !ok {
			return Client{}, f.missing("base", "the first wait, such as 100ms")
		}
		c.Cap = MaxTime
		if cp, ok, err := f.duration("cap", true); err != nil {
			return Client{}, err
		} else if ok {
			if cp < c.Base {
				return Client{}, f.errorf("cap", "the cap %s is shorter than the base %s", algorithms.FormatDuration(cp), algorithms.FormatDuration(c.Base))
			}
			c.Cap = cp
		}
		c.Factor = 2
		if fa, ok, err := f.integer("factor", 1, 16); err != nil {
			return Client{}, err
		} else if ok {
			c.Factor = fa
		}
		j, _, err := f.choice("jitter", jitterNames[:])
		if err != nil {
			return Client{}, err
		}
		c.Jitter = Jitter(j)
	}
	if c.Deadline, _, err = f.duration("deadline", true); err != nil {
		return Client{}, err
	}
	if f.has("cancel") {
		if c.Cancel, err = f.flag("cancel"); err != nil {
			return Client{}, err
		}
		if c.Cancel && c.Deadline == 0 {
			return Client{}, f.keyErrorf("cancel", "cancel needs a deadline: only a caller that stops waiting gives its slot back")
		}
	}
	return c, nil
}

// clients decodes the clients list of the file's top level f, and checks
// that a client that cancels meets only plain lanes.
func (d *decoder) clients(f *fields, lanes []Lane) ([]Client, error) {
	items, err := f.list("clients", "a list of clients such as {name: eager, retry: at-once, attempts: 5}")
	if err != nil {
		return nil, err
	}
	if len(items) > MaxClients {
		return nil, f.errorf("clients", "want at most %d clients, got %d", MaxClients, len(items))
	}
	var cs []Client
	for i, n := range items {
		c, err := d.client(n, index("clients", i), cs)
		if err != nil {
			return nil, err
		}
		if c.Cancel {
			for _, l := range lanes {
				if !l.Fleet.Plain() {
					return nil, d.errorf(n, index("clients", i), "client %s cancels, which lane %s of gateways cannot do: its gateways' states are not one to give a slot back to", strconv.Quote(c.Name), l.Name)
				}
			}
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// trafficClient reads an item's client: 1 + its index in cs, 0 when the
// item names none.
func trafficClient(f *fields, cs []Client) (int, error) {
	name, ok, err := f.text("client", "a client's name", false)
	if err != nil || !ok {
		return 0, err
	}
	for i, c := range cs {
		if c.Name == name {
			return i + 1, nil
		}
	}
	if len(cs) == 0 {
		return 0, f.errorf("client", "no client is called %s: the file has no clients list", strconv.Quote(shorten(name)))
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return 0, f.errorf("client", "no client is called %s; the clients are %s", strconv.Quote(shorten(name)), andList(names))
}
