package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// config is what the flags ask for.
type config struct {
	lines  int64     // lines written, the odd last one included
	seed   uint64    // the randomness; same seed and flags, same bytes
	format string    // combined, common or json
	start  time.Time // the first second; its zone offset is the log's
	rate   float64   // mean requests a second over the whole log
	top    float64   // the top talkers' share of the requests, 0 to 1
	odd    bool      // add the odd lines real logs have
	gzip   bool      // gzip the output
}

// Bounds of the flags. The rate's floor keeps the second-by-second loop
// from spinning through years of empty seconds; its ceiling keeps a
// second's batch of events small enough to shuffle in place.
const (
	minRate = 0.1
	maxRate = 100_000
)

// defaultStart is the first second when -start is not given: fixed, not
// the wall clock, so that the output depends on the flags alone.
var defaultStart = time.Date(2026, time.October, 10, 0, 0, 0, 0, time.UTC)

// parseArgs reads the command line (without the program's name). Usage
// and errors go to stderr; flag.ErrHelp is returned for -h.
func parseArgs(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("loggen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loggen [flags] > access.log")
		fs.PrintDefaults()
	}
	lines := fs.Int64("lines", 10_000, "how many lines to write")
	seed := fs.Uint64("seed", 1, "the seed: the same flags write the same bytes")
	format := fs.String("format", "combined", "combined (nginx's), common (the Common Log Format) or json (JSON Lines)")
	start := fs.String("start", defaultStart.Format(time.RFC3339), "the first request's time, RFC 3339; its offset is the log's time zone")
	rate := fs.String("rate", "5/s", "mean requests a second over the log, R/s, R/m or R/h")
	top := fs.Float64("top", 0.3, "the top talkers' share of the requests (a scraper, a retrying mobile client, a bursting batch job)")
	odd := fs.Bool("odd", false, "add the odd lines real logs have: a few out of order, escaped quotes, \"-\" requests, a TLS probe, a CRLF line, a cut last line")
	gz := fs.Bool("gzip", false, "gzip the output")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q (the log goes to stdout)", fs.Arg(0))
	}
	cfg := config{lines: *lines, seed: *seed, format: *format, top: *top, odd: *odd, gzip: *gz}
	if cfg.lines < 1 {
		return config{}, fmt.Errorf("-lines %d: want at least 1", cfg.lines)
	}
	switch cfg.format {
	case "combined", "common", "json":
	default:
		return config{}, fmt.Errorf("-format %q: want combined, common or json", cfg.format)
	}
	t, err := time.Parse(time.RFC3339, *start)
	if err != nil {
		return config{}, fmt.Errorf("-start: %w", err)
	}
	if t.Year() < 1970 || t.Year() > 2200 {
		return config{}, fmt.Errorf("-start %s: want a year from 1970 to 2200", *start)
	}
	if t.Nanosecond() != 0 {
		return config{}, fmt.Errorf("-start %s: want whole seconds, as $time_local logs them", *start)
	}
	cfg.start = t
	if cfg.rate, err = parseRate(*rate); err != nil {
		return config{}, fmt.Errorf("-rate: %w", err)
	}
	if !(cfg.top >= 0 && cfg.top <= 1) {
		return config{}, fmt.Errorf("-top %v: want a share from 0 to 1", cfg.top)
	}
	return cfg, nil
}

// parseRate reads "R/s", "R/m" or "R/h" (a bare R is per second) as
// requests a second.
func parseRate(s string) (float64, error) {
	num, unit, _ := strings.Cut(s, "/")
	per := 1.0
	switch unit {
	case "", "s":
	case "m":
		per = 60
	case "h":
		per = 3600
	default:
		return 0, fmt.Errorf("%q: want R/s, R/m or R/h", s)
	}
	r, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, errors.Unwrap(err))
	}
	r /= per
	if !(r >= minRate && r <= maxRate) {
		return 0, fmt.Errorf("%q: want %v/s to %v/s", s, minRate, maxRate)
	}
	return r, nil
}
