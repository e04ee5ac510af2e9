package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// TestStrictWhereTheFormatIsStrict: what docs/format.md says a file may not
// hold, which the loader used to accept (issue 17), each with the error it
// must give now, or "" beside what must still load.
func TestStrictWhereTheFormatIsStrict(t *testing.T) {
	lane := func(params string) string {
		return "title: t\nlimiters:\n  - {name: b, algorithm: " + params + "}\n"
	}
	tests := []struct {
		name, yaml, want string
	}{
		// A rate's D is a duration of the file, at most 8784h, the longest
		// --peak-window (a lane's D can be the default peak window).
		{"rate of one a year", lane("token-bucket, capacity: 10, rate: 1/8784h"), ""},
		{"rate period past a year", lane("token-bucket, capacity: 10, rate: 1/8784h0m0.000000001s"),
			`x.yaml:3:60: limiters[0].rate: rate "1/8784h0m0.000000001s": D must be at most 8784h (a year), as every duration of a scenario`},
		{"rate period of the largest duration", lane("gcra, burst: 1, rate: 1/2562047h"),
			`x.yaml:3:48: limiters[0].rate: rate "1/2562047h": D must be at most 8784h (a year), as every duration of a scenario`},
		{"policy's rate period past a year", "title: t\nlimiters:\n  - name: b\n    policies:\n      - {algorithm: gcra, burst: 1, rate: 1/1s}\n      - {algorithm: token-bucket, capacity: 2, rate: 2/9000h, across: all}\n",
			`x.yaml:6:54: limiters[0].policies[1].rate: rate "2/9000h": D must be at most 8784h (a year), as every duration of a scenario`},
		{"poisson period past a year", oneLane + "traffic:\n  - {poisson: 1/9000h, until: 1s}\n",
			`x.yaml:5:15: traffic[0].poisson: rate "1/9000h": D must be at most 8784h (a year), as every duration of a scenario`},

		// Only %YAML 1.1 and 1.2, as documented.
		{"%YAML 1.0", "%YAML 1.0\n---\n" + oneLane, "x.yaml:1:1: the YAML directive %YAML 1.0 is not supported (only %YAML 1.1 or 1.2)"},
		{"%YAML 1.3", "%YAML 1.3\n---\n" + oneLane, "x.yaml:1:1: the YAML directive %YAML 1.3 is not supported (only %YAML 1.1 or 1.2)"},
		{"%YAML 1.1", "%YAML 1.1\n---\n" + oneLane, ""},

		// A rate is written N/D, without spaces.
		{"spaces around /", strings.Replace(oneLane, "rate: 2/s", "rate: 2 / s", 1),
			`x.yaml:3:60: limiters[0].rate: rate "2 / s": want N/D without spaces, such as 2/s`},
		{"space before the unit", strings.Replace(oneLane, "rate: 2/s", "rate: 2/ s", 1),
			`x.yaml:3:60: limiters[0].rate: rate "2/ s": want N/D without spaces, such as 2/s`},
		{"quoted leading space", strings.Replace(oneLane, "rate: 2/s", `rate: " 2/s"`, 1),
			`x.yaml:3:60: limiters[0].rate: rate " 2/s": want N/D without spaces, such as 2/s`},
		{"nginx rate with a space", lane("nginx-limit-req, rate: 2r /s"),
			`x.yaml:3:49: limiters[0].rate: rate "2r /s": want N/D without spaces, such as 2/s`},

		// Characters no text holds, escaped or raw, wherever text is screened.
		{"line separator in a title, raw", "title: a\u2028b\n" + oneLane[len("title: t\n"):],
			"x.yaml:1:8: title: want a title, got the line separator U+2028, which a terminal does not show as a line break"},
		{"byte order mark in a title, raw", "title: a\ufeffb\n" + oneLane[len("title: t\n"):],
			"x.yaml:1:8: title: want a title, got U+FEFF, a byte order mark, which belongs only at the start of a file"},
		{"noncharacter in a title, escaped", `title: "a\uFFFFb"` + "\n" + oneLane[len("title: t\n"):],
			"x.yaml:1:8: title: want a title, got the noncharacter U+FFFF, which is not text"},
		{"noncharacter of another plane in a key", oneLane + "traffic:\n  - {at: 1s, key: \"a\\U0010FFFEb\"}\n",
			"x.yaml:5:19: traffic[0].key: want a key, got the noncharacter U+10FFFE, which is not text"},
		{"noncharacter U+FDD0 in about", oneLane + "about: \"a\\uFDD0\"\n",
			"x.yaml:4:8: about: want prose about the lesson, got the noncharacter U+FDD0, which is not text"},
		{"line separator in a quiz question", oneLane + "traffic: [{at: 1s}]\nquiz:\n  - {at: 1s, ask: \"a\\u2028b\"}\n",
			"x.yaml:6:19: quiz[0].ask: want a question or hint, got the line separator U+2028, which a terminal does not show as a line break"},
		{"byte order mark in a client's name", oneLane + "clients: [{name: \"a\\uFEFF\"}]\n",
			`x.yaml:4:18: clients[0].name: want the client's name, got U+FEFF, a byte order mark, which belongs only at the start of a file`},
		{"zero-width space is fine", "title: \"a\u200bb\"\n" + oneLane[len("title: t\n"):], ""},
		{"a byte order mark at the start is fine", "\ufeff" + oneLane, ""},

		// One document: at most one ... after it, then only comments.
		{"one ... and comments", "--- # start\n" + oneLane + "... # end\n# after the end\n", ""},
		{"a --- after the document", oneLane + "---\n", "x.yaml:4:1: want one YAML document, found a line of --- after it (a file may end with one line of ..., then only comments)"},
		{"a thousand --- after the document", oneLane + strings.Repeat("---\n", 1000),
			"x.yaml:4:1: want one YAML document, found a line of --- after it (a file may end with one line of ..., then only comments)"},
		{"a thousand ... after the document", oneLane + strings.Repeat("...\n", 1000),
			"x.yaml:5:1: want one YAML document, found a second line of ... after it (a file may end with one line of ..., then only comments)"},
		{"... then ---", oneLane + "...\n---\n", "x.yaml:5:1: want one YAML document, found a line of --- after it (a file may end with one line of ..., then only comments)"},
		{"two --- before the document", "---\n---\n" + oneLane, "x.yaml:3:1: want one YAML document, found a second one"},
		{"a document after ...", oneLane + "...\ntitle: u\n", "x.yaml:5:1: want one YAML document, found a second one"},
		{"... before the document", "...\n" + oneLane, "x.yaml:1:1: a line of ... ends a document, and none has begun: want the document before it"},
		{"only markers", "---\n...\n", "x.yaml: empty file: want a mapping with title, limiters and traffic"},

		// A key, written, is a key: null is not the default.
		{"key: null", oneLane + "traffic:\n  - {at: 1s, key: null}\n", "x.yaml:5:14: traffic[0].key: want a key of 1 to 64 bytes, got nothing"},
		{"key: ~", oneLane + "traffic:\n  - {at: 1s, key: ~}\n", "x.yaml:5:14: traffic[0].key: want a key of 1 to 64 bytes, got nothing"},
		{"key: with nothing", oneLane + "traffic:\n  - at: 1s\n    key:\n", "x.yaml:6:5: traffic[0].key: want a key of 1 to 64 bytes, got nothing"},
		{"key: null with accounts", oneLane + "traffic:\n  - {at: 1s, accounts: 2, key: null}\n", "x.yaml:5:27: traffic[0].key: want a key of 1 to 64 bytes, got nothing"},
		{"key: null in quiz", oneLane + "traffic: [{at: 1s}]\nquiz:\n  - {at: 1s, key: ~}\n", "x.yaml:6:14: quiz[0].key: want a key of 1 to 64 bytes, got nothing"},
		{"empty key in expect", oneLane + "traffic: [{at: 1s}]\nexpect:\n  - {lane: b, key: \"\", admitted: 1}\n", `x.yaml:6:20: expect[0].key: want a key of 1 to 64 bytes, got ""`},
		{"key: \"null\" is a key", oneLane + "traffic:\n  - {at: 1s, key: \"null\"}\nexpect:\n  - {lane: b, key: \"null\", admitted: 1}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(tt.yaml))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case tt.want == "":
				if len(s.Lanes) != 1 {
					t.Fatalf("Parse = %+v", s)
				}
			case err == nil:
				t.Fatalf("Parse succeeded, want %s", tt.want)
			case err.Error() != tt.want:
				t.Errorf("error\n got: %s\nwant: %s", err, tt.want)
			}
		})
	}
}

// TestCheckKey: the rules a file's keys follow, for a key typed in the
// explorer (model checks a fired key with it, so a saved file loads).
func TestCheckKey(t *testing.T) {
	for _, c := range []struct{ key, want string }{
		{"seller-842", ""},
		{"שלום", ""},
		{"", `want a key of 1 to 64 bytes, got ""`},
		{strings.Repeat("k", 65), `want a key of 1 to 64 bytes, got "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…"`},
		{"caf\xe9", `want a key of UTF-8 text, got "caf\xe9"`},
		{"a\tb", "want a key, got the control character U+0009"},
		{"a\u202eb", "want a key, got the bidirectional formatting character U+202E, which would reorder the text around it on a terminal"},
	} {
		err := CheckKey(c.key)
		if got := fmt.Sprint(err); (err == nil) != (c.want == "") || err != nil && got != c.want {
			t.Errorf("CheckKey(%q) = %v, want %q", c.key, err, c.want)
		}
	}
}
