package scenarios

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"ratelab/algorithms"
	"ratelab/fleet"
)

// Error is a problem with a scenario file, in one line:
//
//	boundary.yaml:7:5: limiters[1].window: want a positive Go duration such as 60s, got "sixty"
type Error struct {
	File   string
	Line   int // 1-based; 0 when the problem has no single place in the file
	Column int // 1-based
	Path   string
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Limits on the shape of the YAML, checked on the tokens before parsing
// because the parser's cost grows steeply with nesting depth.
const (
	maxFlowDepth   = 16  // [ and { nested in one another
	maxBlockColumn = 160 // column of a block-context "-", "?" or a key
	maxFields      = 64  // fields of one mapping
)

// maxTotalCost bounds the sum of all requests' costs, so that any sum of
// costs a replay keeps fits in an int64 with room to spare.
const maxTotalCost = 1 << 62

// Load reads the scenario file at path (at most MaxFileSize bytes) and parses
// it; path names the scenario and its errors. Only a regular file is read:
// a directory, a device or a named pipe is refused at once (opening a pipe
// with no writer would otherwise wait for ever).
func Load(path string) (*Scenario, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, tooLarge(path)
	}
	return Parse(path, data)
}

// openRegular opens path for reading if it is a regular file. It opens
// without waiting (O_NONBLOCK, which a regular file ignores), then looks at
// what it opened, so that nothing can swap the file between the look and
// the open.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		what := "not a regular file"
		switch mode := info.Mode(); {
		case mode.IsDir():
			what = "a directory"
		case mode&fs.ModeNamedPipe != 0:
			what = "a named pipe"
		case mode&fs.ModeDevice != 0:
			what = "a device"
		case mode&fs.ModeSocket != 0:
			what = "a socket"
		}
		return nil, &Error{File: path, Msg: what + ", not a scenario file: want a regular YAML file"}
	}
	return f, nil
}

func tooLarge(name string) error {
	return &Error{File: name, Msg: fmt.Sprintf("file is larger than %d bytes (1 MiB), the limit for a scenario", MaxFileSize)}
}

// Parse decodes and validates a scenario file. name names the scenario
// (Scenario.Name) and prefixes every error. On error it returns no scenario.
func Parse(name string, data []byte) (*Scenario, error) {
	d := &decoder{file: name}
	if len(data) > MaxFileSize {
		return nil, tooLarge(name)
	}
	// Neither error quotes the file: what is not text may be anything,
	// such as a key file named by mistake.
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		line, col := lineColumn(data, i)
		return nil, &Error{File: name, Line: line, Column: col, Msg: "the file is not valid UTF-8"}
	}
	if i := bytes.IndexFunc(data, func(r rune) bool { return !yamlPrintable(r) }); i >= 0 {
		r, _ := utf8.DecodeRune(data[i:])
		what := "the control character"
		if !unicode.IsControl(r) {
			what = "the noncharacter"
		}
		line, col := lineColumn(data, i)
		return nil, &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("the file is not text: it holds %s %U", what, r)}
	}
	root, err := d.parseYAML(data)
	if err != nil {
		return nil, err
	}
	return d.scenario(root)
}

// lineColumn is the 1-based line and column (in characters) of the byte at
// offset in data.
func lineColumn(data []byte, offset int) (line, col int) {
	line = 1 + bytes.Count(data[:offset], []byte("\n"))
	col = 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:offset], '\n')+1:offset])
	return line, col
}

// yamlPrintable reports whether YAML lets a file hold r (its c-printable
// characters): tab, line feed, carriage return and U+0085 of the control
// characters, and any other character but U+FFFE and U+FFFF. r comes from
// valid UTF-8, which holds no surrogate.
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		return true
	case r < 0x20 || r >= 0x7F && r < 0xA0:
		return false
	}
	return r != 0xFFFE && r != 0xFFFF
}

// decoder turns the YAML syntax tree into a Scenario, strictly, naming the
// place of the first problem.
type decoder struct {
	file string
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

// parseYAML returns the body of the file's single document. A UTF-8 byte
// order mark and a %YAML 1.x directive before it are allowed; the file's
// tokens are counted (MaxTokens) before the YAML library sees them, and its
// nesting is bounded, because the library's memory and time grow with both.
func (d *decoder) parseYAML(data []byte) (body ast.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			body, err = nil, &Error{File: d.file, Msg: "malformed YAML: " + oneLine(fmt.Sprint(r))}
		}
	}()
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if n, offset := tokenCount(data, MaxTokens); n > MaxTokens {
		line, col := lineColumn(data, offset)
		return nil, &Error{File: d.file, Line: line, Column: col, Msg: tooManyTokens}
	}
	tokens := lexer.Tokenize(string(data))
	if len(tokens) > MaxTokens { // tokenCount undercounted: still refuse before parsing
		return nil, d.syntaxError(tooManyTokens, tokens[MaxTokens])
	}
	if err := d.checkShape(tokens); err != nil {
		return nil, err
	}
	if err := d.checkOneDocument(tokens); err != nil {
		return nil, err
	}
	file, err := parser.Parse(tokens, 0)
	if err != nil {
		if e, ok := err.(yaml.Error); ok {
			msg := e.GetMessage()
			if strings.Contains(msg, "document not started") {
				msg = "a directive (%YAML) must be followed by a line of --- before the document"
			}
			return nil, d.syntaxError(msg, e.GetToken())
		}
		return nil, &Error{File: d.file, Msg: oneLine(err.Error())}
	}
	for _, doc := range file.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if dir, ok := doc.Body.(*ast.DirectiveNode); ok && body == nil {
			if err := d.directive(dir); err != nil {
				return nil, err
			}
			continue
		}
		if body != nil {
			return nil, d.errorf(doc.Body, "", "want one YAML document, found a second one")
		}
		body = doc.Body
	}
	if body == nil {
		return nil, &Error{File: d.file, Msg: "empty file: want a mapping with title, limiters and traffic"}
	}
	return body, nil
}

// checkShape refuses, before parsing, what would make the YAML library slow:
// deep nesting, and mappings of many fields (it checks a block mapping's
// keys for duplicates pairwise). No mapping of the format has more than
// maxFields fields.
func (d *decoder) checkShape(tokens token.Tokens) error {
	type mapping struct{ col, fields int } // a block mapping: its keys' column
	var flow []int                         // per open [ or {: its fields, or -1 for [
	var block []mapping                    // the block mappings open, innermost last
	line := 0
	tooMany := func(tk *token.Token) error {
		return d.syntaxError(fmt.Sprintf("a mapping of more than %d fields (no mapping of a scenario has more than %d)", maxFields, len(expectFields)), tk)
	}
	for i, tk := range tokens {
		// A token first on its line, or a "-" or "?", closes the block
		// mappings indented deeper than it.
		if len(flow) == 0 && (tk.Position.Line != line || tk.Type == token.SequenceEntryType || tk.Type == token.MappingKeyType) {
			for len(block) > 0 && block[len(block)-1].col > tk.Position.Column {
				block = block[:len(block)-1]
			}
		}
		line = tk.Position.Line
		switch tk.Type {
		case token.InvalidType:
			return d.syntaxError(tk.Error, tk)
		case token.SequenceStartType, token.MappingStartType:
			if len(flow) >= maxFlowDepth {
				return d.syntaxError(fmt.Sprintf("nested more than %d levels deep", maxFlowDepth), tk)
			}
			flow = append(flow, 0)
			if tk.Type == token.SequenceStartType {
				flow[len(flow)-1] = -1
			}
		case token.SequenceEndType, token.MappingEndType:
			flow = flow[:max(len(flow)-1, 0)]
		case token.SequenceEntryType, token.MappingKeyType, token.MappingValueType:
			if len(flow) > 0 {
				if tk.Type == token.MappingValueType && flow[len(flow)-1] >= 0 {
					if flow[len(flow)-1]++; flow[len(flow)-1] > maxFields {
						return tooMany(tk)
					}
				}
				continue
			}
			// A block's depth shows in the column of its indicator: a "-"
			// or "?", or for a ":" its key's first character (a long key
			// or value on one line nests nothing).
			at := tk
			if tk.Type == token.MappingValueType && i > 0 && tokens[i-1].Position.Line == tk.Position.Line {
				at = tokens[i-1]
			}
			col := at.Position.Column
			if col > maxBlockColumn {
				return d.syntaxError(fmt.Sprintf("nested too deeply (indented past column %d)", maxBlockColumn), at)
			}
			if tk.Type != token.MappingValueType {
				continue
			}
			if n := len(block); n > 0 && block[n-1].col == col {
				if block[n-1].fields++; block[n-1].fields > maxFields {
					return tooMany(at)
				}
			} else {
				block = append(block, mapping{col: col, fields: 1})
			}
		}
	}
	return nil
}

// checkOneDocument refuses a file of more than one YAML document: at most
// one --- before the document (after any directive), at most one ... after
// it, and after that only comments. The YAML library reads each further ---
// or ... line as a document of nothing, which a file could repeat by the
// thousand, and drops the document after two --- lines in a row.
func (d *decoder) checkOneDocument(tokens token.Tokens) error {
	var header, end bool // the document's --- and ... are seen
	content := false     // a token of the document is seen
	directive := 0       // the line of a directive, whose tokens are its own
	for i, tk := range tokens {
		switch {
		case tk.Type == token.CommentType:
		case tk.Type == token.DirectiveType && !content:
			directive = tk.Position.Line
		case tk.Position.Line == directive && !header && !content:
		case tk.Type == token.DocumentHeaderType && (header || content):
			return d.secondDocument(tokens[i:], "a line of --- after it")
		case tk.Type == token.DocumentHeaderType:
			header = true
		case tk.Type == token.DocumentEndType && !content:
			// Only markers and comments after it: the file is empty,
			// and refused as such.
			if firstContent(tokens[i:]) != nil {
				return d.tokenError(tk, "a line of ... ends a document, and none has begun: want the document before it")
			}
		case tk.Type == token.DocumentEndType && end:
			return d.secondDocument(tokens[i:], "a second line of ... after it")
		case tk.Type == token.DocumentEndType:
			end = true
		case end:
			return d.tokenError(tk, "want one YAML document, found a second one")
		default:
			content = true
		}
	}
	return nil
}

// firstContent is the first token of tokens that is no comment and no
// document marker, or nil.
func firstContent(tokens token.Tokens) *token.Token {
	for _, tk := range tokens {
		switch tk.Type {
		case token.CommentType, token.DocumentHeaderType, token.DocumentEndType:
			continue
		}
		return tk
	}
	return nil
}

// secondDocument is the error for what follows the document from rest[0]
// on: at the start of a second document's content if it has some, else
// at rest[0], which marker describes.
func (d *decoder) secondDocument(rest token.Tokens, marker string) error {
	if tk := firstContent(rest); tk != nil {
		return d.tokenError(tk, "want one YAML document, found a second one")
	}
	return d.tokenError(rest[0], "want one YAML document, found "+marker+" (a file may end with one line of ..., then only comments)")
}

// tokenError is the problem msg at tk.
func (d *decoder) tokenError(tk *token.Token, msg string) error {
	return &Error{File: d.file, Line: tk.Position.Line, Column: tk.Position.Column, Msg: msg}
}

// tooManyTokens is the error for a file of more than MaxTokens tokens.
var tooManyTokens = fmt.Sprintf("more than %d YAML tokens (values, punctuation, comments) by here, "+
	"the limit for a scenario; write repeated requests as one burst (count, spread) or periodic (every) item", MaxTokens)

// directive accepts the directive %YAML 1.1 or %YAML 1.2 before the
// document; any other is an error. (The YAML library also reads 1.0 and
// 1.3, whose rules the format does not promise.)
func (d *decoder) directive(n *ast.DirectiveNode) error {
	name := ""
	if n.Name != nil {
		name = n.Name.String()
	}
	if name != "YAML" {
		return d.errorf(n, "", "the YAML directive %%%s is not supported (only %%YAML 1.1 or 1.2)", shorten(name))
	}
	version := ""
	if len(n.Values) == 1 {
		version = n.Values[0].String()
	}
	if version != "1.1" && version != "1.2" {
		return d.errorf(n, "", "the YAML directive %%YAML %s is not supported (only %%YAML 1.1 or 1.2)", shorten(version))
	}
	return nil
}

func (d *decoder) syntaxError(msg string, tk *token.Token) error {
	e := &Error{File: d.file, Msg: "invalid YAML: " + oneLine(msg)}
	if tk != nil && tk.Position != nil {
		e.Line, e.Column = tk.Position.Line, tk.Position.Column
		// The library quotes the token it blames whole ("mapping key
		// %q already defined"): a word is quoted, anything else (a line
		// of a file that is no scenario) only counted.
		quoted := oneLine(strconv.Quote(tk.Value))
		if strings.HasPrefix(msg, "mapping key") && !looksLikeName(tk.Value) {
			e.Msg = strings.Replace(e.Msg, quoted, fmt.Sprintf("of %d characters", utf8.RuneCountInString(tk.Value)), 1)
		}
	}
	return e
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

// Field names, as the format documents them.
var (
	topFields     = []string{"title", "about", "step", "duration", "seed", "limiters", "clients", "traffic", "notes", "quiz", "expect"}
	laneFields    = append(append(append([]string{"name", "algorithm"}, paramNames(algorithms.Params())...), gatewayFields...), "across", "policies")
	layerFields   = append([]string{"name", "algorithm"}, append(paramNames(algorithms.Params()), "across")...)
	gatewayFields = []string{"gateways", "route", "store", "store_latency", "sync_every", "outages", "fallback", "expire_idle", "clock_skew"}
	outageFields  = []string{"from", "until", "lose_state"}
	trafficFields = []string{"at", "count", "spread", "every", "poisson", "from", "until", "on", "off", "key", "cost", "accounts", "keys", "stagger", "client"}
	clientFields  = []string{"name", "retry", "attempts", "base", "cap", "factor", "jitter", "deadline", "cancel"}
	noteFields    = []string{"at", "text"}
	expectFields  = []string{"lane", "key", "at", "from", "until", "allowed", "admitted", "delayed", "rejected", "retries", "served", "abandoned", "peak", "peak_window", "outcome", "why"}
	quizFields    = []string{"at", "request", "key", "lane", "ask", "why"}
)

// paramNames are the names of ps, as files write them.
func paramNames(ps []algorithms.Param) []string {
	names := make([]string, len(ps))
	for i, q := range ps {
		names[i] = q.Name
	}
	return names
}

// andList is "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// wantAlgorithm describes the algorithm field for errors.
var wantAlgorithm = func() string {
	names := make([]string, len(algorithms.Algorithms))
	for i, a := range algorithms.Algorithms {
		names[i] = string(a)
	}
	return "one of " + strings.Join(names, ", ")
}()

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

func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// has reports whether the field is present with a non-null value.
func (f *fields) has(name string) bool {
	fd, ok := f.get(name)
	if !ok {
		return false
	}
	_, null := fd.value.(*ast.NullNode)
	return !null
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

func (f *fields) errorf(name, format string, args ...any) error {
	return f.d.errorf(f.at(name), child(f.path, name), format, args...)
}

// present reports whether the field is written, even as null.
func (f *fields) present(name string) bool {
	_, ok := f.get(name)
	return ok
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

func (d *decoder) scenario(root ast.Node) (*Scenario, error) {
	if _, text := root.(ast.ScalarNode); text {
		// Quoted, the start of a file that is no scenario at all (a key
		// file named by mistake) could show a secret.
		return nil, d.errorf(root, "", "want a mapping with title, limiters and traffic, got a text (is this a scenario file?)")
	}
	f, err := d.fields(root, "", "a mapping with title, limiters and traffic", topFields)
	if err != nil {
		return nil, err
	}
	s := &Scenario{Name: d.file, Step: DefaultStep}
	if s.Title, err = f.requiredText("title", "a title", false); err != nil {
		return nil, err
	}
	if s.About, _, err = f.text("about", "prose about the lesson", true); err != nil {
		return nil, err
	}
	if step, ok, err := f.duration("step", true); err != nil {
		return nil, err
	} else if ok {
		s.Step = step
	}
	duration, explicitDuration, err := f.duration("duration", true)
	if err != nil {
		return nil, err
	}
	if seed, _, err := f.integer("seed", 0, math.MaxInt64); err != nil {
		return nil, err
	} else {
		s.Seed = uint64(seed)
	}

	lanes, err := f.list("limiters", "a list of 1 to 8 limiters")
	if err != nil {
		return nil, err
	}
	switch {
	case !f.has("limiters"):
		return nil, f.missing("limiters", "a list of 1 to 8 limiters")
	case len(lanes) == 0:
		return nil, f.errorf("limiters", "want 1 to %d limiters, got none", MaxLanes)
	case len(lanes) > MaxLanes:
		return nil, f.errorf("limiters", "want 1 to %d limiters, got %d", MaxLanes, len(lanes))
	}
	for i, n := range lanes {
		lane, err := d.lane(n, index("limiters", i), s.Lanes)
		if err != nil {
			return nil, err
		}
		lane.Fleet.Seed = s.Seed
		s.Lanes = append(s.Lanes, lane)
	}

	if s.Clients, err = d.clients(f, s.Lanes); err != nil {
		return nil, err
	}

	// Each list keeps its items' fields, for the checks against the time
	// axis; an item of accounts or keys becomes its copies here, each with
	// its item's fields. The seed is already read, wherever the file puts it.
	var tf, nf, qf, ef []*fields
	var requests, totalCost uint64
	var decisions uint64   // each request × its client's attempts
	var streams uint64     // poisson copies so far
	var poissonDrawn int64 // and their requests
	items, err := f.list("traffic", "a list of traffic items")
	if err != nil {
		return nil, err
	}
	s.Traffic = make([]Traffic, 0, len(items))
	// written are the keys the traffic names, whether or not their items
	// came to hold a request (a poisson item may draw none, a staggered copy
	// may start past until): an expectation or a quiz mark may name them,
	// whatever the seed drew.
	written := map[string]bool{}
	for i, n := range items {
		path := index("traffic", i)
		it, item, err := d.traffic(n, path)
		if err != nil {
			return nil, err
		}
		if it.Client, err = trafficClient(item, s.Clients); err != nil {
			return nil, err
		}
		if it.keys == nil {
			written[it.Key] = true
		}
		for _, k := range it.keys {
			written[k] = true
		}
		copies := it.expand(s.Seed, i)
		// A poisson copy draws its times here, from the seed and its
		// place among the poisson copies, within what the limit leaves.
		var drawn int64
		for j := range copies {
			c := &copies[j]
			if c.Form != Poisson {
				continue
			}
			left, held := MaxRequests-int64(requests)-drawn, MaxPoissonRequests-poissonDrawn-drawn
			if !c.draw(s.Seed, streams, min(left, held)) {
				mean := strconv.FormatFloat(float64(c.Rate.N)*float64(c.onTime())/float64(c.Rate.Per)*float64(len(copies)), 'f', 0, 64)
				if held < left {
					return nil, d.errorf(n, path, "the poisson items draw more than %d requests, the most whose times a scenario holds (%d before this item, whose arrivals average %s)", MaxPoissonRequests, poissonDrawn, mean)
				}
				return nil, d.errorf(n, path, "the traffic expands to more than %d requests (%d before this item, whose poisson arrivals average %s)", MaxRequests, requests, mean)
			}
			drawn += c.Count
			streams++
		}
		poissonDrawn += drawn
		// The item's requests, counted in 128 bits: 10,000 copies of a
		// periodic item of 2^55 requests overflow 64.
		var hi, lo uint64
		for _, c := range copies {
			var carry uint64
			lo, carry = bits.Add64(lo, uint64(c.Count), 0)
			hi += carry
		}
		lo, carry := bits.Add64(lo, requests, 0)
		hi += carry
		if hi != 0 || lo > MaxRequests {
			total := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
			total.Or(total, new(big.Int).SetUint64(lo))
			return nil, d.errorf(n, path, "the traffic expands to more than %d requests (%s with this item)", MaxRequests, total)
		}
		// A lane decides each request once per attempt its client may
		// make: the worst case of a run's work, counted here as requests
		// are, before a run makes any.
		attempts, what := uint64(1), fmt.Sprintf("%d requests of no client", lo-requests)
		if it.Client > 0 {
			c := s.Clients[it.Client-1]
			attempts = uint64(c.Attempts)
			what = fmt.Sprintf("%d requests × %d attempts of client %s", lo-requests, attempts, strconv.Quote(shorten(c.Name)))
		}
		if decisions += (lo - requests) * attempts; decisions > MaxDecisions {
			return nil, d.errorf(n, path, "the traffic would make up to %d decisions per lane (this item: %s); at most %d, about 30 s of run a lane", decisions, what, MaxDecisions)
		}
		requests = lo
		for _, c := range copies {
			hi, lo := bits.Mul64(uint64(c.Count), uint64(c.Cost))
			if totalCost += lo; hi != 0 || totalCost > maxTotalCost {
				return nil, d.errorf(item.at("cost"), path, "the requests' costs add up to more than 2^62")
			}
		}
		for _, l := range s.Lanes {
			for _, p := range l.Policies() {
				if limit := p.MaxCost(); it.Cost > limit {
					return nil, item.errorf("cost", "cost %d can never fit lane %s (%s admits at most %d)", it.Cost, l.Name, p, limit)
				}
			}
		}
		if len(s.Traffic)+len(copies) > MaxTrafficItems {
			return nil, d.errorf(n, path, "the traffic expands to more than %d items, counting an item of accounts or keys as its copies (%d with this item)", MaxTrafficItems, len(s.Traffic)+len(copies))
		}
		s.Traffic = append(s.Traffic, copies...)
		for range copies {
			tf = append(tf, item)
		}
	}
	if s.Notes, nf, err = listOf(f, "notes", "a list of notes such as {at: 60s, text: ...}", d.note); err != nil {
		return nil, err
	}
	if s.Quiz, qf, err = listOf(f, "quiz", "a list of quiz marks such as {at: 60s, lane: log}", d.quizMark); err != nil {
		return nil, err
	}
	if s.Expect, ef, err = listOf(f, "expect", "a list of expectations such as {lane: fixed, admitted: 240}", d.expectation); err != nil {
		return nil, err
	}

	// The time axis: explicit, or reaching the longest horizon past the last
	// request or note.
	var last time.Duration
	for _, t := range s.Traffic {
		switch {
		case t.Form == Poisson: // whatever it drew, it may reach until
			last = max(last, t.Until)
		case t.Count > 0:
			last = max(last, t.Time(t.Count-1))
		}
	}
	for _, n := range s.Notes {
		last = max(last, n.At)
	}
	if explicitDuration {
		s.Duration = duration
	} else {
		var horizon time.Duration
		for _, l := range s.Lanes {
			horizon = max(horizon, l.Horizon())
		}
		s.Duration = min(last+min(horizon, MaxTime), MaxTime)
	}
	for i, t := range s.Traffic {
		if t.Form == Poisson {
			if t.Until > s.Duration {
				return nil, tf[i].errorf("until", "%s is past the end of the time axis (duration %s)", algorithms.FormatDuration(t.Until), algorithms.FormatDuration(s.Duration))
			}
			continue
		}
		if at := t.Time(t.Count - 1); at >= s.Duration {
			what := "its last request arrives"
			if t.Count == 1 {
				what = "it arrives"
			}
			return nil, d.errorf(tf[i].node, tf[i].path, "%s at %s, not before the end of the time axis (duration %s)", what, algorithms.FormatDuration(at), algorithms.FormatDuration(s.Duration))
		}
	}
	for i, n := range s.Notes {
		if n.At > s.Duration {
			return nil, nf[i].errorf("at", "%s is past the end of the time axis (duration %s)", algorithms.FormatDuration(n.At), algorithms.FormatDuration(s.Duration))
		}
	}
	slices.SortStableFunc(s.Notes, func(a, b Note) int { return cmp.Compare(a.At, b.At) })

	keys := s.Keys()
	for k := range written {
		if !slices.Contains(keys, k) {
			keys = append(keys, k) // named, but no request drawn or kept
		}
	}
	for i := range s.Quiz {
		if err := checkQuizMark(s, &s.Quiz[i], qf[i], keys); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(s.Quiz, func(a, b QuizMark) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Request, b.Request))
	})
	for i := range s.Expect {
		if err := checkExpectation(s, &s.Expect[i], ef[i], keys); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (d *decoder) lane(n ast.Node, path string, before []Lane) (Lane, error) {
	f, err := d.fields(n, path, "a limiter such as {name: bucket, algorithm: token-bucket, capacity: 10, rate: 2/s}", laneFields)
	if err != nil {
		return Lane{}, err
	}
	const wantName = "a lane name of lower-case letters, digits and dashes"
	name, err := f.requiredText("name", wantName, false)
	if err != nil {
		return Lane{}, err
	}
	if len(name) > MaxNameLen || strings.IndexFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') }) >= 0 {
		return Lane{}, f.errorf("name", "want %s (at most %d characters), got %s", wantName, MaxNameLen, strconv.Quote(shorten(name)))
	}
	for _, l := range before {
		if l.Name == name {
			return Lane{}, f.errorf("name", "lane name %s is already taken by an earlier lane", name)
		}
	}
	if f.present("policies") {
		return d.stackedLane(f, n, path, name)
	}
	p, err := d.policy(f, n, path)
	if err != nil {
		return Lane{}, err
	}
	fl, err := d.gateways(f, p)
	if err != nil {
		return Lane{}, err
	}
	lane := Lane{Name: name, Policy: p, Fleet: fl}
	if all, err := across(f); err != nil {
		return Lane{}, err
	} else if all {
		if !fl.Plain() {
			return Lane{}, f.keyErrorf("across", "across: all cannot go with gateways: a lane of gateways shares its policy its own way")
		}
		if p.MaxDelay() > 0 {
			return Lane{}, f.keyErrorf("across", "across: all needs a policy that admits or refuses at once; %s delays requests", p.Algorithm)
		}
		lane.Stack = []algorithms.Layer{{Name: string(p.Algorithm), Policy: p, AllKeys: true}}
	}
	return lane, nil
}

// MaxPolicies bounds the policies of a stacked lane.
const MaxPolicies = 4

// across reads a policy's across: key (the default) or all.
func across(f *fields) (all bool, err error) {
	v, ok, err := f.text("across", "key or all", false)
	if err != nil || !ok {
		return false, err
	}
	switch v {
	case "key":
		return false, nil
	case "all":
		return true, nil
	}
	return false, f.errorf("across", "want key (one allowance per key) or all (one for every key together), got %s", strconv.Quote(shorten(v)))
}

// stackedLane reads a lane of several policies, which f's policies lists.
func (d *decoder) stackedLane(f *fields, n ast.Node, path, name string) (Lane, error) {
	for _, other := range laneFields {
		if other != "name" && other != "policies" && f.present(other) {
			return Lane{}, f.keyErrorf(other, "a lane with policies takes only name and policies: %s belongs to one of its policies", other)
		}
	}
	items, err := f.list("policies", "a list of policies such as {algorithm: fixed-window, limit: 200, window: 1s, across: all}")
	if err != nil {
		return Lane{}, err
	}
	if len(items) < 2 || len(items) > MaxPolicies {
		return Lane{}, f.errorf("policies", "want 2 to %d policies, got %d (a lane of one policy says it without policies)", MaxPolicies, len(items))
	}
	var layers []algorithms.Layer
	for i, item := range items {
		at := index(child(path, "policies"), i)
		lf, err := d.fields(item, at, "a policy such as {name: total, algorithm: fixed-window, limit: 200, window: 1s, across: all}", layerFields)
		if err != nil {
			return Lane{}, err
		}
		p, err := d.policy(lf, item, at)
		if err != nil {
			return Lane{}, err
		}
		if p.MaxDelay() > 0 {
			return Lane{}, lf.errorf("algorithm", "%s delays requests; each of a lane's policies must admit or refuse at once", p.Algorithm)
		}
		l := algorithms.Layer{Name: string(p.Algorithm), Policy: p}
		if v, ok, err := lf.text("name", "a name for the policy", false); err != nil {
			return Lane{}, err
		} else if ok {
			if v == "" || len(v) > MaxNameLen {
				return Lane{}, lf.errorf("name", "want a name of 1 to %d characters, got %s", MaxNameLen, strconv.Quote(shorten(v)))
			}
			l.Name = v
		}
		for _, b := range layers {
			if b.Name == l.Name {
				return Lane{}, d.errorf(item, at, "two policies of lane %s are called %s: give each a name", name, l.Name)
			}
		}
		if l.AllKeys, err = across(lf); err != nil {
			return Lane{}, err
		}
		layers = append(layers, l)
	}
	return Lane{Name: name, Policy: layers[0].Policy, Stack: layers}, nil
}

// policy reads an algorithm and its parameters from f.
func (d *decoder) policy(f *fields, n ast.Node, path string) (algorithms.Policy, error) {
	alg, err := f.requiredText("algorithm", wantAlgorithm, false)
	if err != nil {
		return algorithms.Policy{}, err
	}
	desc := algorithms.Describe(algorithms.Algorithm(alg))
	if desc == nil {
		return algorithms.Policy{}, f.errorf("algorithm", "want %s, got %s", wantAlgorithm, strconv.Quote(shorten(alg)))
	}
	p := algorithms.Policy{Algorithm: algorithms.Algorithm(alg)}
	for _, name := range paramNames(algorithms.Params()) {
		if f.present(name) && !desc.Takes(name) {
			return algorithms.Policy{}, f.keyErrorf(name, "%s takes no %s (it takes %s)", alg, name, andList(paramNames(desc.Params)))
		}
	}
	for _, q := range desc.Params {
		if !f.has(q.Name) && !q.Optional {
			return algorithms.Policy{}, d.errorf(f.at(q.Name), path, "%s needs %s, %s", alg, q.Name, q.Want)
		}
	}
	for _, q := range desc.Params {
		if !f.has(q.Name) {
			continue // optional: its zero
		}
		var err error
		switch q.Kind {
		case algorithms.Count:
			lo := int64(1)
			if q.Optional {
				lo = 0
			}
			*q.CountOf(&p), _, err = f.integer(q.Name, lo, algorithms.MaxCount)
		case algorithms.Duration:
			*q.DurationOf(&p), _, err = f.duration(q.Name, !q.Optional)
		case algorithms.RateKind:
			*q.RateOf(&p), err = f.rate(q.Name)
		case algorithms.Flag:
			*q.FlagOf(&p), err = f.flag(q.Name)
		}
		if err != nil {
			return algorithms.Policy{}, err
		}
	}
	if err := p.Validate(); err != nil {
		return algorithms.Policy{}, d.errorf(n, path, "%s", oneLine(err.Error()))
	}
	return p, nil
}

// gateways reads a lane's gateways, route and store (package fleet).
func (d *decoder) gateways(f *fields, p algorithms.Policy) (fleet.Config, error) {
	var c fleet.Config
	n, _, err := f.integer("gateways", 1, fleet.MaxGateways)
	if err != nil {
		return c, err
	}
	c.Gateways = int(n)
	for _, w := range []struct {
		name  string
		to    *string
		among []string
	}{
		{"route", (*string)(&c.Route), words(fleet.Routes)},
		{"store", (*string)(&c.Store), words(fleet.Stores)},
	} {
		v, ok, err := f.text(w.name, "one of "+strings.Join(w.among, ", "), false)
		if err != nil {
			return c, err
		}
		if !ok {
			continue
		}
		if !slices.Contains(w.among, v) {
			return c, f.errorf(w.name, "want one of %s, got %s", strings.Join(w.among, ", "), strconv.Quote(shorten(v)))
		}
		if c.Gateways <= 1 && w.name == "route" {
			return c, f.keyErrorf(w.name, "route needs gateways: 2 or more (one gateway has nothing to route)")
		}
		*w.to = v
	}
	if c.Latency, _, err = f.duration("store_latency", false); err != nil {
		return c, err
	}
	if f.present("store_latency") && c.Store != fleet.Racy {
		return c, f.keyErrorf("store_latency", "store_latency belongs to store: racy (the delay before a gateway's write lands)")
	}
	if c.SyncEvery, _, err = f.duration("sync_every", true); err != nil {
		return c, err
	}
	switch {
	case f.present("sync_every") && c.Store != fleet.Synced:
		return c, f.keyErrorf("sync_every", "sync_every belongs to store: synced (the time between syncs)")
	case c.Store == fleet.Synced && !f.has("sync_every"):
		return c, f.missing("sync_every", "the time between a synced store's syncs, such as 1s")
	}
	if c.Outages, _, err = listOf(f, "outages", "a list of outages such as {from: 5s, until: 8s}", d.outage); err != nil {
		return c, err
	}
	if len(c.Outages) == 0 {
		c.Outages = nil // none, as a lane without the field has
	}
	if c.ExpireIdle, _, err = f.duration("expire_idle", true); err != nil {
		return c, err
	}
	skews, err := f.list("clock_skew", "a list of one clock offset per gateway, such as [0s, 40ms, -25ms]")
	if err != nil {
		return c, err
	}
	for i, n := range skews {
		d, err := d.signedDuration(n, index(child(f.path, "clock_skew"), i))
		if err != nil {
			return c, err
		}
		c.Skew = append(c.Skew, d)
	}
	if v, ok, err := f.text("fallback", "one of open, closed, local-cap", false); err != nil {
		return c, err
	} else if ok {
		i := slices.IndexFunc(fleet.Fallbacks, func(fb algorithms.Fallback) bool { return fb.String() == v })
		if i < 0 {
			return c, f.errorf("fallback", "want one of open, closed, local-cap, got %s", strconv.Quote(shorten(v)))
		}
		c.Fallback = fleet.Fallbacks[i]
	}
	if err := c.Validate(p); err != nil {
		return c, f.errorf("gateways", "%s", oneLine(err.Error()))
	}
	return c, nil
}

// signedDuration reads a clock offset: a Go duration, negative allowed
// ("-25ms"), at most a year either way.
func (d *decoder) signedDuration(n ast.Node, path string) (time.Duration, error) {
	n, err := d.plain(n, path)
	if err != nil {
		return 0, err
	}
	const want = "a Go duration such as 40ms or -25ms"
	var v time.Duration
	switch x := n.(type) {
	case *ast.StringNode:
		if v, err = time.ParseDuration(strings.TrimSpace(x.Value)); err != nil {
			return 0, d.errorf(n, path, "want %s, got %s", want, describe(n))
		}
	case *ast.IntegerNode:
		if w, isInt := wholeNumber(x); !isInt || w != 0 {
			return 0, d.errorf(n, path, "want %s (a number needs a unit), got %s", want, describe(n))
		}
	default:
		return 0, d.errorf(n, path, "want %s, got %s", want, describe(n))
	}
	if v > MaxTime || v < -MaxTime {
		return 0, d.errorf(n, path, "want %s of at most %s either way, got %s", want, algorithms.FormatDuration(MaxTime), describe(n))
	}
	return v, nil
}

// outage reads one of a lane's outages: {from, until, lose_state}.
func (d *decoder) outage(n ast.Node, path string) (fleet.Outage, *fields, error) {
	f, err := d.fields(n, path, "an outage such as {from: 5s, until: 8s, lose_state: true}", outageFields)
	if err != nil {
		return fleet.Outage{}, nil, err
	}
	var o fleet.Outage
	var ok bool
	if o.From, ok, err = f.duration("from", false); err != nil {
		return o, nil, err
	} else if !ok {
		return o, nil, f.missing("from", "when the store stops answering, such as 5s")
	}
	if o.Until, ok, err = f.duration("until", true); err != nil {
		return o, nil, err
	} else if !ok {
		return o, nil, f.missing("until", "when it answers again (exclusive), such as 8s")
	}
	if f.has("lose_state") {
		if o.LoseState, err = f.flag("lose_state"); err != nil {
			return o, nil, err
		}
	}
	return o, f, nil
}

func words[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
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

// trafficItem is one item of the traffic list as written: a Traffic, and
// the keys of the copies it stands for, if it has accounts or keys.
type trafficItem struct {
	Traffic
	keys    []string // one copy per key; nil: the item itself
	stagger string   // "" (none), "even" or "random"; only on a periodic item with keys
	// accounts is N of accounts: N (0 with keys or neither), keyBase
	// whether key named the copies.
	accounts int64
	keyBase  bool
}

// expand returns the Traffic items it stands for: itself, or one copy per
// key, each starting its stagger offset later (a copy left with no request
// before until is dropped). pos is the item's place in the traffic list
// and, with seed, seeds the random stagger.
func (it trafficItem) expand(seed uint64, pos int) []Traffic {
	if it.keys == nil {
		return []Traffic{it.Traffic}
	}
	var rng *rand.Rand
	if it.stagger == "random" {
		rng = rand.New(rand.NewPCG(seed, uint64(pos)))
	}
	n := int64(len(it.keys))
	copies := make([]Traffic, 0, n)
	g := &copyGroup{item: it.Traffic, accounts: it.accounts, keyBase: it.keyBase, stagger: it.stagger}
	g.item.Line = 0 // the copies keep it
	if it.accounts == 0 {
		g.keys = it.keys
	}
	for i, key := range it.keys {
		c := it.Traffic
		c.Key, c.group = key, g
		switch it.stagger {
		case "even":
			c.From += time.Duration(mulDiv(int64(i), int64(c.Every), n))
		case "random":
			c.From += time.Duration(rng.Int64N(int64(c.Every)))
		}
		if c.Form == Periodic {
			if c.From >= c.Until {
				continue
			}
			c.Count = periodicCount(c.From, c.Until, c.Every)
		}
		copies = append(copies, c)
	}
	return copies
}

// minPoissonGap is the shortest mean gap a poisson item may ask for: its
// gaps are drawn in whole nanoseconds, which a mean of a microsecond
// rounds by at most 0.05%.
const minPoissonGap = time.Microsecond

// Limits of the items that stand for many keys.
const (
	// MaxAccounts bounds accounts, and the length of keys, of one item.
	MaxAccounts = 10_000
	// MaxTrafficItems bounds the traffic items of a scenario once each
	// item of accounts or keys is counted as its copies.
	MaxTrafficItems = 100_000
	// MaxPoissonRequests bounds the requests the poisson items of a
	// scenario draw together: their times are held, 8 bytes each, so that
	// reading a file stays under 100 MB.
	MaxPoissonRequests = 5_000_000
)

// accountKeys reads accounts, keys and stagger: it sets it.keys to the
// keys of the copies (nil without accounts or keys) and it.stagger.
func (d *decoder) accountKeys(f *fields, it *trafficItem) error {
	if f.present("accounts") && f.present("keys") {
		return f.keyErrorf("keys", "keys and accounts cannot be mixed (accounts names its copies acct-1 …, keys names each)")
	}
	switch {
	case f.present("accounts"):
		n, ok, err := f.integer("accounts", 1, MaxAccounts)
		if err != nil {
			return err
		} else if !ok {
			return f.missing("accounts", fmt.Sprintf("the number of copies, 1 to %d", MaxAccounts))
		}
		base := "acct"
		if f.has("key") {
			base = it.Key
			if last := fmt.Sprintf("%s-%d", base, n); len(last) > maxKeyLen {
				return f.errorf("key", "want a key of 1 to %d bytes with accounts: %d (its last copy's key would be %s, %d bytes)", maxKeyLen-len(last)+len(base), n, strconv.Quote(shorten(last)), len(last))
			}
		}
		it.keys = make([]string, n)
		for i := range it.keys {
			it.keys[i] = base + "-" + strconv.Itoa(i+1)
		}
		it.accounts, it.keyBase = n, f.has("key")
	case f.present("keys"):
		if f.present("key") {
			return f.keyErrorf("key", "key cannot be mixed with keys (keys gives each copy its key)")
		}
		const want = "a list of 1 to 10000 distinct keys such as [alice, bob]"
		nodes, err := f.list("keys", want)
		if err != nil {
			return err
		}
		switch {
		case len(nodes) == 0:
			return f.errorf("keys", "want %s, got none", want)
		case len(nodes) > MaxAccounts:
			return f.errorf("keys", "want %s, got %d", want, len(nodes))
		}
		path := child(f.path, "keys")
		seen := make(map[string]int, len(nodes))
		it.keys = make([]string, len(nodes))
		for i, kn := range nodes {
			key, err := d.key(kn, index(path, i))
			if err != nil {
				return err
			}
			if j, dup := seen[key]; dup {
				return d.errorf(kn, index(path, i), "key %s appears twice in keys (first as keys[%d])", strconv.Quote(shorten(key)), j)
			}
			seen[key] = i
			it.keys[i] = key
		}
	}
	if v, ok, err := f.text("stagger", "one of none, even, random", false); err != nil {
		return err
	} else if ok {
		switch {
		case v != "none" && v != "even" && v != "random":
			return f.errorf("stagger", "want one of none, even, random, got %s", strconv.Quote(shorten(v)))
		case v == "none":
			// The default, written out: no copy moves, whatever the item.
		case it.Form == Poisson:
			return f.keyErrorf("stagger", "stagger needs every (a periodic item): a poisson item's copies each draw their own times already")
		case it.Form != Periodic:
			return f.keyErrorf("stagger", "stagger needs every (a periodic item): only a periodic item's copies can start at offsets within every")
		case it.keys == nil:
			return f.keyErrorf("stagger", "stagger needs accounts or keys (the copies to stagger)")
		}
		if v != "none" {
			it.stagger = v
		}
	}
	return nil
}

// key reads one key of a keys list: any scalar, as written, that a key
// field would accept.
func (d *decoder) key(n ast.Node, path string) (string, error) {
	n, err := d.plain(n, path)
	if err != nil {
		return "", err
	}
	var s string
	switch v := n.(type) {
	case *ast.StringNode:
		s = v.Value
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		s = v.GetToken().Value
	default:
		return "", d.errorf(n, path, "want a key, got %s", describe(n))
	}
	if err := CheckKey(s); err != nil {
		return "", d.errorf(n, path, "%s", err.Error())
	}
	return s, nil
}

func (d *decoder) traffic(n ast.Node, path string) (trafficItem, *fields, error) {
	it, f, err := d.trafficOne(n, path)
	if err != nil {
		return trafficItem{}, nil, err
	}
	if err := d.accountKeys(f, &it); err != nil {
		return trafficItem{}, nil, err
	}
	return it, f, nil
}

func (d *decoder) trafficOne(n ast.Node, path string) (trafficItem, *fields, error) {
	f, err := d.fields(n, path, "a traffic item such as {at: 1s}, {at: 0s, count: 10, spread: 1s}, {every: 500ms, until: 30s} or {poisson: 20/s, until: 30s}", trafficFields)
	if err != nil {
		return trafficItem{}, nil, err
	}
	t := Traffic{Key: DefaultKey, Cost: 1, Count: 1}
	t.Line, _ = position(n)
	// misplaced reports a field of the other form.
	misplaced := func(names []string, form, other string) error {
		for _, name := range names {
			if f.present(name) {
				return f.keyErrorf(name, "%s belongs to %s and cannot be mixed with %s", name, form, other)
			}
		}
		return nil
	}
	const onOff = "a poisson item (poisson, on, off)"
	switch {
	case f.present("poisson"):
		t.Form, t.Count = Poisson, 0
		if err := misplaced([]string{"at", "count", "spread"}, "a request or burst (at, count, spread)", "poisson (random arrivals)"); err != nil {
			return trafficItem{}, nil, err
		}
		if err := misplaced([]string{"every"}, "a periodic item (every, from, until)", "poisson (random arrivals)"); err != nil {
			return trafficItem{}, nil, err
		}
		if t.Rate, err = f.rate("poisson"); err != nil {
			return trafficItem{}, nil, err
		}
		if int64(t.Rate.Per) < t.Rate.N*int64(minPoissonGap) {
			// Gaps are drawn in whole nanoseconds: far below a
			// microsecond, rounding them would bias the mean.
			return trafficItem{}, nil, f.errorf("poisson", "want a mean gap of at least %s (at most %d a second), got %s: one every %s",
				algorithms.FormatDuration(minPoissonGap), int64(time.Second/minPoissonGap), t.Rate, algorithms.FormatDuration(t.Rate.Per/time.Duration(t.Rate.N)))
		}
		if t.From, t.Until, err = f.span("poisson"); err != nil {
			return trafficItem{}, nil, err
		}
		var ok bool
		if f.present("on") || f.present("off") {
			if t.On, ok, err = f.duration("on", true); err != nil {
				return trafficItem{}, nil, err
			} else if !ok {
				return trafficItem{}, nil, f.missing("on", "the length of each on-phase with off, such as 2s")
			}
			if t.Off, ok, err = f.duration("off", true); err != nil {
				return trafficItem{}, nil, err
			} else if !ok {
				return trafficItem{}, nil, f.missing("off", "the length of each off-phase with on, such as 8s")
			}
		}
	case f.has("every"):
		t.Form = Periodic
		if err := misplaced([]string{"at", "count", "spread"}, "a request or burst (at, count, spread)", "every (periodic)"); err != nil {
			return trafficItem{}, nil, err
		}
		if err := misplaced([]string{"on", "off"}, onOff, "every (periodic)"); err != nil {
			return trafficItem{}, nil, err
		}
		if t.Every, _, err = f.duration("every", true); err != nil {
			return trafficItem{}, nil, err
		}
		if t.From, t.Until, err = f.span("periodic"); err != nil {
			return trafficItem{}, nil, err
		}
		t.Count = periodicCount(t.From, t.Until, t.Every)
	case f.has("at"):
		if err := misplaced([]string{"every", "from", "until"}, "a periodic or poisson item (every or poisson, from, until)", "at (a request or burst)"); err != nil {
			return trafficItem{}, nil, err
		}
		if err := misplaced([]string{"on", "off"}, onOff, "at (a request or burst)"); err != nil {
			return trafficItem{}, nil, err
		}
		if t.At, _, err = f.duration("at", false); err != nil {
			return trafficItem{}, nil, err
		}
		if f.present("count") {
			t.Form = Burst
			var ok bool
			if t.Count, ok, err = f.integer("count", 1, MaxRequests); err != nil {
				return trafficItem{}, nil, err
			} else if !ok {
				return trafficItem{}, nil, f.missing("count", "the number of requests in the burst")
			}
			if t.Spread, _, err = f.duration("spread", false); err != nil {
				return trafficItem{}, nil, err
			}
		} else if f.present("spread") {
			return trafficItem{}, nil, f.keyErrorf("spread", "spread needs count (a burst is at + count, optionally spread)")
		}
	default:
		return trafficItem{}, nil, d.errorf(n, path, "want at (one request, or a burst with count), every (periodic, with until) or poisson (random arrivals, with until)")
	}
	if key, ok, err := f.optionalKey(); err != nil {
		return trafficItem{}, nil, err
	} else if ok {
		t.Key = key
	}
	if cost, ok, err := f.integer("cost", 1, algorithms.MaxCount); err != nil {
		return trafficItem{}, nil, err
	} else if ok {
		t.Cost = cost
	}
	return trafficItem{Traffic: t}, f, nil
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

// span reads a periodic or poisson item's from (0 if left out) and until
// (required, after from).
func (f *fields) span(form string) (from, until time.Duration, err error) {
	if from, _, err = f.duration("from", false); err != nil {
		return 0, 0, err
	}
	var ok bool
	if until, ok, err = f.duration("until", false); err != nil {
		return 0, 0, err
	} else if !ok {
		return 0, 0, f.missing("until", "the end of the "+form+" item (exclusive), such as 30s")
	}
	if until <= from {
		return 0, 0, f.errorf("until", "want a time after from (%s), got %s", algorithms.FormatDuration(from), algorithms.FormatDuration(until))
	}
	return from, until, nil
}

func (d *decoder) note(n ast.Node, path string) (Note, *fields, error) {
	f, err := d.fields(n, path, "a note such as {at: 60s, text: ...}", noteFields)
	if err != nil {
		return Note{}, nil, err
	}
	var note Note
	var ok bool
	if note.At, ok, err = f.duration("at", false); err != nil {
		return Note{}, nil, err
	} else if !ok {
		return Note{}, nil, f.missing("at", "the time to show the note, such as 60s")
	}
	if note.Text, err = f.requiredText("text", "the note's text", true); err != nil {
		return Note{}, nil, err
	}
	return note, f, nil
}

// outcomes are the values of an expectation's outcome.
var outcomes = map[string]algorithms.Outcome{
	"allowed":  algorithms.Allowed,
	"delayed":  algorithms.Delayed,
	"rejected": algorithms.Rejected,
}

// expectation decodes one item of expect. Until is left at -1 when the
// file leaves it to default to the scenario's duration, which
// checkExpectation resolves.
func (d *decoder) expectation(n ast.Node, path string) (Expectation, *fields, error) {
	f, err := d.fields(n, path, "an expectation such as {lane: fixed, until: 61s, admitted: 240}", expectFields)
	if err != nil {
		return Expectation{}, nil, err
	}
	e := Expectation{Until: -1}
	e.Line, _ = position(n)
	if e.Lane, err = f.requiredText("lane", "the name of a lane", false); err != nil {
		return Expectation{}, nil, err
	}
	if e.Key, _, err = f.optionalKey(); err != nil {
		return Expectation{}, nil, err
	}
	if f.has("at") {
		for _, name := range []string{"from", "until"} {
			if f.present(name) {
				return Expectation{}, nil, f.keyErrorf(name, "at selects the requests of one instant and cannot be combined with %s", name)
			}
		}
		at, _, err := f.duration("at", false)
		if err != nil {
			return Expectation{}, nil, err
		}
		e.From, e.Until, e.Instant = at, at+1, true
	} else {
		if e.From, _, err = f.duration("from", false); err != nil {
			return Expectation{}, nil, err
		}
		if until, ok, err := f.duration("until", true); err != nil {
			return Expectation{}, nil, err
		} else if ok {
			if until <= e.From {
				return Expectation{}, nil, f.errorf("until", "want a time after from (%s), got %s", algorithms.FormatDuration(e.From), algorithms.FormatDuration(until))
			}
			e.Until = until
		}
	}
	for _, c := range e.counts() {
		v, ok, err := f.integer(c.name, 0, MaxRequests)
		if err != nil {
			return Expectation{}, nil, err
		}
		if ok {
			*c.v = &v
		}
	}
	peak, hasPeak, err := f.integer("peak", 0, maxTotalCost)
	if err != nil {
		return Expectation{}, nil, err
	}
	window, hasWindow, err := f.duration("peak_window", true)
	if err != nil {
		return Expectation{}, nil, err
	}
	switch {
	case hasPeak && !hasWindow:
		return Expectation{}, nil, f.missing("peak_window", "the length of the window peak is measured in, such as 1s")
	case hasWindow && !hasPeak:
		return Expectation{}, nil, f.errorf("peak_window", "peak_window needs peak")
	case hasPeak:
		e.Peak, e.PeakWindow = &peak, window
	}
	if o, ok, err := f.text("outcome", "allowed, delayed or rejected", false); err != nil {
		return Expectation{}, nil, err
	} else if ok {
		outcome, known := outcomes[o]
		if !known {
			return Expectation{}, nil, f.errorf("outcome", "want allowed, delayed or rejected, got %s", strconv.Quote(shorten(o)))
		}
		e.Outcome = &outcome
	}
	asserted := e.Peak != nil || e.Outcome != nil
	for _, c := range e.counts() {
		asserted = asserted || *c.v != nil
	}
	if !asserted {
		return Expectation{}, nil, d.errorf(n, path, "want at least one assertion: allowed, admitted, delayed, rejected, retries, served, abandoned, peak or outcome")
	}
	if e.Why, _, err = f.text("why", "an explanation", true); err != nil {
		return Expectation{}, nil, err
	}
	return e, f, nil
}

// quizMark decodes one item of quiz.
func (d *decoder) quizMark(n ast.Node, path string) (QuizMark, *fields, error) {
	f, err := d.fields(n, path, "a quiz mark such as {at: 60s, lane: log, ask: ...}", quizFields)
	if err != nil {
		return QuizMark{}, nil, err
	}
	q := QuizMark{Request: 1}
	q.Line, _ = position(n)
	var ok bool
	if q.At, ok, err = f.duration("at", false); err != nil {
		return QuizMark{}, nil, err
	} else if !ok {
		return QuizMark{}, nil, f.missing("at", "the time of the request to predict, such as 60s")
	}
	if r, ok, err := f.integer("request", 1, MaxRequests); err != nil {
		return QuizMark{}, nil, err
	} else if ok {
		q.Request = int(r)
	}
	if q.Key, _, err = f.optionalKey(); err != nil {
		return QuizMark{}, nil, err
	}
	if lane, ok, err := f.text("lane", "the name of a lane", false); err != nil {
		return QuizMark{}, nil, err
	} else if ok {
		if lane == "" {
			return QuizMark{}, nil, f.errorf("lane", "want the name of a lane, got blank text")
		}
		q.Lane = lane
	}
	if q.Ask, _, err = f.text("ask", "a question or hint", true); err != nil {
		return QuizMark{}, nil, err
	}
	if q.Why, _, err = f.text("why", "an explanation", true); err != nil {
		return QuizMark{}, nil, err
	}
	return q, f, nil
}

// checkQuizMark checks q, read from f, against the rest of the scenario.
// Whether the marked request exists is left to `ratelab check`.
func checkQuizMark(s *Scenario, q *QuizMark, f *fields, keys []string) error {
	if q.Lane != "" {
		if _, ok := s.Lane(q.Lane); !ok {
			return f.errorf("lane", "no lane is called %s; the lanes are %s", strconv.Quote(shorten(q.Lane)), laneNames(s))
		}
	}
	if q.Key != "" && !slices.Contains(keys, q.Key) {
		return f.errorf("key", "no request has key %s", strconv.Quote(shorten(q.Key)))
	}
	if q.At >= s.Duration {
		return f.errorf("at", "%s is not before the end of the time axis (duration %s)", algorithms.FormatDuration(q.At), algorithms.FormatDuration(s.Duration))
	}
	return nil
}

// laneNames lists s's lane names for errors: "fixed, log, bucket".
func laneNames(s *Scenario) string {
	names := make([]string, len(s.Lanes))
	for i, l := range s.Lanes {
		names[i] = l.Name
	}
	return strings.Join(names, ", ")
}

// checkExpectation checks e, read from f, against the rest of the scenario
// and resolves its default end.
func checkExpectation(s *Scenario, e *Expectation, f *fields, keys []string) error {
	lane, ok := s.Lane(e.Lane)
	if !ok {
		return f.errorf("lane", "no lane is called %s; the lanes are %s", strconv.Quote(shorten(e.Lane)), laneNames(s))
	}
	if e.Key != "" && !slices.Contains(keys, e.Key) {
		return f.errorf("key", "no request has key %s", strconv.Quote(shorten(e.Key)))
	}
	if !algorithms.Describe(lane.Policy.Algorithm).Delays() {
		never := func(name string) error {
			return f.errorf(name, "lane %s is a %s, which never delays a request", lane.Name, lane.Policy.Algorithm)
		}
		if e.Delayed != nil && *e.Delayed > 0 {
			return never("delayed")
		}
		if e.Outcome != nil && *e.Outcome == algorithms.Delayed {
			return never("outcome")
		}
	}
	switch {
	case e.Instant && e.From >= s.Duration:
		return f.errorf("at", "%s is not before the end of the time axis (duration %s)", algorithms.FormatDuration(e.From), algorithms.FormatDuration(s.Duration))
	case e.Until < 0:
		e.Until = s.Duration
		if e.From >= e.Until {
			return f.errorf("from", "%s is not before the end of the time axis (duration %s)", algorithms.FormatDuration(e.From), algorithms.FormatDuration(s.Duration))
		}
	case e.Until > s.Duration: // an instant before the end ends at most at it
		return f.errorf("until", "%s is past the end of the time axis (duration %s)", algorithms.FormatDuration(e.Until), algorithms.FormatDuration(s.Duration))
	}
	return nil
}
