package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadQuotesLittleOfTheFile: an error about a file that is no scenario
// quotes none of it: a field or key name only when it looks like a name
// (a misspelt field), nothing of a line of other text, and nothing at all
// of a file that is not text (it quoted /etc/shadow's first line).
func TestLoadQuotesLittleOfTheFile(t *testing.T) {
	secret := "root:$6$Qx8Vb2mP$Zk3nF7yHq1wLr9sTe4uJc0aDg6iOp5vBx2NmK8hWz1QyRt7LsE3fUa9cXj4GdV0bPo6iMn2kHl5qTr8wYe1zS:19000:0:99999:7:::"
	dir := t.TempDir()
	tests := []struct {
		name, data, want string
	}{
		{"a long first line", secret + "\n",
			`unknown field of 120 characters, not a field name (is this a scenario file?); want one of title, about, step, duration, seed, watch, limiters, clients, traffic, notes, quiz, expect`},
		{"a long line of no field", strings.Repeat("secret ", 20) + "\n",
			`want a mapping with title, limiters and traffic, got a text (is this a scenario file?)`},
		{"a long key twice", "title: t\n" + secret + "\n" + secret + "\n",
			`invalid YAML: mapping key of 120 characters already defined at [2:1]`},
		{"escaped", "\"a\\e[2Jb: " + secret + "\": 1\n",
			`unknown field of 129 characters, not a field name (is this a scenario file?); want one of title, about, step, duration, seed, watch, limiters, clients, traffic, notes, quiz, expect`},
		{"a short secret", "hunter2:x: 1\n",
			`unknown field of 9 characters, not a field name (is this a scenario file?); want one of title, about, step, duration, seed, watch, limiters, clients, traffic, notes, quiz, expect`},
		{"a misspelt field", "titel: x\n",
			`unknown field "titel"; did you mean title?`},
		{"a binary file", "\x7fELF\x02\x01\x01\x00" + secret + "\n", "the file is not text: it holds the control character U+007F"},
		{"a NUL in the middle", secret + ": 1\x00\n", "the file is not text: it holds the control character U+0000"},
		{"a noncharacter", "\uffff" + secret, "the file is not text: it holds the noncharacter U+FFFF"},
		{"not UTF-8", secret + "\xff\n", "the file is not valid UTF-8"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.Repeat("f", i+1))
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, want *Error", err, err)
			}
			if e.Msg != tt.want {
				t.Errorf("error\n got: %s\nwant: …: %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "root") || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "hunter") {
				t.Errorf("error %q quotes the file", err)
			}
		})
	}
}
