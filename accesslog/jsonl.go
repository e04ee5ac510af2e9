package accesslog

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonParser reads JSON Lines: one object a line.
type jsonParser struct {
	cols *columns
	res  time.Duration
}

func (p *jsonParser) resolution() time.Duration { return p.res }

// maxJSONDepth bounds the nesting of a value inside a line's object.
const maxJSONDepth = 100

func (p *jsonParser) parse(rec *Record) error {
	line := rec.buf
	rec.names = p.cols.names
	n := len(line)
	i := skipSpace(line, 0)
	if i == n || line[i] != '{' {
		return fmt.Errorf("expected '{' at column %d", i+1)
	}
	i = skipSpace(line, i+1)
	hasTime := false
	if i < n && line[i] == '}' {
		i++
	} else {
		for {
			if i == n || line[i] != '"' {
				return fmt.Errorf("expected a key at column %d", i+1)
			}
			k0, k1, next, err := p.str(rec, line, i)
			if err != nil {
				return err
			}
			i = skipSpace(line, next)
			if i == n || line[i] != ':' {
				return fmt.Errorf("expected ':' at column %d", i+1)
			}
			i = skipSpace(line, i+1)
			if i == n {
				return fmt.Errorf("expected a value at column %d", i+1)
			}
			var v0, v1 int
			isNull := false
			switch c := line[i]; {
			case c == '"':
				v0, v1, next, err = p.str(rec, line, i)
			case c == 'n':
				isNull = true
				next, err = literal(line, i, "null")
			default:
				v0 = i
				next, err = skipValue(line, i, 0)
				v1 = next
			}
			if err != nil {
				return err
			}
			i = skipSpace(line, next)
			key := rec.buf[k0:k1]
			if !isNull {
				i, renamed := p.cols.renameIndex[string(key)]
				if renamed {
					rec.add(i, v0, v1)
				} else {
					rec.addKeyed(k0, k1, v0, v1)
				}
				isStatus := renamed && p.cols.names[i] == "status" || !renamed && string(key) == "status"
				switch {
				case string(key) == p.cols.time && !hasTime:
					hasTime = true
					if rec.Time, err = readTime(rec.buf[v0:v1], p.cols.time, p.cols.unit, &p.res); err != nil {
						return err
					}
				case isStatus && rec.Status == 0:
					if rec.Status, err = statusValue(rec.buf[v0:v1]); err != nil {
						return err
					}
				}
			}
			if i < n && line[i] == ',' {
				i = skipSpace(line, i+1)
				continue
			}
			if i < n && line[i] == '}' {
				i++
				break
			}
			return fmt.Errorf("expected ',' or '}' at column %d", i+1)
		}
	}
	if i = skipSpace(line, i); i != n {
		return fmt.Errorf("unexpected text at column %d", i+1)
	}
	if !hasTime {
		return fmt.Errorf("no %q key (the time)", p.cols.time)
	}
	return nil
}

// str reads the JSON string opening at line[i]; its value is
// rec.buf[v0:v1], unescaped (appended to rec.buf) when it has escapes.
func (p *jsonParser) str(rec *Record, line []byte, i int) (v0, v1, next int, err error) {
	start := i
	for j := i + 1; j < len(line); j++ {
		switch c := line[j]; {
		case c == '"':
			return i + 1, j, j + 1, nil
		case c == '\\':
			return unescapeJSON(rec, line, start)
		case c < 0x20:
			return 0, 0, 0, fmt.Errorf("control character %s in a string at column %d", quoteByte(c), j+1)
		}
	}
	return 0, 0, 0, fmt.Errorf("no closing '\"' for the string opened at column %d", start+1)
}

// unescapeJSON appends the value of the string opening at line[start],
// which has escapes, to rec.buf.
func unescapeJSON(rec *Record, line []byte, start int) (v0, v1, next int, err error) {
	v0 = len(rec.buf)
	for j := start + 1; j < len(line); j++ {
		c := line[j]
		switch {
		case c == '"':
			return v0, len(rec.buf), j + 1, nil
		case c < 0x20:
			return 0, 0, 0, fmt.Errorf("control character %s in a string at column %d", quoteByte(c), j+1)
		case c != '\\':
			rec.buf = append(rec.buf, c)
			continue
		}
		if j+1 == len(line) {
			break
		}
		j++
		switch e := line[j]; e {
		case '"', '\\', '/':
			rec.buf = append(rec.buf, e)
		case 'b':
			rec.buf = append(rec.buf, '\b')
		case 'f':
			rec.buf = append(rec.buf, '\f')
		case 'n':
			rec.buf = append(rec.buf, '\n')
		case 'r':
			rec.buf = append(rec.buf, '\r')
		case 't':
			rec.buf = append(rec.buf, '\t')
		case 'u':
			r, ok := hex4(line, j+1)
			if !ok {
				return 0, 0, 0, fmt.Errorf("bad \\u escape at column %d", j)
			}
			j += 4
			if utf16.IsSurrogate(r) {
				r2, ok := hex4(line, j+3)
				if ok && j+2 < len(line) && line[j+1] == '\\' && line[j+2] == 'u' {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						j += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			rec.buf = utf8.AppendRune(rec.buf, r)
		default:
			return 0, 0, 0, fmt.Errorf("bad escape '\\%c' at column %d", e, j)
		}
	}
	return 0, 0, 0, fmt.Errorf("no closing '\"' for the string opened at column %d", start+1)
}

// hex4 reads four hex digits at line[i:].
func hex4(line []byte, i int) (rune, bool) {
	if i+4 > len(line) {
		return 0, false
	}
	var r rune
	for _, c := range line[i : i+4] {
		if !isHex(c) {
			return 0, false
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, true
}

// skipValue checks the JSON value (not a string at the top: those are
// read by str) at line[i] and returns where it ends.
func skipValue(line []byte, i, depth int) (int, error) {
	if depth > maxJSONDepth {
		return 0, errors.New("values nested too deep")
	}
	if i >= len(line) {
		return 0, fmt.Errorf("expected a value at column %d", i+1)
	}
	switch c := line[i]; {
	case c == '"':
		for j := i + 1; j < len(line); j++ {
			switch line[j] {
			case '"':
				return j + 1, nil
			case '\\':
				j++
				if j < len(line) && line[j] == 'u' {
					if _, ok := hex4(line, j+1); !ok {
						return 0, fmt.Errorf("bad \\u escape at column %d", j)
					}
				} else if j < len(line) && !isJSONEscape(line[j]) {
					return 0, fmt.Errorf("bad escape '\\%c' at column %d", line[j], j)
				}
			default:
				if line[j] < 0x20 {
					return 0, fmt.Errorf("control character %s in a string at column %d", quoteByte(line[j]), j+1)
				}
			}
		}
		return 0, fmt.Errorf("no closing '\"' for the string opened at column %d", i+1)
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		j := skipSpace(line, i+1)
		if j < len(line) && line[j] == end {
			return j + 1, nil
		}
		for {
			if c == '{' {
				if j >= len(line) || line[j] != '"' {
					return 0, fmt.Errorf("expected a key at column %d", j+1)
				}
				k, err := skipValue(line, j, depth+1)
				if err != nil {
					return 0, err
				}
				if j = skipSpace(line, k); j >= len(line) || line[j] != ':' {
					return 0, fmt.Errorf("expected ':' at column %d", j+1)
				}
				j = skipSpace(line, j+1)
			}
			k, err := skipValue(line, j, depth+1)
			if err != nil {
				return 0, err
			}
			j = skipSpace(line, k)
			if j < len(line) && line[j] == ',' {
				j = skipSpace(line, j+1)
				continue
			}
			if j < len(line) && line[j] == end {
				return j + 1, nil
			}
			return 0, fmt.Errorf("expected ',' or %s at column %d", quoteByte(end), j+1)
		}
	case c == 't':
		return literal(line, i, "true")
	case c == 'f':
		return literal(line, i, "false")
	case c == 'n':
		return literal(line, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return skipNumber(line, i)
	}
	return 0, fmt.Errorf("expected a value at column %d", i+1)
}

func isJSONEscape(c byte) bool {
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	}
	return false
}

// literal checks for true, false or null at line[i].
func literal(line []byte, i int, word string) (int, error) {
	if len(line)-i >= len(word) && string(line[i:i+len(word)]) == word {
		return i + len(word), nil
	}
	return 0, fmt.Errorf("expected a value at column %d", i+1)
}

// skipNumber checks the JSON number at line[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(line []byte, i int) (int, error) {
	start := i
	bad := func() (int, error) { return 0, fmt.Errorf("bad number at column %d", start+1) }
	if i < len(line) && line[i] == '-' {
		i++
	}
	digitsFrom := func(j int) int {
		for j < len(line) && '0' <= line[j] && line[j] <= '9' {
			j++
		}
		return j
	}
	switch {
	case i < len(line) && line[i] == '0':
		i++
	case i < len(line) && '1' <= line[i] && line[i] <= '9':
		i = digitsFrom(i)
	default:
		return bad()
	}
	if i < len(line) && line[i] == '.' {
		j := digitsFrom(i + 1)
		if j == i+1 {
			return bad()
		}
		i = j
	}
	if i < len(line) && (line[i] == 'e' || line[i] == 'E') {
		i++
		if i < len(line) && (line[i] == '+' || line[i] == '-') {
			i++
		}
		j := digitsFrom(i)
		if j == i {
			return bad()
		}
		i = j
	}
	return i, nil
}

func skipSpace(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n') {
		i++
	}
	return i
}
