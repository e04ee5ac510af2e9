package accesslog

import (
	"testing"
	"time"
)

func TestCombinedLines(t *testing.T) {
	at := time.Date(2000, 10, 10, 13, 55, 36, 0, zone(-7, 0))
	for _, tc := range []struct {
		name string
		line string
		want string
	}{{
		name: "apache's example",
		line: `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`,
		want: `line 1 2000-10-10T20:55:36Z status=200 body_bytes_sent="2326" http_referer="http://www.example.com/start.html" http_user_agent="Mozilla/4.08 [en] (Win98; I ;Nav)" remote_addr="127.0.0.1" request="GET /apache_pb.gif HTTP/1.0" status="200" time_local="10/Oct/2000:13:55:36 -0700" request_method="GET" uri="/apache_pb.gif"`,
	}, {
		name: "dashes, ipv6, a user, a query",
		line: combinedLine(nginxEscape, "2001:db8::1", "frank", at, "POST /api/v1/items?api_key=k1&x=2 HTTP/1.1", 201, 0, "", ""),
		want: `line 1 2000-10-10T20:55:36Z status=201 body_bytes_sent="0" remote_addr="2001:db8::1" remote_user="frank" request="POST /api/v1/items?api_key=k1&x=2 HTTP/1.1" status="201" time_local="10/Oct/2000:13:55:36 -0700" request_method="POST" uri="/api/v1/items" args="api_key=k1&x=2"`,
	}, {
		name: "nginx's \\x22 in the agent",
		line: combinedLine(nginxEscape, "10.0.0.1", "", at, "GET / HTTP/2.0", 200, 5, "", `Bot "quoted" \ back`),
		want: `line 1 2000-10-10T20:55:36Z status=200 body_bytes_sent="5" http_user_agent="Bot \"quoted\" \\ back" remote_addr="10.0.0.1" request="GET / HTTP/2.0" status="200" time_local="10/Oct/2000:13:55:36 -0700" request_method="GET" uri="/"`,
	}, {
		name: "apache's \\\" in the agent",
		line: combinedLine(apacheEscape, "10.0.0.1", "", at, "GET / HTTP/1.1", 200, 5, "", `Bot "quoted" \ back`+"\t"),
		want: `line 1 2000-10-10T20:55:36Z status=200 body_bytes_sent="5" http_user_agent="Bot \"quoted\" \\ back\t" remote_addr="10.0.0.1" request="GET / HTTP/1.1" status="200" time_local="10/Oct/2000:13:55:36 -0700" request_method="GET" uri="/"`,
	}, {
		name: "no request",
		line: `192.0.2.7 - - [10/Oct/2000:13:55:36 -0700] "-" 400 0 "-" "-"`,
		want: `line 1 2000-10-10T20:55:36Z status=400 body_bytes_sent="0" remote_addr="192.0.2.7" status="400" time_local="10/Oct/2000:13:55:36 -0700"`,
	}, {
		name: "TLS bytes on a plain port",
		line: `192.0.2.7 - - [10/Oct/2000:13:55:36 -0700] "\x16\x03\x01\x02\x00\x01\x00\x01\xFC\x03\x03" 400 157 "-" "-"`,
		want: `line 1 2000-10-10T20:55:36Z status=400 body_bytes_sent="157" remote_addr="192.0.2.7" request="\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" status="400" time_local="10/Oct/2000:13:55:36 -0700"`,
	}, {
		name: "a request line with no protocol",
		line: `192.0.2.7 - - [10/Oct/2000:13:55:36 +0000] "GET /old" 200 1 "-" "-"`,
		want: `line 1 2000-10-10T13:55:36Z status=200 body_bytes_sent="1" remote_addr="192.0.2.7" request="GET /old" status="200" time_local="10/Oct/2000:13:55:36 +0000" request_method="GET" uri="/old"`,
	}, {
		name: "apache's %b dash, +0530",
		line: `192.0.2.7 - - [10/Oct/2000:13:55:36 +0530] "HEAD / HTTP/1.1" 304 - "-" "curl/8.0"`,
		want: `line 1 2000-10-10T08:25:36Z status=304 http_user_agent="curl/8.0" remote_addr="192.0.2.7" request="HEAD / HTTP/1.1" status="304" time_local="10/Oct/2000:13:55:36 +0530" request_method="HEAD" uri="/"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, r := readAll(t, tc.line+"\n", Combined, Options{})
			diffLines(t, tc.line, got, []string{tc.want})
			if bad := r.BadLines(); len(bad) > 0 {
				t.Errorf("bad lines: %v", bad)
			}
		})
	}
}

func TestTimeZones(t *testing.T) {
	base := time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC)
	for _, loc := range []*time.Location{time.UTC, zone(-7, 0), zone(5, 30), zone(14, 0), zone(-12, 0), zone(-3, 30)} {
		at := base.In(loc)
		line := combinedLine(nginxEscape, "10.0.0.1", "", at, "GET / HTTP/1.1", 200, 1, "", "")
		got, _ := readAll(t, line, Combined, Options{})
		if len(got) != 1 || got[0][:28] != "line 1 2024-02-29T23:59:59Z " {
			t.Errorf("%s: got %q", line, got)
		}
	}
}

func TestCommonAndCustomLines(t *testing.T) {
	for _, tc := range []struct {
		name, format, spec, line, want string
	}{{
		name:   "common",
		format: "common",
		line:   `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`,
		want:   `line 1 2000-10-10T20:55:36Z status=200 body_bytes_sent="2326" remote_addr="127.0.0.1" remote_user="frank" request="GET /apache_pb.gif HTTP/1.0" status="200" time_local="10/Oct/2000:13:55:36 -0700" request_method="GET" uri="/apache_pb.gif"`,
	}, {
		name:   "msec, quoted in the config",
		format: "nginx",
		spec:   `'$remote_addr [$time_local] "$request" $status $msec'`,
		line:   `10.1.2.3 [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 971211336.125`,
		want:   `line 1 2000-10-10T20:55:36.125Z status=200 msec="971211336.125" remote_addr="10.1.2.3" request="GET /a HTTP/1.1" status="200" time_local="10/Oct/2000:13:55:36 -0700" request_method="GET" uri="/a"`,
	}, {
		name:   "iso8601, split method and uri, headers, an arg, a custom variable",
		format: "nginx",
		spec:   `'$time_iso8601 $request_method $request_uri $status rt=$request_time ' '"$http_x_api_key" $arg_page up=$upstream_addr';`,
		line:   `2000-10-10T13:55:36+05:30 GET /list?page=3 200 rt=0.004 "k\x22y" 3 up=10.0.0.9:8080`,
		want:   `line 1 2000-10-10T08:25:36Z status=200 arg_page="3" http_x_api_key="k\"y" request_method="GET" request_time="0.004" request_uri="/list?page=3" status="200" time_iso8601="2000-10-10T13:55:36+05:30" upstream_addr="10.0.0.9:8080" uri="/list" args="page=3"`,
	}, {
		name:   "braced variables, bytes_sent",
		format: "nginx",
		spec:   `${msec}|${remote_addr}|${bytes_sent}`,
		line:   `1700000000.001|::1|512`,
		want:   `line 1 2023-11-14T22:13:20.001Z status=0 bytes_sent="512" msec="1700000000.001" remote_addr="::1"`,
	}, {
		name:   "times followed by what they hold",
		format: "nginx",
		spec:   `$time_iso8601:$time_local-$msec.$status`,
		line:   `2000-10-10T13:55:36+00:00:10/Oct/2000:13:55:36 -0700-971211336.125.200`,
		want:   `line 1 2000-10-10T20:55:36.125Z status=200 msec="971211336.125" status="200" time_iso8601="2000-10-10T13:55:36+00:00" time_local="10/Oct/2000:13:55:36 -0700"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFormat(tc.format, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := readAll(t, tc.line+"\n", f, Options{})
			diffLines(t, tc.line, got, []string{tc.want})
		})
	}
}

func TestParseFormatErrors(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"combined", "x", `combined format takes no spec, got "x"`},
		{"apache", "", `unknown format "apache" (want combined, common, nginx, json or csv)`},
		{"", "", `no format named (want combined, common, nginx, json or csv)`},
		{"nginx", "", `nginx log_format: empty`},
		{"nginx", `'$remote_addr [$time_local]`, `nginx log_format: string opened at offset 0 is not closed`},
		{"nginx", `'$remote_addr' x '[$time_local]'`, `nginx log_format: text outside quotes at offset 15`},
		{"nginx", `$remote_addr $status`, `nginx log_format: no time variable ($time_local, $time_iso8601 or $msec)`},
		{"nginx", `$remote_addr$msec`, `nginx log_format: $msec at offset 12 follows $remote_addr with no text between them, so where one ends is unknown`},
		{"nginx", `$msec $ x`, `nginx log_format: '$' at offset 6 is not followed by a variable name`},
		{"nginx", `$msec ${x`, `nginx log_format: "${" at offset 6 has no '}'`},
		{"nginx", `$msec ${a-b}`, `nginx log_format: '$' at offset 6 is not followed by a variable name`},
		{"json", "time", `json format: "time" is not name=value`},
		{"json", "unit=min", `json format: unit "min" is not one of s, ms, us, ns, rfc3339, auto`},
		{"csv", "time=a time=b", `csv format: time is given twice`},
		{"csv", "remote_addr=ip client=ip", `csv format: key "ip" is named both remote_addr and client`},
		{"json", "time=ts status=ts", `json format: key "ts" is the time and is also named status`},
	} {
		_, err := ParseFormat(tc.name, tc.spec)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseFormat(%q, %q) = %v, want %s", tc.name, tc.spec, err, tc.want)
		}
	}
}

func TestBadLines(t *testing.T) {
	const good = `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "-"`
	msec, err := ParseFormat("nginx", `$msec "$request" $status $request_time`)
	if err != nil {
		t.Fatal(err)
	}
	iso, err := ParseFormat("nginx", `$time_iso8601 $status`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f    Format
		line string
		want string
	}{
		{Combined, `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" abc 2326 "-" "-"`, `line 1: status "abc" is not a number`},
		{Combined, `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 2000 2326 "-" "-"`, `line 1: status "2000" is not a number`},
		{Combined, `127.0.0.1 - - 10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "-"`, `line 1: expected '[' at column 15`},
		{Combined, `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 23x6 "-" "-"`, `line 1: body_bytes_sent "23x6" is not a number`},
		{Combined, `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 -5 "-" "-"`, `line 1: body_bytes_sent "-5" is not a number`},
		{Combined, `127.0.0.1 - - [10/Foo/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "-"`, `line 1: time_local "10/Foo/2000:13:55:36 -0700" is not a time like 10/Oct/2000:13:55:36 -0700`},
		{Combined, `127.0.0.1 - - [31/Apr/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "-"`, `line 1: time_local "31/Apr/2000:13:55:36 -0700" is not a time like 10/Oct/2000:13:55:36 -0700`},
		{Combined, `127.0.0.1 - - [-] "GET / HTTP/1.0" 200 2326 "-" "-"`, `line 1: time_local "-" is not a time like 10/Oct/2000:13:55:36 -0700`},
		{Combined, `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700 "GET / HTTP/1.0" 200 2326 "-" "-"`, `line 1: expected ']' at column 42`},
		{Combined, `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "agent`, `line 1: no closing '"' for $http_user_agent opened at column 74`},
		{Combined, good + ` extra`, `line 1: unexpected text at column 77`},
		{Combined, `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200`, `line 1: no ' ' after $status at column 61`},
		{Combined, `127.0.0.1`, `line 1: no ' ' after $remote_addr at column 1`},
		{Common, good, `line 1: body_bytes_sent "2326 \"-\" \"-\"" is not a number`},
		{msec, `17e8 "GET /" 200 0.1`, `line 1: msec "17e8" is not a time like 1700000000.123`},
		{msec, `1700000000.5 "GET /" 200 .1`, `line 1: request_time ".1" is not a number`},
		{iso, `2000-10-10 13:55:36 200`, `line 1: time_iso8601 "2000-10-10" is not a time like 2000-10-10T13:55:36-07:00`},
		{iso, `2000-10-10T13:55:36+0700 200`, `line 1: time_iso8601 "2000-10-10T13:55:36+0700" is not a time like 2000-10-10T13:55:36-07:00`},
	} {
		got, r := readAll(t, tc.line+"\n", tc.f, Options{})
		if len(got) != 0 {
			t.Errorf("%s: read %q", tc.line, got)
		}
		bad := r.BadLines()
		if len(bad) != 1 || bad[0].Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.line, bad, tc.want)
		}
	}
}

func TestFormatResolutionAndString(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		res        time.Duration
		str        string
	}{
		{"combined", "", time.Second, "combined"},
		{"common", "", time.Second, "common"},
		{"nginx", `$time_iso8601 $status`, time.Second, "nginx $time_iso8601 $status"},
		{"nginx", `'[$time_local] ' '$msec \'x\''`, time.Millisecond, `nginx '[$time_local] ' '$msec \'x\''`},
		{"json", "", 0, "json"},
		{"json", "unit=rfc3339", 0, "json unit=rfc3339"},
		{"json", "unit=ms", time.Millisecond, "json unit=ms"},
		{"csv", "time=t,unit=s", time.Second, "csv time=t,unit=s"},
		{"csv", "unit=ns", time.Nanosecond, "csv unit=ns"},
	} {
		f := mustFormat(t, tc.name, tc.spec)
		if f.Resolution() != tc.res || f.String() != tc.str || f.Name() != tc.name {
			t.Errorf("%s %q: Resolution %v, String %q, Name %q; want %v, %q", tc.name, tc.spec, f.Resolution(), f.String(), f.Name(), tc.res, tc.str)
		}
	}
	f := mustFormat(t, "nginx", `'[$time_local] ' '$msec \'x\''`)
	if got := f.nginx.lits; len(got) != 3 || got[0] != "[" || got[1] != "] " || got[2] != " 'x'" {
		t.Errorf("literals %q", got)
	}
}
