package products

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/products/bucket"
	"ratelab/products/registry"
	"ratelab/products/snippet"
	"ratelab/scenarios"
)

// Promise is what one lane of a configuration promises, in words.
type Promise struct {
	// Lane and From name the lane and where it came from.
	Lane, From string
	// Policy is the lane's policy in ratelab's words; Scope whose
	// requests it counts together.
	Policy, Scope string
	// AtOnce, Sustained, Waits and Refused are the promise: the largest
	// burst at once, the rate after it, the longest wait, and what a
	// refused client is told.
	AtOnce, Sustained, Waits, Refused string
	// Same are the other products whose nearest configuration decides a
	// probe traffic alike, Other those that do not, each with its policy
	// and what the probe measured.
	Same, Other []string
	// Notes are what the lane models otherwise than the product.
	Notes []string
}

// Explain reads product's configuration text (product "" guesses it) and
// says what each of its lanes promises, and which other products say the
// same: each other product's nearest configuration is run beside it on a
// probe traffic (a burst of three more than it admits at once, then one
// request every two thirds of its interval for three refills), and is
// "the same" when it decides every probe request alike.
func Explain(product, text string) ([]Promise, error) {
	p := registry.Lookup(product)
	if product == "" {
		p = registry.Guess([]byte(text))
	}
	if p == nil {
		return nil, fmt.Errorf("unknown product %q: want one of %s", product, strings.Join(registry.Names(), ", "))
	}
	lanes, _, err := p.ReadText(text)
	if err != nil {
		return nil, err
	}
	var out []Promise
	for _, l := range lanes {
		pr, err := promise(p, l)
		if err != nil {
			return nil, err
		}
		out = append(out, pr)
	}
	return out, nil
}

// promise is one lane's Promise.
func promise(p *registry.Product, l registry.Lane) (Promise, error) {
	first := l.Layers[0]
	pol := first.Policy
	pr := Promise{Lane: l.Name, From: l.From, Policy: policiesText(l.Layers), Scope: scopeWords(first), Notes: l.Notes}
	b, _, err := bucket.Of(pol, p.Name)
	if err != nil {
		return Promise{}, err
	}
	pr.AtOnce = fmt.Sprintf("%d requests", b.Size)
	if pol.Algorithm == algorithms.Guava || pol.Algorithm == algorithms.GuavaTry {
		// Guava starts with no stored permits; the next free permit is
		// granted at once, and a second idle stores a second's.
		pr.AtOnce = fmt.Sprintf("1 from a cold start; %d after a second idle (a second's stored permits, %g, and the next)", int64(snippet.RateFloat(pol.Rate))+1, snippet.RateFloat(pol.Rate))
	}
	pr.Sustained = rateWords(b.Rate)
	switch d := pol.MaxDelay(); {
	case d == 0:
		pr.Waits = "never: a request over the limit is refused at once"
	case d == algorithms.Never:
		pr.Waits = "as long as it takes: every request is granted, the next caller waits"
	default:
		pr.Waits = fmt.Sprintf("up to %s: a request over the limit waits its turn, and is refused only beyond that", algorithms.FormatSeconds(d))
	}
	desc := algorithms.Describe(pol.Algorithm)
	status := desc.RejectStatus()
	if pol.Status != 0 {
		status = int(pol.Status)
	}
	pr.Refused = fmt.Sprintf("%d %s", status, http.StatusText(status))
	if desc.NoRetryAfter {
		pr.Refused += ", no Retry-After"
	} else {
		pr.Refused += ", with Retry-After"
	}
	if pol.MaxDelay() == algorithms.Never {
		pr.Refused = "never: it grants every request"
	}
	if len(l.Layers) > 1 {
		return pr, nil // a stack: only nginx says it
	}
	probe := probeScenario(l.Layers, b)
	for _, other := range registry.Products {
		if other == p {
			continue
		}
		q, _, err := other.Nearest(pol)
		if err != nil {
			continue
		}
		twin := first
		twin.Policy = q
		if other.OneForAll {
			twin.AllKeys = true
		}
		if twin.AllKeys && q.MaxDelay() > 0 && !algorithms.StackMayDelay(q) {
			// A delaying policy cannot be one over all keys; the probe
			// has one key, on which one limiter a key decides alike.
			twin.AllKeys = false
		}
		s := *probe
		s.Lanes = []scenarios.Lane{laneOf("it", []algorithms.Layer{first}), laneOf("other", []algorithms.Layer{twin})}
		s.Duration = max(s.Duration, s.Lanes[1].Horizon())
		c, err := model.Compare(&s, 0, 1)
		if err != nil {
			return Promise{}, err
		}
		words := fmt.Sprintf("%s: %s", other.Name, q)
		if c.Differ() == 0 {
			pr.Same = append(pr.Same, words)
		} else {
			pr.Other = append(pr.Other, fmt.Sprintf("%s (decides %d of the %d probe requests otherwise)", words, c.Differ(), c.Requests))
		}
	}
	return pr, nil
}

// probeScenario is the probe traffic for a lane that admits b.Size at
// once: that many and three more at 0s, then one every two thirds of its
// interval for three refills, from one client.
func probeScenario(layers []algorithms.Layer, b bucket.Bucket) *scenarios.Scenario {
	interval := b.Rate.Per / time.Duration(b.Rate.N)
	every := max(interval*2/3, time.Millisecond)
	refill := interval * time.Duration(b.Size)
	s := &scenarios.Scenario{Title: "probe", Step: scenarios.DefaultStep}
	s.Traffic = []scenarios.Traffic{{Form: scenarios.Burst, Count: min(b.Size+3, maxDemoBurst), Key: demoKey, Cost: 1}}
	if n := min(3*refill/every, maxDemoBurst); n > 0 {
		s.Traffic = append(s.Traffic, scenarios.Traffic{Form: scenarios.Periodic, Every: every, From: every, Until: every * (1 + time.Duration(n)), Count: int64(n), Key: demoKey, Cost: 1})
	}
	s.Duration = every * time.Duration(2+min(3*refill/every, maxDemoBurst))
	return s
}

// laneOf is a scenario lane of layers: a plain lane, or a stack.
func laneOf(name string, layers []algorithms.Layer) scenarios.Lane {
	l := scenarios.Lane{Name: name, Policy: layers[0].Policy}
	if len(layers) > 1 || layers[0].AllKeys {
		l.Stack = layers
	}
	return l
}

// policiesText is the layers' policies, " + " between them.
func policiesText(layers []algorithms.Layer) string {
	var ps []string
	for _, l := range layers {
		ps = append(ps, l.Policy.String())
	}
	return strings.Join(ps, " + ")
}

// rateWords is a rate as a person says it: "10 a second", "1 every 7s".
func rateWords(r algorithms.Rate) string {
	switch {
	case r.Per == time.Second:
		return fmt.Sprintf("%d a second", r.N)
	case r.Per == time.Minute:
		return fmt.Sprintf("%d a minute", r.N)
	case r.N == 1:
		return "1 every " + algorithms.FormatSeconds(r.Per)
	}
	return fmt.Sprintf("%d every %s", r.N, algorithms.FormatSeconds(r.Per))
}

// Table is the products' table of the documentation: each product, what
// its rate and burst mean, and the lanes that model it.
func Table() string {
	var b strings.Builder
	b.WriteString("| product | rate | burst | lanes |\n|---|---|---|---|\n")
	for _, p := range registry.Products {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.Name, p.Rate, p.Burst, p.Lanes)
	}
	return b.String()
}
