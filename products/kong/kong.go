// Package kong reads and writes Kong's rate-limiting plugin: its counts
// per second, minute, hour and day (config.second …), each a fixed window
// aligned to the clock, all applied together, from a declarative
// configuration (YAML or JSON: plugins with name rate-limiting) or the
// Admin API's form fields (config.minute=5). A lane is a stack of
// fixed-window policies, one per period given.
package kong

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

// periods are the plugin's windows ratelab models, shortest first.
var periods = []struct {
	name   string
	window time.Duration
}{{"second", time.Second}, {"minute", time.Minute}, {"hour", time.Hour}, {"day", 24 * time.Hour}}

// Marker is what every configuration Read reads names.
const Marker = "rate-limiting"

// Config is one plugin's counts by period ("minute": 5) and its policy
// and limit_by.
type Config struct {
	Name, Where string
	Counts      map[string]int64
	Policy      string
	LimitBy     string
}

// Layers are the fixed windows Kong applies, with what differs.
func (c Config) Layers() ([]algorithms.Layer, []string, error) {
	var layers []algorithms.Layer
	var notes []string
	for _, p := range periods {
		n, ok := c.Counts[p.name]
		if !ok {
			continue
		}
		if n <= 0 {
			return nil, nil, fmt.Errorf("config.%s: expected a number greater than 0", p.name)
		}
		layers = append(layers, algorithms.Layer{Name: p.name, Policy: algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: n, Window: p.window}})
	}
	for _, long := range []string{"month", "year"} {
		if _, ok := c.Counts[long]; ok {
			notes = append(notes, fmt.Sprintf("config.%s is left out: a calendar %s has no fixed length", long, long))
		}
	}
	if len(layers) == 0 {
		return nil, nil, fmt.Errorf("at least one of these fields must be non-empty: 'config.second', 'config.minute', 'config.hour', 'config.day', 'config.month', 'config.year'")
	}
	notes = append(notes, "Kong's windows are aligned to the clock (the minute starts at :00); a lane's start at 0s stands for such a boundary")
	switch c.Policy {
	case "", "local":
		notes = append(notes, "policy local: each Kong node counts on its own, so N nodes behind a balancer admit up to N times the limits")
	default:
		notes = append(notes, fmt.Sprintf("policy %s: the counts are shared by every node (the lane is one node's view, with no sync delay)", c.Policy))
	}
	if c.LimitBy != "" && c.LimitBy != "ip" && c.LimitBy != "consumer" {
		notes = append(notes, fmt.Sprintf("limit_by %s: each request's key in the traffic stands for it", c.LimitBy))
	}
	return layers, notes, nil
}

// Read finds every rate-limiting plugin in src.
func Read(src string) ([]snippet.Found, error) {
	var cs []Config
	var err error
	if formField.MatchString(src) {
		cs, err = fromForm(src)
	} else {
		cs, err = fromYAML(src)
	}
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("no rate-limiting plugin")
	}
	var out []snippet.Found
	for _, c := range cs {
		layers, notes, err := c.Layers()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Where, err)
		}
		f := snippet.Found{Var: c.Name, Where: c.Where, Policy: layers[0].Policy, Notes: notes}
		f.Layers = layers
		out = append(out, f)
	}
	return out, nil
}

// fromYAML finds the plugins named rate-limiting in a declarative
// configuration, named after what they are attached to.
func fromYAML(src string) ([]Config, error) {
	var doc any
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %v", err)
	}
	var out []Config
	var walk func(v any, path string, owner string)
	walk = func(v any, path, owner string) {
		switch v := v.(type) {
		case map[string]any:
			if n, ok := v["name"].(string); ok && n != Marker {
				owner = n // a service or route names its plugins
			}
			if v["name"] == Marker {
				cfg, _ := v["config"].(map[string]any)
				c := Config{Name: owner, Where: path, Counts: map[string]int64{}}
				for k, x := range cfg {
					switch k {
					case "policy":
						c.Policy = fmt.Sprint(x)
					case "limit_by":
						c.LimitBy = fmt.Sprint(x)
					case "second", "minute", "hour", "day", "month", "year":
						if x == nil {
							continue
						}
						n, err := strconv.ParseInt(fmt.Sprint(x), 10, 64)
						if err != nil {
							n = -1
						}
						c.Counts[k] = n
					}
				}
				out = append(out, c)
				return
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(v[k], join(path, k), owner)
			}
		case []any:
			for i, x := range v {
				walk(x, fmt.Sprintf("%s[%d]", path, i), owner)
			}
		}
	}
	walk(doc, "", "kong")
	return out, nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// formField matches the Admin API's form fields: config.minute=5.
var formField = regexp.MustCompile(`config\.(second|minute|hour|day|month|year|policy|limit_by)=([\w-]+)`)

// fromForm reads the Admin API's fields as one plugin.
func fromForm(src string) ([]Config, error) {
	c := Config{Name: "kong", Where: "the form fields", Counts: map[string]int64{}}
	for _, m := range formField.FindAllStringSubmatch(src, -1) {
		switch m[1] {
		case "policy":
			c.Policy = m[2]
		case "limit_by":
			c.LimitBy = m[2]
		default:
			n, err := strconv.ParseInt(m[2], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("config.%s: %q is not a number", m[1], m[2])
			}
			c.Counts[m[1]] = n
		}
	}
	return []Config{c}, nil
}

// Nearest is the Kong window nearest to p on the safe side: p itself when
// it is a fixed window of a second, a minute, an hour or a day; else the
// count a second (or a minute, an hour, a day: the shortest with a count
// of at least 1) that p's rate allows, rounded down.
func Nearest(p algorithms.Policy) (algorithms.Policy, []string, error) {
	if p.Algorithm == algorithms.FixedWindow {
		for _, per := range periods {
			if p.Window == per.window {
				return p, nil, p.Validate()
			}
		}
	}
	b, differs, err := bucket.Of(p, "Kong")
	if err != nil {
		return algorithms.Policy{}, nil, err
	}
	for _, per := range periods {
		n := b.Rate.N * int64(per.window) / int64(b.Rate.Per)
		if n >= 1 {
			q := algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: n, Window: per.window}
			differs = append(differs, fmt.Sprintf("Kong counts %d a %s in a clock-aligned window; the lane admits %d at once, then %s", n, per.name, b.Size, b.Rate))
			return q, differs, q.Validate()
		}
	}
	return algorithms.Policy{}, nil, fmt.Errorf("rate %s is below one a day", b.Rate)
}

// Write is a lane's fixed windows as the plugin in a declarative
// configuration.
func Write(name string, layers []algorithms.Layer) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: ratelab's lane as Kong's rate-limiting plugin (decK).\nplugins:\n- name: rate-limiting\n  config:\n", name)
	seen := map[string]bool{}
	for _, l := range layers {
		var per string
		for _, p := range periods {
			if l.Policy.Algorithm == algorithms.FixedWindow && l.Policy.Window == p.window {
				per = p.name
			}
		}
		if per == "" || seen[per] {
			return "", fmt.Errorf("policy %s: Kong takes one fixed window each of a second, a minute, an hour and a day", l.Policy)
		}
		seen[per] = true
		fmt.Fprintf(&b, "    %s: %d\n", per, l.Policy.Limit)
	}
	b.WriteString("    policy: local\n    limit_by: ip\n")
	return b.String(), nil
}
