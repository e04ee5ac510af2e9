package scenarios

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"ratelab/accesslog"
	"ratelab/algorithms"
)

// cannedLog starts the name of a log shipped with the canned lessons
// ("canned:api.log"), which any scenario file (a lesson too) may replay.
const cannedLog = "canned:"

// logFields are the fields of a log item, as the format documents them.
var logFields = []string{"log", "format", "key", "cost", "filter", "spread", "look_behind", "from", "until", "strict"}

// filterFields are the fields of a log item's filter.
var filterFields = []string{"method", "path", "path_pattern", "status"}

// isLogItem reports whether the traffic item n is a log item: a mapping
// with a log field.
func isLogItem(n ast.Node) bool {
	m, ok := n.(*ast.MappingNode)
	if !ok {
		return false
	}
	for _, v := range m.Values {
		if k, ok := v.Key.(*ast.StringNode); ok && k.Value == "log" {
			return true
		}
	}
	return false
}

// logItem decodes a log item and reads its log (LogTraffic.scan).
func (d *decoder) logItem(n ast.Node, path string) (*LogTraffic, error) {
	f, err := d.fields(n, path, "a log item such as {log: access.log, format: combined}", logFields)
	if err != nil {
		return nil, err
	}
	l := &LogTraffic{progress: d.progress, observe: d.observe}
	l.Line, _ = position(n)
	if l.Path, err = f.requiredText("log", "the path of an access log", false); err != nil {
		return nil, err
	}
	if name, ok := strings.CutPrefix(l.Path, cannedLog); ok {
		l.fsys, l.file = cannedFS, "canned/logs/"+name
	} else {
		l.file = resolvePath(d.file, l.Path)
	}
	format := "combined"
	if v, ok, err := f.text("format", "a log format such as combined, common, json time=ts or nginx '$remote_addr …'", false); err != nil {
		return nil, err
	} else if ok {
		format = v
	}
	if l.Format, err = accesslog.ParseFormatText(format); err != nil {
		return nil, f.errorf("format", "%v", err)
	}
	if v, ok, err := f.text("key", "a key rule such as remote_addr, remote_addr/24 or request_uri~api_key=([^&]+)", false); err != nil {
		return nil, err
	} else if ok {
		if l.Rules.Key, err = accesslog.ParseKeyRule(v); err != nil {
			return nil, f.errorf("key", "%v", err)
		}
	}
	if f.has("cost") {
		if l.Rules.Cost, err = d.logCost(f); err != nil {
			return nil, err
		}
	}
	if f.has("filter") {
		if l.Rules.Filter, err = d.logFilter(f); err != nil {
			return nil, err
		}
	}
	if i, ok, err := f.choice("spread", []string{"none", "even"}); err != nil {
		return nil, err
	} else if ok && i == 1 {
		l.Spread = accesslog.SpreadEven
	}
	if d, ok, err := f.duration("look_behind", false); err != nil {
		return nil, err
	} else if ok {
		l.LookBehind = d
		if d == 0 {
			l.LookBehind = accesslog.NoLookBehind
		}
	}
	if f.has("strict") {
		if l.Strict, err = f.flag("strict"); err != nil {
			return nil, err
		}
	}
	for _, b := range []struct {
		name   string
		at     *int64
		offset *time.Duration
	}{{"from", &l.FromAt, &l.FromOffset}, {"until", &l.UntilAt, &l.UntilOffset}} {
		v, ok, err := f.text(b.name, "an instant in RFC 3339 (2026-11-24T09:00:00Z) or a duration after the log's first line (1h)", false)
		if err != nil {
			return nil, err
		}
		if ok {
			if *b.at, *b.offset, err = ParseLogBound(v); err != nil {
				return nil, f.errorf(b.name, "%v", err)
			}
		}
	}
	if err := l.scan(); err != nil {
		return nil, f.errorf("log", "%s: %v", l.Path, err)
	}
	return l, nil
}

// ParseLogBound reads a log's from or until: an instant in RFC 3339, with
// any fraction of a second (at, Unix nanoseconds), or a duration after the
// log's first line (offset).
func ParseLogBound(s string) (at int64, offset time.Duration, err error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixNano(), 0, nil
	}
	d, err := ParseDuration(s, true)
	if err != nil {
		return 0, 0, &boundError{s}
	}
	return 0, d, nil
}

type boundError struct{ s string }

func (e *boundError) Error() string {
	return "want an instant in RFC 3339 (2026-11-24T09:00:00Z) or a positive duration after the log's first line (1h), got " + strconv.Quote(shorten(e.s))
}

// logCost reads a log item's cost: a whole number for every request, a
// field's name whose value is the cost, or {paths: {PREFIX: N, ~REGEXP: N,
// …}, default: N}, the first path that matches winning.
func (d *decoder) logCost(f *fields) (accesslog.CostRule, error) {
	n, err := f.scalar("cost")
	if err != nil {
		return accesslog.CostRule{}, err
	}
	if _, ok := n.(*ast.IntegerNode); ok {
		c, _, err := f.integer("cost", 1, algorithms.MaxCount)
		return accesslog.CostRule{Default: c}, err
	}
	if _, ok := n.(*ast.MappingNode); !ok {
		field, err := f.requiredText("cost", "a cost: a number, a field's name, or {paths: {/api/search: 5}, default: 1}", false)
		return accesslog.CostRule{Field: field}, err
	}
	cf, err := d.fields(n, child(f.path, "cost"), "{paths: {/api/search: 5}, default: 1}", []string{"paths", "default"})
	if err != nil {
		return accesslog.CostRule{}, err
	}
	var rule accesslog.CostRule
	if c, ok, err := cf.integer("default", 1, algorithms.MaxCount); err != nil {
		return rule, err
	} else if ok {
		rule.Default = c
	}
	if !cf.has("paths") {
		return rule, nil
	}
	pn, err := cf.scalar("paths")
	if err != nil {
		return rule, err
	}
	m, ok := pn.(*ast.MappingNode)
	if !ok {
		return rule, cf.errorf("paths", "want a mapping of path prefixes (or ~patterns) to costs, got %s", describe(pn))
	}
	pf := &fields{d: d, node: pn, path: child(cf.path, "paths")}
	for _, mv := range m.Values {
		k, ok := mv.Key.(*ast.StringNode)
		if !ok {
			return rule, d.errorf(mv.Key, pf.path, "want a path prefix or a ~pattern, got %s", describe(mv.Key))
		}
		pf.fields = append(pf.fields, field{name: k.Value, key: mv.Key, value: mv.Value})
	}
	for _, fd := range pf.fields {
		c, _, err := pf.integer(fd.name, 1, algorithms.MaxCount)
		if err != nil {
			return rule, err
		}
		pc := accesslog.PathCost{Prefix: fd.name, Cost: c}
		if pattern, ok := strings.CutPrefix(fd.name, "~"); ok {
			if pc.Pattern, err = regexp.Compile(pattern); err != nil {
				return rule, pf.keyErrorf(fd.name, "%v", err)
			}
		}
		rule.Paths = append(rule.Paths, pc)
	}
	return rule, nil
}

// logFilter reads a log item's filter: {method: GET or [GET, POST], path:
// /api/, path_pattern: REGEXP, status: 2xx or [200, 429]}.
func (d *decoder) logFilter(f *fields) (accesslog.Filter, error) {
	n, err := f.scalar("filter")
	if err != nil {
		return accesslog.Filter{}, err
	}
	ff, err := d.fields(n, child(f.path, "filter"), "a filter such as {method: GET, path: /api/, status: 2xx}", filterFields)
	if err != nil {
		return accesslog.Filter{}, err
	}
	var flt accesslog.Filter
	if flt.Methods, err = ff.words("method", "a method such as GET, or a list of them"); err != nil {
		return flt, err
	}
	if v, ok, err := ff.text("path", "a path prefix such as /api/", false); err != nil {
		return flt, err
	} else if ok {
		flt.PathPrefix = v
	}
	if v, ok, err := ff.text("path_pattern", "a regular expression over the path", false); err != nil {
		return flt, err
	} else if ok {
		if flt.PathPattern, err = regexp.Compile(v); err != nil {
			return flt, ff.errorf("path_pattern", "%v", err)
		}
	}
	statuses, err := ff.words("status", "a status such as 200 or 5xx, or a list of them")
	if err != nil {
		return flt, err
	}
	for _, s := range statuses {
		r, err := accesslog.ParseStatusRange(s)
		if err != nil {
			return flt, ff.errorf("status", "%v", err)
		}
		flt.Statuses = append(flt.Statuses, r)
	}
	return flt, nil
}

// words reads a field that is one word or a list of them.
func (f *fields) words(name, want string) ([]string, error) {
	if !f.has(name) {
		return nil, nil
	}
	n, err := f.scalar(name)
	if err != nil {
		return nil, err
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		v, err := f.requiredText(name, want, false)
		return []string{v}, err
	}
	var ws []string
	for i, v := range seq.Values {
		vf := &fields{d: f.d, node: v, path: index(child(f.path, name), i), fields: []field{{name: name, key: v, value: v}}}
		w, err := vf.requiredText(name, want, false)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}
