package accesslog

import (
	"testing"
	"time"
)

func mustFormat(t testing.TB, name, spec string) Format {
	t.Helper()
	f, err := ParseFormat(name, spec)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestJSONLines(t *testing.T) {
	for _, tc := range []struct {
		name, spec, text string
		want             []string
		res              time.Duration
	}{{
		name: "rfc3339 with a fraction, renamed fields, escapes, nesting, null",
		spec: "time=ts,remote_addr=client,request_uri=url status=code",
		text: `{"ts":"2024-03-01T12:00:00.25+01:00","client":"2001:db8::7","url":"/a?api_key=k%201","code":429,"ua":"say \"hi\"\u00e9\ud83d\ude00","n":null,"o":{"a":[1,2.5e3,true,{}]}}` + "\n",
		want: []string{`line 1 2024-03-01T11:00:00.25Z status=429 o="{\"a\":[1,2.5e3,true,{}]}" remote_addr="2001:db8::7" request_uri="/a?api_key=k%201" status="429" ts="2024-03-01T12:00:00.25+01:00" ua="say \"hi\"é😀" uri="/a" args="api_key=k%201"`},
		res:  time.Millisecond,
	}, {
		name: "epoch seconds inferred, as a number and a string",
		spec: "",
		text: `{"time":1700000000,"status":"200"}` + "\n" + `{"time":"1700000001.5"}` + "\n",
		want: []string{`line 1 2023-11-14T22:13:20Z status=200 status="200" time="1700000000"`, `line 2 2023-11-14T22:13:21.5Z status=0 time="1700000001.5"`},
		res:  time.Second,
	}, {
		name: "epoch milliseconds inferred",
		text: `{"time":1700000000123}` + "\n",
		want: []string{`line 1 2023-11-14T22:13:20.123Z status=0 time="1700000000123"`},
		res:  time.Millisecond,
	}, {
		name: "epoch nanoseconds inferred",
		text: `{"time":"1700000000123456789"}` + "\n",
		want: []string{`line 1 2023-11-14T22:13:20.123456789Z status=0 time="1700000000123456789"`},
		res:  time.Nanosecond,
	}, {
		name: "epoch microseconds stated",
		spec: "unit=us time=t",
		text: `{"t":1700000000123456.9}` + "\n",
		want: []string{`line 1 2023-11-14T22:13:20.1234569Z status=0 t="1700000000123456.9"`},
		res:  time.Microsecond,
	}, {
		name: "rfc3339 stated, whole seconds",
		spec: "unit=rfc3339",
		text: `{"time":"2024-03-01T12:00:00Z"}` + "\n",
		want: []string{`line 1 2024-03-01T12:00:00Z status=0 time="2024-03-01T12:00:00Z"`},
		res:  time.Second,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, r := readAll(t, tc.text, mustFormat(t, "json", tc.spec), Options{})
			diffLines(t, "records", got, tc.want)
			if len(r.BadLines()) > 0 {
				t.Errorf("bad lines: %v", r.BadLines())
			}
			if r.Resolution() != tc.res {
				t.Errorf("Resolution() = %v, want %v", r.Resolution(), tc.res)
			}
		})
	}
}

func TestJSONBadLines(t *testing.T) {
	for _, tc := range []struct{ spec, line, want string }{
		{"", `[1]`, `line 1: expected '{' at column 1`},
		{"", `{"time":1,}`, `line 1: expected a key at column 11`},
		{"", `{"time" 1}`, `line 1: expected ':' at column 9`},
		{"", `{"time":1 "a":2}`, `line 1: expected ',' or '}' at column 11`},
		{"", `{"time":1} x`, `line 1: unexpected text at column 12`},
		{"", `{"a":1}`, `line 1: no "time" key (the time)`},
		{"", `{"time":null}`, `line 1: no "time" key (the time)`},
		{"", `{"time":"yesterday"}`, `line 1: time "yesterday" is neither an RFC 3339 time nor a number`},
		{"unit=rfc3339", `{"time":1700000000}`, `line 1: time "1700000000" is not an RFC 3339 time`},
		{"unit=ms", `{"time":"2024-03-01T12:00:00Z"}`, `line 1: time "2024-03-01T12:00:00Z" is not a number of milliseconds`},
		{"", `{"time":-5}`, `line 1: time "-5" is neither an RFC 3339 time nor a number`},
		{"", `{"time":1,"status":"abc"}`, `line 1: status "abc" is not a number`},
		{"", `{"time":1,"a":"x\qy"}`, `line 1: bad escape '\q' at column 17`},
		{"", `{"time":1,"a":"x`, `line 1: no closing '"' for the string opened at column 15`},
		{"", `{"time":1,"a":01}`, `line 1: expected ',' or '}' at column 16`},
		{"", `{"time":1,"a":1.}`, `line 1: bad number at column 15`},
		{"", `{"time":1,"a":[1 2]}`, `line 1: expected ',' or ']' at column 18`},
		{"", `{"time":1,"a":tru}`, `line 1: expected a value at column 15`},
		{"", "{\"time\":1,\"a\":\"\x01\"}", `line 1: control character '\x01' in a string at column 16`},
	} {
		got, r := readAll(t, tc.line+"\n", mustFormat(t, "json", tc.spec), Options{})
		bad := r.BadLines()
		if len(got) != 0 || len(bad) != 1 || bad[0].Error() != tc.want {
			t.Errorf("%s:\n got %q %v\nwant %s", tc.line, got, bad, tc.want)
		}
	}
}

func TestCSV(t *testing.T) {
	text := "ts,client,path,status,note\r\n" +
		"2024-03-01T12:00:00Z,192.0.2.1,/a,200,plain\r\n" +
		"2024-03-01T12:00:01Z,192.0.2.2,/b,,\"with \"\"quotes\"\", and a comma\"\r\n" +
		"2024-03-01T12:00:02Z,192.0.2.3,/c,abc,x\r\n" +
		"2024-03-01T12:00:03Z,192.0.2.3,/c,200\r\n" +
		"2024-03-01T12:00:04Z,192.0.2.3,/c,200,a\"b\r\n" +
		"2024-03-01T12:00:05Z,192.0.2.3,/c,200,\"open\r\n" +
		"2024-03-01T12:00:06Z,192.0.2.3,/c,200,\"x\"y\r\n" +
		",192.0.2.3,/c,200,x\r\n"
	got, r := readAll(t, text, mustFormat(t, "csv", "time=ts remote_addr=client uri=path"), Options{})
	diffLines(t, "records", got, []string{
		`line 2 2024-03-01T12:00:00Z status=200 note="plain" remote_addr="192.0.2.1" status="200" ts="2024-03-01T12:00:00Z" uri="/a"`,
		`line 3 2024-03-01T12:00:01Z status=0 note="with \"quotes\", and a comma" remote_addr="192.0.2.2" ts="2024-03-01T12:00:01Z" uri="/b"`,
	})
	var bad []string
	for _, e := range r.BadLines() {
		bad = append(bad, e.Error())
	}
	diffLines(t, "bad lines", bad, []string{
		`line 4: status "abc" is not a number`,
		`line 5: has 4 fields, the header has 5`,
		`line 6: '"' inside a bare field at column 40`,
		`line 7: no closing '"' for the field opened at column 39`,
		`line 8: expected ',' after the quoted field at column 42`,
	})
	if s := r.Stats(); s.Bad != 6 || s.Lines != 9 || s.Records != 2 {
		t.Errorf("stats %+v", s)
	}
	if r.Resolution() != time.Second {
		t.Errorf("Resolution() = %v", r.Resolution())
	}
}

func TestCSVHeaderWithoutTime(t *testing.T) {
	got, _ := readAll(t, "\ufeffa,b\n1,2\n", mustFormat(t, "csv", "time=ts"), Options{})
	diffLines(t, "records", got, []string{`error: line 1: the header has no column "ts" (it has a, b)`})
}
