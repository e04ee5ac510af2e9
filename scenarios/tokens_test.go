package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/lexer"
)

// tokenSamples are YAML texts whose tokens tokenCount must not undercount:
// the canned lessons, the test files and shapes chosen to trip a cheap
// scanner (quotes, comments, block text, tags, flow inside block).
func tokenSamples(t testing.TB) map[string]string {
	samples := map[string]string{}
	for _, info := range List() {
		data, _ := Source(info.Name)
		samples[info.Name] = string(data)
	}
	files, _ := filepath.Glob("testdata/*/*.yaml")
	more, _ := filepath.Glob("testdata/*.yaml")
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		samples[file] = string(data)
	}
	for i, s := range []string{
		"", ":", "- -", "{", "[", "title:", "title: |", "&a a: *a", "? a\n: b",
		"a: [1,2,3,[4,5],{b: c, d: e}]\n",
		"a: {b:c,d:e}\n",
		"a: [a:b, c:d, 'e:f', \"g:h\"]\n",
		"a: !!str 1s\nb: !tag &anchor v\nc: *anchor\n",
		"a: 'it''s, [not] {flow}'\nb: \"esc \\\" [x], {y}\"\n",
		"a: |\n  [1, 2, 3]\n  {a: b}\nb: [1, 2]\n",
		"- a: |\n  [1, 2, 3]\n",                    // an empty block text, then flow
		"- a: >-\n    text\n  [1, 2, 3]\n",         // the text ends, flow follows
		"a: |2\n   x\n  y\nb: [1,2]\n",             // explicit indentation
		"a: plain text, with commas, [brackets]\n", // block context: one value
		"a: x # comment, [not flow]\nb: [1, # comment\n 2]\n",
		"a: multi\n  line\n  plain\n",
		"%YAML 1.2\n---\na: b\n...\n---\nc: d\n",
		"a:\n- b\n- - c\n  - d\n-   ? e\n    : f\n",
		"\"quoted key\": v\n'single': [x]\n",
		"a: \"unterminated [1,2,3]\n",
		"a: 'unterminated [1,2,3]\n",
		"a: [\"q\", 'r', {\"s\": 't'}]\n",
		"a: b:c\nd: http://x.y/z?q=1,2\n",
		strings.Repeat("- {at: 1s}\n", 50),
		strings.Repeat("- \n", 50),
		"a: [" + strings.Repeat("1,", 200) + "]\n",
		"a: [" + strings.Repeat("[],", 200) + "]\n",
		"a: [" + strings.Repeat(",", 200) + "]\n",
		"a: [{" + strings.Repeat("a: ,", 200) + "}]\n",
		"a: [" + strings.Repeat("!t x,", 200) + "]\n",
		"a: [" + strings.Repeat("*x,", 200) + "]\n",
		strings.Repeat("# c\n", 200),
		"a:\t[1,\t2]\r\nb: c\r\n",
		// Found by FuzzTokenCount: what the lexer cuts finer than it looks.
		"|\n0: 0: 0: 0: ! 0\n! {0,0,0,0",
		"0\n\": {0,0,0,0,0,0,0,0,0,00",
		"\"000\"\n|0\n {,0,0,0,0,0,0,0,0,0,0",
		"][[0[0,0,0,0,0,0,0,",
		"0\n \": {0,0,0,0,0,000,0,0,0,0\"0",
		"`%%%%%%%%%%%%%%%%%0",
		strings.Repeat("\"", 36) + "0",
		"[}0,0,0,0,0,0,0,0,0,0,0,",
		"!00000000000000{&&&&&&&&&&&&&&&&&0",
		"%%%%%%%%%%%%%%%%%%%%0",
		"&0 %00000 00 &0 &0 &0 &0 &0 &0 &0 &0 &0 &00",
	} {
		samples[strings.Repeat("x", i%1)+"sample "+string(rune('A'+i))] = s
	}
	return samples
}

// TestTokenCountBoundsTheLexer: the cheap count is at least the YAML lexer's
// own count on every sample, so the limit checked before lexing bounds what
// the lexer and parser allocate, and not much more on ordinary files (the
// lessons, the test files), so that the limit refuses none of them.
func TestTokenCountBoundsTheLexer(t *testing.T) {
	for name, text := range tokenSamples(t) {
		lexed := len(lexer.Tokenize(text))
		n, offset := tokenCount([]byte(text), 1<<30)
		if offset != len(text) {
			t.Errorf("%s: stopped at %d of %d bytes without passing the limit", name, offset, len(text))
		}
		if n < lexed {
			t.Errorf("%s: counted %d tokens, the lexer makes %d\n%s", name, n, lexed, text)
		}
		if ordinary := !strings.HasPrefix(name, "sample"); ordinary && n > 2*lexed+10 {
			t.Errorf("%s: counted %d tokens, the lexer makes only %d\n%s", name, n, lexed, text)
		}
	}
}

// FuzzTokenCount: on any text the cheap count is never far below the YAML
// lexer's (at most half of it, plus a few), so that the limit checked
// before lexing bounds the lexer's work; exact counts are checked after
// lexing too.
func FuzzTokenCount(f *testing.F) {
	for _, text := range tokenSamples(f) {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lexed := len(lexer.Tokenize(text))
		if n, _ := tokenCount([]byte(text), 1<<30); 2*n+16 < lexed {
			t.Fatalf("counted %d tokens, the lexer makes %d", n, lexed)
		}
	})
}
