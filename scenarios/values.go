package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"ratelab/algorithms"
)

// scalar returns the field's value node after rejecting tags and anchors.
func (f *fields) scalar(name string) (ast.Node, error) {
	fd, _ := f.get(name)
	return f.d.plain(fd.value, child(f.path, name))
}

// text reads a string field. Any scalar is read as the text written; want
// describes the field for errors. ok is false when the field is absent.
func (f *fields) text(name, want string, multiline bool) (s string, ok bool, err error) {
	if !f.has(name) {
		return "", false, nil
	}
	n, err := f.scalar(name)
	if err != nil {
		return "", false, err
	}
	switch v := n.(type) {
	case *ast.StringNode:
		s = v.Value
	case *ast.LiteralNode:
		s = v.Value.Value
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		s = v.GetToken().Value
	default:
		return "", false, f.errorf(name, "want %s, got %s", want, describe(n))
	}
	if err := checkText(s, multiline); err != nil {
		return "", false, f.errorf(name, "want %s%s", want, err.Error())
	}
	return s, true, nil
}

// requiredText reads a string field that must be present and not blank.
func (f *fields) requiredText(name, want string, multiline bool) (string, error) {
	s, ok, err := f.text(name, want, multiline)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", f.missing(name, want)
	}
	if strings.TrimSpace(s) == "" {
		return "", f.errorf(name, "want %s, got blank text", want)
	}
	return s, nil
}

// checkText refuses control characters (line breaks and tabs too unless
// multiline), the bidirectional formatting characters and the characters
// no text should hold (see notText); the error reads on from "want …".
func checkText(s string, multiline bool) error {
	bad := func(r rune) bool {
		return unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\t')) || IsBidiControl(r) || notText(r) != ""
	}
	i := strings.IndexFunc(s, bad)
	if i < 0 {
		return nil
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == '\n':
		return errors.New(" on one line, got a line break")
	case IsBidiControl(r):
		return fmt.Errorf(", got the bidirectional formatting character %U, which would reorder the text around it on a terminal", r)
	case notText(r) != "":
		return fmt.Errorf(", got %s", notText(r))
	}
	return fmt.Errorf(", got the control character %U", r)
}

// notText describes r if it is a character that Unicode or YAML keeps out
// of text, though it is no control character: the line and paragraph
// separators (U+2028, U+2029), which YAML 1.1 reads as line breaks and a
// terminal shows as none; U+FEFF, a byte order mark, which belongs only at
// the start of a file; and the noncharacters (U+FDD0–U+FDEF, and U+FFFE and
// U+FFFF of every plane). It is "" for any other character.
func notText(r rune) string {
	switch {
	case r == 0x2028:
		return "the line separator U+2028, which a terminal does not show as a line break"
	case r == 0x2029:
		return "the paragraph separator U+2029, which a terminal does not show as a line break"
	case r == 0xFEFF:
		return "U+FEFF, a byte order mark, which belongs only at the start of a file"
	case r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE:
		return fmt.Sprintf("the noncharacter %U, which is not text", r)
	}
	return ""
}

// IsBidiControl reports whether r is one of Unicode's explicit
// bidirectional formatting characters (embeddings, overrides, isolates and
// their terminators, U+202A–U+202E and U+2066–U+2069) or a directional mark
// (U+200E, U+200F, U+061C): invisible characters that change the order in
// which a terminal shows the text around them, so that a key or a title can
// look like something else. Scenario texts and keys may not hold them.
func IsBidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// CheckKey refuses a request key that a scenario file could not hold: empty,
// longer than 64 bytes, not UTF-8, or holding a control or bidirectional
// formatting character.
func CheckKey(key string) error {
	switch {
	case key == "" || len(key) > maxKeyLen:
		return fmt.Errorf("want a key of 1 to %d bytes, got %s", maxKeyLen, strconv.Quote(shorten(key)))
	case !utf8.ValidString(key):
		return fmt.Errorf("want a key of UTF-8 text, got %s", strconv.Quote(shorten(key)))
	}
	if err := checkText(key, false); err != nil {
		return errors.New("want a key" + err.Error())
	}
	return nil
}

// optionalKey reads the field key: left out, ok is false; written, it must
// be a key of 1 to 64 bytes. A null (key:, key: ~ or key: null) is refused
// rather than read as left out, which would make it the default key (on a
// traffic item) or every key (in expect and quiz) without a word.
func (f *fields) optionalKey() (key string, ok bool, err error) {
	if f.present("key") && !f.has("key") {
		return "", false, f.errorf("key", "want a key of 1 to %d bytes, got nothing", maxKeyLen)
	}
	if key, ok, err = f.text("key", "a key", false); err != nil || !ok {
		return "", false, err
	}
	if key == "" || len(key) > maxKeyLen {
		return "", false, f.errorf("key", "want a key of 1 to %d bytes, got %s", maxKeyLen, strconv.Quote(shorten(key)))
	}
	return key, true, nil
}

// integer reads a whole-number field in [lo, hi].
func (f *fields) integer(name string, lo, hi int64) (v int64, ok bool, err error) {
	if !f.has(name) {
		return 0, false, nil
	}
	n, err := f.scalar(name)
	if err != nil {
		return 0, false, err
	}
	want := fmt.Sprintf("a whole number from %d to %d", lo, hi)
	if lo == 1 && hi == algorithms.MaxCount {
		want = "a positive whole number (at most 2^40)"
	}
	v, isInt := wholeNumber(n)
	if !isInt {
		if tk := n.GetToken(); tk != nil && tk.Type == token.StringType && strings.Trim(tk.Value, "0123456789") == "" {
			return 0, false, f.errorf(name, "want %s, got %s, which is far too large", want, shorten(tk.Value))
		}
		return 0, false, f.errorf(name, "want %s, got %s", want, describe(n))
	}
	if v < lo || v > hi {
		return 0, false, f.errorf(name, "want %s, got %d", want, v)
	}
	return v, true, nil
}

// wholeNumber reads a plain decimal integer, such as 120 or -3. Other
// notations YAML knows (+10, 0x10, 0o17, 1_000, and 010 as octal) are refused,
// so that what the file says is what the limiter gets.
func wholeNumber(n ast.Node) (int64, bool) {
	switch n.(type) {
	case *ast.IntegerNode, *ast.StringNode:
	default:
		return 0, false
	}
	tk := n.GetToken()
	if tk == nil || (tk.Type != token.IntegerType && tk.Type != token.StringType) {
		return 0, false
	}
	text := tk.Value
	digits := strings.TrimPrefix(text, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseInt(text, 10, 64)
	return v, err == nil
}

// duration reads a Go duration field in [0, MaxTime], or (0, MaxTime] when
// positive. A bare 0 is accepted where zero is.
func (f *fields) duration(name string, positive bool) (d time.Duration, ok bool, err error) {
	if !f.has(name) {
		return 0, false, nil
	}
	n, err := f.scalar(name)
	if err != nil {
		return 0, false, err
	}
	want := "a Go duration such as 1.5s or 0s"
	if positive {
		want = "a positive Go duration such as 60s"
	}
	switch v := n.(type) {
	case *ast.StringNode:
		d, err = time.ParseDuration(strings.TrimSpace(v.Value))
		if err != nil {
			return 0, false, f.errorf(name, "want %s, got %s", want, describe(n))
		}
	case *ast.IntegerNode:
		if x, isInt := wholeNumber(v); !isInt || x != 0 || positive {
			return 0, false, f.errorf(name, "want %s (a number needs a unit), got %s", want, describe(n))
		}
	default:
		return 0, false, f.errorf(name, "want %s, got %s", want, describe(n))
	}
	switch {
	case d < 0 || (positive && d == 0):
		return 0, false, f.errorf(name, "want %s, got %s", want, describe(n))
	case d > MaxTime:
		return 0, false, f.errorf(name, "want %s of at most %s (a year), got %s", want, algorithms.FormatDuration(MaxTime), describe(n))
	}
	return d, true, nil
}

// ParseDuration reads text as a scenario file reads the value of a duration
// field such as `until: TEXT`, with the same rules and the same words: a Go
// duration in [0, MaxTime], or in (0, MaxTime] when positive, and a bare
// number is refused because it needs a unit. The error has no file position:
// "want a positive Go duration such as 60s (a number needs a unit), got 61".
func ParseDuration(text string, positive bool) (time.Duration, error) {
	d := &decoder{}
	n, err := d.parseYAML([]byte(text))
	if _, null := n.(*ast.NullNode); err != nil || null {
		n = ast.String(token.New(text, text, &token.Position{}))
	}
	f := &fields{d: d, node: n, fields: []field{{name: "", key: n, value: n}}}
	v, _, err := f.duration("", positive)
	if e, ok := err.(*Error); ok {
		return 0, errors.New(e.Msg)
	}
	return v, err
}

func (f *fields) rate(name string) (algorithms.Rate, error) {
	n, err := f.scalar(name)
	if err != nil {
		return algorithms.Rate{}, err
	}
	s, ok := n.(*ast.StringNode)
	if !ok {
		return algorithms.Rate{}, f.errorf(name, "want a rate N/D such as 2/s, 120/min or 1/500ms, got %s", describe(n))
	}
	// ParseRate forgives spaces around N, / and D; a file writes a rate as
	// the format shows it, so that "2 / s" is not read one way here and
	// another by a reader of the format.
	if strings.IndexFunc(s.Value, unicode.IsSpace) >= 0 {
		return algorithms.Rate{}, f.errorf(name, "rate %s: want N/D without spaces, such as 2/s", strconv.Quote(shorten(s.Value)))
	}
	r, err := algorithms.ParseRate(s.Value)
	if err != nil {
		return algorithms.Rate{}, f.errorf(name, "%s", oneLine(err.Error()))
	}
	// D bounds like any duration of a file: a lane's D can be the default
	// peak window, which --peak-window caps there too.
	if r.Per > MaxTime {
		return algorithms.Rate{}, f.errorf(name, "rate %s: D must be at most %s (a year), as every duration of a scenario", strconv.Quote(shorten(s.Value)), algorithms.FormatDuration(MaxTime))
	}
	return r, nil
}

// flag reads true or false.
func (f *fields) flag(name string) (bool, error) {
	n, err := f.scalar(name)
	if err != nil {
		return false, err
	}
	b, ok := n.(*ast.BoolNode)
	if !ok {
		return false, f.errorf(name, "want true or false, got %s", describe(n))
	}
	return b.Value, nil
}

// size reads a size as nginx writes one: "10m", "64k" or bytes
// (algorithms.ParseSize); want says what it must be.
func (f *fields) size(name, want string) (int64, error) {
	s, _, err := f.text(name, want, false)
	if err != nil {
		return 0, err
	}
	v, err := algorithms.ParseSize(s)
	if err != nil {
		return 0, f.errorf(name, "want %s: %v", want, err)
	}
	return v, nil
}

// choice reads name as one of among's words, returning its index; ok is
// false when the file leaves it out.
func (f *fields) choice(name string, among []string) (i int, ok bool, err error) {
	v, ok, err := f.text(name, "one of "+strings.Join(among, ", "), false)
	if err != nil || !ok {
		return 0, false, err
	}
	i = slices.Index(among, v)
	if i < 0 {
		return 0, false, f.errorf(name, "want one of %s, got %s", strings.Join(among, ", "), strconv.Quote(shorten(v)))
	}
	return i, true, nil
}

// list reads a list field; absent and null read as an empty list.
func (f *fields) list(name, want string) ([]ast.Node, error) {
	if !f.has(name) {
		return nil, nil
	}
	n, err := f.scalar(name)
	if err != nil {
		return nil, err
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, f.errorf(name, "want %s, got %s", want, describe(n))
	}
	return seq.Values, nil
}

// listOf decodes the list field name with item, which is given each node
// and its path. It returns the items and their fields, which the checks
// that need the whole scenario blame.
func listOf[T any](f *fields, name, want string, item func(n ast.Node, path string) (T, *fields, error)) ([]T, []*fields, error) {
	nodes, err := f.list(name, want)
	if err != nil {
		return nil, nil, err
	}
	vs := make([]T, 0, len(nodes))
	fs := make([]*fields, len(nodes))
	for i, n := range nodes {
		v, vf, err := item(n, index(name, i))
		if err != nil {
			return nil, nil, err
		}
		vs = append(vs, v)
		fs[i] = vf
	}
	return vs, fs, nil
}
