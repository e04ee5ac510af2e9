// Package spring reads and writes Spring Cloud Gateway's RequestRateLimiter
// with its RedisRateLimiter: replenishRate tokens a second, burstCapacity
// tokens at most, requestedTokens a request; from application YAML (the
// filter's args, redis-rate-limiter.replenishRate …, in any of Spring's
// relaxed spellings) or Java (new RedisRateLimiter(rate, capacity[,
// requested])). Its Lua script (request_rate_limiter.lua) reads Redis'
// TIME in whole seconds and adds replenishRate tokens for each whole
// second since the key's last request, up to burstCapacity: Envoy's
// timer bucket exactly (envoy-local with timer: true, a fill of
// replenishRate every second from 0s, standing for a whole second of the
// clock), with requestedTokens as each request's cost.
package spring

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// Marker is what every configuration Read reads names (any case).
const Marker = "replenish"

// Limiter is one RedisRateLimiter as written (0 where not given).
type Limiter struct {
	Name, Where                  string
	Rate, Capacity, Requested    int64
	haveRate, haveCap, haveAsked bool
}

// Lane is the envoy-local timer bucket that decides as the script does,
// and what differs.
func (l Limiter) Lane() (algorithms.Policy, []string, error) {
	var notes []string
	if !l.haveRate || l.Rate <= 0 {
		return algorithms.Policy{}, nil, fmt.Errorf("replenishRate must be at least 1 (ratelab models a limiter that refills)")
	}
	capacity := l.Capacity
	if !l.haveCap {
		capacity = 1
		notes = append(notes, "burstCapacity is not set: Spring's default is 1")
	}
	if capacity <= 0 {
		return algorithms.Policy{}, nil, fmt.Errorf("burstCapacity %d: every request is refused", capacity)
	}
	if l.haveAsked && l.Requested != 1 {
		notes = append(notes, fmt.Sprintf("requestedTokens %d: give the traffic's requests cost %d", l.Requested, l.Requested))
	}
	if 2*capacity < l.Rate {
		notes = append(notes, fmt.Sprintf("burstCapacity %d is under half replenishRate %d: the script's ttl, ⌊2 × %d / %d⌋, is 0, so it never stores a key's tokens and admits every request; the lane shows what it would do if it stored them", capacity, l.Rate, capacity, l.Rate))
	}
	notes = append(notes, "the script reads Redis' TIME in whole seconds: a second's tokens come at once, when the clock's second turns (the lane's 0s stands for such a turn)")
	p := algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: capacity, TokensPerFill: l.Rate, FillInterval: time.Second, Timer: true}
	return p, notes, p.Validate()
}

// Read finds every RedisRateLimiter in src: YAML or Java.
func Read(src string) ([]snippet.Found, error) {
	var ls []Limiter
	calls, err := snippet.Find(src, "RedisRateLimiter")
	if err != nil {
		return nil, err
	}
	for _, c := range calls {
		l := Limiter{Name: c.Var, Where: fmt.Sprintf("line %d", c.Line)}
		if l.Name == "" {
			l.Name = "spring"
		}
		if len(c.Args) < 2 || len(c.Args) > 3 {
			return nil, fmt.Errorf("line %d: new RedisRateLimiter takes replenishRate, burstCapacity and requestedTokens", c.Line)
		}
		vals := make([]int64, len(c.Args))
		for i, a := range c.Args {
			v, err := snippet.EvalJava(a)
			n, ok := v.Int()
			if err != nil || !ok {
				return nil, fmt.Errorf("line %d: argument %d is not a whole number", c.Line, i+1)
			}
			vals[i] = n
		}
		l.Rate, l.Capacity, l.haveRate, l.haveCap = vals[0], vals[1], true, true
		if len(vals) == 3 {
			l.Requested, l.haveAsked = vals[2], true
		}
		ls = append(ls, l)
	}
	if len(ls) == 0 {
		if ls, err = fromYAML(src); err != nil {
			return nil, err
		}
	}
	if len(ls) == 0 {
		return nil, fmt.Errorf("no RedisRateLimiter: replenishRate and burstCapacity")
	}
	var out []snippet.Found
	for _, l := range ls {
		p, notes, err := l.Lane()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.Where, err)
		}
		out = append(out, snippet.Found{Var: l.Name, Where: l.Where, Policy: p, Notes: notes})
	}
	return out, nil
}

// field is a key in Spring's relaxed spelling: lower case, no dashes or
// underscores, its last dotted part.
func field(k string) string {
	k = strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(k))
	return k[strings.LastIndex(k, ".")+1:]
}

// fromYAML finds each mapping that holds a replenishRate, named after the
// route (its id) it is in.
func fromYAML(src string) ([]Limiter, error) {
	var doc any
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %v", err)
	}
	var out []Limiter
	var err error
	var walk func(v any, path []string, route string)
	walk = func(v any, path []string, route string) {
		switch v := v.(type) {
		case map[string]any:
			if id, ok := v["id"].(string); ok {
				route = id
			}
			l := Limiter{Name: route, Where: strings.Join(path, ".")}
			found := false
			for k, x := range v {
				n, perr := strconv.ParseInt(fmt.Sprint(x), 10, 64)
				switch field(k) {
				case "replenishrate":
					l.Rate, l.haveRate, found = n, true, true
				case "burstcapacity":
					l.Capacity, l.haveCap = n, true
				case "requestedtokens":
					l.Requested, l.haveAsked = n, true
				default:
					continue
				}
				if perr != nil && err == nil {
					err = fmt.Errorf("%s: %s: %v is not a whole number", l.Where, k, x)
				}
			}
			if found {
				out = append(out, l)
				return
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(v[k], append(path, k), route)
			}
		case []any:
			for i, x := range v {
				walk(x, append(path, fmt.Sprintf("[%d]", i)), route)
			}
		}
	}
	walk(doc, nil, "spring")
	return out, err
}

// Nearest is the RedisRateLimiter nearest to p on the safe side: itself
// for a timer bucket refilled every second; else the bucket's size as
// burstCapacity and its rate a second, rounded down, as replenishRate.
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.EnvoyLocal && p.Timer && p.FillInterval == time.Second {
		return p, nil, p.Validate()
	}
	b, differs, err := bucket.Of(p, "Spring")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	perSec := b.Rate.N * int64(time.Second) / int64(b.Rate.Per)
	if perSec < 1 {
		return algorithms.Policy{}, nil, fmt.Errorf("rate %s is below one a second: Spring's replenishRate is whole tokens a second (give requestedTokens above 1 and cost the requests so)", b.Rate)
	}
	if perSec*int64(b.Rate.Per) != b.Rate.N*int64(time.Second) {
		differs = append(differs, fmt.Sprintf("replenishRate is whole tokens a second: %d for %s", perSec, b.Rate))
	}
	differs = append(differs, "Spring adds a second's tokens at once when the clock's second turns")
	if b.Delays {
		differs = append(differs, "Spring refuses at once (429), where this lane makes a request wait")
	}
	q := algorithms.Policy{Algorithm: algorithms.EnvoyLocal, MaxTokens: b.Size, TokensPerFill: perSec, FillInterval: time.Second, Timer: true}
	return q, differs, q.Validate()
}

// Write is p, a timer bucket refilled every second, as a route's filter in
// application YAML.
func Write(name string, p algorithms.Policy) (string, error) {
	if p.Algorithm != algorithms.EnvoyLocal || !p.Timer || p.FillInterval != time.Second {
		return "", fmt.Errorf("%s is not a RedisRateLimiter: take Nearest first", p)
	}
	return fmt.Sprintf(`# %s: ratelab's lane as Spring Cloud Gateway's RequestRateLimiter.
spring:
  cloud:
    gateway:
      routes:
      - id: %s
        uri: http://localhost:8080
        filters:
        - name: RequestRateLimiter
          args:
            redis-rate-limiter.replenishRate: %d
            redis-rate-limiter.burstCapacity: %d
            redis-rate-limiter.requestedTokens: 1
`, name, name, p.TokensPerFill, p.MaxTokens), nil
}
