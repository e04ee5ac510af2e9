// Package scenarios loads, expands and saves ratelab scenario files: YAML
// descriptions of a set of limiters (lanes) and the traffic that is replayed
// through all of them on one virtual clock, with narration notes and
// assertions that `ratelab check` verifies. The canned lessons are embedded
// in the binary. docs/format.md documents every field.
//
// A file is read in sections, one source file each. load.go takes the bytes
// (Load, Parse), refuses what would make the YAML library slow before it
// runs (tokens.go counts the tokens cheaply), and holds the limits on a
// scenario (MaxFileSize, MaxTokens, MaxRequests, MaxDecisions and the rest).
// fields.go and values.go are the strict-field toolkit every decoder uses:
// unknown fields and their did-you-mean, the place and path an error names,
// how little of the file an error quotes, and the readers of text, keys,
// numbers, durations and rates. The decoders follow the file:
// decode_scenario.go its top level, decode_lanes.go its limiters (stacks,
// gateways), decode_clients.go its clients, decode_traffic.go its traffic
// and what the traffic may cost, decode_notes.go its notes, expectations and
// quiz marks. What they make is a Scenario (scenario.go, client.go,
// quiz.go); expand.go turns its traffic into requests (Requests), poisson.go
// draws a poisson item's times, marshal.go writes a scenario back and
// canned.go holds the lessons.
//
// Time is a time.Duration counted from the scenario's start (t = 0). Nothing
// here uses floating point but the drawing of a poisson item's arrival
// times, once, when the file is read (see Poisson), and the mean that an
// error about too many of them quotes; every limiter then decides on those
// whole nanoseconds.
package scenarios

import (
	"fmt"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/fleet"
)

// Defaults for fields a file leaves out.
const (
	// DefaultStep is how far one keypress moves the clock.
	DefaultStep = 100 * time.Millisecond
	// DefaultKey is the key of a request that names none.
	DefaultKey = "default"
)

// Scenario is a loaded, validated scenario file.
type Scenario struct {
	Name     string // canned name, or the file path it came from
	Title    string
	About    string
	Step     time.Duration
	Duration time.Duration // requests arrive in [0, Duration); notes sit in [0, Duration]
	Lanes    []Lane        // in file order
	Traffic  []Traffic     // as written (for saving back), an item of accounts or keys as its copies
	// keyNumbers numbers every key the file's traffic names, in the order
	// written (Traffic.keyNo − 1): see KeyNumbers and KeyNumber.
	keyNumbers map[string]int32
	// Logs are the traffic items that replay an access log ({log: PATH}),
	// in file order; their requests are not in Traffic (see LogTraffic).
	Logs    []*LogTraffic
	passErr *passErrors   // what ended a pass over a log early (Err)
	Notes   []Note        // sorted by At, stable
	Quiz    []QuizMark    // sorted by At, then Request, stable
	Expect  []Expectation // in file order
	// Clients are the named clients of the traffic, in file order.
	Clients []Client
	// Seed is the scenario's seed for what is drawn at random (a lane's
	// random route, a random stagger, a poisson item's arrivals), so that a
	// run repeats exactly; 0 if not given.
	Seed uint64
	// WatchState is set when the lesson asks the learner to watch each
	// lane's state (`watch: state`): the explorer then never gives up the
	// lanes' state bytes for room, however small the screen.
	WatchState bool
}

// Lane is one limiter of the scenario. Every request goes to every lane.
type Lane struct {
	Name   string
	Policy algorithms.Policy
	// Fleet is the gateways the lane stands for; its zero value is one
	// gateway, the plain limiter.
	Fleet fleet.Config
	// Stack is, for a lane of several policies applied together (or of
	// one over all keys), its policies, Stack[0].Policy being Policy; nil
	// for a lane of one policy per key.
	Stack []algorithms.Layer
	// Config is, for a lane written in a product's own words, that
	// configuration (Policy and Stack are what it reads as); nil else.
	Config *ProductConfig
}

// Policies are the lane's policies: Policy alone, or its stack's.
func (l Lane) Policies() []algorithms.Policy {
	if l.Stack == nil {
		return []algorithms.Policy{l.Policy}
	}
	ps := make([]algorithms.Policy, len(l.Stack))
	for i, x := range l.Stack {
		ps[i] = x.Policy
	}
	return ps
}

// Horizon is the longest horizon of the lane's policies.
func (l Lane) Horizon() time.Duration {
	var h time.Duration
	for _, p := range l.Policies() {
		h = max(h, p.Horizon())
	}
	return h
}

// Form tells the four kinds of traffic item apart.
type Form uint8

const (
	// Single is one request: `at` alone.
	Single Form = iota
	// Burst is Count requests from At, the i-th at At + ⌊i×Spread/Count⌋.
	Burst
	// Periodic is a request at From, From+Every, … while before Until.
	Periodic
	// Poisson is requests at random times in [From, Until), on average
	// Rate, drawn once when the file is read from the scenario's seed; with
	// On and Off, only in the on-phases [From + j×(On+Off), From + j×(On+Off)
	// + On). Only Parse makes a Poisson item (its times are kept on it).
	Poisson
)

// String is "single", "burst", "periodic" or "poisson".
func (f Form) String() string {
	switch f {
	case Single:
		return "single"
	case Burst:
		return "burst"
	case Periodic:
		return "periodic"
	case Poisson:
		return "poisson"
	}
	return fmt.Sprintf("Form(%d)", uint8(f))
}

// Traffic is one item of the traffic list. Which time fields matter depends
// on Form: At (Single), At and Spread (Burst), Every, From and Until
// (Periodic), Rate, From, Until, On and Off (Poisson); the others are zero.
type Traffic struct {
	Form   Form
	At     time.Duration
	Spread time.Duration
	Every  time.Duration
	From   time.Duration
	Until  time.Duration
	// Rate is a poisson item's mean rate; On and Off its phases, both zero
	// when it arrives throughout [From, Until).
	Rate    algorithms.Rate
	On, Off time.Duration
	// Count is how many requests the item expands to, whatever its form:
	// 1 for Single, as written for Burst, ⌈(Until−From)/Every⌉ for Periodic,
	// as drawn for Poisson (possibly 0).
	Count int64
	Key   string // DefaultKey unless written
	Cost  int64  // 1 unless written
	// Client is 1 + the index in Scenario.Clients of the client that sends
	// the item's requests; 0 for none (each request gives up when refused).
	Client int
	// Line is the item's line in the file it was read from (1-based), 0 when
	// it was not read from a file; the copies of an item of accounts or keys
	// share it.
	Line int
	// times are a Poisson item's arrival times, sorted, len Count.
	times []time.Duration
	// group is, for a copy of an item of accounts or keys, that item as
	// written, which its copies share: Marshal writes it once for them.
	group *copyGroup
	// keyNo is 1 + the number of Key among the distinct keys the file's
	// traffic names, numbered in the order written; 0 for an item not
	// read from a file. See Scenario.KeyNumbers.
	keyNo int32
}

// copyGroup is an item of accounts or keys as the file wrote it.
type copyGroup struct {
	item     Traffic  // the item itself, its Key the accounts' base if written
	accounts int64    // accounts: N; 0 with keys
	keyBase  bool     // accounts with key: the copies are KEY-1 … KEY-N
	keys     []string // keys: [...]; nil with accounts
	stagger  string   // "" (none), "even" or "random"
}

// Note is narration shown when the clock reaches At. A note that speaks
// of one key's requests or one lane names them: when the clock reaches
// it, the explorer shows that key in the lanes and focuses that lane.
type Note struct {
	At   time.Duration
	Text string
	Key  string // "" speaks of every key
	Lane string // "" speaks of every lane
}

// Request is one expanded request.
type Request struct {
	At   time.Duration
	Key  string
	Cost int64
	// Client is 1 + the index in Scenario.Clients of the request's
	// client; 0 for none.
	Client int
}

// Expectation is one assertion of the expect list, to be evaluated by
// replaying the scenario. It selects the requests of lane Lane that arrive in
// [From, Until) (and have key Key, if Key is set); then every non-nil count
// must equal the number of selected requests with that outcome, Peak must
// equal the largest admitted cost passing in any trailing window of length
// PeakWindow, and if Outcome is set, at least one request must be selected
// and every selected request must have that outcome. See docs/format.md.
type Expectation struct {
	Lane string
	Key  string // "" selects every key
	// From and Until bound the selection: From ≤ at < Until. When the file
	// says `at: T`, From is T and Until is T + 1ns, and Instant is true.
	From, Until time.Duration
	Instant     bool
	// Counts of selected requests; nil means not asserted.
	Allowed  *int64 // allowed outright
	Admitted *int64 // allowed or delayed
	Delayed  *int64
	Rejected *int64
	// Retries, Served and Abandoned count what clients did (see
	// Client): the retries among the selected requests, and the requests
	// that a selected attempt served or left abandoned.
	Retries, Served, Abandoned *int64
	// Peak, when set, is the largest total cost of selected admitted requests
	// that pass in any trailing window (t − PeakWindow, t], where a request
	// passes at its arrival plus its delay.
	Peak       *int64
	PeakWindow time.Duration
	// Outcome, when set, is the outcome of every selected request.
	Outcome *algorithms.Outcome
	// RetryAfter and Wait, when set, are what every selected rejection
	// tells its client (at least one must be selected): the Retry-After
	// header, whole seconds rounded up as a server sends it, and the exact
	// wait before a retry fits.
	RetryAfter *int64
	Wait       *time.Duration
	// LatencyP50, LatencyP95 and LatencyP99, when set, are percentiles of
	// the latency of the requests the selected attempts served (from the
	// first attempt to the release), as the explorer and `run` report
	// them: the smallest latency that many per cent of them do not
	// exceed. At least one served request must be selected.
	LatencyP50, LatencyP95, LatencyP99 *time.Duration
	// StatePerKey, when set, is the most bytes one key's state took in the
	// lane just after a selected request was decided (retries included),
	// Key's or any key's, as algorithms.Limiter.KeyBytes measures it: over
	// every key and the whole axis, the state/key of `run`'s summary. At
	// least one request must be selected.
	StatePerKey *int64
	// StateTotal, when set, is the bytes the lane's states take at the last
	// instant of the selection, Until − 1ns (At for `at:`), once every
	// request before Until is decided: the sum of Limiter.KeyBytes over
	// every key a request of which the lane has decided by then (Key alone
	// when set, 0 if it had none). From plays no part, so a file may not
	// give it with `from`.
	StateTotal *int64
	// Why is the file's explanation, shown when the assertion fails.
	Why string
	// Line is the expectation's line in the file (1-based), 0 when it was
	// not read from a file.
	Line int
}

// latencyField is one of an expectation's latency percentiles, by its
// field name in a file.
type latencyField struct {
	name string
	v    **time.Duration
}

// latencies lists e's latency percentiles in the order a file writes them.
func (e *Expectation) latencies() [3]latencyField {
	return [3]latencyField{{"latency_p50", &e.LatencyP50}, {"latency_p95", &e.LatencyP95}, {"latency_p99", &e.LatencyP99}}
}

// stateField is one of an expectation's state sizes, in bytes, by its
// field name in a file.
type stateField struct {
	name string
	v    **int64
}

// states lists e's state sizes in the order a file writes them.
func (e *Expectation) states() [2]stateField {
	return [2]stateField{{"state_per_key", &e.StatePerKey}, {"state_total", &e.StateTotal}}
}

// countField is one of an expectation's counts, by its field name in a file.
type countField struct {
	name string
	v    **int64
}

// counts lists e's counts in the order a file writes them.
func (e *Expectation) counts() [7]countField {
	return [7]countField{{"allowed", &e.Allowed}, {"admitted", &e.Admitted}, {"delayed", &e.Delayed}, {"rejected", &e.Rejected},
		{"retries", &e.Retries}, {"served", &e.Served}, {"abandoned", &e.Abandoned}}
}

// Selects reports whether r is one of the requests e is about (any lane).
func (e *Expectation) Selects(r Request) bool {
	return e.From <= r.At && r.At < e.Until && (e.Key == "" || e.Key == r.Key)
}

// String describes e in one line, as a file would write it:
// "fixed until 61s: admitted 240".
func (e *Expectation) String() string {
	var b strings.Builder
	b.WriteString(e.Lane)
	if e.Key != "" {
		fmt.Fprintf(&b, " key %q", e.Key)
	}
	if e.Instant {
		fmt.Fprintf(&b, " at %s", algorithms.FormatDuration(e.From))
	} else {
		if e.From != 0 {
			fmt.Fprintf(&b, " from %s", algorithms.FormatDuration(e.From))
		}
		fmt.Fprintf(&b, " until %s", algorithms.FormatDuration(e.Until))
	}
	b.WriteString(":")
	sep := " "
	add := func(format string, args ...any) {
		b.WriteString(sep)
		fmt.Fprintf(&b, format, args...)
		sep = ", "
	}
	for _, c := range e.counts() {
		if *c.v != nil {
			add("%s %d", c.name, **c.v)
		}
	}
	if e.Peak != nil {
		add("peak %d per %s", *e.Peak, algorithms.FormatDuration(e.PeakWindow))
	}
	if e.Outcome != nil {
		add("every request %s", e.Outcome)
	}
	if e.RetryAfter != nil {
		add("every rejection Retry-After %d", *e.RetryAfter)
	}
	if e.Wait != nil {
		add("every rejection a wait of %s", algorithms.FormatDuration(*e.Wait))
	}
	for _, l := range e.latencies() {
		if *l.v != nil {
			add("%s %s", strings.ReplaceAll(l.name, "_", " "), algorithms.FormatDuration(**l.v))
		}
	}
	if e.StatePerKey != nil {
		add("state per key %d bytes", *e.StatePerKey)
	}
	if e.StateTotal != nil {
		add("state total %d bytes", *e.StateTotal)
	}
	return b.String()
}

// ClientOf is r's client, or nil for a request of no client.
func (s *Scenario) ClientOf(r Request) *Client {
	if r.Client == 0 {
		return nil
	}
	return &s.Clients[r.Client-1]
}

// Lane returns the lane called name.
func (s *Scenario) Lane(name string) (Lane, bool) {
	for _, l := range s.Lanes {
		if l.Name == name {
			return l, true
		}
	}
	return Lane{}, false
}
