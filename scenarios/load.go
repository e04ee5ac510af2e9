package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
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
)

// Limits that keep a runaway file from eating the machine.
const (
	// MaxFileSize is the largest scenario file Load and Parse accept.
	MaxFileSize = 1 << 20
	// MaxRequests bounds the number of requests a scenario expands to.
	MaxRequests = 20_000_000
	// MaxDecisions bounds the decisions a run may make on one lane: every
	// request once per attempt its client may make (1 without a client).
	// A decision costs 90 ns (a client retrying at once) to 370 ns (one
	// backing off with jitter): at most about 30 s of run a lane.
	MaxDecisions = 80_000_000
	// MaxLanes bounds the number of limiters side by side.
	MaxLanes = 8
	// MaxTime bounds every time and duration in a file: a leap year.
	MaxTime = 366 * 24 * time.Hour
	// MaxNameLen bounds lane names (a–z, 0–9 and -), maxKeyLen request keys.
	MaxNameLen = 32
	maxKeyLen  = 64
)

// MaxTokens bounds the YAML tokens a scenario file may hold (values,
// punctuation and comments, as the YAML lexer counts them). The YAML library
// keeps a few hundred bytes for each token and node, so a 1 MiB file made
// of nothing but punctuation would take over 400 MB to read; this bound keeps
// reading any file under 100 MB while leaving room for thousands of traffic
// items, notes and expectations (a traffic item such as `- {at: 1s}` is 6
// tokens; text is counted as about one a line, see tokenCount).
const MaxTokens = 100_000

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

// MaxPolicies bounds the policies of a stacked lane: as many layers as
// a stack takes.
const MaxPolicies = algorithms.MaxLayers

// MaxClients bounds the clients of a scenario.
const MaxClients = 100

// MaxAttempts bounds a client's attempts at one request, the first
// included.
const MaxAttempts = 100

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
	return (&decoder{file: name}).parse(data)
}

// parse is Parse with d's options.
func (d *decoder) parse(data []byte) (*Scenario, error) {
	name := d.file
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
