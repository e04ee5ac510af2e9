package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"ratelab/accesslog"
	"ratelab/algorithms"
)

// LogTraffic is a traffic item that replays an access log, {log: PATH}:
// every line the filter keeps is a request, at its logged time made
// relative to the log's start (its first line, or From), with the key
// and cost its rules give. The log is read once, when the scenario is (to
// know its length, span and keys, and to refuse a broken log then); the
// requests that reading yields are packed into a temporary file (see
// replay), a few bytes each, and every pass over the requests streams
// them from there. They are never held in memory, so a log is not bound
// by the limits on a scenario file's traffic. Where no temporary file can
// be written, each pass reads the log again.
type LogTraffic struct {
	// Path is the log as the file wrote it, relative to the scenario
	// file's directory.
	Path   string
	Format accesslog.Format
	Rules  accesslog.Rules // Key, Cost and Filter; a pass copies them
	// Spread, LookBehind and Strict are the reader's options
	// (accesslog.Options); LookBehind 0 is a minute.
	Spread     accesslog.Spread
	LookBehind time.Duration
	Strict     bool
	// From and Until bound the lines replayed, in the log's own time:
	// From is the scenario's time 0 (the first line kept when unset), and
	// lines before it or at or after Until are skipped. Each is an instant
	// (FromAt, UntilAt: Unix nanoseconds, 0 when unset) or an offset from
	// the log's first line (FromOffset, UntilOffset: 0 when unset).
	FromAt, UntilAt         int64
	FromOffset, UntilOffset time.Duration
	// Line is the item's line in the scenario file.
	Line int

	// What reading the log found, when the scenario was read.
	Start      int64         // Unix nanoseconds of the scenario's time 0
	Count      int64         // the requests replayed
	Last       time.Duration // the last one's time
	Resolution time.Duration // the step its times come in (a second for combined)
	Lines      accesslog.Stats
	Skipped    int64                  // lines the filter or From and Until left out
	Bad        []*accesslog.LineError // the first bad lines
	Diagnosis  string                 // when most lines were bad: the format is probably wrong
	keys       []keyFirst             // in the order of their first requests

	replay *replay // the requests as the scan yielded them; nil: read the log on each pass

	file string // the log's path, resolved (in fsys when set)
	fsys fs.FS  // the lessons' logs, for a log shipped with them
	end  int64  // Unix nanoseconds of Until, resolved by the scan (MaxInt64 for none)
	// progress, when set, is told of each pass over the file: its size,
	// and it gives what to call with the lines and bytes read so far, and
	// at the end (LogOptions.Progress).
	progress func(size int64) (update func(lines, bytes int64), done func())
	// observe, when set, is told of each request the scan yields
	// (LogOptions.Observe).
	observe func(at time.Duration, key string, cost int64)
}

// keyFirst is a key and when its first request arrives.
type keyFirst struct {
	key string
	at  time.Duration
}

// pass reads the log once, calling yield with each request replayed until
// yield returns false. With scan, it first finds the start (l.Start is
// not yet known) and measures the log (Count, Last, keys, …).
func (l *LogTraffic) pass(scan bool, yield func(at time.Duration, key string, cost int64) bool) error {
	if !scan && l.replay != nil {
		err := l.replay.each(yield)
		runtime.KeepAlive(l) // its cleanup closes the replay's file
		return err
	}
	var f fs.File
	var err error
	if l.fsys != nil {
		f, err = l.fsys.Open(l.file)
	} else {
		f, err = os.Open(l.file)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var in io.Reader = f
	var rd *accesslog.RequestReader
	if l.progress != nil {
		size := int64(0)
		if info, err := f.Stat(); err == nil {
			size = info.Size()
		}
		update, done := l.progress(size)
		defer done()
		c := &countingReader{r: f}
		in = c
		inner := yield
		yield = func(at time.Duration, key string, cost int64) bool {
			// Every request: the meter counts its calls to know when
			// to look at the clock (progress.CheckEvery).
			update(rd.Stats().Lines, c.n.Load())
			return inner(at, key, cost)
		}
	}
	rules := accesslog.Rules{Key: l.Rules.Key, Cost: l.Rules.Cost, Filter: l.Rules.Filter}
	rd = accesslog.NewRequestReader(in, l.Path, l.Format, accesslog.Options{LookBehind: l.LookBehind, Spread: l.Spread, Strict: l.Strict}, rules)
	defer rd.Close()
	start, end := l.Start, l.end
	known := !scan // whether start and end are known: once the scan reaches start
	skipped := int64(0)
	if scan {
		end = math.MaxInt64
	}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if !known {
			// The log's first line, kept by the filter or not: from and
			// until offsets count from it.
			first, _ := rd.First()
			switch {
			case l.FromAt != 0:
				start = l.FromAt
			default:
				start = first + int64(l.FromOffset)
			}
			switch {
			case l.UntilAt != 0:
				end = l.UntilAt
			case l.UntilOffset != 0:
				end = first + int64(l.UntilOffset)
			}
			known = true
		}
		if rec.Time < start || rec.Time >= end {
			skipped++
			continue
		}
		if !yield(time.Duration(rec.Time-start), rec.Key, rec.Cost) {
			return nil
		}
	}
	if scan {
		l.Start, l.end = start, end
		l.Skipped = skipped + rd.Dropped()
		l.Lines, l.Bad, l.Diagnosis, l.Resolution = rd.Stats(), rd.BadLines(), rd.Diagnosis(), rd.Resolution()
	}
	return nil
}

// countAt is the number of the log's requests at exactly at (with key,
// when not ""), read up to at; 0 when the log can no longer be read.
func (l *LogTraffic) countAt(at time.Duration, key string) int64 {
	if at > l.Last {
		return 0
	}
	var n int64
	l.pass(false, func(t time.Duration, k string, _ int64) bool {
		if t == at && (key == "" || k == key) {
			n++
		}
		return t <= at
	})
	return n
}

// scan reads the log when the scenario is read: its start, requests,
// span and keys. A log with no request to replay is an error that says
// why (every line bad, filtered out, or outside From and Until).
func (l *LogTraffic) scan() error {
	ids := map[string]uint64{}
	rec := newReplayRecorder()
	err := l.pass(true, func(at time.Duration, key string, cost int64) bool {
		l.Count++
		l.Last = at
		id, ok := ids[key]
		if !ok {
			id = uint64(len(l.keys))
			ids[key] = id
			l.keys = append(l.keys, keyFirst{key, at})
		}
		rec.add(at, id, cost)
		if l.observe != nil {
			l.observe(at, key, cost)
		}
		return true
	})
	if err != nil {
		rec.drop()
		return err
	}
	if l.replay = rec.finish(l.keys); l.replay != nil {
		l.replay.closeWhenUnreachable(l)
	}
	if l.Count == 0 {
		why := fmt.Sprintf("%d lines", l.Lines.Lines)
		switch {
		case l.Diagnosis != "":
			why = l.Diagnosis
		case l.Lines.Bad > 0:
			why += fmt.Sprintf(", %d bad (%v)", l.Lines.Bad, l.Bad[0])
		case l.Skipped > 0:
			why += fmt.Sprintf(", %d left out by the filter, from or until", l.Skipped)
		}
		return fmt.Errorf("the log holds no request to replay: %s", why)
	}
	return nil
}

// Summary is what reading the log found, in a sentence that names its
// times' resolution, as every result printed from a log does:
//
//	"access.log: 2,000 requests from 2,004 lines (3 bad, 1 empty, 0 left out by the filter, from or until); the log's times are whole seconds; …"
func (l *LogTraffic) Summary() string {
	st := l.Lines
	return fmt.Sprintf("%s: %s from %s (%s bad, %s empty, %s left out by the filter, from or until); %s",
		l.Path, counted(l.Count, "request"), counted(st.Lines, "line"), algorithms.Thousands(st.Bad), algorithms.Thousands(st.Empty),
		algorithms.Thousands(l.Skipped), l.ResolutionNote())
}

// ResolutionNote says how exact the log's times are, for every result
// printed from it: "the log's times are to the millisecond" (or second,
// microsecond, nanosecond), and for whole seconds where each request
// stands: at its logged second (the worst case for bursts) or, with spread
// even, spread evenly across it.
func (l *LogTraffic) ResolutionNote() string {
	switch {
	case l.Resolution >= time.Second && l.Spread == accesslog.SpreadEven:
		return "the log's times are whole seconds; each second's requests are spread evenly across it"
	case l.Resolution >= time.Second:
		return "the log's times are whole seconds; each request stands at its logged second (the worst case for bursts)"
	case l.Resolution >= time.Millisecond:
		return "the log's times are to the millisecond"
	case l.Resolution >= time.Microsecond:
		return "the log's times are to the microsecond"
	}
	return "the log's times are to the nanosecond"
}

// resolvePath is where a log named in the scenario file called file is.
func resolvePath(file, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(file), path)
}

// writeLog writes l as one line of the traffic list. The path is written
// absolute, so that the file reads the same log wherever it is saved.
func writeLog(b *bytes.Buffer, l *LogTraffic) {
	path, err := filepath.Abs(l.file)
	switch {
	case l.fsys != nil:
		path = cannedLog + filepath.Base(l.file)
	case err != nil:
		path = l.file
	}
	fmt.Fprintf(b, "  - {log: %s, format: %s", quote(path), quote(l.Format.String()))
	if k := l.Rules.Key; k != (accesslog.KeyRule{}) {
		fmt.Fprintf(b, ", key: %s", quote(k.String()))
	}
	switch c := l.Rules.Cost; {
	case c.Field != "":
		fmt.Fprintf(b, ", cost: %s", quote(c.Field))
	case len(c.Paths) > 0:
		b.WriteString(", cost: {paths: {")
		for i, p := range c.Paths {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%s: %d", quote(p.Prefix), p.Cost)
		}
		b.WriteString("}")
		if c.Default > 1 {
			fmt.Fprintf(b, ", default: %d", c.Default)
		}
		b.WriteString("}")
	case c.Default > 1:
		fmt.Fprintf(b, ", cost: %d", c.Default)
	}
	if f := l.Rules.Filter; len(f.Methods) > 0 || f.PathPrefix != "" || f.PathPattern != nil || len(f.Statuses) > 0 {
		var parts []string
		if len(f.Methods) > 0 {
			parts = append(parts, "method: ["+strings.Join(quoteAll(f.Methods), ", ")+"]")
		}
		if f.PathPrefix != "" {
			parts = append(parts, "path: "+quote(f.PathPrefix))
		}
		if f.PathPattern != nil {
			parts = append(parts, "path_pattern: "+quote(f.PathPattern.String()))
		}
		if len(f.Statuses) > 0 {
			var ss []string
			for _, r := range f.Statuses {
				if r.Lo == r.Hi {
					ss = append(ss, strconv.Itoa(r.Lo))
				} else {
					ss = append(ss, quote(strconv.Itoa(r.Lo/100)+"xx"))
				}
			}
			parts = append(parts, "status: ["+strings.Join(ss, ", ")+"]")
		}
		fmt.Fprintf(b, ", filter: {%s}", strings.Join(parts, ", "))
	}
	if l.Spread == accesslog.SpreadEven {
		b.WriteString(", spread: even")
	}
	switch {
	case l.LookBehind < 0:
		b.WriteString(", look_behind: 0s")
	case l.LookBehind > 0:
		fmt.Fprintf(b, ", look_behind: %s", algorithms.FormatDuration(l.LookBehind))
	}
	for _, bound := range []struct {
		name   string
		at     int64
		offset time.Duration
	}{{"from", l.FromAt, l.FromOffset}, {"until", l.UntilAt, l.UntilOffset}} {
		switch {
		case bound.at != 0:
			fmt.Fprintf(b, ", %s: %s", bound.name, quote(time.Unix(0, bound.at).UTC().Format(time.RFC3339Nano)))
		case bound.offset != 0:
			fmt.Fprintf(b, ", %s: %s", bound.name, algorithms.FormatDuration(bound.offset))
		}
	}
	if l.Strict {
		b.WriteString(", strict: true")
	}
	b.WriteString("}\n")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}

// countingReader counts the bytes read through it (by the log's reading
// goroutine; the count is read by the pass's).
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// counted is "1 line" or "n lines".
func counted(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return algorithms.Thousands(n) + " " + what + "s"
}
