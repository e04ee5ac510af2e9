package accesslog

import (
	"bufio"
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"
)

// benchLines is how many lines the benchmarks' log has.
const benchLines = 200_000

// benchLog is a combined-format log of benchLines lines, about 50 a
// second, from 1,000 clients, with the agents and paths real logs have.
var benchLog = sync.OnceValue(func() []byte {
	agents := []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
		"curl/8.4.0",
		`Go-http-client/1.1`,
	}
	paths := []string{"/", "/api/v1/items?page=2&api_key=k17", "/static/app.3f9a1c.js", "/login", "/search?q=rate+limit"}
	start := time.Date(2024, 3, 1, 12, 0, 0, 0, time.FixedZone("", 3600))
	var b bytes.Buffer
	for i := range benchLines {
		at := start.Add(time.Duration(i) * 20 * time.Millisecond).Truncate(time.Second)
		c := i * 7919 % 1000 // a client of 1,000
		addr := fmt.Sprintf("10.%d.%d.%d", c%3, c/250, c%250)
		b.WriteString(combinedLine(nginxEscape, addr, "", at, "GET "+paths[i%len(paths)]+" HTTP/1.1", 200+i%3, 100+i%5000, "https://example.com/", agents[i%len(agents)]))
		b.WriteByte('\n')
	}
	return b.Bytes()
})

// BenchmarkReadCombined reads the whole log, one op, with the default
// look-behind of a minute (3,000 records held).
func BenchmarkReadCombined(b *testing.B) { benchRead(b, Options{}) }

// BenchmarkReadCombinedInOrder reads the whole log demanding order, so
// that no record is held.
func BenchmarkReadCombinedInOrder(b *testing.B) { benchRead(b, Options{LookBehind: NoLookBehind}) }

func benchRead(b *testing.B, opts Options) {
	data := benchLog()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		each(b, NewReader(bytes.NewReader(data), "", Combined, opts), func(Record) { n++ })
		if n != benchLines {
			b.Fatalf("%d records", n)
		}
	}
}

// BenchmarkReadCombinedRules reads the log and applies Rules keying by
// /24 and costing by path, as a replay would.
func BenchmarkReadCombinedRules(b *testing.B) {
	data := benchLog()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rules := Rules{Key: KeyRule{IPv4Bits: 24}, Cost: CostRule{Paths: []PathCost{{Prefix: "/api/", Cost: 3}}}}
		each(b, NewReader(bytes.NewReader(data), "", Combined, Options{}), func(rec Record) { rules.Apply(&rec) })
	}
}

// BenchmarkLineCount is the yardstick: bufio.Scanner counting the same
// log's lines.
func BenchmarkLineCount(b *testing.B) {
	data := benchLog()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := bufio.NewScanner(bytes.NewReader(data))
		n := 0
		for s.Scan() {
			n++
		}
		if n != benchLines {
			b.Fatalf("%d lines", n)
		}
	}
}
