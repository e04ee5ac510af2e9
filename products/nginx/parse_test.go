package nginx

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// words is every directive of src with its arguments, nested blocks
// flattened in order, as "name arg arg" (a block's end as "}").
func words(t *testing.T, src string) []string {
	t.Helper()
	r := &reader{}
	ds, err := r.parse("t.conf", []byte(src))
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	var out []string
	var walk func([]directive)
	walk = func(ds []directive) {
		for _, d := range ds {
			out = append(out, strings.Join(append([]string{d.Name}, d.Args...), "|"))
			if d.HasBlock {
				walk(d.Block)
				out = append(out, "}")
			}
		}
	}
	walk(ds)
	return out
}

// The tokenizer splits words as ngx_conf_read_token does.
func TestTokens(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"plain", "a b c;", []string{"a|b|c"}},
		{"spaces and lines", "a\tb\r\n  c\n;", []string{"a|b|c"}},
		{"block", "http { a 1; b; }", []string{"http", "a|1", "b", "}"}},
		{"brace ends a word", "location /x{ a; }", []string{"location|/x", "a", "}"}},
		{"semicolon ends a word", "a b;c d;", []string{"a|b", "c|d"}},
		{"comment", "# all of it\na b; # and this\n", []string{"a|b"}},
		{"hash inside a word", "a b#c;", []string{"a|b#c"}},
		{"double quotes", `a "b c;{}" d;`, []string{"a|b c;{}|d"}},
		{"single quotes", `a 'b "c"';`, []string{`a|b "c"`}},
		{"escapes in quotes", `a "x\"y\\z\tw";`, []string{"a|x\"y\\z\tw"}},
		{"other escapes stay", `a "\d\.";`, []string{`a|\d\.`}},
		{"escape outside quotes keeps its backslash", `a b\ c;`, []string{`a|b\ c`}},
		{"variable braces", "a ${var}x;", []string{"a|${var}x"}},
		{"closing brace inside a word", "a b};", []string{"a|b}"}},
		{"empty quoted word", `a "";`, []string{"a|"}},
		{"a paren after a quote is a word", `if ($a = "b") { c; }`, []string{`if|($a|=|b|)`, "c", "}"}},
		{"empty file", "", nil},
		{"only a comment", "# nothing", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := words(t, c.src); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%q: %q, want %q", c.src, got, c.want)
			}
		})
	}
}

// malformed are files nginx's parser refuses, with its words and line.
var malformed = []struct{ src, want string }{
	{"worker_processes 1", `t.conf:1: unexpected end of file, expecting ";" or "}"`},
	{"http {\n server_tokens off;\n", `t.conf:3: unexpected end of file, expecting "}"`},
	{"worker_processes 1;\n}", `t.conf:2: unexpected "}"`},
	{"worker_processes 1 }", `t.conf:1: unexpected "}"`},
	{";", `t.conf:1: unexpected ";"`},
	{"{", `t.conf:1: unexpected "{"`},
	{`worker_processes "1"c;`, `t.conf:1: unexpected "c"`},
	{"worker_processes\n\n'1", `t.conf:3: unexpected end of file, expecting ";" or "}"`},
}

// Malformed files are refused with nginx's words and line (real_test.go
// holds real nginx to the same table).
func TestTokenErrors(t *testing.T) {
	for _, c := range malformed {
		_, err := (&reader{}).parse("t.conf", []byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.src, err, c.want)
		}
	}
}

// A directive's Pos is its first word's line, End its ";" or "{" line.
func TestDirectiveLines(t *testing.T) {
	ds, err := (&reader{}).parse("t.conf", []byte("\n# c\nhttp\n{\n  limit_req\n    zone=a\n    burst=5;\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Pos.Line != 3 || ds[0].End.Line != 4 {
		t.Errorf("http at %v to %v, want lines 3 and 4", ds[0].Pos, ds[0].End)
	}
	if l := ds[0].Block[0]; l.Pos.Line != 5 || l.End.Line != 7 {
		t.Errorf("limit_req at %v to %v, want lines 5 and 7", l.Pos, l.End)
	}
}

// writeFiles writes name → text under a new directory, returning it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Includes are taken from the main file's directory (an included file's
// own includes too, as nginx's conf_prefix), wildcards in name
// order (none matching is no error), in the block where they stand; an
// include given text alone, a missing file or one that includes itself is
// refused.
func TestIncludes(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"nginx.conf":          "http {\n include zones.conf;\n include sites/*.conf;\n include none/*.conf;\n}\n",
		"zones.conf":          "limit_req_zone $binary_remote_addr zone=ip:1m rate=5r/s;\n",
		"sites/b.conf":        "server { server_name b; limit_req zone=ip; }\n",
		"sites/a.conf":        "server { server_name a; include snippets/limit.conf; }\n",
		"snippets/limit.conf": "limit_req zone=ip burst=3 nodelay;\n",
	})
	cfg, err := ReadFile(filepath.Join(dir, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Zones) != 1 || cfg.Zones[0].Pos.File != filepath.Join(dir, "zones.conf") {
		t.Fatalf("zones %+v", cfg.Zones)
	}
	var got []string
	for _, p := range cfg.Places {
		got = append(got, p.Name()+" "+filepath.Base(p.Pos.File))
	}
	if want := []string{"a a.conf", "b b.conf"}; !reflect.DeepEqual(got, want) {
		t.Errorf("places %q, want %q", got, want)
	}
	if l := cfg.Places[0].Limits[0]; l.Burst != 3 || !l.NoDelay || l.Pos.File != filepath.Join(dir, "snippets", "limit.conf") {
		t.Errorf("a's limit %+v", l)
	}

	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"missing", map[string]string{"nginx.conf": "http {\n include gone.conf;\n}\n"}, `nginx.conf:2: open() "` + "DIR" + `/gone.conf" failed (no such file or directory)`},
		{"itself", map[string]string{"nginx.conf": "include nginx.conf;\n"}, "more than 256 files included"},
		{"arguments", map[string]string{"nginx.conf": "include a b;\n"}, `nginx.conf:1: invalid number of arguments in "include" directive`},
	} {
		dir := writeFiles(t, c.files)
		_, err := ReadFile(filepath.Join(dir, "nginx.conf"))
		want := strings.ReplaceAll(c.want, "DIR", dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", c.name, err, want)
		}
	}
	if _, err := Parse("text", []byte("include x.conf;")); err == nil || !strings.Contains(err.Error(), "cannot include files") {
		t.Errorf("an include in text: %v", err)
	}
}
