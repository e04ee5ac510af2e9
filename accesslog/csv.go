package accesslog

import (
	"fmt"
	"strings"
	"time"
)

// csvParser reads CSV with a header row: the first line that is not empty
// names the columns. A field is bare (no '"' in it) or quoted, with ""
// for a '"' inside; a quoted field cannot span lines.
type csvParser struct {
	cols    *columns
	res     time.Duration
	names   []string // each column's field name; nil until the header
	timeCol int
	// fields holds a line's fields' bounds, reused.
	fields []csvField
}

type csvField struct{ v0, v1 int }

func (p *csvParser) resolution() time.Duration { return p.res }

func (p *csvParser) parse(rec *Record) error {
	var err error
	if p.fields, err = splitCSV(rec, p.fields[:0]); err != nil {
		if p.names == nil {
			return &fatalError{"the header: " + err.Error()}
		}
		return err
	}
	if p.names == nil {
		return p.header(rec)
	}
	if len(p.fields) != len(p.names) {
		return fmt.Errorf("has %d fields, the header has %d", len(p.fields), len(p.names))
	}
	rec.spans = rec.spans[:0]
	rec.names = p.names
	for c, f := range p.fields {
		if f.v0 == f.v1 {
			if c == p.timeCol {
				return fmt.Errorf("no time: column %q is empty", p.cols.time)
			}
			continue
		}
		raw := rec.buf[f.v0:f.v1]
		switch {
		case c == p.timeCol:
			if rec.Time, err = readTime(raw, p.cols.time, p.cols.unit, &p.res); err != nil {
				return err
			}
		case p.names[c] == "status":
			if rec.Status, err = statusValue(raw); err != nil {
				return err
			}
		}
		rec.add(c, f.v0, f.v1)
	}
	return nil
}

// header reads the column names.
func (p *csvParser) header(rec *Record) error {
	p.timeCol = -1
	names := make([]string, len(p.fields))
	for c, f := range p.fields {
		col := string(rec.buf[f.v0:f.v1])
		if col == p.cols.time && p.timeCol < 0 {
			p.timeCol = c
		}
		if name, ok := p.cols.rename[col]; ok {
			col = name
		}
		names[c] = col
	}
	if p.timeCol < 0 {
		return &fatalError{fmt.Sprintf("the header has no column %q (it has %s)", p.cols.time, strings.Join(names, ", "))}
	}
	p.names = names
	return errHeader
}

// splitCSV splits the line in rec.buf into fields, appending the values
// of quoted fields with "" in them to rec.buf.
func splitCSV(rec *Record, fields []csvField) ([]csvField, error) {
	line := rec.buf
	i := 0
	for {
		if i < len(line) && line[i] == '"' {
			open := i
			v0 := i + 1
			unescaped := false
			for i++; ; i++ {
				if i >= len(line) {
					return nil, fmt.Errorf("no closing '\"' for the field opened at column %d", open+1)
				}
				if line[i] != '"' {
					continue
				}
				if i+1 < len(line) && line[i+1] == '"' {
					unescaped = true
					i++
					continue
				}
				break
			}
			v1 := i
			i++ // the closing quote
			if unescaped {
				start := len(rec.buf)
				for j := v0; j < v1; j++ {
					rec.buf = append(rec.buf, line[j])
					if line[j] == '"' {
						j++
					}
				}
				v0, v1 = start, len(rec.buf)
			}
			fields = append(fields, csvField{v0, v1})
			if i == len(line) {
				return fields, nil
			}
			if line[i] != ',' {
				return nil, fmt.Errorf("expected ',' after the quoted field at column %d", i+1)
			}
			i++
			continue
		}
		v0 := i
		for i < len(line) && line[i] != ',' {
			if line[i] == '"' {
				return nil, fmt.Errorf("'\"' inside a bare field at column %d", i+1)
			}
			i++
		}
		fields = append(fields, csvField{v0, i})
		if i == len(line) {
			return fields, nil
		}
		i++
	}
}
