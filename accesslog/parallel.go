package accesslog

import (
	"io"
	"runtime"
	"sync"
)

// A RequestReader reads its log in three stages: one goroutine splits it
// into blocks of lines (readLine, in file order); parsing goroutines
// parse whole blocks, each with its own parser and rules; and Next takes
// the blocks back in file order, adding up their counts, bad lines and
// first lines as one Reader reading them all would have. nginx's formats
// get a parsing goroutine a processor (a line of them parses alone: no
// header, no state carried from line to line); JSON Lines and CSV one, so
// that what their first lines teach the parser (a CSV header, a time's
// resolution) holds for the rest. The results are a Reader's and Rules',
// whatever the goroutines and the blocks: TestParallelMatchesOneReader,
// TestBlocksKeepALinesState.

// block is lines read for a parsing goroutine: their bytes one after
// another, where each ends, which were too long to keep, and the number
// of the line before the first; then what parsing made of them.
type block struct {
	buf       []byte
	ends      []int
	long      []int // indexes of lines longer than MaxLineBytes (kept empty)
	before    int64
	noNewline bool  // the last line is the log's last and has no newline
	end       error // what ended the reading after these lines (io.EOF at the end)

	out   chunk
	bad   []*LineError // the first bad lines of the block (KeepBad of them)
	first []string     // its first lines that are not empty (keepFirst of them)
	done  chan struct{}
}

// Block sizes: a block ends at blockLines lines or blockBytes bytes.
var (
	blockLines = 4096
	blockBytes = 1 << 20
)

// parseWorkers is how many goroutines parse: one a processor, at most 4
// (the splitting and the ordering need their share).
var parseWorkers = func() int { return min(runtime.GOMAXPROCS(0), 4) }

// startParsing starts the splitting goroutine and w parsing goroutines.
func (q *RequestReader) startParsing(w int) {
	q.stop, q.gone = make(chan struct{}), make(chan struct{})
	q.blocks, q.freeBlocks = make(chan *block, 2*w), make(chan *block, 4*w)
	work := make(chan *block, w)
	var running sync.WaitGroup
	running.Add(1 + w)
	go func() {
		defer running.Done()
		q.split(work)
	}()
	for range w {
		parser := NewReader(nil, q.rd.name, q.rd.f, q.rd.opts)
		rules := q.rules // each its own: Rules remember keys
		rules.keys = nil
		go func() {
			defer running.Done()
			parseBlocks(work, parser, &rules)
		}()
	}
	go func() {
		running.Wait()
		close(q.gone)
	}()
}

// split reads the log's lines into blocks, sending each to the parsing
// goroutines and, in the same order, to the RequestReader, until the end
// of the log, a read error, or Close.
func (q *RequestReader) split(work chan<- *block) {
	defer close(work)
	rd := q.rd
	for {
		var b *block
		select {
		case b = <-q.freeBlocks:
		default:
			b = &block{}
		}
		b.buf, b.ends, b.long = b.buf[:0], b.ends[:0], b.long[:0]
		b.before, b.noNewline, b.end = rd.line, false, nil
		b.done = make(chan struct{})
		for len(b.ends) < blockLines && len(b.buf) < blockBytes {
			line, noNewline, tooLong, err := rd.readLine()
			if err == io.EOF {
				b.end = io.EOF
				break
			}
			if err != nil {
				b.end = rd.wrap(err)
				break
			}
			rd.line++
			if tooLong {
				b.long = append(b.long, len(b.ends))
			}
			b.buf = append(b.buf, line...)
			b.ends = append(b.ends, len(b.buf))
			b.noNewline = noNewline
		}
		select {
		case work <- b:
		case <-q.stop:
			return
		}
		select {
		case q.blocks <- b:
		case <-q.stop:
			return
		}
		if b.end != nil {
			return
		}
	}
}

// parseBlocks parses the blocks it is sent with p (a Reader without input,
// used for its parser and its line-by-line bookkeeping, takeLine), reducing
// the records by rules.
func parseBlocks(work <-chan *block, p *Reader, rules *Rules) {
	for b := range work {
		c := &b.out
		c.items, c.err = c.items[:0], nil
		p.line, p.stats, p.bad, p.first, p.err = b.before, Stats{}, b.bad[:0], b.first[:0], nil
		start, long := 0, b.long
		for i, end := range b.ends {
			tooLong := len(long) > 0 && long[0] == i
			if tooLong {
				long = long[1:]
			}
			rec, err := p.takeLine(b.buf[start:end], b.noNewline && i == len(b.ends)-1, tooLong)
			start = end
			if err != nil {
				c.err = err
				break
			}
			if rec == nil {
				continue
			}
			key, cost, keep := rules.Apply(rec)
			c.items = append(c.items, parsedLine{Request{Time: rec.Time, Line: rec.Line, Key: key, Cost: cost}, keep})
			p.release(rec)
		}
		if c.err == nil {
			c.err = b.end
		}
		c.stats, c.res = p.stats, p.Resolution()
		b.bad, b.first = p.bad, p.first
		close(b.done)
	}
}

// nextBlock takes the next block in file order once it is parsed, adds
// its counts, bad lines and first lines to q.rd's, and returns its chunk.
func (q *RequestReader) nextBlock() *chunk {
	b := <-q.blocks
	<-b.done
	rd, c := q.rd, &b.out
	rd.stats.Lines += c.stats.Lines
	rd.stats.Empty += c.stats.Empty
	rd.stats.Bad += c.stats.Bad
	rd.bad = append(rd.bad, b.bad[:min(len(b.bad), max(0, rd.opts.KeepBad-len(rd.bad)))]...)
	rd.first = append(rd.first, b.first[:min(len(b.first), keepFirst-len(rd.first))]...)
	q.curBlock = b
	return c
}
