package model

import "time"

// A screen draws a lane's retries in columns of one width dt, each
// [c·dt, (c+1)·dt), and asks for the same columns frame after frame: its
// view's and its overview's, a few hundred a lane, the view's moving on
// by whole columns as the clock plays (the timeline starts at a multiple
// of dt). A clientLog remembers them by width and column number, in
// consecutive slots, so that a frame reads its columns' answers in order
// from memory it read the frame before, not from slots scattered by a
// hash.
//
// A column's bounds (the entries before its start and before its end)
// stand while the log grows, its entries coming in time order, once it
// holds every entry before the column's end; what its retries came to
// stands while the clock's end of it stays. A cut of the log forgets the
// columns it reaches (forgetColumnsFrom); those before it stand.

// columnSlots is how many columns of one width a clientLog remembers: more
// than a screen's width, so that a row's columns never push one another
// out.
const columnSlots = 1024

// columnWidths is how many widths a clientLog remembers columns of: a
// screen's view and its overview.
const columnWidths = 2

// columnMemo is the columns of width dt a clientLog remembers, column c
// in slot c % columnSlots.
type columnMemo struct {
	dt   time.Duration
	used uint64 // when it was last asked, in asks of the log
	cols [columnSlots]column
}

// column is one remembered column.
type column struct {
	c1     int64 // the column's number c + 1; 0: none remembered
	j0, j1 int   // the entries before the column's start and end
	// upTo is the end of the entries span counted, j1 or less by the
	// clock (−1: none counted yet).
	upTo int
	span RetrySpan
}

// columnOf is the remembered column [from, to), its bounds found if it is
// new; nil for a span that is not a column: from not a multiple of its
// width, or one reaching past the clock's time now (a screen cuts the
// clock's column at the clock, so its width changes as the clock moves,
// and would push out a width the screen uses). The log must hold every
// entry before to (Lab.Retries has it reach them): then entries added
// later come at or after to, and the bounds stand.
func (cl *clientLog) columnOf(from, to, now time.Duration) *column {
	dt := to - from
	if from < 0 || dt <= 0 || from%dt != 0 || to > now {
		return nil
	}
	c := int64(from / dt)
	g := cl.columnsOf(dt)
	col := &g.cols[c%columnSlots]
	if col.c1 != c+1 {
		*col = column{c1: c + 1, j0: cl.before(from), j1: cl.before(to), upTo: -1}
	}
	return col
}

// bounds are the entries before from and before to: a column's, as
// remembered (see columnOf for now).
func (cl *clientLog) bounds(from, to, now time.Duration) (j0, j1 int) {
	if col := cl.columnOf(from, to, now); col != nil {
		return col.j0, col.j1
	}
	return cl.before(from), cl.before(to)
}

// spanTo is what the column's retries decided before entry decided came
// to: all of them, or those before the clock.
func (col *column) spanTo(cl *clientLog, decided int) RetrySpan {
	if upTo := max(min(col.j1, decided), col.j0); upTo != col.upTo {
		col.span, col.upTo = cl.span(col.j0, upTo), upTo
	}
	return col.span
}

// columnsOf is the memo of columns of width dt: the one of that width,
// else the one asked least lately, emptied.
func (cl *clientLog) columnsOf(dt time.Duration) *columnMemo {
	cl.asks++
	var g *columnMemo
	for _, m := range cl.columns {
		if m != nil && m.dt == dt {
			g = m
			break
		}
	}
	if g == nil {
		oldest := 0
		for i, m := range cl.columns {
			if m == nil {
				cl.columns[i] = new(columnMemo)
				oldest = i
				break
			}
			if m.used < cl.columns[oldest].used {
				oldest = i
			}
		}
		g = cl.columns[oldest]
		g.dt = dt
		clear(g.cols[:])
	}
	g.used = cl.asks
	return g
}

// forgetColumnsFrom forgets the remembered columns that reach entry j or
// later, for a log cut from j: the bounds and counts of a column wholly
// before j read only entries the cut keeps, and its end's entry (j1 < j)
// is kept too, so they stand.
func (cl *clientLog) forgetColumnsFrom(j int) {
	for _, g := range cl.columns {
		if g == nil {
			continue
		}
		for i := range g.cols {
			if col := &g.cols[i]; col.c1 != 0 && col.j1 >= j {
				*col = column{}
			}
		}
	}
}
