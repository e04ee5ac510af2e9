package accesslog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Spread says whether a Reader moves records' times within their second.
type Spread uint8

const (
	// SpreadNone keeps every record's time as its line logged it.
	SpreadNone Spread = iota
	// SpreadEven spreads the n records of each second evenly across it:
	// the i-th (from 0, in the order the Reader sorted them) is moved to
	// the second's start plus i/n of a second. It needs times in whole
	// seconds (a Resolution of time.Second); the Reader holds one second's
	// records at a time to count them.
	SpreadEven
)

// DefaultLookBehind is the look-behind of Options whose LookBehind is 0.
const DefaultLookBehind = time.Minute

// NoLookBehind, as Options.LookBehind, demands lines in time order: any
// line earlier than the latest before it is an *OrderError.
const NoLookBehind time.Duration = -1

// DefaultKeepBad is how many bad lines a Reader keeps when Options.KeepBad
// is 0.
const DefaultKeepBad = 5

// DefaultMaxLineBytes is the longest line a Reader reads when
// Options.MaxLineBytes is 0; a longer line is a bad line.
const DefaultMaxLineBytes = 1 << 20

// Options tune a Reader. The zero value is the defaults.
type Options struct {
	// LookBehind is how far a line may be earlier than the latest line
	// before it and still be put in its place: records come out of Next
	// in time order (lines of one time in their file order) as long as no
	// line is earlier than the latest time seen minus LookBehind. 0 means
	// DefaultLookBehind, NoLookBehind none.
	LookBehind time.Duration
	// Spread moves times within their second (SpreadEven) or not.
	Spread Spread
	// Strict makes the first bad line an error from Next that ends the
	// reading, instead of a line counted and skipped.
	Strict bool
	// KeepBad is how many bad lines BadLines keeps, the first ones; 0
	// means DefaultKeepBad, a negative value none.
	KeepBad int
	// MaxLineBytes bounds a line's length; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// Stats count what a Reader has read so far.
type Stats struct {
	Lines      int64 // lines read, the empty ones and a CSV header included
	Empty      int64 // empty lines, skipped
	Records    int64 // records Next returned
	Bad        int64 // lines that did not parse, skipped
	OutOfOrder int64 // lines earlier than the look-behind allows, dropped
}

// A LineError is a line that could not be read: which line, and why.
type LineError struct {
	Name   string // the name given to NewReader
	Line   int64  // from 1
	Reason string // "status \"abc\" is not a number", "expected '[' at column 15"
}

// Error is "NAME:LINE: REASON", or "line LINE: REASON" for a Reader with
// no name.
func (e *LineError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Reason)
}

// An OrderError is a line earlier than the latest time before it by more
// than the look-behind. The line is dropped, and Next can be called again
// to read on.
type OrderError struct {
	Name       string
	Line       int64         // the early line
	Latest     int64         // the line of the latest time so far
	Behind     time.Duration // how much earlier than that time it is
	LookBehind time.Duration // the Reader's look-behind (0 for none)
}

// Error is "NAME:LINE: 2m0s earlier than line 38, the latest so far,
// beyond the 1m0s look-behind" ("line LINE: ..." for a Reader with no
// name).
func (e *OrderError) Error() string {
	where := fmt.Sprintf("line %d", e.Line)
	if e.Name != "" {
		where = fmt.Sprintf("%s:%d", e.Name, e.Line)
	}
	return fmt.Sprintf("%s: %v earlier than line %d, the latest so far, beyond the %v look-behind", where, e.Behind, e.Latest, e.LookBehind)
}

// A Reader streams a log's lines as Records in time order. Its memory is
// bounded by the records within the look-behind of the latest time read
// (plus, with SpreadEven, one second's records), the longest line, and
// the few bad and first lines it keeps, whatever the log's length.
//
// A Reader is not safe for concurrent use.
type Reader struct {
	in   io.Reader
	name string
	f    Format
	opts Options
	p    lineParser

	src      *bufio.Reader
	opened   bool
	long     []byte // a line longer than src's buffer
	line     int64  // the number of the last line read
	stats    Stats
	bad      []*LineError
	first    []string // the first lines that are not empty, for Diagnosis
	err      error    // sticky: what ended the reading
	readDone bool     // no more lines

	order  orderer[*Record]
	spread spreader[*Record]
	free   []*Record
	last   *Record // returned by the last Next, reused at the next
	resOK  bool    // SpreadEven has checked the times are whole seconds
}

// NewReader reads the log r, called name in errors (a file's path, say),
// in the format f. Input starting with gzip's magic bytes is decompressed
// (several gzip members one after another are read as one stream); a
// name ending in ".gz" whose input does not start so is an error from
// Next, as is the zero Format. A UTF-8 byte order mark before the first line is dropped, "\r\n"
// ends a line as "\n" does, and a last line without a newline is read.
func NewReader(r io.Reader, name string, f Format, opts Options) *Reader {
	switch {
	case opts.LookBehind == 0:
		opts.LookBehind = DefaultLookBehind
	case opts.LookBehind < 0:
		opts.LookBehind = 0
	}
	switch {
	case opts.KeepBad == 0:
		opts.KeepBad = DefaultKeepBad
	case opts.KeepBad < 0:
		opts.KeepBad = 0
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	rd := &Reader{in: r, name: name, f: f, opts: opts, p: f.newParser()}
	rd.order = orderer[*Record]{stamp: recordStamp, lookNs: int64(opts.LookBehind)}
	rd.spread = spreader[*Record]{stamp: recordStamp}
	if rd.p == nil {
		rd.err = errors.New("accesslog: no format (the zero Format); make one with ParseFormat")
	}
	return rd
}

// Next returns the next record in time order, io.EOF after the last. The
// record's fields are valid only until the next call to Next.
//
// Other errors: an *OrderError for a line beyond the look-behind, after
// which Next can be called again; with Options.Strict a *LineError for the
// first bad line; a *LineError for a CSV header without the time column;
// an error reading or decompressing the input; and, with SpreadEven, an
// error when the format's times are not in whole seconds. All but the
// *OrderError end the reading: Next returns the same error again, at
// once, without the records still held for ordering.
func (r *Reader) Next() (Record, error) {
	if r.last != nil {
		r.release(r.last)
		r.last = nil
	}
	var rec *Record
	var err error
	if r.opts.Spread == SpreadEven {
		rec, err = r.nextSpread()
	} else {
		rec, err = r.nextOrdered()
	}
	if err != nil {
		return Record{}, err
	}
	r.last = rec
	r.stats.Records++
	return *rec, nil
}

// Stats counts what has been read so far.
func (r *Reader) Stats() Stats { return r.stats }

// BadLines are the first bad lines (Options.KeepBad of them), in the
// order read; Stats.Bad counts them all.
func (r *Reader) BadLines() []*LineError { return r.bad }

// Resolution is the step of the times read: the format's Resolution, or
// where that is 0 what the first time read showed (0 before it).
func (r *Reader) Resolution() time.Duration {
	if r.p == nil {
		return 0
	}
	return r.p.resolution()
}

// keepFirst is how many of the first lines a Reader keeps for Diagnosis,
// and keepFirstBytes how much of each.
const (
	keepFirst      = 16
	keepFirstBytes = 4096
)

// Diagnosis says, when more than half of the lines that were not empty
// failed to parse, that the format is probably wrong, and which format
// Guess finds fits the first of them better, if one does:
//
//	"9 of 10 lines did not parse as combined: the format is probably wrong; the first 10 lines parse best as common (10 of 10)"
//
// It is "" when at least half parsed.
func (r *Reader) Diagnosis() string {
	lines := r.stats.Lines - r.stats.Empty
	if r.stats.Bad == 0 || r.stats.Bad*2 <= lines {
		return ""
	}
	msg := fmt.Sprintf("%d of %d lines did not parse as %s: the format is probably wrong", r.stats.Bad, lines, r.f)
	best, n := Guess(r.first)
	if n > countParsed(r.f, r.first) && best.String() != r.f.String() {
		return msg + fmt.Sprintf("; the first %d lines parse best as %s (%d of %d)", len(r.first), best, n, len(r.first))
	}
	return msg + "; no built-in format fits the first lines better"
}

// recordStamp is a Record's time and line, for ordering and spreading.
var recordStamp = stamp[*Record]{
	of:  func(rec *Record) (int64, int64) { return rec.Time, rec.Line },
	set: func(rec **Record, at int64) { (*rec).Time = at },
}

// nextOrdered returns the next record in time order.
func (r *Reader) nextOrdered() (*Record, error) {
	for {
		if r.err != nil {
			return nil, r.err
		}
		if rec, ok := r.order.ready(r.readDone); ok {
			return rec, nil
		}
		if r.readDone {
			return nil, io.EOF
		}
		rec, err := r.readRecord()
		if err == io.EOF {
			r.readDone = true
			continue
		}
		if err != nil {
			return nil, err
		}
		if r.order.passes(rec.Time, rec.Line) {
			return rec, nil // in order, nothing held: the next, as ready would find
		}
		if ok, behind, latest := r.order.insert(rec); !ok {
			r.release(rec)
			return nil, r.outOfOrder(rec.Line, behind, latest)
		}
	}
}

// outOfOrder counts line as beyond the look-behind and is its error.
func (r *Reader) outOfOrder(line int64, behind time.Duration, latest int64) error {
	r.stats.OutOfOrder++
	return &OrderError{Name: r.name, Line: line, Latest: latest, Behind: behind, LookBehind: r.opts.LookBehind}
}

// nextSpread returns the next record in time order, spread.
func (r *Reader) nextSpread() (*Record, error) {
	return r.spread.next(func() (*Record, error) {
		rec, err := r.nextOrdered()
		if err == nil && !r.resOK {
			if err = r.checkWholeSeconds(); err != nil {
				r.release(rec)
				return nil, err
			}
		}
		return rec, err
	})
}

// checkWholeSeconds is the error ending the reading when SpreadEven meets
// times that are not in whole seconds.
func (r *Reader) checkWholeSeconds() error {
	if res := r.Resolution(); res != time.Second {
		r.err = r.wrap(needWholeSeconds(r.f, res))
		return r.err
	}
	r.resOK = true
	return nil
}

// readRecord reads lines until one parses, skipping empty lines, a CSV
// header and bad lines (unless strict).
func (r *Reader) readRecord() (*Record, error) {
	for {
		line, noNewline, tooLong, err := r.readLine()
		if err != nil {
			if err != io.EOF {
				r.err = r.wrap(err)
				return nil, r.err
			}
			return nil, err
		}
		if rec, err := r.takeLine(line, noNewline, tooLong); rec != nil || err != nil {
			return rec, err
		}
	}
}

// takeLine counts line as the next line read and parses it: its record;
// or nil for a line skipped (empty, a CSV header, a bad line counted);
// or the error that ends the reading (Strict's first bad line, a header
// without the time column). noNewline says it is the last line and has
// no newline, tooLong that it was longer than MaxLineBytes (line is then
// empty).
func (r *Reader) takeLine(line []byte, noNewline, tooLong bool) (*Record, error) {
	r.line++
	r.stats.Lines++
	if len(line) == 0 && !tooLong {
		r.stats.Empty++
		return nil, nil
	}
	if len(r.first) < keepFirst {
		r.first = append(r.first, string(line[:min(len(line), keepFirstBytes)]))
	}
	if tooLong {
		return nil, r.badLine(fmt.Sprintf("longer than %d bytes", r.opts.MaxLineBytes))
	}
	rec := r.alloc()
	rec.buf = append(rec.buf, line...)
	rec.Line = r.line
	err := r.p.parse(rec)
	if err == nil {
		return rec, nil
	}
	r.release(rec)
	var fatal *fatalError
	switch {
	case err == errHeader:
		return nil, nil
	case errors.As(err, &fatal):
		r.err = &LineError{Name: r.name, Line: r.line, Reason: fatal.msg}
		return nil, r.err
	}
	reason := err.Error()
	if noNewline {
		reason += " (the last line, which has no newline: cut short?)"
	}
	return nil, r.badLine(reason)
}

// badLine counts and keeps the current line as bad; with Strict it ends
// the reading.
func (r *Reader) badLine(reason string) error {
	r.stats.Bad++
	le := &LineError{Name: r.name, Line: r.line, Reason: reason}
	if len(r.bad) < r.opts.KeepBad {
		r.bad = append(r.bad, le)
	}
	if r.opts.Strict {
		r.err = le
		return le
	}
	return nil
}

// readLine returns the next line without its "\n" or "\r\n" (and the
// first without a byte order mark), valid until the next call. noNewline
// is set for a last line without a newline, tooLong for a line longer
// than MaxLineBytes (whose bytes are not returned).
func (r *Reader) readLine() (line []byte, noNewline, tooLong bool, err error) {
	if !r.opened {
		if err := r.open(); err != nil {
			return nil, false, false, err
		}
	}
	b, err := r.src.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = r.src.ReadSlice('\n')
			if len(r.long)+len(b) > r.opts.MaxLineBytes+2 {
				tooLong = true
				r.long = r.long[:0]
				continue
			}
			if !tooLong {
				r.long = append(r.long, b...)
			}
		}
		b = r.long
	}
	switch {
	case err == io.EOF && len(b) == 0 && !tooLong:
		return nil, false, false, io.EOF
	case err == io.EOF:
		noNewline = true
	case err != nil:
		return nil, false, false, err
	}
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	if r.line == 0 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	}
	if len(b) > r.opts.MaxLineBytes {
		tooLong = true
	}
	if tooLong {
		return nil, noNewline, true, nil
	}
	return b, noNewline, false, nil
}

// open looks for gzip's magic bytes.
func (r *Reader) open() error {
	r.opened = true
	br := bufio.NewReaderSize(r.in, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return err
	}
	switch {
	case len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		r.src = bufio.NewReaderSize(zr, 64<<10)
	case strings.HasSuffix(r.name, ".gz"):
		return errors.New("named .gz but not gzip data (no gzip magic bytes)")
	default:
		r.src = br
	}
	return nil
}

// alloc gives an empty record, reusing a released one.
func (r *Reader) alloc() *Record {
	if n := len(r.free); n > 0 {
		rec := r.free[n-1]
		r.free = r.free[:n-1]
		rec.reset()
		return rec
	}
	return &Record{buf: make([]byte, 0, 256), spans: make([]span, 0, 12)}
}

func (r *Reader) release(rec *Record) { r.free = append(r.free, rec) }

// wrap prefixes err with the Reader's name, if it has one.
func (r *Reader) wrap(err error) error {
	if r.name == "" {
		return err
	}
	return fmt.Errorf("%s: %w", r.name, err)
}
