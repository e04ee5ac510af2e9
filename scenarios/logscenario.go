package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// defaultLogLanes are the lanes a log is replayed through when no others
// are chosen: "120 requests a minute" for each client address, as each
// textbook algorithm reads it.
const defaultLogLanes = `limiters:
  - {name: fixed, algorithm: fixed-window, limit: 120, window: 1m}
  - {name: log, algorithm: sliding-log, limit: 120, window: 1m}
  - {name: counter, algorithm: sliding-counter, limit: 120, window: 1m}
  - {name: bucket, algorithm: token-bucket, capacity: 120, rate: 2/s}
  - {name: gcra, algorithm: gcra, burst: 120, rate: 2/s}
  - {name: shaper, algorithm: leaky-bucket, queue: 120, rate: 2/s}
`

// LogOptions say how ReplayLog reads a log, each as a log item's field of
// the same name takes it (see the format's documentation); "" leaves a
// field out (its default).
type LogOptions struct {
	Format, Key, Cost, Spread, LookBehind, From, Until string
	Strict                                             bool
	// Progress, when set, is told of every pass over the log, its reading
	// when the scenario is read included: the file's size; it gives what
	// to call with the lines and bytes read so far (every 1,024
	// requests) and at the pass's end. A command line shows progress so.
	Progress func(size int64) (update func(lines, bytes int64), done func())
	// Observe, when set, is called with every request the reading of the
	// log yields, in order, as every pass will yield it (so that a reader
	// can learn what it needs of the traffic without a pass of its own:
	// fit.Survey). It is called once, while the scenario is read.
	Observe func(at time.Duration, key string, cost int64)
}

// IsLogPath reports whether path names an access log rather than a
// scenario file: any name but *.yaml and *.yml, when the file is there.
func IsLogPath(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext != ".yaml" && ext != ".yml" && ext != ""
}

// ReplayLog is a scenario that replays the log at path through the lanes
// of lanes (a scenario, whose traffic, notes and expectations are not
// used), or, when lanes is nil, through six lanes of 120 requests a minute
// per client address (fixed window, sliding log, sliding counter, token
// bucket, GCRA, leaky bucket). Its errors are those of a scenario file
// holding that log item.
func ReplayLog(path string, opt LogOptions, lanes *Scenario) (*Scenario, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "title: %s\n", quote("The log "+filepath.Base(path)))
	what := "six lanes of 120 requests a minute for each client address"
	if lanes != nil {
		what = "the lanes of " + lanes.Name
	}
	fmt.Fprintf(&b, "about: %s\n", quote("Every request of "+path+", at its logged time, through "+what+"."))
	if lanes == nil {
		b.WriteString(defaultLogLanes)
	} else {
		if err := writeLanes(&b, lanes.Lanes); err != nil {
			return nil, err
		}
	}
	// The log is named by its base name, beside the file the decoder
	// reads (the log itself): it then speaks of "access.log:17", as the
	// user named it, not of a path the user never wrote.
	fmt.Fprintf(&b, "traffic:\n  - {log: %s", quote(filepath.Base(abs)))
	for _, f := range []struct{ name, v string }{
		{"format", opt.Format}, {"key", opt.Key}, {"cost", opt.Cost}, {"spread", opt.Spread},
		{"look_behind", opt.LookBehind}, {"from", opt.From}, {"until", opt.Until},
	} {
		switch _, err := strconv.ParseInt(f.v, 10, 64); {
		case f.v == "":
		case f.name == "cost" && err == nil: // a number, not a field's name
			fmt.Fprintf(&b, ", cost: %s", f.v)
		default:
			fmt.Fprintf(&b, ", %s: %s", f.name, quote(f.v))
		}
	}
	if opt.Strict {
		b.WriteString(", strict: true")
	}
	b.WriteString("}\n")
	d := &decoder{file: abs, progress: opt.Progress, observe: opt.Observe}
	s, err := d.parse(b.Bytes())
	var e *Error
	if errors.As(err, &e) {
		// The file the position would point into is the one written
		// here, which the user never saw: the error names the log, once
		// (the log item's own message starts with its name too).
		e.File, e.Line, e.Column, e.Path = path, 0, 0, ""
		e.Msg = strings.TrimPrefix(e.Msg, filepath.Base(abs)+": ")
	}
	return s, err
}
