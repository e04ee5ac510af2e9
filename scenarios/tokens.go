package scenarios

// tokenCount counts data's YAML tokens about the way the YAML lexer cuts
// them, never far below its count (FuzzTokenCount), without allocating.
// Every bracket, comma, tab, comment, reserved character (% @ `), double
// quote and most single quotes count one; so do a block indicator (- ? :
// followed by a space) and a ":" inside brackets; an anchor, alias or tag
// counts two wherever it is; and every run of other text that starts a
// line or follows one of these counts one. Text spanning lines, quoted or
// block text (| or >) among them, thus counts once per line and once per
// punctuation in it: more than the lexer's one, but telling where such
// text ends as the lexer does would take its quoting and indentation
// rules, and a mistake there would let a file hide tokens from the count.
// It stops as soon as the count exceeds limit and returns the byte offset
// where it did, or len(data).
func tokenCount(data []byte, limit int) (n, offset int) {
	depth := 0        // flow nesting: [ and {
	start := true     // the next non-blank byte starts a token
	lineStart := 0    // offset of the current line
	prefixed := false // the latest token is a tag, anchor or alias, which a space ends
	words := false    // the line is a directive, whose words are tokens
	quoted := false   // a single quote began the latest value
	blank := func(i int) bool {
		return i >= len(data) || data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'
	}
	for i := 0; i < len(data); i++ {
		if n > limit {
			return n, i
		}
		c := data[i]
		switch {
		case c == '\n' || c == '\r': // YAML breaks lines at either
			start, lineStart, prefixed, words, quoted = true, i+1, false, false, false
			continue
		case c == ' ' || c == '\t':
			if c == '\t' {
				n++ // a tab may be an error token of its own
			}
			if prefixed || words {
				start, prefixed = true, false
			}
			continue
		case c == '#' && (i == lineStart || blank(i-1)):
			n++
			for i < len(data) && data[i] != '\n' && data[i] != '\r' {
				i++
			}
			i-- // the newline is handled above
			continue
		}
		if c == '&' || c == '*' || c == '!' {
			// An anchor, an alias or a tag: the indicator, then its name
			// up to a space. They count wherever they are, since the
			// lexer, recovering from an error, may read one anywhere.
			n, start, prefixed = n+2, false, true
			continue
		}
		switch c {
		case '[', ']', '{', '}', '"', '\'':
			if prefixed { // these end an anchor's, alias's or tag's name
				start, prefixed = true, false
			}
		}
		switch {
		case c == '[' || c == '{':
			n, depth, start = n+1, depth+1, true
			continue
		case c == ']' || c == '}':
			n, depth, start = n+1, max(depth-1, 0), true
			continue
		case c == ',' || c == ':' && (depth > 0 || blank(i+1)):
			// Brackets and commas are punctuation only in flow, and a
			// ":" there needs no space after it; but they count
			// anywhere, as a mismatched bracket can make any text flow.
			n, start = n+1, true
			continue
		}
		if c == '%' || c == '@' || c == '`' {
			// The characters YAML reserves: the lexer may cut a token at
			// each, except inside quoted text.
			n, start = n+1, true
			words = words || c == '%' // a directive: one token a word
			continue
		}
		// Quoted text is one token, but where it ends takes the quoting
		// rules, and a quote may quote nothing at all where it continues
		// a value: so every double quote counts, and every single quote
		// that starts a token, touches another or follows one in the
		// same value (an apostrophe in prose does none of these).
		if c == '"' || c == '\'' && (start || quoted || data[i-1] == '\'' || i+1 < len(data) && data[i+1] == '\'') {
			n, start, prefixed, quoted = n+1, true, false, c == '\''
			continue
		}
		if !start {
			continue // inside a value
		}
		n, start, prefixed = n+1, false, false
		switch c {
		case '-', '?':
			if blank(i + 1) {
				start = true
			}
		case '|', '>': // a block text's indicator, then its text
			n++
		}
	}
	return n, len(data)
}
