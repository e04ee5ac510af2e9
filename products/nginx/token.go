package nginx

import "fmt"

// tokenEnd is how a directive's words end.
type tokenEnd uint8

const (
	directiveDone tokenEnd = iota // ";"
	blockStart                    // "{"
	blockDone                     // "}", with no words before it
	fileDone                      // the end of the file, with no words before it
)

// tokenizer splits a file into directives as ngx_conf_read_token does: words
// are separated by spaces, tabs and line breaks; ";" ends a directive and
// "{" starts its block, also inside a word; "}" closes a block only where
// a word could start; "#" starts a comment only where a word could start;
// a word that starts with a quote runs to the same quote and must be
// followed by a space, ";", "{" or ")"; a backslash makes the next
// character part of the word, and the word keeps it unless it is \", \',
// \\ (the character alone) or \t, \r, \n (a tab, return or line feed);
// "${" does not start a block.
type tokenizer struct {
	src []byte
	i   int
	pos Pos // the current line
	at  Pos // where the last token ended, for messages
}

// next reads the next directive's words and how they end, with the line
// where its first word starts.
func (t *tokenizer) next() (words []string, end tokenEnd, start Pos, err error) {
	var (
		needSpace, lastSpace      = false, true
		comment, quoted, variable bool
		sQuoted, dQuoted          bool
		wordStart                 int
		line                      = t.pos
	)
	start = t.pos
	word := func(endAt int) {
		words = append(words, unescape(t.src[wordStart:endAt]))
	}
	for {
		if t.i >= len(t.src) {
			t.at = t.pos
			if len(words) > 0 || !lastSpace {
				return nil, 0, start, &Error{t.pos, `unexpected end of file, expecting ";" or "}"`}
			}
			return nil, fileDone, start, nil
		}
		ch := t.src[t.i]
		t.i++
		if ch == '\n' {
			t.pos.Line++
			comment = false
		}
		if comment {
			continue
		}
		if quoted {
			quoted = false
			continue
		}
		if needSpace {
			switch ch {
			case ' ', '\t', '\r', '\n':
				lastSpace, needSpace = true, false
				continue
			case ';':
				t.at = t.pos
				return words, directiveDone, start, nil
			case '{':
				t.at = t.pos
				return words, blockStart, start, nil
			case ')':
				lastSpace, needSpace = true, false
			default:
				return nil, 0, start, &Error{t.pos, fmt.Sprintf("unexpected %q", string(ch))}
			}
		}
		if lastSpace {
			wordStart = t.i - 1
			line = t.pos
			switch ch {
			case ' ', '\t', '\r', '\n':
				continue
			case ';', '{':
				t.at = t.pos
				if len(words) == 0 {
					return nil, 0, start, &Error{t.pos, fmt.Sprintf("unexpected %q", string(ch))}
				}
				if ch == '{' {
					return words, blockStart, start, nil
				}
				return words, directiveDone, start, nil
			case '}':
				t.at = t.pos
				if len(words) != 0 {
					return nil, 0, start, &Error{t.pos, `unexpected "}"`}
				}
				return nil, blockDone, start, nil
			case '#':
				comment = true
				continue
			case '\\':
				quoted, lastSpace = true, false
				continue
			case '"':
				wordStart++
				dQuoted, lastSpace = true, false
				continue
			case '\'':
				wordStart++
				sQuoted, lastSpace = true, false
				continue
			case '$':
				variable, lastSpace = true, false
				continue
			default:
				lastSpace = false
			}
			if len(words) == 0 {
				start = line
			}
			continue
		}
		if ch == '{' && variable {
			continue
		}
		variable = false
		if ch == '\\' {
			quoted = true
			continue
		}
		if ch == '$' {
			variable = true
			continue
		}
		found := false
		switch {
		case dQuoted:
			if ch == '"' {
				dQuoted, needSpace, found = false, true, true
			}
		case sQuoted:
			if ch == '\'' {
				sQuoted, needSpace, found = false, true, true
			}
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ';' || ch == '{':
			lastSpace, found = true, true
		}
		if found {
			if len(words) == 0 {
				start = line
			}
			word(t.i - 1)
			switch ch {
			case ';':
				t.at = t.pos
				return words, directiveDone, start, nil
			case '{':
				t.at = t.pos
				return words, blockStart, start, nil
			}
		}
	}
}

// unescape copies a word as nginx does: \" \' \\ become the character,
// \t \r \n a tab, return and line feed; any other backslash stays.
func unescape(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			switch b[i+1] {
			case '"', '\'', '\\':
				i++
			case 't':
				out, i = append(out, '\t'), i+1
				continue
			case 'r':
				out, i = append(out, '\r'), i+1
				continue
			case 'n':
				out, i = append(out, '\n'), i+1
				continue
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}
