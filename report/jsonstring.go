package report

import "unicode/utf8"

// appendJSONString appends s as a JSON string, quoted, exactly as
// encoding/json's Marshal writes a string: `"` and `\` escaped; \b, \f, \n,
// \r and \t as such and other bytes below 0x20 as \u00XX; <, > and & as
// \u003c, \u003e and \u0026 (Marshal's HTML escaping); U+2028 and U+2029
// as \u2028 and \u2029; and each byte of invalid UTF-8 as \ufffd.
func appendJSONString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	if !validUTF8(s) {
		return append(appendJSONInvalid(b, s), '"')
	}
	// Valid UTF-8: only the ASCII bytes to escape and the last bytes of
	// U+2028 and U+2029 (E2 80 A8 and A9) need a look.
	start := 0
	for i := 0; i < len(s); {
		i = skipPlain(s, i)
		if i == len(s) {
			break
		}
		switch c := s[i]; {
		case c >= utf8.RuneSelf: // A8 or A9
			if i < 2 || s[i-2] != 0xE2 || s[i-1] != 0x80 {
				i++ // of another rune
				continue
			}
			b = append(b, s[start:i-2]...) // start ≤ i-2: E2 and 80 were not escaped
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i++
		default:
			b = append(b, s[start:i]...)
			b = appendJSONEscape(b, c)
			i++
		}
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// skipPlain is the index of the first byte of s from i on that is not
// jsonPlain, or len(s). It tests eight bytes at a time while it can (a
// byte below 0x20, or equal to one of the seven others), with the usual bit
// tricks: a test of "some byte is zero" or "some byte is below n" is
// exact, whatever the borrows do to the bytes after the first that is.
func skipPlain[T string | []byte](s T, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		x := load64(s, i)
		q, bs, lt, gt, amp, a8, a9 := x^'"'*ones, x^'\\'*ones, x^'<'*ones, x^'>'*ones, x^'&'*ones, x^0xA8*ones, x^0xA9*ones
		if ((x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs|(lt-ones)&^lt|(gt-ones)&^gt|(amp-ones)&^amp|(a8-ones)&^a8|(a9-ones)&^a9)&highs != 0 {
			break
		}
	}
	for i < len(s) && jsonPlain[s[i]] {
		i++
	}
	return i
}

// load64 is s[i:i+8] as a little-endian word (the compiler makes it one
// load).
func load64[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// appendJSONInvalid is appendJSONString's loop for a string that is not
// valid UTF-8, without the quotes: it decodes every rune.
func appendJSONInvalid[T string | []byte](b []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendJSONEscape(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))])) // ≤ 4 bytes: no allocation
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(b, s[start:]...)
}

// validUTF8 reports whether s is valid UTF-8, for either of
// appendJSONString's types.
func validUTF8[T string | []byte](s T) bool {
	switch v := any(s).(type) {
	case string:
		return utf8.ValidString(v)
	case []byte:
		return utf8.Valid(v)
	}
	return false
}

const hexDigits = "0123456789abcdef"

// jsonPlain tells the bytes that appendJSONString copies as they are
// without a second look: the ASCII bytes but controls, `"`, `\`, <, > and
// &, and, in valid UTF-8, the bytes of multi-byte runes but A8 and A9 (the
// last of U+2028 and U+2029, E2 80 A8 and A9; the first, E2, begins most
// of the explanations' symbols). appendJSONInvalid reads only its ASCII
// half.
var jsonPlain = func() (plain [256]bool) {
	for c := 0x20; c < 256; c++ {
		plain[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c != 0xA8 && c != 0xA9
	}
	return plain
}()

// appendJSONEscape appends the escape of an ASCII byte that is not plain.
func appendJSONEscape(b []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
