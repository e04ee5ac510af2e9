package accesslog

import (
	"io"
	"sync"
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
// followed by Rules.Apply would, but holds less and goes faster: each
// record is reduced by the rules as soon as its line is parsed, and only
// its Request (a few dozen bytes, where a Reader holds the whole line)
// waits while the lines are put in order; and the lines are read and
// parsed in goroutines of their own, blocks of a few thousand ahead of
// the ordering (parallel.go), so that a pass keeps the processors busy.
//
// It differs from that Reader in one thing: with SpreadEven, the requests
// the Filter keeps are spread across their second, not all the lines. A
// line the Filter drops still counts for the order: a line beyond the
// look-behind is an *OrderError whether or not the filter keeps it.
//
// A RequestReader is not safe for concurrent use. Close it when done
// with it before Next has returned io.EOF or an error other than an
// *OrderError, so that its goroutines end.
type RequestReader struct {
	rd    *Reader // its lines belong to the splitting goroutine; the counts, bad and first lines of all to Next
	rules Rules   // each parsing goroutine applies a copy

	// The reading goroutines, started by the first Next (parallel.go):
	// parsed blocks of lines come in file order on blocks and go back on
	// freeBlocks; stop ends the goroutines, and gone is closed when they
	// have ended.
	blocks     chan *block
	freeBlocks chan *block
	curBlock   *block
	stop       chan struct{}
	gone       chan struct{}
	started    bool
	closeOnce  sync.Once

	cur      *chunk // curBlock's lines, being ordered: cur.items[pos:] still to be
	pos      int
	err      error // sticky: what ended the reading
	readDone bool
	stats    Stats // the reading's as of cur, with Records and OutOfOrder counted here
	res      time.Duration
	resOK    bool

	order   orderer[Request]
	spread  spreader[Request]
	dropped int64
	// first is the earliest time of the lines ordered so far (not beyond
	// the look-behind), kept or dropped.
	first    int64
	hasFirst bool
}

// A chunk is what a parsing goroutine made of a block: its lines' requests
// in file order, the block's counts and the resolution as of its last
// line, and the error that ended the reading (io.EOF at the end), if it
// did.
type chunk struct {
	items []parsedLine
	stats Stats
	res   time.Duration
	err   error
}

// parsedLine is a line's request, and whether the Filter keeps it.
type parsedLine struct {
	q    Request
	keep bool
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
	return &RequestReader{rd: rd, rules: rules, err: rd.err,
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
			if err == nil && !q.resOK {
				if q.res != time.Second {
					q.err = q.rd.wrap(needWholeSeconds(q.rd.f, q.res))
					return Request{}, q.err
				}
				q.resOK = true
			}
			return e, err
		})
	} else {
		e, err = q.nextOrdered()
	}
	if err == nil {
		q.stats.Records++
	}
	return e, err
}

func (q *RequestReader) nextOrdered() (Request, error) {
	for {
		if q.err != nil {
			return Request{}, q.err
		}
		if e, ok := q.order.ready(q.readDone); ok {
			return e, nil
		}
		if q.readDone {
			return Request{}, io.EOF
		}
		line, err := q.nextLine()
		if err == io.EOF {
			q.readDone = true
			continue
		}
		if err != nil {
			q.err = err
			return Request{}, err
		}
		e := line.q
		var ok bool
		var behind time.Duration
		var latest int64
		switch {
		case !line.keep:
			// Dropped, once it is known not to be beyond the look-behind
			// (then it is an *OrderError, as any line is).
			if ok, behind, latest = q.order.see(e.Time, e.Line); ok {
				q.dropped++
			}
		case q.order.passes(e.Time, e.Line):
			q.sawFirst(e.Time)
			return e, nil
		default:
			ok, behind, latest = q.order.insert(e)
		}
		if !ok {
			q.stats.OutOfOrder++
			return Request{}, &OrderError{Name: q.rd.name, Line: e.Line, Latest: latest, Behind: behind, LookBehind: q.rd.opts.LookBehind}
		}
		q.sawFirst(e.Time)
	}
}

// nextLine is the next line the reading goroutine parsed, or the error
// that ended the reading.
func (q *RequestReader) nextLine() (parsedLine, error) {
	if !q.started {
		q.start()
	}
	for q.cur == nil || q.pos == len(q.cur.items) {
		if q.cur != nil {
			if err := q.cur.err; err != nil {
				return parsedLine{}, err
			}
			q.recycle()
		}
		records, outOfOrder := q.stats.Records, q.stats.OutOfOrder
		q.cur, q.pos = q.nextBlock(), 0 // which counts its lines in q.rd
		q.stats = q.rd.stats
		q.stats.Records, q.stats.OutOfOrder = records, outOfOrder
		q.res = q.cur.res
	}
	q.pos++
	return q.cur.items[q.pos-1], nil
}

// start starts the reading goroutines: several parsing goroutines for a
// format whose lines parse alone (nginx's), one for the others (a CSV
// header, a JSON log's resolution, learned from the first lines, stay
// with one parser).
func (q *RequestReader) start() {
	q.started = true
	w := 1
	if q.rd.f.nginx != nil {
		w = max(1, parseWorkers())
	}
	q.startParsing(w)
}

// recycle hands the block just ordered back to the goroutines that fill
// it.
func (q *RequestReader) recycle() {
	select {
	case q.freeBlocks <- q.curBlock:
	default:
	}
}

// Close ends the reading goroutines, if they run, and waits for them. Next
// must not be called after Close.
func (q *RequestReader) Close() {
	q.closeOnce.Do(func() {
		if q.started {
			close(q.stop)
			<-q.gone
		}
	})
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

// Dropped is how many records the Filter has left out so far (not
// counting lines beyond the look-behind, which are *OrderErrors).
func (q *RequestReader) Dropped() int64 { return q.dropped }

// Stats counts what has been read so far (as far as the ordering has
// come); Records counts the requests Next returned.
func (q *RequestReader) Stats() Stats { return q.stats }

// Resolution is Reader.Resolution, as of the lines ordered so far.
func (q *RequestReader) Resolution() time.Duration {
	if !q.started {
		return q.rd.Resolution()
	}
	return q.res
}

// BadLines is Reader.BadLines. It ends the reading (see Close): call it
// when done.
func (q *RequestReader) BadLines() []*LineError {
	q.Close()
	return q.rd.BadLines()
}

// Diagnosis is Reader.Diagnosis, of all the lines read. It ends the
// reading (see Close): call it when done.
func (q *RequestReader) Diagnosis() string {
	q.Close()
	return q.rd.Diagnosis()
}
