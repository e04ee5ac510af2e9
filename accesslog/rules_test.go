package accesslog

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// recordOf reads one line of combined format.
func recordOf(t *testing.T, addr, request string, status, bytes int) Record {
	t.Helper()
	line := combinedLine(nginxEscape, addr, "", time.Unix(1700000000, 0).UTC(), request, status, bytes, "", "")
	r := NewReader(strings.NewReader(line), "", Combined, Options{})
	rec, err := r.Next()
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return rec
}

func TestRulesKey(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rule    KeyRule
		addr    string
		request string
		want    string
	}{
		{"the address", KeyRule{}, "192.0.2.77", "GET / HTTP/1.1", "192.0.2.77"},
		{"ipv4 /24", KeyRule{IPv4Bits: 24, IPv6Bits: 64}, "192.0.2.77", "GET / HTTP/1.1", "192.0.2.0/24"},
		{"ipv4 /16", KeyRule{IPv4Bits: 16}, "192.0.2.77", "GET / HTTP/1.1", "192.0.0.0/16"},
		{"ipv6 /64", KeyRule{IPv4Bits: 24, IPv6Bits: 64}, "2001:db8:1:2:3:4:5:6", "GET / HTTP/1.1", "2001:db8:1:2::/64"},
		{"ipv6 whole when its bits are 0", KeyRule{IPv4Bits: 24}, "2001:db8::1", "GET / HTTP/1.1", "2001:db8::1"},
		{"ipv4 in ipv6", KeyRule{IPv4Bits: 24, IPv6Bits: 64}, "::ffff:192.0.2.77", "GET / HTTP/1.1", "192.0.2.0/24"},
		{"a zone dropped", KeyRule{IPv6Bits: 64}, "fe80::1%eth0", "GET / HTTP/1.1", "fe80::/64"},
		{"bits past the address", KeyRule{IPv4Bits: 40}, "192.0.2.77", "GET / HTTP/1.1", "192.0.2.77/32"},
		{"not an address", KeyRule{IPv4Bits: 24}, "unix:", "GET / HTTP/1.1", "unix:"},
		{"an api key", KeyRule{Field: "request_uri", Pattern: regexp.MustCompile(`[?&]api_key=([^&]+)`)}, "10.0.0.1", "GET /v1/x?a=1&api_key=s3cr3t&b=2 HTTP/1.1", "s3cr3t"},
		{"no api key", KeyRule{Field: "request_uri", Pattern: regexp.MustCompile(`[?&]api_key=([^&]+)`)}, "10.0.0.1", "GET /v1/x?a=1 HTTP/1.1", "-"},
		{"no api key, named", KeyRule{Field: "request_uri", Pattern: regexp.MustCompile(`[?&]api_key=([^&]+)`), Missing: "anonymous"}, "10.0.0.1", "GET /v1/x HTTP/1.1", "anonymous"},
		{"a tenant", KeyRule{Field: "uri", Pattern: regexp.MustCompile(`^/t/([^/]+)/`)}, "10.0.0.1", "GET /t/acme/orders?x=/t/other/ HTTP/1.1", "acme"},
		{"a pattern without a group", KeyRule{Field: "uri", Pattern: regexp.MustCompile(`^/[a-z]+`)}, "10.0.0.1", "GET /orders/7 HTTP/1.1", "/orders"},
		{"a group that took no part", KeyRule{Field: "uri", Pattern: regexp.MustCompile(`^/(a)?`)}, "10.0.0.1", "GET /b HTTP/1.1", "-"},
		{"an arg", KeyRule{Field: "arg_user"}, "10.0.0.1", "GET /?user=ann&user=bob HTTP/1.1", "ann"},
		{"a field not logged", KeyRule{Field: "http_x_api_key"}, "10.0.0.1", "GET / HTTP/1.1", "-"},
		{"no request", KeyRule{Field: "request_method"}, "10.0.0.1", "-", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := Rules{Key: tc.rule}
			rec := recordOf(t, tc.addr, tc.request, 200, 1)
			for range 2 { // the second from what the Rules remember
				key, cost, keep := rules.Apply(&rec)
				if key != tc.want || cost != 1 || !keep {
					t.Errorf("Apply = %q, %d, %v, want %q, 1, true", key, cost, keep, tc.want)
				}
			}
		})
	}
}

func TestRulesForgetKeysPastTheBound(t *testing.T) {
	var rules Rules
	rec := recordOf(t, "10.0.0.1", "GET / HTTP/1.1", 200, 1)
	for i := range maxKeys + 10 {
		rec.spans = rec.spans[:0]
		rec.buf = append(rec.buf[:0], "k"...)
		rec.buf = append(rec.buf, byte(i), byte(i>>8), byte(i>>16))
		rec.names = []string{"remote_addr"}
		rec.add(0, 0, len(rec.buf))
		if key, _, _ := rules.Apply(&rec); key != string(rec.buf) {
			t.Fatalf("key %q", key)
		}
		if len(rules.keys) > maxKeys {
			t.Fatalf("%d keys remembered", len(rules.keys))
		}
	}
}

func TestRulesCost(t *testing.T) {
	paths := []PathCost{
		{Prefix: "/search", Cost: 5},
		{Pattern: regexp.MustCompile(`^/export/.*\.csv$`), Cost: 20},
		{Prefix: "/", Cost: 2},
	}
	for _, tc := range []struct {
		name    string
		rule    CostRule
		request string
		bytes   int
		want    int64
	}{
		{"one", CostRule{}, "GET /search HTTP/1.1", 100, 1},
		{"a default", CostRule{Default: 3}, "GET /search HTTP/1.1", 100, 3},
		{"a field", CostRule{Field: "body_bytes_sent"}, "GET / HTTP/1.1", 2326, 2326},
		{"a field of 0 costs 1", CostRule{Field: "body_bytes_sent"}, "GET / HTTP/1.1", 0, 1},
		{"a field not logged", CostRule{Field: "request_time", Default: 4}, "GET / HTTP/1.1", 7, 4},
		{"a field not whole", CostRule{Field: "uri", Default: 4}, "GET /x HTTP/1.1", 7, 4},
		{"a prefix", CostRule{Paths: paths}, "GET /search?q=/export/a.csv HTTP/1.1", 1, 5},
		{"a pattern", CostRule{Paths: paths}, "GET /export/2024/all.csv HTTP/1.1", 1, 20},
		{"the first match wins", CostRule{Paths: paths}, "GET /export/x.json HTTP/1.1", 1, 2},
		{"no match", CostRule{Paths: paths[:2], Default: 7}, "GET /other HTTP/1.1", 1, 7},
		{"no path", CostRule{Paths: paths[:2]}, "-", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := Rules{Cost: tc.rule}
			rec := recordOf(t, "10.0.0.1", tc.request, 200, tc.bytes)
			if _, cost, _ := rules.Apply(&rec); cost != tc.want {
				t.Errorf("cost %d, want %d", cost, tc.want)
			}
		})
	}
}

func TestRulesFilter(t *testing.T) {
	mustRange := func(s string) StatusRange {
		r, err := ParseStatusRange(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		name    string
		filter  Filter
		request string
		status  int
		want    bool
	}{
		{"all", Filter{}, "-", 0, true},
		{"a method", Filter{Methods: []string{"GET", "HEAD"}}, "HEAD / HTTP/1.1", 200, true},
		{"another method", Filter{Methods: []string{"GET", "HEAD"}}, "POST / HTTP/1.1", 200, false},
		{"methods as logged", Filter{Methods: []string{"get"}}, "GET / HTTP/1.1", 200, false},
		{"no method", Filter{Methods: []string{"GET"}}, "\x16\x03\x01", 400, false},
		{"a prefix", Filter{PathPrefix: "/api/"}, "GET /api/x HTTP/1.1", 200, true},
		{"the prefix of the path, not the query", Filter{PathPrefix: "/api/"}, "GET /x?/api/ HTTP/1.1", 200, false},
		{"a pattern", Filter{PathPattern: regexp.MustCompile(`^/v[0-9]+/`)}, "GET /v2/x HTTP/1.1", 200, true},
		{"not the pattern", Filter{PathPattern: regexp.MustCompile(`^/v[0-9]+/`)}, "GET /vx/x HTTP/1.1", 200, false},
		{"prefix and pattern", Filter{PathPrefix: "/v2", PathPattern: regexp.MustCompile(`x$`)}, "GET /v2/x HTTP/1.1", 200, true},
		{"a class", Filter{Statuses: []StatusRange{mustRange("5xx")}}, "GET / HTTP/1.1", 503, true},
		{"not the class", Filter{Statuses: []StatusRange{mustRange("5xx")}}, "GET / HTTP/1.1", 499, false},
		{"a status", Filter{Statuses: []StatusRange{mustRange("2xx"), mustRange("429")}}, "GET / HTTP/1.1", 429, true},
		{"every condition", Filter{Methods: []string{"GET"}, Statuses: []StatusRange{mustRange("2xx")}}, "GET / HTTP/1.1", 404, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := Rules{Filter: tc.filter}
			rec := recordOf(t, "10.0.0.1", tc.request, tc.status, 1)
			key, cost, keep := rules.Apply(&rec)
			if keep != tc.want || !keep && (key != "" || cost != 0) {
				t.Errorf("Apply = %q, %d, %v, want keep %v", key, cost, keep, tc.want)
			}
		})
	}
}

func TestParseStatusRange(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want StatusRange
		err  string
	}{
		{"404", StatusRange{404, 404}, ""},
		{"5xx", StatusRange{500, 599}, ""},
		{"2XX", StatusRange{200, 299}, ""},
		{"0xx", StatusRange{}, `status "0xx" is neither a status from 100 to 999 nor a class like 5xx`},
		{"99", StatusRange{}, `status "99" is neither a status from 100 to 999 nor a class like 5xx`},
		{"+12", StatusRange{}, `status "+12" is neither a status from 100 to 999 nor a class like 5xx`},
		{"5x", StatusRange{}, `status "5x" is neither a status from 100 to 999 nor a class like 5xx`},
	} {
		got, err := ParseStatusRange(tc.s)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("ParseStatusRange(%q) = %v, %v, want %v, %s", tc.s, got, err, tc.want, tc.err)
		}
	}
}
