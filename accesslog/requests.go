package accesslog

import (
	"io"
	"time"
)

// A Request is a record reduced by Rules to what a rate limiter is asked:
// when, from which line, whose, and at what cost. Its Key is one of the
// Rules' own strings, and can be kept.
type Request struct {
	Time int64 // Unix nanoseconds, spread as Options.Spread says
	Line int64
	Key  string
	Cost int64
}

// A RequestReader reads a log's requests in time order, as a Reader
// followed by Rules.Apply would, but holds less: each record is reduced by
// the rules as soon as its line is parsed, and only its Request (a few
// dozen bytes, where a Reader holds the whole line) waits while the lines
// are put in order. Reducing at once is also faster: the line's bytes are
// read while they are still in the processor's cache.
//
// It differs from that Reader in one thing: with SpreadEven, the requests
// the Filter keeps are spread across their second, not all the lines. A
// line the Filter drops still counts for the order: a line beyond the
// look-behind is an *OrderError whether or not the filter keeps it.
//
// A RequestReader is not safe for concurrent use.
type RequestReader struct {
	rd      *Reader // parses, counts and keeps the bad lines; its own ordering is unused
	rules   Rules
	order   orderer[Request]
	spread  spreader[Request]
	dropped int64
	// first is the earliest time of the lines ordered so far (not beyond
	// the look-behind), kept or dropped.
	first    int64
	hasFirst bool
}

var requestStamp = stamp[Request]{
	of:  func(q Request) (int64, int64) { return q.Time, q.Line },
	set: func(q *Request, at int64) { q.Time = at },
}

// NewRequestReader reads the log r as NewReader does (name, format and
// options alike), reducing each record by rules (which it takes and
// applies: the caller must not use them meanwhile).
func NewRequestReader(r io.Reader, name string, f Format, opts Options, rules Rules) *RequestReader {
	rd := NewReader(r, name, f, opts)
	return &RequestReader{rd: rd, rules: rules,
		order:  orderer[Request]{stamp: requestStamp, lookNs: rd.order.lookNs},
		spread: spreader[Request]{stamp: requestStamp}}
}

// Next returns the next request in time order, io.EOF after the last; its
// errors are Reader.Next's.
func (q *RequestReader) Next() (Request, error) {
	var e Request
	var err error
	if q.rd.opts.Spread == SpreadEven {
		e, err = q.spread.next(func() (Request, error) {
			e, err := q.nextOrdered()
			if err == nil && !q.rd.resOK {
				err = q.rd.checkWholeSeconds()
			}
			return e, err
		})
	} else {
		e, err = q.nextOrdered()
	}
	if err == nil {
		q.rd.stats.Records++
	}
	return e, err
}

func (q *RequestReader) nextOrdered() (Request, error) {
	rd := q.rd
	for {
		if rd.err != nil {
			return Request{}, rd.err
		}
		if e, ok := q.order.ready(rd.readDone); ok {
			return e, nil
		}
		if rd.readDone {
			return Request{}, io.EOF
		}
		rec, err := rd.readRecord()
		if err == io.EOF {
			rd.readDone = true
			continue
		}
		if err != nil {
			return Request{}, err
		}
		key, cost, keep := q.rules.Apply(rec)
		e := Request{Time: rec.Time, Line: rec.Line, Key: key, Cost: cost}
		rd.release(rec)
		var ok bool
		var behind time.Duration
		var latest int64
		switch {
		case !keep:
			q.dropped++
			ok, behind, latest = q.order.see(e.Time, e.Line)
		case q.order.passes(e.Time, e.Line):
			q.sawFirst(e.Time)
			return e, nil
		default:
			ok, behind, latest = q.order.insert(e)
		}
		if !ok {
			return Request{}, rd.outOfOrder(e.Line, behind, latest)
		}
		q.sawFirst(e.Time)
	}
}

func (q *RequestReader) sawFirst(t int64) {
	if !q.hasFirst || t < q.first {
		q.first, q.hasFirst = t, true
	}
}

// First is the time of the log's first line in time order (kept by the
// Filter or not), as far as read: once Next has returned a request, no
// line to come is earlier. ok is false before any line is read.
func (q *RequestReader) First() (at int64, ok bool) { return q.first, q.hasFirst }

// Dropped is how many records the Filter has left out so far.
func (q *RequestReader) Dropped() int64 { return q.dropped }

// Stats counts what has been read so far; Records counts the requests
// Next returned.
func (q *RequestReader) Stats() Stats { return q.rd.Stats() }

// BadLines is Reader.BadLines.
func (q *RequestReader) BadLines() []*LineError { return q.rd.BadLines() }

// Resolution is Reader.Resolution.
func (q *RequestReader) Resolution() time.Duration { return q.rd.Resolution() }

// Diagnosis is Reader.Diagnosis.
func (q *RequestReader) Diagnosis() string { return q.rd.Diagnosis() }
