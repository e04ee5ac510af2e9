package algorithms

import (
	"math"
	"time"
)

// Outcome is what a limiter did with a request.
type Outcome uint8

const (
	// Allowed: admitted now.
	Allowed Outcome = iota
	// Delayed: admitted, released after Decision.Delay (leaky bucket only).
	Delayed
	// Rejected: refused; Decision.RetryAfter says when the same request would fit.
	Rejected
)

// String is "allowed", "delayed" or "rejected".
func (o Outcome) String() string {
	switch o {
	case Allowed:
		return "allowed"
	case Delayed:
		return "delayed"
	case Rejected:
		return "rejected"
	}
	return "unknown"
}

// Admitted reports whether the request gets through, now or later.
func (o Outcome) Admitted() bool { return o == Allowed || o == Delayed }

// Never is the RetryAfter of a request that can never be admitted: its cost
// is larger than the policy's MaxCost.
const Never time.Duration = math.MaxInt64

// Decision is a limiter's verdict on one request. It is a small value that
// costs no allocation to make; Explain formats the reasoning on demand.
type Decision struct {
	Outcome Outcome
	// rec is, for a decision of a stack of several layers, the end of its
	// layers' record when the record fits in the decision (see
	// stack_explain.go); zero otherwise. It fills what would be padding.
	rec [7]byte
	// At is the time the request arrived.
	At time.Duration
	// Cost is the request's cost in units (tokens, requests).
	Cost int64
	// Delay is, for Delayed, the wait until the request is released, rounded
	// up to a whole nanosecond; zero otherwise.
	Delay time.Duration
	// RetryAfter is, for Rejected, the shortest wait after which the same
	// request would be admitted if nothing else arrived meanwhile, rounded up
	// to a whole nanosecond (Never if it can never fit); zero otherwise.
	RetryAfter time.Duration
	// Gateway is, for a lane of several gateways (package fleet), the one
	// that took the request, from 0; 0 for a plain limiter.
	Gateway uint16
	// Beyond is, for a lane of several gateways, how this decision moves
	// its admissions away from one shared atomic limiter's on the same
	// traffic (the yardstick): +1 when the lane admitted what the yardstick
	// refused, −1 for the reverse, 0 otherwise. Their sum is the lane's
	// admissions beyond the policy.
	Beyond int8
	// Forgot is, for a lane whose store expires idle keys or loses its
	// state, how this decision moves it away from the same lane that
	// forgets nothing: +1 admitted where that one refused, −1 the reverse.
	// Their sum is what the lane admitted through expiry or a lost state.
	Forgot int8
	// Fallback is what decided when the lane's store did not answer
	// (package fleet's outages); NoFallback when the limiter did.
	Fallback Fallback

	// DryRun is, for a policy that only pretends (nginx's
	// limit_req_dry_run), what it would have done with a request it let
	// through at once (Outcome Allowed, no Delay): Delayed or Rejected;
	// Allowed when it would have admitted it at once too, or for any
	// other policy.
	DryRun Outcome

	// scope is, for the decision of a stack of one policy (NewStack), the
	// layer's scope that the explanation starts with; 0 otherwise.
	scope layerScope
	// times is how the explanation writes its times: ExactTimes but while
	// AppendExplainTimes explains a copy of the decision in another form.
	// It fills what would be padding.
	times Times

	// explain appends the numbers below in words, for any decision but a
	// rejection with RetryAfter Never, which AppendExplain words itself. It
	// is a plain function, not a closure, so that making a Decision
	// allocates nothing, and takes the Decision by value, so that calling
	// it through the func value moves nothing to the heap.
	explain func(b []byte, d Decision) []byte
	policy  *Policy
	v       [4]int64
}

// Fallback is what a gateway does while its store does not answer.
type Fallback uint8

const (
	// NoFallback: the store answered; the limiter decided.
	NoFallback Fallback = iota
	// FallbackOpen admits every request (fail open).
	FallbackOpen
	// FallbackClosed refuses every request with 503 Service Unavailable
	// (fail closed): an outage, not a client over its limit.
	FallbackClosed
	// FallbackLocalCap decides on a conservative local limiter of 1/N of
	// the policy on each gateway.
	FallbackLocalCap
)

// String is "open", "closed", "local-cap", or "" for NoFallback.
func (f Fallback) String() string {
	switch f {
	case FallbackOpen:
		return "open"
	case FallbackClosed:
		return "closed"
	case FallbackLocalCap:
		return "local-cap"
	}
	return ""
}

// Explain says why, with the numbers substituted into the algorithm's rule:
//
//	available = min(10, 0 + 0.25s × 2/s) = 0.5 < cost 1 → rejected; retry after (1 − 0.5) / 2/s = 0.25s
//
// It is string(d.AppendExplain(nil)).
func (d Decision) Explain() string { return string(d.AppendExplain(nil)) }

// AppendExplain appends Explain's text to b and returns the extended
// buffer, its times to the nanosecond (AppendExplainTimes writes them as
// the explorer's screen does, from this same text). It allocates nothing unless b must grow: a caller that reuses its
// buffer (b[:0]) explains every decision without allocating.
func (d Decision) AppendExplain(b []byte) []byte {
	switch d.Fallback {
	case FallbackOpen:
		return append(b, "the store did not answer: the gateway fails open and admits every request until it is back"...)
	case FallbackClosed:
		return append(b, "the store did not answer: the gateway fails closed and refuses every request with 503 Service Unavailable (an outage, not a client over its limit) until it is back"...)
	case FallbackLocalCap:
		d.Fallback = NoFallback
		return d.AppendExplain(append(b, "the store did not answer: the gateway's own cap of 1/N of the policy decides; "...))
	}
	if d.RetryAfter == Never && d.explain != nil {
		return appendNever(b, &d) // the whole story, whatever the scope
	}
	if d.scope != 0 {
		b = append(append(b, d.scope.String()...), ": "...)
	}
	if d.explain == nil {
		return append(b, d.Outcome.String()...)
	}
	return d.explain(b, d)
}

// appendNever words a rejection of a cost larger than the policy's MaxCost.
func appendNever(b []byte, d *Decision) []byte {
	desc := Describe(d.policy.Algorithm)
	b = appendf(b, d.times, "cost %d > ", d.Cost)
	switch {
	case desc.Size == "" && desc.CostCap > 0:
		b = appendf(b, d.times, "%d, the largest cost the library takes", desc.CostCap) // its own type bounds it
	case desc.Size == "":
		b = appendf(b, d.times, "%d, the largest cost ratelab takes", int64(MaxCount)) // a rule that bounds no cost
	default:
		b = appendf(b, d.times, "%s %d", desc.Size, desc.size(*d.policy))
	}
	if desc.InFlight > 0 {
		b = appendf(b, d.times, " + %d", desc.InFlight) // MaxCost: in the pipe, beside Size waiting
	}
	return append(b, " → rejected; this request can never fit"...)
}

// Policy is the policy of the limiter that decided.
func (d Decision) Policy() Policy {
	if d.policy == nil {
		return Policy{}
	}
	return *d.policy
}

// Status is the HTTP status of d, a decision of a lane of policy p: 0 for an
// admission; for a rejection 503 Service Unavailable when a fallback refused
// it (the store was down: an outage, not a client over its limit), else
// what p's library answers (429 unless its description says otherwise).
func (d Decision) Status(p Policy) int {
	switch {
	case d.Outcome != Rejected:
		return 0
	case d.Fallback != NoFallback:
		return 503
	case p.Status != 0:
		return int(p.Status)
	}
	if desc := Describe(p.Algorithm); desc != nil {
		return desc.RejectStatus()
	}
	return 429
}

// RetryAfterSeconds is the Retry-After header a server would send with this
// rejection: whole seconds, rounded up; -1 when the request can never fit.
func (d Decision) RetryAfterSeconds() int64 { return RetryAfterHeader(d.RetryAfter) }
