package report

import (
	"bytes"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"ratelab/algorithms"
)

// columns aligns the summaries' tables: cells in columns two spaces apart,
// each column as wide as its widest cell in runes (as fmt's widths count),
// a cell padded on the left where right says its column is aligned right
// and on the right otherwise, and every line's trailing spaces trimmed.
//
// alignRows hands it the rows twice, from the same function: the first
// pass measures the columns, the second writes them, so that a table of a
// row per lane and key holds one row at a time. Cells are appended into
// the line the aligner reuses, so a cell, a number included, allocates
// nothing.
type columns struct {
	w     io.Writer
	right func(c int) bool
	// widths are the columns' widths in runes, grown by the first pass,
	// and rights what right says of each column.
	widths []int
	rights []bool
	// writing is set for the second pass.
	writing bool
	// c is the column of the row's next cell.
	c int
	// line is the row being written and num a number being formatted,
	// both kept between rows.
	line, num []byte
}

// alignRows writes the rows that rows adds (each cell by the aligner's
// methods, each row ended by end) to w, aligned; right tells the columns
// aligned right. rows is called twice and must add the same cells both
// times.
func alignRows(w io.Writer, right func(c int) bool, rows func(t *columns)) {
	t := &columns{w: w, right: right}
	rows(t)
	t.writing, t.c = true, 0
	rows(t)
}

// alignCells writes rows of ready-made cells aligned, as alignRows.
func alignCells(w io.Writer, right func(c int) bool, rows [][]string) {
	alignRows(w, right, func(t *columns) {
		for _, row := range rows {
			t.row(row)
		}
	})
}

// row adds the cells and ends the row.
func (t *columns) row(cells []string) {
	for _, cell := range cells {
		t.text(cell)
	}
	t.end()
}

// text adds the cell s.
func (t *columns) text(s string) { addCell(t, s) }

// bytes adds the cell b, as text does s.
func (t *columns) bytes(b []byte) { addCell(t, b) }

// addCell is text and bytes: on the first pass it widens the cell's
// column, on the second it appends the cell padded.
func addCell[S string | []byte](t *columns, s S) {
	c := t.next()
	if !t.writing {
		// A cell of no more bytes than the width has no more runes:
		// only a longer one can widen its column.
		if len(s) > t.widths[c] {
			t.widths[c] = max(t.widths[c], utf8.RuneCountInString(string(s)))
		}
		return
	}
	pad := t.widths[c] - utf8.RuneCountInString(string(s))
	t.padLeft(c, pad)
	t.line = append(t.line, s...)
	t.padRight(c, pad)
}

// int adds the cell n in decimal.
func (t *columns) int(n int64) {
	t.num = strconv.AppendInt(t.num[:0], n, 10)
	t.bytes(t.num)
}

// seconds adds the cell algorithms.FormatSeconds(d).
func (t *columns) seconds(d time.Duration) {
	t.num = algorithms.AppendSeconds(t.num[:0], d)
	t.bytes(t.num)
}

// next is the next cell's column: on the first pass a new column starts
// at width 0; on the second, the cell's separator is written.
func (t *columns) next() int {
	c := t.c
	t.c++
	switch {
	case !t.writing && c == len(t.widths):
		t.widths = append(t.widths, 0)
		t.rights = append(t.rights, t.right(c))
	case t.writing && c > 0:
		t.line = append(t.line, "  "...)
	}
	return c
}

// padLeft and padRight pad a cell of column c with pad spaces: before it
// in a column aligned right, after it in one aligned left.
func (t *columns) padLeft(c, pad int) {
	if t.rights[c] {
		t.line = appendSpaces(t.line, pad)
	}
}

func (t *columns) padRight(c, pad int) {
	if !t.rights[c] {
		t.line = appendSpaces(t.line, pad)
	}
}

// end ends the row: on the second pass it writes it, without its trailing
// spaces.
func (t *columns) end() {
	t.c = 0
	if !t.writing {
		return
	}
	t.line = append(bytes.TrimRight(t.line, " "), '\n')
	t.w.Write(t.line)
	t.line = t.line[:0]
}
