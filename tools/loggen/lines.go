package main

import (
	"strconv"
	"time"
)

// An entry is one request as a log line reports it. Empty strings and a
// nil request are values the server did not have, written as nginx
// writes them: "-" in combined and common, "" in JSON.
type entry struct {
	addr        []byte
	user        string
	request     []byte // the request line, "GET /a HTTP/1.1"
	status      int
	bytes       int64
	referer     string
	agent       string
	requestTime int // milliseconds; only JSON logs it
}

// appendCombined appends e as nginx's combined format writes it:
//
//	$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"
func appendCombined(b []byte, e *entry, timeLocal []byte) []byte {
	b = appendCommon(b, e, timeLocal)
	b = append(b, ' ')
	b = appendQuoted(b, e.referer)
	b = append(b, ' ')
	return appendQuoted(b, e.agent)
}

// appendCommon appends e as the Common Log Format writes it:
//
//	$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent
func appendCommon(b []byte, e *entry, timeLocal []byte) []byte {
	b = append(b, e.addr...)
	b = append(b, " - "...)
	b = appendBare(b, e.user)
	b = append(b, " ["...)
	b = append(b, timeLocal...)
	b = append(b, "] "...)
	b = appendQuoted(b, e.request)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, ' ')
	return strconv.AppendInt(b, e.bytes, 10)
}

// appendJSON appends e as one JSON object, the keys nginx's variables'
// names, as a log_format with escape=json writes them, but with the time
// in RFC 3339 with milliseconds (nginx's $time_iso8601 has none).
func appendJSON(b []byte, e *entry, timeISO []byte) []byte {
	b = append(b, `{"time":"`...)
	b = append(b, timeISO...)
	b = append(b, `","remote_addr":"`...)
	b = append(b, e.addr...)
	b = append(b, `","remote_user":`...)
	b = appendJSONString(b, e.user)
	b = append(b, `,"request":`...)
	b = appendJSONString(b, e.request)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.status), 10)
	b = append(b, `,"body_bytes_sent":`...)
	b = strconv.AppendInt(b, e.bytes, 10)
	b = append(b, `,"request_time":`...)
	b = appendMillis(b, e.requestTime)
	b = append(b, `,"http_referer":`...)
	b = appendJSONString(b, e.referer)
	b = append(b, `,"http_user_agent":`...)
	b = appendJSONString(b, e.agent)
	return append(b, '}')
}

// appendBare appends an unquoted value, "-" when empty.
func appendBare(b []byte, s string) []byte {
	if s == "" {
		return append(b, '-')
	}
	return append(b, s...)
}

const hexDigits = "0123456789ABCDEF"

// appendQuoted appends s between '"' as nginx's default escaping writes
// it: "-" when empty, and '"', '\' and bytes outside printable ASCII as
// \xHH.
func appendQuoted[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	if len(s) == 0 {
		return append(b, `-"`...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 || c > 0x7e {
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			continue
		}
		b = append(b, c)
	}
	return append(b, '"')
}

// appendJSONString appends s as a JSON string as nginx's escape=json
// writes it: '"' and '\' escaped by a backslash, control bytes as \uXXXX,
// other bytes as they are.
func appendJSONString[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendMillis appends ms milliseconds as seconds with three decimals,
// as nginx's $request_time: 1234 → 1.234.
func appendMillis(b []byte, ms int) []byte {
	b = strconv.AppendInt(b, int64(ms/1000), 10)
	ms %= 1000
	return append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
}

// A clock formats a second's times once, for all of the second's lines:
// $time_local ("10/Oct/2026:13:55:36 +0000") and the parts of RFC 3339
// around the milliseconds ("2026-10-10T13:55:36" and "Z" or "+02:00").
type clock struct {
	zone      *time.Location
	sec       int64
	valid     bool
	timeLocal []byte
	isoSecond []byte
	isoZone   []byte
	iso       []byte
}

func newClock(zone *time.Location) *clock { return &clock{zone: zone} }

func (c *clock) at(sec int64) {
	if c.valid && c.sec == sec {
		return
	}
	t := time.Unix(sec, 0).In(c.zone)
	c.sec, c.valid = sec, true
	c.timeLocal = t.AppendFormat(c.timeLocal[:0], "02/Jan/2006:15:04:05 -0700")
	c.isoSecond = t.AppendFormat(c.isoSecond[:0], "2006-01-02T15:04:05")
	c.isoZone = t.AppendFormat(c.isoZone[:0], "Z07:00")
}

// local is $time_local of the second sec.
func (c *clock) local(sec int64) []byte {
	c.at(sec)
	return c.timeLocal
}

// rfc3339 is the RFC 3339 time of sec plus ms milliseconds; valid until
// the next call.
func (c *clock) rfc3339(sec int64, ms int) []byte {
	c.at(sec)
	c.iso = append(c.iso[:0], c.isoSecond...)
	c.iso = append(c.iso, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	c.iso = append(c.iso, c.isoZone...)
	return c.iso
}
