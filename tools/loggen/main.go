// Command loggen writes a realistic web server access log to stdout, for
// trying ratelab's log replay on traffic worth limiting:
//
//	go run ./tools/loggen > access.log                      # 10,000 lines, nginx's combined format
//	go run ./tools/loggen -lines 1000000 -gzip > access.log.gz
//	go run ./tools/loggen -format json -odd -seed 7 > access.jsonl
//
// The log is deterministic: the same flags write the same bytes. It is in
// nginx's combined format by default, written as nginx writes it ("-" for
// an empty field, \xHH for '"', '\' and bytes outside printable ASCII,
// times like 10/Oct/2026:13:55:36 +0000); -format common writes the
// Common Log Format and -format json JSON Lines with the time in RFC 3339
// with milliseconds and nginx's variables' names as keys (remote_addr,
// request, status, body_bytes_sent, request_time, http_referer,
// http_user_agent). -gzip compresses it.
//
// The traffic, at -rate requests a second on average (5/s by default),
// starting at -start (2026-10-10T00:00:00Z; its offset is the log's
// zone), is made of:
//
//   - many light clients, each a few requests spread out, on the IPv4
//     documentation ranges, 10.64.0.0/10 and IPv6's 2001:db8::/32, browsing
//     and calling an API (/api/v1/users/ID, /api/v1/search?q=…&api_key=…
//     with a few keys, /static/…, POSTs of orders and logins), rising and
//     falling with the time of day (highest at 15:00);
//   - a health check, GET /health every 10 s (less often in a log under
//     2 requests a second), from 10.0.0.2;
//   - the top talkers, -top of all requests (0.3 by default): a scraper
//     walking the users' ids at a steady rate (203.0.113.7, half of it); a
//     batch job bursting its export requests all in one second at the
//     start of every minute, answered 429 past 20 in a second (10.20.0.5,
//     three tenths); a mobile app that retries a refused poll at once, 3 to
//     8 times (2001:db8:85a3::8a2e:370:7334, a fifth).
//
// Statuses are mostly 200, with 304s for static files, 404s, 429s and a
// few 500s. Times are whole seconds, in order. With -odd, one line in
// about 200 is written up to 3 s earlier than the lines before it (as
// several nginx workers writing one log do), and the log has one each of
// the odd lines real logs have: a user agent with escaped quotes, a
// request logged as "-" (a connection closed before it was sent), TLS
// bytes sent to the HTTP port, an IPv6 client at 2001:db8::42, a line
// ending in CRLF, and a last line cut short without a newline.
//
// A million lines (190 MB) take about a second to write, two with -gzip.
package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it writes the log the flags in args ask for to
// stdout and returns the exit status (2 for bad flags).
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "loggen:", err)
		return 2
	}
	if err := write(stdout, cfg); err != nil {
		fmt.Fprintln(stderr, "loggen:", err)
		return 1
	}
	return 0
}

// write writes the log to out through a buffer, gzipped with -gzip.
func write(out io.Writer, cfg config) error {
	var zw *gzip.Writer
	if cfg.gzip {
		// BestSpeed halves the time of a million lines (2 s, not 4 s, on
		// two cores) for a file half again as large (23 MB, not 16 MB):
		// a generator of test input should not be the slow step.
		zw, _ = gzip.NewWriterLevel(out, gzip.BestSpeed) // errors only for a bad level
		out = zw
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	if err := generate(bw, cfg); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if zw != nil {
		return zw.Close()
	}
	return nil
}
