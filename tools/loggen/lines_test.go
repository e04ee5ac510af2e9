package main

import (
	"math"
	"testing"
	"time"
)

func TestLineFormats(t *testing.T) {
	full := entry{
		addr: []byte("2001:db8::1"), user: "alice", request: []byte(`GET /a?q="x" HTTP/1.1`),
		status: 200, bytes: 512, referer: "https://shop.example.com/", agent: quotedAgent, requestTime: 1234,
	}
	empty := entry{addr: []byte("10.0.0.1"), status: 400}
	zone := time.FixedZone("", 2*3600)
	c := newClock(zone)
	sec := time.Date(2026, 10, 10, 13, 55, 36, 0, zone).Unix()
	for _, tc := range []struct {
		name string
		got  []byte
		want string
	}{
		{"combined", appendCombined(nil, &full, c.local(sec)),
			`2001:db8::1 - alice [10/Oct/2026:13:55:36 +0200] "GET /a?q=\x22x\x22 HTTP/1.1" 200 512 "https://shop.example.com/" "Mozilla/5.0 (compatible; \x22Fetcher\x22 \x5CBeta/0.9)"`},
		{"combined, empty fields", appendCombined(nil, &empty, c.local(sec)),
			`10.0.0.1 - - [10/Oct/2026:13:55:36 +0200] "-" 400 0 "-" "-"`},
		{"common", appendCommon(nil, &full, c.local(sec)),
			`2001:db8::1 - alice [10/Oct/2026:13:55:36 +0200] "GET /a?q=\x22x\x22 HTTP/1.1" 200 512`},
		{"json", appendJSON(nil, &full, c.rfc3339(sec, 7)),
			`{"time":"2026-10-10T13:55:36.007+02:00","remote_addr":"2001:db8::1","remote_user":"alice","request":"GET /a?q=\"x\" HTTP/1.1","status":200,"body_bytes_sent":512,"request_time":1.234,"http_referer":"https://shop.example.com/","http_user_agent":"Mozilla/5.0 (compatible; \"Fetcher\" \\Beta/0.9)"}`},
		{"json, empty fields", appendJSON(nil, &empty, newClock(time.UTC).rfc3339(sec, 999)),
			`{"time":"2026-10-10T11:55:36.999Z","remote_addr":"10.0.0.1","remote_user":"","request":"","status":400,"body_bytes_sent":0,"request_time":0.000,"http_referer":"","http_user_agent":""}`},
		{"quoted: bytes outside printable ASCII", appendQuoted(nil, tlsHello),
			`"\x16\x03\x01\x02\x00\x01\x00\x01\xFC\x03\x03"`},
		{"json: control bytes", appendJSONString(nil, "a\tb\x7f"), "\"a\\u0009b\x7f\""},
	} {
		if string(tc.got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
}

// A second's time is formatted once; a line of another second between
// two of one must not get a stale one.
func TestClockFollowsTheSecond(t *testing.T) {
	c := newClock(time.UTC)
	base := time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	for i, sec := range []int64{base, base + 1, base, base + 1} {
		want := time.Unix(sec, 0).UTC().Format("02/Jan/2006:15:04:05 -0700")
		if got := string(c.local(sec)); got != want {
			t.Errorf("call %d: %s, want %s", i, got, want)
		}
	}
}

// meanDaily's closed form is the mean of daily over its span, which
// newRates divides by to keep the mean rate what -rate says.
func TestMeanDailyIsTheMean(t *testing.T) {
	for _, tc := range []struct{ from, span int64 }{
		{0, 3600}, {3 * 3600, 7200}, {15 * 3600, 60}, {40_000, day}, {12_345, 5 * day / 2},
	} {
		sum := 0.0
		for s := range tc.span {
			sum += daily(tc.from+s) + daily(tc.from+s+1)
		}
		numeric := sum / 2 / float64(tc.span)
		if got := meanDaily(tc.from, float64(tc.span)); math.Abs(got-numeric) > 1e-6 {
			t.Errorf("meanDaily(%d, %d) = %v, the trapezoid rule says %v", tc.from, tc.span, got, numeric)
		}
	}
}

// Distinct light clients have distinct addresses, none a top talker's.
func TestClientAddressesAreDistinct(t *testing.T) {
	seen := map[string]int{scraperAddr: -1, mobileAddr: -1, batchAddr: -1, healthAddr: -1, "2001:db8::42": -1}
	for c := range 300_000 {
		addr := string(appendClientAddr(nil, c, mix(1, uint64(c))))
		if other, dup := seen[addr]; dup {
			t.Fatalf("clients %d and %d both at %s", other, c, addr)
		}
		seen[addr] = c
	}
}
