package accesslog

import (
	"io"
	"strings"
	"testing"
)

func TestJSONPathFields(t *testing.T) {
	line := `{"time": 1764576000, "user": {"id": "u-7", "plan": {"tier": 3}, "tags": ["a"]}, "a.b": "dotted", "headers": {"x-api-key": "k1"}}` + "\n"
	f, err := ParseFormat("json", "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(strings.NewReader(line), "", f, Options{})
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"user.id", "u-7"},
		{"user.plan.tier", "3"},
		{"user.tags", `["a"]`},
		{"headers.x-api-key", "k1"},
		{"a.b", "dotted"}, // a key holding a '.' wins
		{"user.missing", "<nil>"},
		{"user.id.deeper", "<nil>"},
		{"time.x", "<nil>"},
	} {
		got := "<nil>"
		if v := rec.Field(tc.name); v != nil {
			got = string(v)
		}
		if got != tc.want {
			t.Errorf("Field(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
	rules := Rules{Key: KeyRule{Field: "user.id"}}
	if key, _, _ := rules.Apply(&rec); key != "u-7" {
		t.Errorf("keyed by user.id: %q", key)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the line: %v", err)
	}
}

// TestNginxEscapeJSON reads a log_format written with escape=json, whose
// lines nginx escapes as JSON strings: \", \\, \n and \u00XX.
func TestNginxEscapeJSON(t *testing.T) {
	f, err := ParseFormat("nginx", `escape=json '{"addr":"$remote_addr","t":"$time_iso8601","ua":"$http_user_agent","s":$status}'`)
	if err != nil {
		t.Fatal(err)
	}
	line := `{"addr":"192.0.2.1","t":"2026-11-24T09:00:00+00:00","ua":"a \"b\" c\\d\u0001\n","s":200}` + "\n"
	r := NewReader(strings.NewReader(line), "", f, Options{})
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(rec.Field("http_user_agent")); got != "a \"b\" c\\d\x01\n" || rec.Status != 200 {
		t.Errorf("user agent %q, status %d", got, rec.Status)
	}
}
