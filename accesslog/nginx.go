package accesslog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// nginxFormat is a compiled log_format: lits[i] comes before vars[i], and
// lits[len(vars)] after the last variable.
type nginxFormat struct {
	lits       []string
	vars       []nginxVar
	names      []string // the variables' names, in order
	resolution time.Duration
}

// nginxVar is one $variable of a log_format.
type nginxVar struct {
	name string
	kind varKind
	// quoted is set when the variable sits between '"'s: its value runs
	// to the next '"' not escaped by a backslash.
	quoted bool
	// fixed is how the variable's value may be taken by a fixed width or
	// shape before looking for the literal after it (fixedNone, or by its
	// name: fixedTimeLocal, fixedISO, fixedMsec), precomputed so that
	// parse compares no names.
	fixed uint8
}

// How a variable's value may be found by its shape (nginxVar.fixed).
const (
	fixedNone      = iota
	fixedTimeLocal // $time_local: 26 bytes when they are a time
	fixedISO       // $time_iso8601: 25 bytes when they are a time
	fixedMsec      // $msec before a '.': its decimal
)

// varKind is how a variable's value is checked and read.
type varKind uint8

const (
	kindText      varKind = iota
	kindTimeLocal         // the record's time, from $time_local
	kindTimeISO           // the record's time, from $time_iso8601
	kindMsec              // the record's time, from $msec
	kindStatus            // $status
	kindInt               // $body_bytes_sent, $bytes_sent
	kindDecimal           // $request_time
)

// unquoteNginx joins the quoted strings of a log_format as nginx's
// configuration reads them; an unquoted spec is taken as it is.
func unquoteNginx(spec string) (string, error) {
	s := strings.TrimSpace(spec)
	s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	// nginx's escape= parameter, before the strings, as its
	// configuration writes it: every mode's escapes are read anyway
	// (appendUnescaped).
	for _, mode := range []string{"escape=json", "escape=default", "escape=none"} {
		if rest, ok := strings.CutPrefix(s, mode); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			s = strings.TrimSpace(rest)
			break
		}
	}
	if s == "" {
		return "", errors.New("empty")
	}
	if s[0] != '\'' && s[0] != '"' {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
		if i == len(s) {
			break
		}
		q := s[i]
		if q != '\'' && q != '"' {
			return "", fmt.Errorf("text outside quotes at offset %d", i)
		}
		start := i
		for i++; ; i++ {
			if i >= len(s) {
				return "", fmt.Errorf("string opened at offset %d is not closed", start)
			}
			c := s[i]
			if c == q {
				i++
				break
			}
			if c == '\\' && i+1 < len(s) {
				switch n := s[i+1]; n {
				case '\'', '"', '\\':
					b.WriteByte(n)
					i++
					continue
				case 't':
					b.WriteByte('\t')
					i++
					continue
				}
			}
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// compileNginx compiles a log_format layout.
func compileNginx(layout string) (*nginxFormat, error) {
	f := &nginxFormat{}
	lit := 0           // where the current literal began
	var timeVars []int // the variables that are times
	for i := 0; i < len(layout); {
		if layout[i] != '$' {
			i++
			continue
		}
		start := i
		var name string
		if i+1 < len(layout) && layout[i+1] == '{' {
			end := strings.IndexByte(layout[i+2:], '}')
			if end < 0 {
				return nil, fmt.Errorf("\"${\" at offset %d has no '}'", i)
			}
			name = layout[i+2 : i+2+end]
			i += 3 + end
		} else {
			j := i + 1
			for j < len(layout) && isNameByte(layout[j]) {
				j++
			}
			name = layout[i+1 : j]
			i = j
		}
		if name == "" || strings.IndexFunc(name, func(r rune) bool { return r > 127 || !isNameByte(byte(r)) }) >= 0 {
			return nil, fmt.Errorf("'$' at offset %d is not followed by a variable name", start)
		}
		if len(f.vars) > 0 && lit == start {
			return nil, fmt.Errorf("$%s at offset %d follows $%s with no text between them, so where one ends is unknown", name, start, f.vars[len(f.vars)-1].name)
		}
		f.lits = append(f.lits, layout[lit:start])
		v := nginxVar{name: name, kind: kindOf(name)}
		switch v.kind {
		case kindTimeLocal, kindTimeISO, kindMsec:
			timeVars = append(timeVars, len(f.vars))
		}
		f.vars = append(f.vars, v)
		lit = i
	}
	f.lits = append(f.lits, layout[lit:])
	if len(timeVars) == 0 {
		return nil, errors.New("no time variable ($time_local, $time_iso8601 or $msec)")
	}
	// The time is $msec's, the finest, or else the first time's; the
	// other times are fields like any other.
	timeVar := timeVars[0]
	for _, i := range timeVars {
		if f.vars[i].kind == kindMsec {
			timeVar = i
			break
		}
	}
	for _, i := range timeVars {
		if i != timeVar {
			f.vars[i].kind = kindText
			if f.vars[i].name == "msec" {
				f.vars[i].kind = kindDecimal
			}
		}
	}
	for _, v := range f.vars {
		f.names = append(f.names, v.name)
	}
	f.resolution = time.Second
	if f.vars[timeVar].kind == kindMsec {
		f.resolution = time.Millisecond
	}
	for i := range f.vars {
		before, after := f.lits[i], f.lits[i+1]
		f.vars[i].quoted = strings.HasSuffix(before, `"`) && strings.HasPrefix(after, `"`)
		switch f.vars[i].name {
		case "time_local":
			f.vars[i].fixed = fixedTimeLocal
		case "time_iso8601":
			f.vars[i].fixed = fixedISO
		case "msec":
			if after != "" && after[0] == '.' {
				f.vars[i].fixed = fixedMsec
			}
		}
	}
	return f, nil
}

func isNameByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func kindOf(name string) varKind {
	switch name {
	case "time_local":
		return kindTimeLocal
	case "time_iso8601":
		return kindTimeISO
	case "msec":
		return kindMsec
	case "status":
		return kindStatus
	case "body_bytes_sent", "bytes_sent":
		return kindInt
	case "request_time":
		return kindDecimal
	}
	return kindText
}

// nginxParser reads lines of one log_format, remembering the last
// $time_local it read so that a run of lines in one second parses it once.
type nginxParser struct {
	f        *nginxFormat
	lastText [26]byte
	lastTime int64
	hasLast  bool
}

func (p *nginxParser) resolution() time.Duration { return p.f.resolution }

func (p *nginxParser) parse(rec *Record) error {
	f := p.f
	line := rec.buf
	rec.names = f.names
	// The spans are written here, not through rec, and by index: faster.
	spans := rec.spans[:0]
	if cap(spans) < len(f.vars) {
		spans = make([]span, 0, len(f.vars))
	}
	spans = spans[:len(f.vars)]
	lits := f.lits[:len(f.vars)+1]
	kept := 0
	pos := 0
	for i := range f.vars {
		v := &f.vars[i]
		// The literal before the variable: a byte compare for the usual
		// one-byte literal, matchLiteral for the error.
		switch lit := lits[i]; {
		case len(lit) == 1 && pos < len(line) && line[pos] == lit[0]:
			pos++
		case len(lit) == 0:
		case len(lit) == 2 && len(line)-pos >= 2 && line[pos] == lit[0] && line[pos+1] == lit[1]:
			pos += 2
		case len(lit) == 3 && len(line)-pos >= 3 && line[pos] == lit[0] && line[pos+1] == lit[1] && line[pos+2] == lit[2]:
			pos += 3
		case len(line)-pos >= len(lit) && string(line[pos:pos+len(lit)]) == lit:
			pos += len(lit)
		default:
			return matchLiteral(line, pos, lit)
		}
		start, end := pos, 0
		escaped := false
		switch {
		case v.quoted:
			end, escaped = scanQuotedFast(line, pos)
			if end < 0 {
				return fmt.Errorf("no closing '\"' for $%s opened at column %d", v.name, start)
			}
		case v.fixed == fixedTimeLocal && len(line)-pos >= 26 && p.isTimeLocal(line[pos:pos+26]):
			// Times hold ':', ' ', '-' and '+', which a layout may have
			// after them: they are taken by their fixed width. The time
			// is the one isTimeLocal just read or remembered.
			if v.kind == kindTimeLocal {
				rec.Time = p.lastTime
			}
			spans[kept] = span{name: int32(i), v0: int32(pos), v1: int32(pos + 26)}
			kept++
			pos += 26
			continue
		case v.fixed == fixedISO && len(line)-pos >= 25 && isISO(line[pos:pos+25]):
			end = pos + 25
		case v.fixed == fixedMsec:
			end = pos + len(decimalPrefix(line[pos:]))
		case lits[i+1] != "":
			// Unquoted values are short: a loop beats IndexByte's call.
			stop := lits[i+1][0]
			end = pos
			end = indexEither(line, pos, stop)
			if end < len(line) && line[end] == '\\' && stop != '\\' {
				escaped = true
				for end < len(line) && line[end] != stop {
					end++
				}
			}
			if end == len(line) {
				return fmt.Errorf("no %s after $%s at column %d", quoteByte(stop), v.name, start+1)
			}
		default:
			end = len(line)
			escaped = bytes.IndexByte(line[pos:end], '\\') >= 0
		}
		pos = end
		if !escaped {
			// The common cases, without value's call: kept as they are,
			// unless "-"; a status or a whole number checked here when
			// it is plain digits (value says what is wrong otherwise).
			switch raw := line[start:end]; v.kind {
			case kindText:
				if len(raw) != 1 || raw[0] != '-' {
					spans[kept] = span{name: int32(i), v0: int32(start), v1: int32(end)}
					kept++
				}
				continue
			case kindStatus:
				if n, ok := plainStatus(raw); ok {
					rec.Status = n
					spans[kept] = span{name: int32(i), v0: int32(start), v1: int32(end)}
					kept++
					continue
				}
			case kindInt:
				if plainDigits(raw) {
					spans[kept] = span{name: int32(i), v0: int32(start), v1: int32(end)}
					kept++
					continue
				}
			}
		}
		v0, v1, keep, err := p.value(rec, v, line[start:end], start, escaped)
		if err != nil {
			rec.spans = spans[:kept]
			return err
		}
		if keep {
			spans[kept] = span{name: int32(i), v0: int32(v0), v1: int32(v1)}
			kept++
		}
		// value may have appended to rec.buf; line still holds the line.
	}
	rec.spans = spans[:kept]
	last := lits[len(f.vars)]
	if err := matchLiteral(line, pos, last); err != nil {
		return err
	}
	if pos += len(last); pos != len(line) {
		return fmt.Errorf("unexpected text at column %d", pos+1)
	}
	return nil
}

// value checks one variable's value raw, which is
// rec.buf[start:start+len(raw)], and says where it is kept: at
// rec.buf[v0:v1] (unescaped and appended to rec.buf when escaped), or
// not at all (keep false) for "-".
func (p *nginxParser) value(rec *Record, v *nginxVar, raw []byte, start int, escaped bool) (v0, v1 int, keep bool, err error) {
	switch v.kind {
	case kindTimeLocal:
		if p.hasLast && string(raw) == string(p.lastText[:]) {
			rec.Time = p.lastTime
			break
		}
		t, ok := parseTimeLocal(raw)
		if !ok {
			return 0, 0, false, fmt.Errorf("time_local %s is not a time like 10/Oct/2000:13:55:36 -0700", quoteValue(raw))
		}
		copy(p.lastText[:], raw)
		p.lastTime, p.hasLast, rec.Time = t, true, t
	case kindTimeISO:
		t, _, ok := parseRFC3339(raw)
		if !ok {
			return 0, 0, false, fmt.Errorf("time_iso8601 %s is not a time like 2000-10-10T13:55:36-07:00", quoteValue(raw))
		}
		rec.Time = t
	case kindMsec:
		t, _, ok := parseEpoch(raw, unitSecond)
		if !ok {
			return 0, 0, false, fmt.Errorf("msec %s is not a time like 1700000000.123", quoteValue(raw))
		}
		rec.Time = t
	}
	if len(raw) == 1 && raw[0] == '-' {
		return 0, 0, false, nil // nginx's and Apache's empty value
	}
	switch v.kind {
	case kindStatus:
		n, ok := parseStatus(raw)
		if !ok {
			return 0, 0, false, fmt.Errorf("status %s is not a number", quoteValue(raw))
		}
		rec.Status = n
	case kindInt:
		if _, ok := wholeNumber(raw); !ok {
			return 0, 0, false, fmt.Errorf("%s %s is not a number", v.name, quoteValue(raw))
		}
	case kindDecimal:
		if _, _, ok := splitDecimal(raw); !ok {
			return 0, 0, false, fmt.Errorf("%s %s is not a number", v.name, quoteValue(raw))
		}
	}
	if !escaped {
		return start, start + len(raw), true, nil
	}
	v0 = len(rec.buf)
	rec.buf = appendUnescaped(rec.buf, raw)
	return v0, len(rec.buf), true, nil
}

// isTimeLocal reports whether b is a $time_local, remembering it.
func (p *nginxParser) isTimeLocal(b []byte) bool {
	if p.hasLast && len(b) == 26 && sameTimeLocal(b, &p.lastText) {
		return true
	}
	t, ok := parseTimeLocal(b)
	if ok {
		copy(p.lastText[:], b)
		p.lastTime, p.hasLast = t, true
	}
	return ok
}

// sameTimeLocal reports whether the 26 bytes of b are last's, by four
// word loads each rather than a call to compare them.
func sameTimeLocal(b []byte, last *[26]byte) bool {
	b = b[:26]
	le := binary.LittleEndian
	return le.Uint64(b) == le.Uint64(last[:]) &&
		le.Uint64(b[8:]) == le.Uint64(last[8:]) &&
		le.Uint64(b[16:]) == le.Uint64(last[16:]) &&
		le.Uint16(b[24:]) == le.Uint16(last[24:])
}

// isISO reports whether b is a $time_iso8601 as nginx writes it.
func isISO(b []byte) bool {
	_, _, ok := parseRFC3339(b)
	return ok
}

// decimalPrefix is the longest prefix of b that is digits, or digits, a
// '.' and digits.
func decimalPrefix(b []byte) []byte {
	i := 0
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(b) && b[i] == '.' && '0' <= b[i+1] && b[i+1] <= '9' {
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	}
	return b[:i]
}

// plainStatus reads a status of one to three digits; ok is false for
// anything else, "-" included.
func plainStatus(b []byte) (int, bool) {
	switch len(b) {
	case 3:
		c0, c1, c2 := b[0]-'0', b[1]-'0', b[2]-'0'
		if c0 > 9 || c1 > 9 || c2 > 9 {
			return 0, false
		}
		return int(c0)*100 + int(c1)*10 + int(c2), true
	case 1, 2:
		if b[0] == '-' {
			return 0, false
		}
		return parseStatus(b)
	}
	return 0, false
}

// plainDigits reports whether b is one to 18 decimal digits, a whole
// number wholeNumber reads.
func plainDigits(b []byte) bool {
	if len(b) == 0 || len(b) > 18 {
		return false
	}
	for _, c := range b {
		if c-'0' > 9 {
			return false
		}
	}
	return true
}

// parseStatus reads a status code: one to three digits.
func parseStatus(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 3 {
		return 0, false
	}
	return digits(b)
}

// matchLiteral checks that line has lit at pos.
func matchLiteral(line []byte, pos int, lit string) error {
	switch {
	case len(lit) == 1 && pos < len(line) && line[pos] == lit[0]:
		return nil
	case len(line)-pos >= len(lit) && string(line[pos:pos+len(lit)]) == lit:
		return nil
	}
	for i := 0; i < len(lit); i++ {
		if pos+i >= len(line) || line[pos+i] != lit[i] {
			return fmt.Errorf("expected %s at column %d", quoteByte(lit[i]), pos+i+1)
		}
	}
	return nil
}

// scanQuoted finds the '"' that closes a quoted value starting at pos,
// skipping a backslash and the byte after it; -1 when there is none.
// escaped says whether the value has a backslash.
func scanQuoted(line []byte, pos int) (end int, escaped bool) {
	for i := pos; i <= len(line); {
		j := bytes.IndexByte(line[i:], '"')
		if j < 0 {
			return -1, escaped
		}
		k := bytes.IndexByte(line[i:i+j], '\\')
		if k < 0 {
			return i + j, escaped
		}
		escaped = true
		i += k + 2
	}
	return -1, escaped
}

// scanQuotedFast is scanQuoted, in one pass over the value for the '"'
// or '\\' that comes first: most values have no backslash and end at
// the first '"'; one with a backslash is left to scanQuoted.
func scanQuotedFast(line []byte, pos int) (end int, escaped bool) {
	i := indexEither(line, pos, '"')
	switch {
	case i == len(line):
		return -1, false
	case line[i] == '"':
		return i, false
	}
	return scanQuoted(line, pos)
}

// indexEither is the index of the first byte from pos on that is stop or
// '\\', len(line) when there is none. It looks at eight bytes at a time.
func indexEither(line []byte, pos int, stop byte) int {
	const (
		lo    = 0x0101010101010101
		hi    = 0x8080808080808080
		slash = lo * '\\'
	)
	stops := lo * uint64(stop)
	i := pos
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:])
		q, s := x^stops, x^slash
		// A byte of q or s is zero where x has stop or a '\\'; the
		// lowest such byte is found exactly.
		if t := ((q-lo)&^q | (s-lo)&^s) & hi; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	for ; i < len(line); i++ {
		if c := line[i]; c == stop || c == '\\' {
			return i
		}
	}
	return len(line)
}

// backslashed is what Apache's \c stands for, by c: 0 for a c that is no
// such escape.
var backslashed = [256]byte{'"': '"', '\\': '\\', 'n': '\n', 'r': '\r', 't': '\t', 'b': '\b', 'v': '\v', 'f': '\f'}

// appendUnescaped appends s to dst with the escapes nginx and Apache
// write undone: \xHH (nginx's for '"', '\' and bytes outside printable
// ASCII; Apache's for the other bytes outside it), \" and \\ (Apache's,
// and nginx's with escape=json), \n, \r, \t, \b, \v (Apache's), \f and
// \uXXXX (nginx's with escape=json). No format writes a backslash
// unescaped, so each mode's escapes are read in any. Any other backslash
// is kept as it is.
func appendUnescaped(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			dst = append(dst, c)
			continue
		}
		switch n := s[i+1]; {
		case backslashed[n] != 0:
			dst = append(dst, backslashed[n])
			i++
		case n == 'u':
			if r, ok := hex4(s, i+2); ok {
				dst = utf8.AppendRune(dst, r)
				i += 5
				continue
			}
			dst = append(dst, c)
		case n == 'x':
			if i+3 < len(s) && isHex(s[i+2]) && isHex(s[i+3]) {
				dst = append(dst, unhex(s[i+2])<<4|unhex(s[i+3]))
				i += 3
				continue
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// quoteByte shows one byte of a line in an error: '[' or '\x16'.
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f && c != '\'' {
		return "'" + string(rune(c)) + "'"
	}
	return fmt.Sprintf("'\\x%02x'", c)
}

// quoteValue shows a value in an error, Go-quoted, its first 64 bytes
// and "..." when it is longer.
func quoteValue(b []byte) string {
	if len(b) > 64 {
		return strconv.Quote(string(b[:64])) + "..."
	}
	return strconv.Quote(string(b))
}
