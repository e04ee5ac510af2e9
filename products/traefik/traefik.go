// Package traefik reads and writes Traefik's rateLimit middleware
// (average, period, burst) from its dynamic configuration: YAML or JSON
// (the file provider, a Kubernetes Middleware), TOML, or labels
// (traefik.http.middlewares.NAME.ratelimit.average=100). Traefik keeps an
// x/time/rate limiter a source (the client's address by default) at
// average ÷ period a second, asks Reserve(), and serves the request after
// the reservation's delay unless that delay is above maxDelay, which it
// cancels and answers 429: the x-time-rate-reserve lane with max_wait
// maxDelay (Traefik's pkg/middlewares/ratelimiter).
package traefik

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/snippet"
)

// Config is one rateLimit middleware as written: period 0 is Traefik's
// default, a second.
type Config struct {
	Name    string
	Where   string
	Average int64
	Period  time.Duration
	Burst   int64
}

// Lane is the x-time-rate-reserve policy Traefik runs for c, and what
// differs from it.
func (c Config) Lane() (algorithms.Policy, []string, error) {
	if c.Average <= 0 {
		return algorithms.Policy{}, nil, fmt.Errorf("average %d: Traefik limits nothing when average is 0", c.Average)
	}
	period := c.Period
	if period < 0 {
		return algorithms.Policy{}, nil, fmt.Errorf("negative value not valid for period: %v", period)
	}
	if period == 0 {
		period = time.Second
	}
	burst := max(c.Burst, 1) // Traefik takes a burst below 1 as 1
	rtl := float64(c.Average*int64(time.Second)) / float64(period)
	p := algorithms.Policy{Algorithm: algorithms.XTimeRateReserve, Burst: burst,
		Rate: algorithms.Rate{N: c.Average, Per: period}, MaxWait: MaxDelay(rtl)}
	var notes []string
	if c.Burst < 1 {
		notes = append(notes, "burst not set (or below 1): Traefik takes it as 1")
	}
	if lane := snippet.RateFloat(p.Rate); lane != rtl {
		notes = append(notes, fmt.Sprintf("Traefik's rate is %v a second and the lane's %v: float64 rounds them apart", rtl, lane))
	}
	notes = append(notes, fmt.Sprintf("Traefik reserves, then cancels a reservation that would wait over %s; the lane refuses it without reserving, which Cancel's float64 may differ from in the last bits", algorithms.FormatSeconds(p.MaxWait)))
	return p, notes, p.Validate()
}

// MaxDelay is the longest a Traefik request waits at rtl requests a
// second: half the interval between requests, 1s ÷ (⌊rtl⌋ × 2), or 0.5s
// below one request a second.
func MaxDelay(rtl float64) time.Duration {
	if rtl < 1 {
		return 500 * time.Millisecond
	}
	return time.Second / (time.Duration(rtl) * 2)
}

// Marker is the word every configuration Read reads holds (any case).
const Marker = "ratelimit"

// Read finds every rateLimit middleware in src: YAML or JSON, TOML, or
// labels.
func Read(src string) ([]snippet.Found, error) {
	var cs []Config
	var err error
	switch {
	case labelRe.MatchString(src):
		cs, err = fromLabels(src)
	case tomlTable.MatchString(src):
		cs, err = fromTOML(src)
	default:
		cs, err = fromYAML(src)
	}
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("no rateLimit middleware")
	}
	var out []snippet.Found
	for _, c := range cs {
		p, notes, err := c.Lane()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Where, err)
		}
		out = append(out, snippet.Found{Var: c.Name, Where: c.Where, Policy: p, Notes: notes})
	}
	return out, nil
}

// fromYAML finds every mapping called rateLimit (any case) in a YAML or
// JSON document, named after the key above it (the middleware's name, or
// a Kubernetes Middleware's metadata.name).
func fromYAML(src string) ([]Config, error) {
	var doc any
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %v", err)
	}
	var out []Config
	var err error
	var walk func(v any, path []string, name string)
	walk = func(v any, path []string, name string) {
		switch v := v.(type) {
		case map[string]any:
			named := false // a Kubernetes Middleware names what it holds
			if md, ok := v["metadata"].(map[string]any); ok {
				if n, ok := md["name"].(string); ok {
					name, named = n, true
				}
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if strings.EqualFold(k, "ratelimit") {
					if m, ok := v[k].(map[string]any); ok && err == nil {
						var c Config
						c, err = fromMap(m)
						c.Name, c.Where = name, strings.Join(append(path, k), ".")
						out = append(out, c)
					}
					continue
				}
				child := k
				if named {
					child = name
				}
				walk(v[k], append(path, k), child)
			}
		case []any:
			for i, x := range v {
				walk(x, append(path, fmt.Sprintf("[%d]", i)), name)
			}
		}
	}
	walk(doc, nil, "ratelimit")
	return out, err
}

// fromMap reads average, period and burst from a rateLimit mapping.
func fromMap(m map[string]any) (Config, error) {
	var c Config
	for k, v := range m {
		var err error
		switch strings.ToLower(k) {
		case "average":
			c.Average, err = whole(fmt.Sprint(v))
		case "burst":
			c.Burst, err = whole(fmt.Sprint(v))
		case "period":
			c.Period, err = Duration(fmt.Sprint(v))
		}
		if err != nil {
			return c, fmt.Errorf("%s: %w", k, err)
		}
	}
	return c, nil
}

// labelRe matches a rateLimit label: the middleware, the field and the
// value.
var labelRe = regexp.MustCompile(`(?i)middlewares\.([^.\s"]+)\.ratelimit\.(average|period|burst)\s*[=:]\s*"?([^"\s,]+)`)

// fromLabels reads labels, one middleware a name, in the order names come.
func fromLabels(src string) ([]Config, error) {
	var names []string
	byName := map[string]*Config{}
	for _, m := range labelRe.FindAllStringSubmatch(src, -1) {
		c := byName[m[1]]
		if c == nil {
			c = &Config{Name: m[1], Where: "labels of middleware " + m[1]}
			byName[m[1]] = c
			names = append(names, m[1])
		}
		var err error
		switch strings.ToLower(m[2]) {
		case "average":
			c.Average, err = whole(m[3])
		case "burst":
			c.Burst, err = whole(m[3])
		case "period":
			c.Period, err = Duration(m[3])
		}
		if err != nil {
			return nil, fmt.Errorf("label %s: %w", m[0], err)
		}
	}
	var out []Config
	for _, n := range names {
		out = append(out, *byName[n])
	}
	return out, nil
}

// tomlTable matches a TOML table of a rateLimit middleware.
var tomlTable = regexp.MustCompile(`(?im)^\s*\[\s*http\.middlewares\.([^.\]]+)\.ratelimit\s*\]`)

// tomlValue matches a key = value line.
var tomlValue = regexp.MustCompile(`^\s*(\w+)\s*=\s*"?([^"#\s]+)"?`)

// fromTOML reads each [http.middlewares.NAME.rateLimit] table's keys.
func fromTOML(src string) ([]Config, error) {
	var out []Config
	var cur *Config
	for i, line := range strings.Split(src, "\n") {
		if m := tomlTable.FindStringSubmatch(line); m != nil {
			out = append(out, Config{Name: m[1], Where: fmt.Sprintf("line %d", i+1)})
			cur = &out[len(out)-1]
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "[") {
			cur = nil
			continue
		}
		m := tomlValue.FindStringSubmatch(line)
		if cur == nil || m == nil {
			continue
		}
		var err error
		switch strings.ToLower(m[1]) {
		case "average":
			cur.Average, err = whole(m[2])
		case "burst":
			cur.Burst, err = whole(m[2])
		case "period":
			cur.Period, err = Duration(m[2])
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", i+1, m[1], err)
		}
	}
	return out, nil
}

func whole(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	return n, nil
}

// Duration reads a period as Traefik's types.Duration does: a Go duration
// ("10s", "1m") or a whole number of seconds.
func Duration(s string) (time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	return d, nil
}

// Nearest is the Traefik middleware nearest to p, as the policy Traefik
// runs: the bucket's size as burst, its rate as average over a period of
// a whole number of the rate's own period, and Traefik's maxDelay (what
// differs is said: Traefik delays up to half an interval, which p may not).
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if c, ok := configOf(p); ok {
		q, _, err := c.Lane()
		if err == nil && q == p {
			return p, nil, nil
		}
	}
	b, differs, err := bucket.Of(p, "Traefik")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	c := Config{Average: b.Rate.N, Period: b.Rate.Per, Burst: b.Size}
	q, _, err := c.Lane()
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	differs = append(differs, fmt.Sprintf("Traefik delays a request up to %s (half its interval) and refuses beyond", algorithms.FormatSeconds(q.MaxWait)))
	return q, differs, nil
}

// configOf is the middleware whose policy p would be, if p is one.
func configOf(p algorithms.Policy) (Config, bool) {
	if p.Algorithm != algorithms.XTimeRateReserve {
		return Config{}, false
	}
	return Config{Average: p.Rate.N, Period: p.Rate.Per, Burst: p.Burst}, true
}

// Write is p, the policy of a Traefik middleware (Nearest), as the file
// provider's YAML.
func Write(name string, p algorithms.Policy) (string, error) {
	c, ok := configOf(p)
	if !ok {
		return "", fmt.Errorf("%s is not a Traefik lane: take Nearest first", p.Algorithm)
	}
	if q, _, err := c.Lane(); err != nil || q != p {
		return "", fmt.Errorf("%s is not what a Traefik middleware runs (its max_wait is Traefik's maxDelay, %s)", p, algorithms.FormatSeconds(q.MaxWait))
	}
	return fmt.Sprintf("# %s: ratelab's lane as Traefik's rateLimit middleware (a bucket a client IP).\nhttp:\n  middlewares:\n    %s:\n      rateLimit:\n        average: %d\n        period: %s\n        burst: %d\n", name, name, c.Average, c.Period.String(), c.Burst), nil
}
