package algorithms

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEveryAlgorithmDescribed fails when an algorithm is listed in
// Algorithms without a complete description, or described without being
// listed.
func TestEveryAlgorithmDescribed(t *testing.T) {
	for _, a := range Algorithms {
		d := Describe(a)
		if d == nil {
			t.Errorf("%s is in Algorithms but has no description (register one from its file)", a)
			continue
		}
		if d.Family == Mistake {
			twin := Describe(d.Twin)
			if twin == nil || twin.Family != Textbook || !sameRequired(d, twin) {
				t.Errorf("%s: a mistake's twin %q must be a textbook algorithm taking its parameters (and others only if optional)", a, d.Twin)
			} else if !slices.Contains(MistakesOf(d.Twin), a) {
				t.Errorf("%s: MistakesOf(%s) leaves it out", a, d.Twin)
			}
		} else if d.Twin != "" {
			t.Errorf("%s: only a mistake has a twin", a)
		}
		if (d.Family == Textbook) != (d.Source == "") {
			t.Errorf("%s: a %s algorithm with source %q: a library's rule or a mistake names what it follows, a textbook one nothing", a, d.Family, d.Source)
		}
		if d.Algorithm != a || d.Rule == "" || d.Words == nil || d.Line == nil || d.Horizon == nil || d.CostBound == nil || d.check == nil || d.new == nil || len(d.Params) == 0 {
			t.Errorf("%s: incomplete description %+v", a, *d)
		}
		for _, q := range d.Params {
			if q.Name == "" || q.Want == "" || q.field == nil {
				t.Errorf("%s: incomplete parameter %+v", a, q)
				continue
			}
			var p Policy
			var ok bool
			switch q.Kind {
			case Count, Bytes:
				_, ok = q.field(&p).(*int64)
			case Duration:
				_, ok = q.field(&p).(*time.Duration)
			case RateKind:
				_, ok = q.field(&p).(*Rate)
			case Flag:
				_, ok = q.field(&p).(*bool)
			}
			if !ok {
				t.Errorf("%s: parameter %s's field does not hold its kind %d", a, q.Name, q.Kind)
			}
		}
	}
	for a := range descriptions {
		if !slices.Contains(Algorithms, a) {
			t.Errorf("%s is described but not in Algorithms", a)
		}
	}
	var names []string
	for _, q := range Params() {
		if !q.Optional { // an optional parameter a textbook algorithm gains (sub_windows, starts_empty) may come anywhere
			names = append(names, q.Name)
		}
	}
	if want := []string{"limit", "window", "capacity", "burst", "queue"}; !slices.Equal(names[:len(want)], want) || names[len(names)-1] != "rate" {
		t.Errorf("Params() = %v, want %v first and rate last (the order of validation's and the format's errors)", names, want)
	}
	if !slices.Equal(Algorithms[:len(textbookOrder)], textbookOrder) {
		t.Errorf("Algorithms = %v: the six textbook algorithms come first, in their order", Algorithms)
	}
}

// TestDescriptionsMatchBehaviour checks each description against the
// limiter on random traces: an algorithm that cannot delay never returns
// Delayed, and one that can never delays past MaxDelay; a fresh key admits
// MaxCost at once, and MaxCost + 1 is never admitted; a policy's parameters
// are exactly the ones its description names; and the words name its
// numbers.
func TestDescriptionsMatchBehaviour(t *testing.T) {
	for ai, a := range Algorithms {
		d := Describe(a)
		t.Run(string(a), func(t *testing.T) {
			r := rand.New(rand.NewPCG(8, uint64(ai)))
			delayed := 0
			for range 150 {
				p := randPolicy(r, a)
				if err := p.Validate(); err != nil {
					t.Fatalf("%v: %v", p, err)
				}
				for _, q := range Params() {
					own, takes := d.param(q.Name)
					if set := q.IsSet(p); set && !takes || !set && takes && !own.Optional {
						t.Fatalf("%v: %s set %v, but the description takes it: %v", p, q.Name, set, takes)
					}
				}
				maxCost := p.MaxCost()
				if maxCost > 0 && d.Size != "" && !p.StartsEmpty {
					if got := mustNew(t, p).Decide(0, "fresh", maxCost); got.Outcome == Rejected {
						t.Fatalf("%v: a fresh key rejects MaxCost %d: %s", p, maxCost, got.Explain())
					}
				}
				l := mustNew(t, p)
				reqs := randTrace(r, p, 150, false)
				for i, req := range reqs {
					if i%7 == 3 {
						req.cost = maxCost + 1
					}
					got := l.Decide(req.at, "k", req.cost)
					switch {
					case req.cost > maxCost && (got.Outcome != Rejected || got.RetryAfter != Never):
						t.Fatalf("%v: cost %d > MaxCost %d: %v, retry %v", p, req.cost, maxCost, got.Outcome, got.RetryAfter)
					case got.Outcome == Delayed && !d.Delays():
						t.Fatalf("%v: the description says it never delays, but %v was delayed %v", p, req, got.Delay)
					case got.Outcome == Delayed && got.Delay > p.MaxDelay():
						t.Fatalf("%v: delay %v > MaxDelay %v", p, got.Delay, p.MaxDelay())
					case got.Outcome == Delayed:
						delayed++
					}
				}
				// A policy of an algorithm that delays may never delay
				// (nginx's nodelay): its MaxDelay is then 0.
				if !d.Delays() && p.MaxDelay() != 0 || p.MaxDelay() < 0 {
					t.Fatalf("%v: MaxDelay %v, Delays %v", p, p.MaxDelay(), d.Delays())
				}
				if p.Horizon() <= 0 || p.Horizon() > time.Duration(1)<<62 {
					t.Fatalf("%v: horizon %v", p, p.Horizon())
				}
				if w := d.Words(p); w == "" || d.Size != "" && !containsNumber(w, p) {
					t.Fatalf("%v: words %q name none of its numbers", p, w)
				}
			}
			if d.Delays() && delayed == 0 {
				t.Errorf("the traces never delayed: too tame to check MaxDelay")
			}
		})
	}
}

// containsNumber reports whether w writes p's size.
func containsNumber(w string, p Policy) bool {
	_, size := p.sizeParam()
	return strings.Contains(w, " "+strconv.FormatInt(size, 10))
}

// sameRequired reports whether a mistake's policy is a valid policy of its
// twin once its algorithm is changed: the twin takes every parameter of the
// mistake, and needs no other.
func sameRequired(mistake, twin *Description) bool {
	for _, q := range mistake.Params {
		if !twin.Takes(q.Name) {
			return false
		}
	}
	for _, q := range twin.Params {
		if !mistake.Takes(q.Name) && !q.Optional {
			return false
		}
	}
	return true
}

// TestDecisionStatus: an admission has none; a refusal by a fallback is a
// 503 whatever the library; the limiter's own is its library's (nginx 503,
// the others 429).
func TestDecisionStatus(t *testing.T) {
	bucket := Policy{Algorithm: TokenBucket, Capacity: 1, Rate: Rate{1, sec}}
	nginx := Policy{Algorithm: NginxLimitReq, Rate: Rate{1, sec}}
	for _, c := range []struct {
		d    Decision
		p    Policy
		want int
	}{
		{Decision{Outcome: Allowed}, bucket, 0},
		{Decision{Outcome: Delayed}, nginx, 0},
		{Decision{Outcome: Rejected}, bucket, 429},
		{Decision{Outcome: Rejected}, nginx, 503},
		{Decision{Outcome: Rejected, Fallback: FallbackClosed}, bucket, 503},
		{Decision{Outcome: Allowed, Fallback: FallbackOpen}, bucket, 0},
	} {
		if got := c.d.Status(c.p); got != c.want {
			t.Errorf("%v by %s on %s: status %d, want %d", c.d.Outcome, c.d.Fallback, c.p.Algorithm, got, c.want)
		}
	}
}

// TestExamplesAndEdges: every algorithm has an example, and each example
// and edge of its description is a valid policy of it (an example named as
// a short lane, apart from its others) that decides random traffic as the
// description says: MaxCost admitted by a fresh key that starts full,
// MaxCost + 1 never, no delay past MaxDelay.
func TestExamplesAndEdges(t *testing.T) {
	for ai, a := range Algorithms {
		d := Describe(a)
		if len(d.Examples) == 0 {
			t.Errorf("%s has no example: give its Description one (Examples), a lesson-sized policy with a short lane name", a)
		}
		policies := slices.Clone(d.Edges)
		seen := map[Policy]bool{}
		for _, e := range d.Examples {
			if e.Name == "" || len(e.Name) > 10 || strings.Trim(e.Name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
				t.Errorf("%s: example %v is named %q; want a short lane name, at most 10 lower-case letters, digits or dashes", a, e.Policy, e.Name)
			}
			if seen[e.Policy] {
				t.Errorf("%s: example %v twice", a, e.Policy)
			}
			seen[e.Policy] = true
			policies = append(policies, e.Policy)
		}
		r := rand.New(rand.NewPCG(9, uint64(ai)))
		for _, p := range policies {
			if p.Algorithm != a {
				t.Errorf("%s: an example or edge of another algorithm, %v", a, p)
				continue
			}
			if err := p.Validate(); err != nil {
				t.Errorf("%s: example or edge %v: %v", a, p, err)
				continue
			}
			if maxCost := p.MaxCost(); maxCost > 0 && d.Size != "" && !p.StartsEmpty {
				if got := mustNew(t, p).Decide(0, "fresh", maxCost); got.Outcome == Rejected {
					t.Errorf("%v: a fresh key rejects MaxCost %d: %s", p, maxCost, got.Explain())
				}
			}
			l := mustNew(t, p)
			for i, req := range randTrace(r, p, 100, false) {
				if i%7 == 3 {
					req.cost = p.MaxCost() + 1
				}
				switch got := l.Decide(req.at, "k", req.cost); {
				case req.cost > p.MaxCost() && (got.Outcome != Rejected || got.RetryAfter != Never):
					t.Fatalf("%v: cost %d > MaxCost %d: %v, retry %v", p, req.cost, p.MaxCost(), got.Outcome, got.RetryAfter)
				case got.Outcome == Delayed && got.Delay > p.MaxDelay():
					t.Fatalf("%v: delay %v > MaxDelay %v", p, got.Delay, p.MaxDelay())
				}
			}
		}
	}
}
