package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
)

// decoder turns the YAML syntax tree into a Scenario, strictly, naming the
// place of the first problem.
type decoder struct {
	file string
	// progress and observe are given to each log item
	// (LogOptions.Progress, LogOptions.Observe).
	progress func(size int64) (update func(lines, bytes int64), done func())
	observe  func(at time.Duration, key string, cost int64)
}

func (d *decoder) errorf(n ast.Node, path, format string, args ...any) error {
	line, col := position(n)
	return &Error{File: d.file, Line: line, Column: col, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// position is where n starts in the file.
func position(n ast.Node) (line, col int) {
	switch n := n.(type) {
	case nil:
		return 0, 0
	case *ast.MappingNode:
		if !n.IsFlowStyle && len(n.Values) > 0 {
			return position(n.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return position(n.Key)
	case *ast.DocumentNode:
		return position(n.Body)
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return tk.Position.Line, tk.Position.Column
}

// fields is one decoded mapping: its values by field name. A mapping has a
// handful of fields, so a slice searched in order costs less than a map; a
// file can hold tens of thousands of them.
type fields struct {
	d      *decoder
	node   ast.Node
	path   string
	fields []field
}

// field is one field of a mapping: its name, the key node and the value node.
type field struct {
	name       string
	key, value ast.Node
}

// get returns the field called name, if the mapping has it.
func (f *fields) get(name string) (field, bool) {
	for _, fd := range f.fields {
		if fd.name == name {
			return fd, true
		}
	}
	return field{}, false
}

// has reports whether the field is present with a non-null value.
func (f *fields) has(name string) bool {
	fd, ok := f.get(name)
	if !ok {
		return false
	}
	_, null := fd.value.(*ast.NullNode)
	return !null
}

// present reports whether the field is written, even as null.
func (f *fields) present(name string) bool {
	_, ok := f.get(name)
	return ok
}

// at is the node to blame for a problem with the field: its value, or the
// mapping when it is missing.
func (f *fields) at(name string) ast.Node {
	if fd, ok := f.get(name); ok {
		if _, null := fd.value.(*ast.NullNode); !null {
			return fd.value
		}
		return fd.key
	}
	return f.node
}

// plain rejects the YAML features the format does not use, which would
// otherwise hide a value behind an indirection.
func (d *decoder) plain(n ast.Node, path string) (ast.Node, error) {
	switch n.(type) {
	case *ast.TagNode:
		return nil, d.errorf(n, path, "YAML tags (!!type) are not supported")
	case *ast.AnchorNode, *ast.AliasNode:
		return nil, d.errorf(n, path, "YAML anchors and aliases (&name, *name) are not supported")
	}
	return n, nil
}

// fields decodes the mapping n whose fields must be among known. want
// describes the mapping for the error if n is something else.
func (d *decoder) fields(n ast.Node, path, want string, known []string) (*fields, error) {
	n, err := d.plain(n, path)
	if err != nil {
		return nil, err
	}
	var values []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		values = m.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{m}
	default:
		return nil, d.errorf(n, path, "want %s, got %s", want, describe(n))
	}
	f := &fields{d: d, node: n, path: path, fields: make([]field, 0, len(values))}
	for _, mv := range values {
		key, ok := mv.Key.(*ast.StringNode)
		if !ok {
			if _, merge := mv.Key.(*ast.MergeKeyNode); merge {
				return nil, d.errorf(mv.Key, path, "YAML merge keys (<<) are not supported")
			}
			return nil, d.errorf(mv.Key, path, "want a field name, got %s", describe(mv.Key))
		}
		name := key.Value
		if !slices.Contains(known, name) {
			msg := "unknown field " + strconv.Quote(name)
			if !looksLikeName(name) {
				// Quoted, a line of a file that is no scenario at all
				// (the user named /etc/shadow) could show a secret.
				msg = fmt.Sprintf("unknown field of %d characters, not a field name (is this a scenario file?)", utf8.RuneCountInString(name))
			}
			if guess := closest(name, known); guess != "" {
				msg += fmt.Sprintf("; did you mean %s?", guess)
			} else {
				msg += "; want one of " + strings.Join(known, ", ")
			}
			return nil, d.errorf(key, path, "%s", msg)
		}
		if _, dup := f.get(name); dup {
			return nil, d.errorf(key, path, "field %s appears twice", name)
		}
		f.fields = append(f.fields, field{name: name, key: key, value: mv.Value})
	}
	return f, nil
}

// closest is the known name within edit distance 2 of name, if exactly one is
// nearest.
func closest(name string, known []string) string {
	best, bestDist, ties := "", 3, 0
	for _, k := range known {
		switch dist := editDistance(name, k); {
		case dist < bestDist:
			best, bestDist, ties = k, dist, 0
		case dist == bestDist:
			ties++
		}
	}
	if ties > 0 || len(name) > 40 {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			subst := prev[j-1]
			if a[i-1] != b[j-1] {
				subst++
			}
			cur[j] = min(subst, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (f *fields) errorf(name, format string, args ...any) error {
	return f.d.errorf(f.at(name), child(f.path, name), format, args...)
}

// keyErrorf blames the field's name, for a field that must not be there.
func (f *fields) keyErrorf(name, format string, args ...any) error {
	fd, _ := f.get(name)
	return f.d.errorf(fd.key, child(f.path, name), format, args...)
}

// missing reports a required field that is absent.
func (f *fields) missing(name, want string) error {
	if f.present(name) {
		return f.errorf(name, "want %s, got nothing", want)
	}
	return f.d.errorf(f.node, f.path, "missing %s: want %s", name, want)
}

func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// describe names what n is, for "want …, got …".
func describe(n ast.Node) string {
	switch n := n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.LiteralNode:
		return "a block of text"
	case *ast.StringNode:
		return strconv.Quote(shorten(n.Value))
	case *ast.TagNode:
		return "a tagged value"
	case *ast.AnchorNode, *ast.AliasNode:
		return "an anchor or alias"
	}
	if tk := n.GetToken(); tk != nil {
		if s := tk.Value; s != "" && strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) < 0 {
			return shorten(s)
		}
		return strconv.Quote(shorten(tk.Value))
	}
	return "a " + n.Type().String()
}

func shorten(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}

// looksLikeName reports whether s could be a field name misspelt: at most
// 32 letters, digits, _ or -, a letter first.
func looksLikeName(s string) bool {
	if s == "" || len(s) > 32 || !unicode.IsLetter(rune(s[0])) {
		return false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// oneLine folds runs of white space, newlines included, into single spaces
// and escapes other control characters. A quoted tab, as in the YAML
// parser's "found character '\t'", is shown as \t rather than folded away.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "'\t'", `'\t'`)
	s = strings.Join(strings.Fields(s), " ")
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		q := strconv.Quote(s)
		s = q[1 : len(q)-1]
	}
	if s == "" {
		s = "unknown problem"
	}
	return s
}

// andList is "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
