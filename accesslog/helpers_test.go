package accesslog

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"
)

// nginxEscape escapes a value as nginx's escape=default does: '"', '\'
// and bytes outside printable ASCII as \xHH.
func nginxEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || c > 0x7e {
			fmt.Fprintf(&b, `\x%02X`, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// apacheEscape escapes a value as Apache's ap_escape_logitem does.
func apacheEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// orDash is nginx's and Apache's "-" for an empty value.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// combinedLine writes a line as nginx's combined format does, with
// escape (nginxEscape or apacheEscape) for the quoted values.
func combinedLine(escape func(string) string, addr, user string, at time.Time, request string, status, bytes int, referer, agent string) string {
	return fmt.Sprintf(`%s - %s [%s] "%s" %d %d "%s" "%s"`,
		addr, orDash(user), at.Format("02/Jan/2006:15:04:05 -0700"), orDash(escape(request)), status, bytes, orDash(escape(referer)), orDash(escape(agent)))
}

// describe shows a record's time, line, status and logged fields sorted
// by name, with the derived request fields.
func describe(rec Record) string {
	var fields []string
	rec.Each(func(name string, value []byte) {
		fields = append(fields, fmt.Sprintf("%s=%q", name, value))
	})
	sort.Strings(fields)
	for _, name := range []string{"request_method", "uri", "args"} {
		if _, logged := rec.lookup(name); !logged {
			if v := rec.Field(name); v != nil {
				fields = append(fields, fmt.Sprintf("%s=%q", name, v))
			}
		}
	}
	return fmt.Sprintf("line %d %s status=%d %s", rec.Line, time.Unix(0, rec.Time).UTC().Format(time.RFC3339Nano), rec.Status, strings.Join(fields, " "))
}

// readAll reads text to the end, describing each record; an error other
// than io.EOF is listed where it came, prefixed "error: ".
func readAll(t *testing.T, text string, f Format, opts Options) ([]string, *Reader) {
	t.Helper()
	r := NewReader(strings.NewReader(text), "", f, opts)
	var out []string
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("Next does not end")
		}
		rec, err := r.Next()
		if err == io.EOF {
			return out, r
		}
		if err != nil {
			out = append(out, "error: "+err.Error())
			if _, again := err.(*OrderError); !again {
				if _, err2 := r.Next(); err2 == nil || err2.Error() != err.Error() {
					t.Errorf("after %v, Next gave %v, want the same error", err, err2)
				}
				return out, r
			}
			continue
		}
		out = append(out, describe(rec))
	}
}

func diffLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n\t%s\nwant:\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// zone is a fixed time zone east of UTC.
func zone(hours, minutes int) *time.Location {
	off := hours*3600 + minutes*60
	if hours < 0 {
		off = hours*3600 - minutes*60
	}
	return time.FixedZone("", off)
}

// each calls fn with every record r gives, to the end; the first error
// other than io.EOF fails tb.
func each(tb testing.TB, r *Reader, fn func(Record)) {
	tb.Helper()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			tb.Fatal(err)
		}
		fn(rec) // by value: a pointer to rec would move it to the heap, a line
	}
}
