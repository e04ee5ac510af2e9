package model

import (
	"slices"
	"strconv"
	"time"

	"ratelab/algorithms"
	"ratelab/scenarios"
)

// Stats are one lane's running totals over the requests decided so far.
type Stats struct {
	// Admitted counts requests that got through, now or after a delay;
	// Delayed counts those of them that waited; Rejected the rest.
	Admitted, Delayed, Rejected int64
	// AdmittedCost is the admitted requests' total cost.
	AdmittedCost int64
	// Peak is the largest admitted cost passing in any trailing window (t −
	// PeakWindow, t]. A request passes when it is released: at its arrival,
	// or for a delayed one at arrival + delay, which is what the service
	// behind the limiter sees. PeakAt is the end t of the first window that
	// reached the peak.
	Peak       int64
	PeakAt     time.Duration
	PeakWindow time.Duration
	// KeyBytes is the largest state one key held just after a decided
	// request, in bytes, as algorithms.Limiter.KeyBytes measures it: what
	// the limiter must keep for its busiest key. Only Run measures it; the
	// Lab's totals leave it 0 (Lab.KeyStateBytes tells a key's state at
	// the clock), and so do the totals of one key among several (RunByKey).
	KeyBytes int64
	// Beyond is, for a lane of several gateways, how many more requests it
	// admitted than its policy on one shared atomic store admits on the
	// same traffic (negative if fewer); 0 for a plain lane.
	Beyond int64
	// FallbackAdmitted and FallbackRejected count the requests a fallback
	// decided while the lane's store did not answer (counted in Admitted
	// and Rejected too): its 503s are FallbackRejected, not the limiter's.
	FallbackAdmitted, FallbackRejected int64
	// DryRunDelayed and DryRunRejected count the requests a policy that
	// only pretends (nginx's dry_run) let through at once but would have
	// delayed or refused (counted in Admitted, not in Delayed or
	// Rejected).
	DryRunDelayed, DryRunRejected int64
	// Forgot is how many more requests the lane admitted through an idle
	// expiry or a store that came back empty than the same lane
	// forgetting nothing, on the same traffic (part of Beyond).
	Forgot int64

	// The counts above count attempts: every decision, the retries
	// included. Originals counts the requests of the traffic decided;
	// each of them is then Served (finally admitted, within any
	// deadline), Abandoned (its client gave up; TimedOut of them at their
	// deadline), Unfinished (its next attempt would come after the
	// scenario's end), or still retrying (Pending).
	Originals, Served, Abandoned, TimedOut, Unfinished int64
	// Queued is, at a clock (Lab.Stats, Lab.StatsFor), how many requests
	// were admitted to be served but wait in a queue past it: Served
	// counts a request once it is released.
	Queued int64
	// Latency is the time from the first attempt to the release of the
	// served requests, in a scenario with clients (zero without: nobody
	// reads it there, and it would cost a run memory per request); set by
	// Run, RunByKey, Lab.Stats and, with clients, Lab.StatsFor.
	Latency Latency
}

// settle counts what attempt a left of its request.
func (s *Stats) settle(a *Attempt) { s.settleAs(a.N == 1, a.Fate, a.Ending) }

// settleAs counts what an attempt, the request's first one or not, left of
// its request: its fate and, when abandoned, why.
func (s *Stats) settleAs(first bool, fate Fate, ending scenarios.Ending) {
	if first {
		s.Originals++
	}
	switch fate {
	case Served:
		s.Served++
	case Abandoned:
		s.Abandoned++
		if ending == scenarios.PastDeadline {
			s.TimedOut++
		}
	case Unfinished:
		s.Unfinished++
	}
}

// Pending is how many requests the lane has refused and will try again.
func (s Stats) Pending() int64 {
	return s.Originals - s.Served - s.Queued - s.Abandoned - s.Unfinished
}

// Amplification is attempts ÷ originals, the load retries multiply the
// traffic by, in thousandths rounded down (1000 with no retry; 0 before
// any request).
func (s Stats) Amplification() int64 {
	if s.Originals == 0 {
		return 0
	}
	return s.Requests() * 1000 / s.Originals
}

// AmplificationText is Amplification to two decimals, rounded down:
// "2.81"; "–" before any request.
func (s Stats) AmplificationText() string {
	if s.Originals == 0 {
		return "–"
	}
	a := s.Amplification()
	return strconv.FormatInt(a/1000, 10) + "." + strconv.FormatInt(a%1000/100, 10) + strconv.FormatInt(a%100/10, 10)
}

// Latency is the distribution of the served requests' latencies, by the
// nearest-rank method: Pq is the smallest latency that at least q% of them
// do not exceed (the ⌈q × N / 100⌉-th smallest); all zero when N is 0.
type Latency struct {
	N             int64
	P50, P95, P99 time.Duration
	Max           time.Duration
}

// latencyCounts counts latencies above 0 by value: a run's memory grows
// with the distinct latencies its lanes gave, not with its requests.
type latencyCounts map[time.Duration]int64

func (c *latencyCounts) add(d time.Duration) {
	if *c == nil {
		*c = latencyCounts{}
	}
	(*c)[d]++
}

// remove takes one latency d back out, d having been added: a value no
// longer counted leaves no key (latency reads every key as a value).
func (c latencyCounts) remove(d time.Duration) {
	if c[d]--; c[d] == 0 {
		delete(c, d)
	}
}

// latency is the Latency of n served requests, those not counted waiting 0.
func (c latencyCounts) latency(n int64) Latency {
	if n == 0 {
		return Latency{}
	}
	values := make([]time.Duration, 0, len(c))
	for d := range c {
		values = append(values, d)
	}
	slices.Sort(values)
	var waited int64
	for _, d := range values {
		waited += c[d]
	}
	zeros := n - waited
	at := func(q int64) time.Duration {
		rank := (q*n + 99) / 100 // 1-based
		if rank <= zeros {
			return 0
		}
		rank -= zeros
		for _, d := range values {
			if rank <= c[d] {
				return d
			}
			rank -= c[d]
		}
		return values[len(values)-1]
	}
	l := Latency{N: n, P50: at(50), P95: at(95), P99: at(99)}
	if len(values) > 0 {
		l.Max = values[len(values)-1]
	}
	return l
}

// Requests is the number of requests decided.
func (s Stats) Requests() int64 { return s.Admitted + s.Rejected }

// count adds one decision to the totals, not to the peak.
func (s *Stats) count(d *algorithms.Decision) {
	s.add(d.Outcome, d.Cost)
	switch d.DryRun {
	case algorithms.Delayed:
		s.DryRunDelayed++
	case algorithms.Rejected:
		s.DryRunRejected++
	}
	s.Beyond += int64(d.Beyond)
	s.Forgot += int64(d.Forgot)
	if d.Fallback != algorithms.NoFallback {
		if d.Outcome.Admitted() {
			s.FallbackAdmitted++
		} else {
			s.FallbackRejected++
		}
	}
}

// rare tells whether d has any of the fields count adds that most
// decisions leave zero (a dry run's verdict, a fallback, a departure from
// the yardstick or through a forgotten state): without them, a refusal
// counts as one more Rejected and nothing else.
func rare(d *algorithms.Decision) bool {
	// Allowed and NoFallback are 0: one test of the four or'd.
	return uint8(d.DryRun)|uint8(d.Fallback)|uint8(d.Beyond)|uint8(d.Forgot) != 0
}

// add counts one request of the given cost with outcome o, not in the peak.
func (s *Stats) add(o algorithms.Outcome, cost int64) {
	switch o {
	case algorithms.Rejected:
		s.Rejected++
		return
	case algorithms.Delayed:
		s.Delayed++
	}
	s.Admitted++
	s.AdmittedCost += cost
}
