// Package nginx reads the limit_req part of an nginx configuration (a whole
// nginx.conf with its includes, or a fragment) and writes one: the zones
// (limit_req_zone), and for each server and location the limit_req rules
// that apply to it with their limit_req_status and limit_req_dry_run, as
// nginx itself merges them. It reads the file as nginx's own parser does
// (ngx_conf_file.c: words, quotes and escapes, comments, blocks, include
// with wildcards) and refuses what nginx would refuse in these directives
// with nginx's own message and the file and line; every other directive is
// read for its structure only, so `nginx -t` stays the authority on them.
package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Pos is where a directive starts: a file and a line (1-based).
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// Error is what nginx would refuse, at Pos: its message is nginx's own
// ("invalid rate \"rate=0r/s\""), where nginx has one.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// directive is one directive as read: its name, its arguments (unquoted and
// unescaped as nginx does), where it starts and where it ends (its ";" or
// "{", the line nginx's messages name), and its block's directives (Block
// is nil for a directive ended by ";"). An include is replaced by what its
// files hold.
type directive struct {
	Name     string
	Args     []string
	Pos, End Pos
	Block    []directive
	// HasBlock tells an empty block from none.
	HasBlock bool
}

// MaxFiles bounds the files one configuration reads (an include that
// includes itself would never end).
const MaxFiles = 256

// maxFileBytes bounds one file, as nginx reads a configuration whole.
const maxFileBytes = 16 << 20

// reader reads a configuration: the main file and its includes.
type reader struct {
	// prefix is the directory a relative include is taken from: the main
	// file's, as nginx's conf_prefix is when started with -c FILE; "" when
	// the text came with no file (an include is then refused).
	prefix string
	files  int
}

// ReadFile reads the configuration in path and every file it includes.
func ReadFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &reader{prefix: filepath.Dir(path)}
	ds, err := r.parse(path, data)
	if err != nil {
		return nil, err
	}
	return build(ds)
}

// Parse reads a configuration given as text, name standing for its file in
// messages. It cannot include other files.
func Parse(name string, text []byte) (*Config, error) {
	r := &reader{}
	ds, err := r.parse(name, text)
	if err != nil {
		return nil, err
	}
	return build(ds)
}

// parse reads one file's directives, its includes expanded in place.
func (r *reader) parse(name string, data []byte) ([]directive, error) {
	r.files++
	if r.files > MaxFiles {
		return nil, &Error{Pos{name, 1}, fmt.Sprintf("more than %d files included: an include of itself?", MaxFiles)}
	}
	if len(data) > maxFileBytes {
		return nil, &Error{Pos{name, 1}, fmt.Sprintf("file larger than %d MiB", maxFileBytes>>20)}
	}
	t := &tokenizer{src: data, pos: Pos{name, 1}}
	ds, end, err := r.block(t)
	if err != nil {
		return nil, err
	}
	if end == blockDone {
		return nil, &Error{t.at, `unexpected "}"`}
	}
	return ds, nil
}

// block reads directives until the end of the file or a "}" (returned as
// how it ended).
func (r *reader) block(t *tokenizer) ([]directive, tokenEnd, error) {
	var ds []directive
	for {
		words, end, at, err := t.next()
		if err != nil {
			return nil, 0, err
		}
		switch end {
		case fileDone, blockDone:
			return ds, end, nil
		}
		d := directive{Name: words[0], Args: words[1:], Pos: at, End: t.at}
		if end == blockStart {
			inner, how, err := r.block(t)
			if err != nil {
				return nil, 0, err
			}
			if how == fileDone {
				return nil, 0, &Error{t.at, `unexpected end of file, expecting "}"`}
			}
			d.Block, d.HasBlock = inner, true
			ds = append(ds, d)
			continue
		}
		if d.Name == "include" {
			inc, err := r.include(d)
			if err != nil {
				return nil, 0, err
			}
			ds = append(ds, inc...)
			continue
		}
		ds = append(ds, d)
	}
}

// include reads the files an include names: a path relative to the main
// file's directory, wildcards matching any number of files (in name
// order) or none, a plain path that must exist.
func (r *reader) include(d directive) ([]directive, error) {
	if len(d.Args) != 1 {
		return nil, &Error{d.End, `invalid number of arguments in "include" directive`}
	}
	if r.prefix == "" {
		return nil, &Error{d.End, fmt.Sprintf("include %s: a configuration given as text cannot include files; give its file instead", d.Args[0])}
	}
	pattern := d.Args[0]
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(r.prefix, pattern)
	}
	var paths []string
	if strings.ContainsAny(pattern, "*?[") {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return nil, &Error{d.End, fmt.Sprintf("glob \"%s\" failed: %v", pattern, err)}
		}
		slices.Sort(m)
		paths = m
	} else {
		paths = []string{pattern}
	}
	var out []directive
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			continue // a wildcard matching a directory: nginx skips it
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, &Error{d.End, fmt.Sprintf("open() \"%s\" failed (%v)", p, unwrapPathError(err))}
		}
		ds, err := r.parse(p, data)
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
	}
	return out, nil
}

// unwrapPathError is the system's reason alone ("no such file or
// directory"), the path being said already.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
