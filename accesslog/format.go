package accesslog

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// A Format says how a line of a log is read. Make one with ParseFormat;
// Combined and Common are the built-ins. A Format is a value that can be
// shared; each Reader reads with its own parser state.
type Format struct {
	name  string // "combined", "common", "nginx", "json" or "csv"
	spec  string // as given to ParseFormat
	nginx *nginxFormat
	cols  *columns // json and csv
}

// The built-in formats: nginx's predefined combined and Apache's common
// and combined, which write the same layout.
var (
	// Combined is nginx's and Apache's combined format:
	//  $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"
	Combined = mustBuiltin("combined", `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`)
	// Common is Apache's common format (the Common Log Format):
	//  $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent
	Common = mustBuiltin("common", `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent`)
)

func mustBuiltin(name, layout string) Format {
	nf, err := compileNginx(layout)
	if err != nil {
		panic(err)
	}
	return Format{name: name, nginx: nf}
}

// ParseFormat makes the Format name with spec:
//
//   - "combined" or "common", spec empty: the built-ins;
//   - "nginx", spec an nginx log_format string as nginx's configuration
//     takes it, bare or as one or more quoted strings that are joined
//     ('$remote_addr [$time_local] ' '"$request" $status $msec', with
//     nginx's \' \" \\ escapes inside them; a trailing ';' is allowed);
//   - "json" or "csv", spec a list of name=value settings separated by
//     spaces or commas: time=KEY names the key (the column) holding the
//     time, "time" by default; unit=s|ms|us|ns|rfc3339|auto says how it is
//     written, auto by default; and FIELD=KEY keeps the key KEY under the
//     field name FIELD ("remote_addr=client_ip status=code"), every other
//     key being kept under its own name.
//
// The error names the format and what is wrong, with the offset in spec
// for a log_format.
func ParseFormat(name, spec string) (Format, error) {
	switch name {
	case "combined", "common":
		if strings.TrimSpace(spec) != "" {
			return Format{}, fmt.Errorf("%s format takes no spec, got %q", name, spec)
		}
		if name == "combined" {
			return Combined, nil
		}
		return Common, nil
	case "nginx":
		layout, err := unquoteNginx(spec)
		if err != nil {
			return Format{}, fmt.Errorf("nginx log_format: %w", err)
		}
		nf, err := compileNginx(layout)
		if err != nil {
			return Format{}, fmt.Errorf("nginx log_format: %w", err)
		}
		return Format{name: name, spec: spec, nginx: nf}, nil
	case "json", "csv":
		c, err := parseColumns(spec)
		if err != nil {
			return Format{}, fmt.Errorf("%s format: %w", name, err)
		}
		return Format{name: name, spec: spec, cols: c}, nil
	case "":
		return Format{}, errors.New("no format named (want combined, common, nginx, json or csv)")
	}
	return Format{}, fmt.Errorf("unknown format %q (want combined, common, nginx, json or csv)", name)
}

// String is the format as ParseFormat was given it: "combined", or the
// name and the spec ("nginx '$remote_addr [$time_local] ...'").
func (f Format) String() string {
	if f.spec == "" {
		return f.name
	}
	return f.name + " " + f.spec
}

// Name is the format's name: combined, common, nginx, json or csv.
func (f Format) Name() string { return f.name }

// Resolution is the step the format's times come in: time.Second for
// $time_local (so for combined and common) and $time_iso8601,
// time.Millisecond for $msec, the unit for JSON and CSV with unit s, ms,
// us or ns. It is 0 where the first time read decides it (JSON and CSV
// with unit auto or rfc3339): Reader.Resolution says what it decided.
func (f Format) Resolution() time.Duration {
	switch {
	case f.nginx != nil:
		return f.nginx.resolution
	case f.cols != nil && f.cols.unit > 0:
		return time.Duration(f.cols.unit)
	}
	return 0
}

// lineParser reads one line, held in rec.buf, into rec.
type lineParser interface {
	// parse fills rec's fields, Time and Status from the line in rec.buf,
	// or says why it cannot: a *fatalError stops the reading, errHeader
	// says the line was a header and no record.
	parse(rec *Record) error
	// resolution is the step of the times, 0 until the first time read
	// decides it.
	resolution() time.Duration
}

// newParser makes a parser for one Reader.
func (f Format) newParser() lineParser {
	switch {
	case f.nginx != nil:
		return &nginxParser{f: f.nginx}
	case f.name == "json":
		return &jsonParser{cols: f.cols, res: f.Resolution()}
	case f.name == "csv":
		return &csvParser{cols: f.cols, res: f.Resolution()}
	}
	return nil
}

// errHeader is a parser's word that the line was a header, not a record.
var errHeader = errors.New("header")

// fatalError is a line error after which nothing more can be read (a CSV
// header without the time column).
type fatalError struct{ msg string }

func (e *fatalError) Error() string { return e.msg }

// Time units as JSON and CSV specs give them; rfc3339 is -1, auto 0.
const unitRFC3339 = -1

// columns are a JSON or CSV format's settings.
type columns struct {
	time string // the key or column of the time
	unit int64  // nanoseconds per unit; 0 auto; unitRFC3339
	// rename maps a key to the field name it is kept under, names[i] for
	// renameIndex's i.
	rename      map[string]string
	renameIndex map[string]int
	names       []string
}

func parseColumns(spec string) (*columns, error) {
	c := &columns{time: "time", rename: map[string]string{}}
	seen := map[string]bool{}
	for _, tok := range strings.FieldsFunc(spec, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
		name, value, ok := strings.Cut(tok, "=")
		name = strings.TrimPrefix(name, "$")
		if !ok || name == "" || value == "" {
			return nil, fmt.Errorf("%q is not name=value", tok)
		}
		if seen[name] {
			return nil, fmt.Errorf("%s is given twice", name)
		}
		seen[name] = true
		switch name {
		case "time":
			c.time = value
		case "unit":
			u, ok := map[string]int64{"s": unitSecond, "ms": unitMillisecond, "us": unitMicrosecond, "ns": unitNanosecond, "rfc3339": unitRFC3339, "auto": 0}[value]
			if !ok {
				return nil, fmt.Errorf("unit %q is not one of s, ms, us, ns, rfc3339, auto", value)
			}
			c.unit = u
		default:
			if prev, dup := c.rename[value]; dup {
				return nil, fmt.Errorf("key %q is named both %s and %s", value, prev, name)
			}
			c.rename[value] = name
		}
	}
	if name, ok := c.rename[c.time]; ok {
		return nil, fmt.Errorf("key %q is the time and is also named %s", c.time, name)
	}
	c.renameIndex = map[string]int{}
	for key, name := range c.rename {
		c.renameIndex[key] = len(c.names)
		c.names = append(c.names, name)
	}
	return c, nil
}
