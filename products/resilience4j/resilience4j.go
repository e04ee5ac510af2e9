// Package resilience4j reads and writes resilience4j's RateLimiterConfig:
// limitForPeriod permissions every limitRefreshPeriod, a caller waiting at
// most timeoutDuration for one (defaults 50, 500ns and 5s), from Java
// (RateLimiterConfig.custom()….build()) or Spring Boot's YAML
// (resilience4j.ratelimiter.instances.NAME.limitForPeriod …), as the
// resilience4j lane: cycles counted from the limiter's making (a key's
// first request). One limiter is often shared by every caller: a lane
// shows that when all the traffic has one key.
package resilience4j

import (
	"fmt"
	"go/ast"
	"go/parser"
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

// Markers are what every configuration Read reads names.
var Markers = []string{"limitForPeriod", "limit-for-period", "RateLimiterConfig"}

// resilience4j's defaults (RateLimiterConfig).
const (
	defaultLimit   = 50
	defaultRefresh = 500 * time.Nanosecond
	defaultTimeout = 5 * time.Second
)

// config is one limiter's settings as written.
type config struct {
	name, where                      string
	limit                            int64
	refresh, timeout                 time.Duration
	hasLimit, hasRefresh, hasTimeout bool
}

// lane is the resilience4j lane of c, with its defaults said.
func (c config) lane() (snippet.Found, error) {
	f := snippet.Found{Var: c.name, Where: c.where}
	p := algorithms.Policy{Algorithm: algorithms.Resilience4j, LimitForPeriod: c.limit, LimitRefreshPeriod: c.refresh, TimeoutDuration: c.timeout}
	if !c.hasLimit {
		p.LimitForPeriod = defaultLimit
		f.Notes = append(f.Notes, "limitForPeriod is not set: resilience4j's default is 50")
	}
	if !c.hasRefresh {
		p.LimitRefreshPeriod = defaultRefresh
		f.Notes = append(f.Notes, "limitRefreshPeriod is not set: resilience4j's default is 500ns")
	}
	if !c.hasTimeout {
		p.TimeoutDuration = defaultTimeout
		f.Notes = append(f.Notes, "timeoutDuration is not set: resilience4j's default is 5s, so a caller waits up to 5s for a later cycle's permission")
	}
	f.Notes = append(f.Notes, "cycles count from the limiter's making, a key's first request in the lane; a limiter shared by every caller is a lane whose traffic has one key")
	f.Policy = p
	return f, p.Validate()
}

// Read finds each limiter's settings in src: Java builder chains, or YAML.
func Read(src string) ([]snippet.Found, error) {
	cs, err := fromJava(src)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		if cs, err = fromYAML(src); err != nil {
			return nil, err
		}
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("no RateLimiterConfig")
	}
	var out []snippet.Found
	for _, c := range cs {
		f, err := c.lane()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.where, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// fromJava reads each RateLimiterConfig.custom() … .build() chain.
func fromJava(src string) ([]config, error) {
	var out []config
	for i := 0; ; {
		j := strings.Index(src[i:], "RateLimiterConfig.custom()")
		if j < 0 {
			return out, nil
		}
		start := i + j
		k := strings.Index(src[start:], ".build()")
		if k < 0 {
			return nil, fmt.Errorf("line %d: RateLimiterConfig.custom() is not built", 1+strings.Count(src[:start], "\n"))
		}
		end := start + k + len(".build()")
		line := 1 + strings.Count(src[:start], "\n")
		e, err := parser.ParseExpr(strings.Join(strings.Fields(src[start:end]), " "))
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		c := config{name: "resilience4j", where: fmt.Sprintf("line %d", line)}
		for call, ok := e.(*ast.CallExpr); ok; {
			sel, isSel := call.Fun.(*ast.SelectorExpr)
			if !isSel {
				break
			}
			if len(call.Args) == 1 {
				v, err := snippet.EvalJava(call.Args[0])
				if err != nil {
					return nil, fmt.Errorf("line %d: %s: %w", line, sel.Sel.Name, err)
				}
				n, whole := v.Int()
				switch sel.Sel.Name {
				case "limitForPeriod":
					if !whole {
						return nil, fmt.Errorf("line %d: limitForPeriod is not a whole number", line)
					}
					c.limit, c.hasLimit = n, true
				case "limitRefreshPeriod", "timeoutDuration":
					if !whole || !v.Nanos {
						return nil, fmt.Errorf("line %d: %s is not a Duration", line, sel.Sel.Name)
					}
					if sel.Sel.Name == "limitRefreshPeriod" {
						c.refresh, c.hasRefresh = time.Duration(n), true
					} else {
						c.timeout, c.hasTimeout = time.Duration(n), true
					}
				}
			}
			call, ok = sel.X.(*ast.CallExpr)
		}
		out = append(out, c)
		i = end
	}
}

// fromYAML reads Spring Boot's resilience4j.ratelimiter settings: each
// mapping that holds limitForPeriod (in any spelling), named after its
// key (the instance).
func fromYAML(src string) ([]config, error) {
	var doc any
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %v", err)
	}
	var out []config
	var err error
	var walk func(v any, path []string, name string)
	walk = func(v any, path []string, name string) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		c := config{name: name, where: strings.Join(path, ".")}
		found := false
		for k, x := range m {
			var e error
			switch strings.ToLower(strings.ReplaceAll(k, "-", "")) {
			case "limitforperiod":
				c.limit, e = strconv.ParseInt(fmt.Sprint(x), 10, 64)
				c.hasLimit, found = true, true
			case "limitrefreshperiod":
				c.refresh, e = springDuration(fmt.Sprint(x))
				c.hasRefresh, found = true, true
			case "timeoutduration":
				c.timeout, e = springDuration(fmt.Sprint(x))
				c.hasTimeout, found = true, true
			}
			if e != nil && err == nil {
				err = fmt.Errorf("%s: %s: %v", c.where, k, e)
			}
		}
		if found {
			out = append(out, c)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			walk(m[k], append(path, k), k)
		}
	}
	walk(doc, nil, "resilience4j")
	return out, err
}

// springDuration reads a duration as Spring Boot does: "1s", "500ms",
// "10m", or a number of milliseconds.
func springDuration(s string) (time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Duration(n) * time.Millisecond, nil
	}
	return time.ParseDuration(s)
}

// Nearest is the resilience4j limiter nearest to p: itself for a
// resilience4j lane; else the bucket's size each period long enough for
// its rate to refill it, refusing at once (timeoutDuration 0) unless p
// makes requests wait.
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.Resilience4j {
		return p, nil, p.Validate()
	}
	b, differs, err := bucket.Of(p, "resilience4j")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	period := (time.Duration(b.Size)*b.Rate.Per + time.Duration(b.Rate.N) - 1) / time.Duration(b.Rate.N)
	q := algorithms.Policy{Algorithm: algorithms.Resilience4j, LimitForPeriod: b.Size, LimitRefreshPeriod: period}
	if b.Delays {
		q.TimeoutDuration = q.LimitRefreshPeriod
		differs = append(differs, fmt.Sprintf("resilience4j waits for a later cycle's permission up to its timeoutDuration, %s here", algorithms.FormatDuration(period)))
	}
	differs = append(differs, fmt.Sprintf("resilience4j gives %d permissions every %s cycle from its creation, one limiter for every caller", b.Size, algorithms.FormatDuration(period)))
	return q, differs, q.Validate()
}

// Write is p, a resilience4j lane, as the Java that makes its limiter.
func Write(name string, p algorithms.Policy) (string, error) {
	if p.Algorithm != algorithms.Resilience4j {
		return "", fmt.Errorf("%s is not a resilience4j lane: take Nearest first", p.Algorithm)
	}
	return fmt.Sprintf("// %s: ratelab's lane as resilience4j, one limiter for every caller.\nRateLimiterConfig config = RateLimiterConfig.custom()\n    .limitForPeriod(%d)\n    .limitRefreshPeriod(Duration.ofNanos(%d))\n    .timeoutDuration(Duration.ofNanos(%d))\n    .build();\nRateLimiter limiter = RateLimiter.of(%q, config);\n", name, p.LimitForPeriod, int64(p.LimitRefreshPeriod), int64(p.TimeoutDuration), name), nil
}
