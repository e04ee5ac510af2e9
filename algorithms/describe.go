package algorithms

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"time"
)

// ParamKind is what a parameter's value is, and so how a file writes it and
// what bounds it.
type ParamKind int

const (
	// Count: a whole number from 1 to MaxCount.
	Count ParamKind = iota
	// Duration: a positive time.Duration, written as a Go duration ("60s").
	Duration
	// RateKind: N/D, a Rate (bounded by Rate.Validate).
	RateKind
	// Flag: true or false, a bool; false is the same as absent.
	Flag
	// Bytes: a size in bytes, an int64 from 1 to MaxCount, written as
	// nginx writes one: "10m" (× 1024 × 1024), "512k" (× 1024) or a
	// number of bytes (ParseSize, FormatSize).
	Bytes
)

// Family is what kind of lane an algorithm makes: the textbook's exact
// rule, a library's rule as that library implements it, or a classic
// mistake shown beside its exact twin.
type Family int

const (
	// Textbook: an exact algorithm or variant of the lessons, integer
	// arithmetic throughout.
	Textbook Family = iota
	// Library: the rule a named library implements, with its parameter
	// names and its own arithmetic (which may round or use floats: its
	// description says so).
	Library
	// Mistake: a way the lessons warn a limiter goes wrong, as code that
	// makes it would behave.
	Mistake
)

// String is "textbook", "library" or "mistake".
func (f Family) String() string {
	switch f {
	case Library:
		return "library"
	case Mistake:
		return "mistake"
	}
	return "textbook"
}

// Param is one parameter of an algorithm, as scenario files write it.
type Param struct {
	// Name is the field's name in a scenario file: "capacity".
	Name string
	// Kind is what its value is; its bounds follow from it.
	Kind ParamKind
	// Want says what a value must be, in the words errors use: "a positive
	// whole number of tokens".
	Want string
	// Amount marks a Count that is an amount of allowance (a limit, a
	// capacity, a burst, tokens per fill): what a gateway's share of the
	// policy divides (SplitPolicy). A Count that shapes the rule instead
	// (sub_windows) is not one.
	Amount bool
	// Optional parameters may be left out, which is the same as their zero
	// (a Count of 0, a Flag false): Want says what that means. A Count that
	// is optional may be written 0. Whether a parameter is optional is the
	// algorithm's choice (see Optional): nginx's burst may be left out,
	// GCRA's may not.
	Optional bool
	// field is the Policy field holding the value: *int64 for a Count or Bytes,
	// *time.Duration for a Duration, *Rate for a RateKind, *bool for a Flag.
	field func(p *Policy) any
}

// Optional is q as an optional parameter, with want saying what leaving it
// out means ("a whole number of requests beyond the first, 0 if left out").
func Optional(q Param, want string) Param {
	q.Optional, q.Want = true, want
	return q
}

// CountOf is where p holds a Count or Bytes parameter's value.
func (q Param) CountOf(p *Policy) *int64 { return q.field(p).(*int64) }

// DurationOf is where p holds a Duration parameter's value.
func (q Param) DurationOf(p *Policy) *time.Duration { return q.field(p).(*time.Duration) }

// RateOf is where p holds a RateKind parameter's value.
func (q Param) RateOf(p *Policy) *Rate { return q.field(p).(*Rate) }

// FlagOf is where p holds a Flag parameter's value.
func (q Param) FlagOf(p *Policy) *bool { return q.field(p).(*bool) }

// IsSet reports whether p gives the parameter a value (a non-zero one).
func (q Param) IsSet(p Policy) bool {
	switch v := q.field(&p).(type) {
	case *int64:
		return *v != 0
	case *time.Duration:
		return *v != 0
	case *Rate:
		return *v != Rate{}
	case *bool:
		return *v
	}
	return false
}

// The parameters several algorithms share; an algorithm's own parameters
// are declared in its file.
var (
	LimitParam = Param{Name: "limit", Kind: Count, Amount: true, Want: "a positive whole number of requests per window",
		field: func(p *Policy) any { return &p.Limit }}
	WindowParam = Param{Name: "window", Kind: Duration, Want: "a positive Go duration such as 60s",
		field: func(p *Policy) any { return &p.Window }}
	RateParam = Param{Name: "rate", Kind: RateKind, Want: "N/D such as 2/s, 120/min or 1/500ms",
		field: func(p *Policy) any { return &p.Rate }}
)

// A Description is everything the rest of ratelab knows about an algorithm:
// validation, the scenario format, the model and the explorer read it
// rather than switch on the algorithm's name. Each algorithm's file
// registers its own (register, from an init function).
type Description struct {
	Algorithm Algorithm
	// Family says whether it is a textbook algorithm, a library's rule or a
	// mistake.
	Family Family
	// Source is what a Library or Mistake lane follows, for its why text
	// and the documentation: "nginx src/http/modules/ngx_http_limit_req_module.c".
	// Empty for a textbook algorithm.
	Source string
	// Twin is, for a Mistake, the exact algorithm it gets wrong: it takes
	// the same parameters, and a lane of it beside the mistake's shows what
	// the mistake changes. Empty for the other families.
	Twin Algorithm
	// Status is the HTTP status a rejection answers with: 0 for the usual
	// 429 Too Many Requests, else the library's own (nginx's limit_req
	// answers 503 unless limit_req_status says otherwise).
	Status int
	// KeepsRejections says a rejection can make a key's state larger (the
	// attempt log logs rejected attempts too); otherwise only an admission
	// can, which lets a run measure the state after admissions alone.
	KeepsRejections bool
	// DelaysInAStack says its delaying policies may stack with each other
	// as nginx's several limit_req in one location do: every one accounts
	// the request at its arrival and it waits the longest of their delays
	// (ngx_http_limit_req_account). Only a stack whose every layer is of
	// such an algorithm may delay (StackMayDelay).
	DelaysInAStack bool
	// NoRetryAfter says the library's rejection carries no Retry-After
	// header (nginx's limit_req, Envoy's local rate limit): the explorer then
	// shows only the exact wait.
	NoRetryAfter bool
	// Params are the parameters it takes, in the order files write them.
	Params []Param
	// Size is the Count parameter that bounds a request's cost ("limit",
	// "capacity", ...), one of Params; empty for a rule that bounds no cost
	// (Guava grants any number of permits and makes the next caller pay),
	// whose MaxCost is then CostCap, or MaxCount.
	Size string
	// CostCap is the largest cost a rule without a Size takes, when its
	// library's own type bounds it below MaxCount (Guava's warm-up lane:
	// permits are a Java int, at most 2^31 − 1); 0 for MaxCount.
	CostCap int64
	// InFlight is how much MaxCost exceeds Size: 1 for the leaky bucket (one
	// request in the pipe beside a full queue), and for nginx and
	// redis-cell (whose burst counts the requests beyond the first), else 0.
	InFlight int64
	// MaxKeys, when set, is how many keys' states a policy's limiter
	// keeps at once (nginx's zone); 0 for no bound. A limiter that keeps
	// fewer than all its keys frees some to make room for a new one, as
	// its algorithm says: its keys are not independent, so a store that
	// copies one key's state at a time cannot hold it (see
	// Policy.MaxKeys).
	MaxKeys func(p Policy) int64
	// Rule is the admission rule in one line, with the parameters' names.
	Rule string
	// MaxDelay bounds the delay the policy can give an admitted request; nil
	// for an algorithm that never delays (it admits at once or rejects), and
	// 0 for a policy that never does (nginx's nodelay).
	// A shaper whose queue is unbounded (a reservation that puts the bucket
	// into debt) returns Never.
	MaxDelay func(p Policy) time.Duration
	// Horizon is how long a policy remembers (see Policy.Horizon).
	Horizon func(p Policy) time.Duration
	// Words say what a policy promises, in a line with its numbers, for the
	// explorer's about page: "token bucket: capacity 10, refilling 2/s; a
	// request spends its cost".
	Words func(p Policy) string
	// Line is a policy in a line, Policy.String: "token-bucket capacity 10,
	// rate 2/s".
	Line func(p Policy) string
	// CostBound says why a cost above MaxCost can never be admitted: "it
	// holds at most its capacity, 10 tokens".
	CostBound func(p Policy) string
	// State is the whole numbers a key's state is written as (StateCodec),
	// for a store outside the process. Every algorithm has one (a test
	// holds them to it); its Fields are nil only before one is written.
	State StateForm
	// StateFor, when set, is the StateForm of a policy whose state differs
	// with its parameters (Envoy's timer buckets keep fills, its continuous
	// ones a balance); State is then unused. See Policy.StateForm.
	StateFor func(p Policy) StateForm
	// Examples are lesson-sized policies of the algorithm, each with a
	// short lane name: first its usual form, then any mode that decides or
	// draws differently (Envoy's timer: true, a sliding counter in
	// sub-windows). Each is valid and every algorithm has one: the
	// explorer's pictures, the scenario format's round trip, the fuzz
	// targets' seeds and a store's conformance runs start from them.
	Examples []Example
	// Edges are valid policies at the edges of the algorithm's arithmetic:
	// the smallest and the largest values, a period or window of a few
	// nanoseconds, an interval below one, a size or a product near its
	// bound. A store deciding outside the process (package redisstore) is
	// held to the limiter on each, beside the examples.
	Edges []Policy
	// explain words every decision of the algorithm's limiters, as their
	// Decisions' own explain func does (for a sliding counter and Envoy,
	// one that picks the func of the policy's mode): a stack of policies
	// explains each layer's verdict with it.
	explain func(b []byte, d Decision) []byte
	// check reports values too large for exact arithmetic, once every
	// parameter is present (Validate).
	check func(p Policy) error
	// new makes the limiter of a valid p.
	new func(p Policy, ks *Keys) Limiter
}

// Example is a lesson-sized policy of an algorithm (see
// Description.Examples).
type Example struct {
	// Name is a short lane name for it, as a scenario file names a lane:
	// "bucket".
	Name   string
	Policy Policy
}

// Delays reports whether the algorithm can hold an admitted request back
// (Delayed) rather than admit it at once or reject it.
func (d *Description) Delays() bool { return d.MaxDelay != nil }

// param is d's parameter called name.
func (d *Description) param(name string) (Param, bool) {
	for _, q := range d.Params {
		if q.Name == name {
			return q, true
		}
	}
	return Param{}, false
}

// Takes reports whether the algorithm takes the parameter called name.
func (d *Description) Takes(name string) bool {
	_, ok := d.param(name)
	return ok
}

// size is p's value of the parameter that bounds its cost; for an
// algorithm that bounds none, its CostCap, or MaxCount.
func (d *Description) size(p Policy) int64 {
	q, ok := d.param(d.Size)
	if !ok {
		if d.CostCap > 0 {
			return d.CostCap
		}
		return MaxCount
	}
	return *q.CountOf(&p)
}

// RejectStatus is the HTTP status a rejection answers with: Status, or 429.
func (d *Description) RejectStatus() int {
	if d.Status != 0 {
		return d.Status
	}
	return 429
}

var descriptions = map[Algorithm]*Description{}

// register adds an algorithm's description; each algorithm's file calls it
// once, from init. Algorithms lists the registered ones: the six textbook
// algorithms in their order, then the others by family and name.
func register(d Description) {
	if _, dup := descriptions[d.Algorithm]; dup {
		panic("algorithms: two descriptions of " + string(d.Algorithm))
	}
	if d.explain == nil {
		panic("algorithms: " + string(d.Algorithm) + " has no explain func")
	}
	if q, ok := d.param(d.Size); d.Size != "" && (!ok || q.Kind != Count) {
		panic("algorithms: " + string(d.Algorithm) + "'s size is not one of its count parameters")
	}
	for _, q := range d.Params {
		for _, other := range descriptions {
			if o, ok := other.param(q.Name); ok && o.Kind != q.Kind {
				panic("algorithms: parameter " + q.Name + " has two kinds")
			}
		}
	}
	descriptions[d.Algorithm] = &d
	if slices.Contains(Algorithms, d.Algorithm) {
		return // one of the six, listed in its place
	}
	Algorithms = append(Algorithms, d.Algorithm)
	tail := Algorithms[len(textbookOrder):]
	slices.SortStableFunc(tail, func(a, b Algorithm) int {
		return cmp.Or(cmp.Compare(descriptions[a].Family, descriptions[b].Family), cmp.Compare(a, b))
	})
}

// MistakesOf lists the mistakes whose twin is a, in Algorithms' order.
func MistakesOf(a Algorithm) []Algorithm {
	var out []Algorithm
	for _, m := range Algorithms {
		if d := descriptions[m]; d != nil && d.Family == Mistake && d.Twin == a {
			out = append(out, m)
		}
	}
	return out
}

// Describe is a's description, or nil for an unknown algorithm.
func Describe(a Algorithm) *Description { return descriptions[a] }

// Params are every parameter some algorithm takes, each once: in the order
// of their first use in Algorithms, rates last.
func Params() []Param {
	var out []Param
	seen := map[string]bool{}
	for _, last := range []bool{false, true} {
		for _, a := range Algorithms {
			d := Describe(a)
			if d == nil {
				continue // TestEveryAlgorithmDescribed fails
			}
			for _, q := range d.Params {
				if !seen[q.Name] && (q.Kind == RateKind) == last {
					seen[q.Name] = true
					out = append(out, q)
				}
			}
		}
	}
	return out
}

// windowedDescription fills in what the algorithms of Limit per Window
// share: their parameters, bounds, words for a cost too large, and a horizon
// of one window.
func windowedDescription(d Description) Description {
	d.Params = []Param{LimitParam, WindowParam}
	d.Size = "limit"
	d.Line = func(p Policy) string {
		return fmt.Sprintf("%s limit %d per %s", p.Algorithm, p.Limit, FormatDuration(p.Window))
	}
	d.CostBound = func(p Policy) string {
		return fmt.Sprintf("its limit is %d per %s", p.Limit, FormatDuration(p.Window))
	}
	if d.Horizon == nil {
		d.Horizon = func(p Policy) time.Duration { return p.Window }
	}
	check := d.check
	d.check = func(p Policy) error {
		if err := checkCount("limit", p.Limit); err != nil {
			return err
		}
		if p.Window <= 0 {
			return fmt.Errorf("window %s must be positive", FormatDuration(p.Window))
		}
		if !mulFits(p.Limit, int64(p.Window)) {
			return fmt.Errorf("limit %d × window %s is too large for exact arithmetic (at most 2^62 ns)", p.Limit, FormatDuration(p.Window))
		}
		if check != nil {
			return check(p)
		}
		return nil
	}
	return d
}

// sizedDescription fills in what the algorithms of a size at a Rate share:
// their parameters, bounds, and a horizon of the time to refill or drain
// size completely (size × Per / N, rounded up).
func sizedDescription(size Param, d Description) Description {
	d.Params = []Param{size, RateParam}
	d.Size = size.Name
	d.Line = func(p Policy) string {
		return fmt.Sprintf("%s %s %d, rate %s", p.Algorithm, size.Name, *size.CountOf(&p), p.Rate)
	}
	d.Horizon = func(p Policy) time.Duration {
		return time.Duration(ceilDiv(*size.CountOf(&p)*int64(p.Rate.Per), p.Rate.N))
	}
	check := d.check
	d.check = func(p Policy) error {
		if err := p.Rate.Validate(); err != nil {
			return err
		}
		n := *size.CountOf(&p)
		if err := checkCount(size.Name, n); err != nil {
			return err
		}
		if !mulFits(n, int64(p.Rate.Per)) {
			return fmt.Errorf("%s %d × rate period %s is too large for exact arithmetic (at most 2^62 ns)", size.Name, n, FormatDuration(p.Rate.Per))
		}
		if check != nil {
			return check(p)
		}
		return nil
	}
	return d
}

// SplitPolicy is 1/n of p, for each of n gateways that enforce a share of
// it apart (as Envoy's cluster-aware local rate limit does): every Amount
// divided by n, rounded up (so that the n shares together allow at least
// p), and the rate exactly n times slower (Per × n). A zero optional
// amount stays 0. The result may be invalid (a period too long for exact
// arithmetic, or a period nginx cannot write): Validate it. The rate keeps
// its period when n divides N, becomes per minute when that divides, and
// is otherwise Per × n.
func SplitPolicy(p Policy, n int64) Policy {
	d := Describe(p.Algorithm)
	if d == nil || n <= 1 {
		return p
	}
	for _, q := range d.Params {
		switch {
		case q.Kind == Count && q.Amount:
			v := q.CountOf(&p)
			*v = ceilDiv(*v, n)
		case q.Kind == RateKind:
			r := q.RateOf(&p)
			switch hi, lo := bits.Mul64(uint64(r.Per), uint64(n)); {
			case r.N%n == 0: // the same period, as a rule in r/s keeps it
				r.N /= n
			case r.Per == time.Second && r.N*60%n == 0: // per minute
				r.N, r.Per = r.N*60/n, time.Minute
			case hi != 0 || lo > 1<<62:
				r.Per = 1 << 62 // too slow to be exact: Validate refuses it
			default:
				r.Per = time.Duration(lo)
			}
		}
	}
	return p
}
