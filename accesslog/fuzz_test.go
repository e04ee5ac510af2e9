package accesslog

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// parseLine parses one line with a fresh parser of f.
func parseLine(f Format, line string) (*Record, error) {
	rec := &Record{}
	rec.buf = append(rec.buf, line...)
	return rec, f.newParser().parse(rec)
}

// FuzzCombined writes a line as nginx (or Apache) writes combined from
// the fuzzed values and checks that it reads them back; and that any
// line, read as combined or common, does not panic.
func FuzzCombined(f *testing.F) {
	f.Add("192.0.2.1", "frank", int64(971186136), 0, "GET /a?b=c HTTP/1.1", 200, 2326, "http://x/", "Mozilla/4.08 [en] (Win98; I ;Nav)", false, "")
	f.Add("2001:db8::1", "", int64(0), -25200, "\x16\x03\x01\x02", 400, 0, "", "a \"quoted\" \\ agent", true, "")
	f.Add("", "", int64(1e9), 19800, "", 0, 0, "-", "-", false, `1 - - [x] "" 1 1 "" ""`)
	f.Fuzz(func(t *testing.T, addr, user string, unix int64, offset int, request string, status, bytes int, referer, agent string, apache bool, raw string) {
		parseLine(Combined, raw)
		parseLine(Common, raw)

		// Values nginx could log unquoted: no space, ']' or '"', not "-".
		if addr == "" || strings.ContainsAny(addr, " \"[]\\\x7f") || addr == "-" || hasControl(addr) ||
			strings.ContainsAny(user, " \"[]\\\x7f") || user == "-" || hasControl(user) ||
			status < 0 || status > 999 || bytes < 0 {
			return
		}
		at := time.Unix(unix%(1<<33), 0).In(time.FixedZone("", offset%(24*3600)/60*60))
		escape := nginxEscape
		if apache {
			escape = apacheEscape
		}
		line := combinedLine(escape, addr, user, at, request, status, bytes, referer, agent)
		rec, err := parseLine(Combined, line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if rec.Time != at.UnixNano() || rec.Status != status {
			t.Errorf("%s: time %d status %d, want %d %d", line, rec.Time, rec.Status, at.UnixNano(), status)
		}
		for name, want := range map[string]string{"remote_addr": addr, "remote_user": user, "request": request, "http_referer": referer, "http_user_agent": agent, "body_bytes_sent": strconv.Itoa(bytes)} {
			if want == "-" {
				want = ""
			}
			if got := string(rec.Field(name)); got != want {
				t.Errorf("%s: %s = %q, want %q", line, name, got, want)
			}
		}
	})
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return true
		}
	}
	return false
}

// FuzzLogFormat compiles fuzzed log_formats and reads fuzzed lines with
// them; a line written from a format's literals and values without their
// terminators must read back those values.
func FuzzLogFormat(f *testing.F) {
	f.Add(`$remote_addr [$time_local] "$request" $status $msec`, "10.0.0.1 [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 971186136.5", "v")
	f.Add(`'$time_iso8601|' '$http_x|${a}'`, "2000-10-10T13:55:36Z|x|y", "z")
	f.Fuzz(func(t *testing.T, spec, line, value string) {
		format, err := ParseFormat("nginx", spec)
		if err != nil {
			return
		}
		parseLine(format, line)

		nf := format.nginx
		var b strings.Builder
		want := map[string]string{}
		for i, v := range nf.vars {
			b.WriteString(nf.lits[i])
			val := value
			switch v.name {
			case "time_local":
				val = "10/Oct/2000:13:55:36 -0700"
			case "time_iso8601":
				val = "2000-10-10T13:55:36-07:00"
			case "msec":
				val = "971186136.5"
			}
			switch v.kind {
			case kindStatus, kindInt, kindDecimal:
				val = "200"
			}
			next := nf.lits[i+1]
			switch v.kind {
			case kindStatus, kindInt, kindDecimal, kindMsec:
				if next != "" && strings.IndexByte(val, next[0]) >= 0 {
					return // where the number ends is unknown
				}
			case kindTimeLocal, kindTimeISO:
			default:
				if v.name == "time_local" || v.name == "time_iso8601" {
					break
				}
				if hasControl(val) || val == "-" || strings.Contains(val, `\`) || v.quoted && strings.Contains(val, `"`) ||
					!v.quoted && next != "" && strings.IndexByte(val, next[0]) >= 0 {
					return
				}
			}
			b.WriteString(val)
			if _, dup := want[v.name]; !dup {
				want[v.name] = val
			}
		}
		b.WriteString(nf.lits[len(nf.vars)])
		if strings.ContainsAny(b.String(), "\n\r") {
			return
		}
		rec, err := parseLine(format, b.String())
		if err != nil {
			t.Fatalf("format %q, line %q: %v", spec, b.String(), err)
		}
		for name, val := range want {
			if got := string(rec.Field(name)); got != val {
				t.Errorf("format %q, line %q: %s = %q, want %q", spec, b.String(), name, got, val)
			}
		}
	})
}

// FuzzJSON reads fuzzed lines as JSON Lines: what it reads must be
// valid JSON, its string values those encoding/json finds.
func FuzzJSON(f *testing.F) {
	f.Add(`{"time":1700000000,"a":"x\"y\u00e9","b":[1,{"c":null}],"status":200}`)
	f.Add(`{"time":"2024-03-01T12:00:00.123456789+05:30","s":"\ud83d\ude00"}`)
	f.Add(`{"time":1,"a":"\ud800"}`)
	format := mustFormat(f, "json", "")
	f.Fuzz(func(t *testing.T, line string) {
		rec, err := parseLine(format, line)
		if err != nil {
			return
		}
		if !json.Valid([]byte(line)) {
			t.Fatalf("%q read, but it is not valid JSON", line)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		seen := map[string]bool{}
		rec.Each(func(name string, value []byte) {
			if seen[name] {
				return // encoding/json keeps the last of a key given twice
			}
			seen[name] = true
			if s, ok := m[name].(string); ok && utf8.Valid(value) && utf8.ValidString(name) && string(value) != s {
				t.Errorf("%q: %s = %q, encoding/json says %q", line, name, value, s)
			}
		})
	})
}

// FuzzCSV reads fuzzed CSV: a row written from fuzzed fields with
// encoding/csv's quoting reads back those fields.
func FuzzCSV(f *testing.F) {
	f.Add("a,b", `x "y", z`, "", "time,a,b\n1700000000,\"q\"\"\",x\n")
	format := mustFormat(f, "csv", "")
	f.Fuzz(func(t *testing.T, a, b, c, raw string) {
		p := format.newParser()
		for _, line := range strings.Split(raw, "\n") {
			rec := &Record{}
			rec.buf = append(rec.buf, line...)
			p.parse(rec)
		}

		if strings.ContainsAny(a+b+c, "\r\n") {
			return
		}
		quote := func(s string) string {
			if strings.ContainsAny(s, `",`) || s != "" && quoteSome(s) {
				return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
			}
			return s
		}
		p = format.newParser()
		header := &Record{}
		header.buf = append(header.buf, "time,a,b,c"...)
		if err := p.parse(header); err != errHeader {
			t.Fatalf("header: %v", err)
		}
		line := "1700000000," + quote(a) + "," + quote(b) + "," + quote(c)
		rec := &Record{}
		rec.buf = append(rec.buf, line...)
		if err := p.parse(rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		for name, want := range map[string]string{"a": a, "b": b, "c": c} {
			if got := string(rec.Field(name)); got != want {
				t.Errorf("%q: %s = %q, want %q", line, name, got, want)
			}
		}
	})
}

// quoteSome quotes some plain fields too, by a bit of their content.
func quoteSome(s string) bool { return s[0]&1 == 1 }

// FuzzKeyRule: a key rule that reads writes back (String) as a text that
// reads to the same rule.
func FuzzKeyRule(f *testing.F) {
	for _, s := range []string{"", "remote_addr", "remote_addr/24", "x/24,48", "uri~^/t/([^/]+)", "a/0,0", "/", "~", "a~(", "a/33"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKeyRule(s)
		if err != nil {
			return
		}
		again, err := ParseKeyRule(k.String())
		if err != nil {
			t.Fatalf("%q reads as %q, which does not read: %v", s, k.String(), err)
		}
		if again.String() != k.String() || again.Field != k.Field && k.Field != "" || again.IPv4Bits != k.IPv4Bits || again.IPv6Bits != k.IPv6Bits {
			t.Fatalf("%q → %q → %q", s, k.String(), again.String())
		}
	})
}

// FuzzJSONPath: on any JSON line that reads, a dotted path finds what
// encoding/json finds there: the string's text (when it has no escape)
// or nothing.
func FuzzJSONPath(f *testing.F) {
	f.Add(`{"time": 1, "user": {"id": "u-7", "plan": {"tier": "3"}}}`, "user.id")
	f.Add(`{"time": 1, "a": {"b": {"c": "d"}}, "a.b": "x"}`, "a.b.c")
	f.Add(`{"time": 1, "a": [1, 2]}`, "a.0")
	format, err := ParseFormat("json", "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line, path string) {
		rec, err := parseLine(format, line)
		// encoding/json reads invalid UTF-8 in a key as U+FFFD; the
		// reader keeps the bytes: only valid text is compared.
		if err != nil || strings.ContainsAny(line, "\\\n") || !strings.Contains(path, ".") || !utf8.ValidString(line) || !utf8.ValidString(path) {
			return
		}
		got := rec.Field(path)
		var v any
		if json.Unmarshal([]byte(line), &v) != nil {
			t.Fatalf("%q read as JSON by the reader, not by encoding/json", line)
		}
		if _, top := v.(map[string]any)[path]; top {
			return // a key holding the dots wins
		}
		parts := strings.Split(path, ".")
		for _, p := range parts {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[p]
		}
		if s, ok := v.(string); ok && got != nil && string(got) != s {
			t.Fatalf("%q at %q: %q, encoding/json %q", line, path, got, s)
		}
		if v == nil && got != nil && string(got) != "null" {
			t.Fatalf("%q at %q: %q, encoding/json finds nothing", line, path, got)
		}
	})
}
