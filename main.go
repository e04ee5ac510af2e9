// Command ratelab is a terminal explorer for rate-limiting algorithms.
//
//	ratelab [SCENARIO]                 the explorer (default scenario: boundary)
//	ratelab list                       the canned scenarios
//	ratelab show NAME                  a canned scenario's YAML
//	ratelab run [flags] SCENARIO       every decision, as a table, JSON Lines or a summary
//	                                   (flags before or after SCENARIO; -- ends them)
//	ratelab check SCENARIO...          verify the scenarios' expectations
//	ratelab fit [flags] SOURCE         the smallest policies that fit a log's or a scenario's traffic
//	ratelab import [flags] CONFIG      a scenario whose lanes are a product's configuration
//	ratelab export [flags] SCENARIO    a lane as a product's configuration, its differences measured
//	ratelab explain PRODUCT CONFIG     what a product's configuration promises, and who says the same
//
// SCENARIO is a canned scenario's name, a YAML file's path, or an access
// log's, replayed through default lanes (logflags.go). With
// --store redis://HOST:PORT/DB, the explorer, run and check keep the lanes'
// state in that Redis server and have it decide (package redisstore).
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"ratelab/model"
	"ratelab/products/registry"
	"ratelab/redisstore"
	"ratelab/report"
	"ratelab/scenarios"
	"ratelab/ui"
)

const usage = `ratelab — explore rate-limiting algorithms side by side

usage:
  ratelab [SCENARIO]            open the explorer (default: %[1]s)
  ratelab list                  list the canned scenarios
  ratelab show NAME             print a canned scenario's YAML
  ratelab run [flags] SCENARIO  print every lane's decision on every request
    --format table|json|summary   the output (default table)
    --by-key                      with summary: a row per lane and key
    --until DURATION              stop before the first request at or after it
    --peak-window DURATION        the window of "peak" (default: the longest
                                  lane window)
  ratelab check SCENARIO...     run the scenarios' expectations; exit 1 if
                                any fails

  ratelab fit [flags] LOG|SCENARIO
                                the smallest policy of each algorithm that
                                refuses nothing on that traffic (docs/fit.md)
    --algorithm A,...             the algorithms (default: every one fit
                                  supports)
    --rate R,... --window D,...   rates and windows besides the grid's
    --by-key                      a limiter state per key (default: one for
                                  all the traffic)
    --key-share P%%                with --by-key, the quantile of keys (99%%)
    --reject-at-most P%%           the smallest refusing at most that share
    --save FILE.yaml              a scenario of the knees, to open and check

  ratelab import [flags] CONFIG|-
                                a scenario whose lanes are a product's
                                configuration: an nginx.conf's limit_req
                                rules, its includes followed (docs/import.md)
    --product P                   the product (default: guessed), one of
%[2]s
    --save FILE.yaml              write the scenario there, not to stdout
  ratelab export [flags] SCENARIO
                                a lane in a product's words, the nearest on
                                the safe side where it cannot say it; what
                                differs and how many requests it decides
                                differently go to stderr (docs/import.md)
    --lane NAME                   the lane (default: the only one)
    --to P                        the product (default nginx)
    --save FILE                   write the configuration there
  ratelab explain PRODUCT 'CONFIGURATION'
                                what it promises: the burst at once, the
                                rate after, the longest wait, the refusal;
                                and which other products say the same
                                (PRODUCT as import's --product)

SCENARIO may also be an access log (any file not named *.yaml or *.yml):
its requests are replayed at their logged times through six lanes of 120
requests a minute per client address (docs/logs.md). With a log:
    --log-format FORMAT           combined (default), common, json ..., csv ...
                                  or nginx 'LOG_FORMAT'
    --key RULE                    remote_addr (default), FIELD, FIELD/24,
                                  FIELD~REGEXP
    --cost N|FIELD                every request's cost, or a field holding it
    --spread even                 spread each logged second's requests
    --look-behind DURATION        how far lines may be out of order (1m)
    --from, --until TIME          an RFC 3339 instant or a duration after the
                                  log's first line
    --strict                      stop at the first line that does not parse
    --lanes SCENARIO              that scenario's lanes instead of the six

SCENARIO is a canned scenario's name or the path of a YAML file. Flags may
come before or after it; -- ends the flags. A DURATION is written as in a
scenario file, with a unit: 61s, 1m1s, 500ms.

--store URL, on the explorer, run and check, keeps the lanes' state in Redis
and has it decide each request, by one Lua script, under keys rl:v1:{LANE:KEY}:
redis://[:PASSWORD@]HOST[:PORT][/DB] (port 6379, database 0 if left out), or
redis-cluster://HOST:PORT[,HOST:PORT...]; the password may instead be in
REDIS_PASSWORD.
`

// errUsage marks bad input: exit status 2.
type errUsage struct{ error }

func main() {
	// A reader that closes the pipe early (`ratelab run … | head -1`) then
	// makes a write fail with EPIPE instead of killing the process, and run
	// ends quietly with status 2, as for any output that cannot be written.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status: 0 on success,
// 1 when a check fails, 2 on bad input, 128 + the signal's number when a
// signal ended the explorer.
func run(args []string, stdout, stderr io.Writer) int {
	out := &checkedWriter{w: stdout}
	err := dispatch(args, out, stderr)
	if out.err != nil && (err == nil || errors.Is(err, out.err)) {
		if errors.Is(out.err, syscall.EPIPE) {
			return 2 // the reader has gone: nobody to tell
		}
		err = fmt.Errorf("writing the output: %w", out.err)
	}
	if err == nil {
		return 0
	}
	var failed checkFailed
	if errors.As(err, &failed) {
		return 1
	}
	var ended *ui.Ended
	if errors.As(err, &ended) { // a signal ended the explorer: 128 + its number
		fmt.Fprintln(stderr, "ratelab:", oneLine(err.Error()))
		return ended.ExitCode()
	}
	var broken brokenFiles
	if !errors.As(err, &broken) { // each broken file's error is printed already
		fmt.Fprintln(stderr, "ratelab:", oneLine(err.Error()))
	}
	return 2
}

// checkedWriter remembers the first error writing to w, so that a command
// whose output could not be written (a full disk, a closed pipe) does not
// exit 0. Once an error happened it writes nothing more.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

func dispatch(args []string, stdout *checkedWriter, stderr io.Writer) error {
	err := command(args, stdout, stderr)
	if errors.Is(err, errHelp) {
		indent := strings.Repeat(" ", 34) // the usage's column of descriptions
		products := report.Wrapped(indent, strings.Join(registry.Names(), ", "), indent)
		fmt.Fprintf(stdout, usage, scenarios.Default, strings.TrimSuffix(products, "\n"))
		return nil
	}
	return err
}

func command(args []string, stdout *checkedWriter, stderr io.Writer) error {
	if len(args) == 0 {
		return explore(scenarios.Default, storeFlag{}, logFlags{}, stdout.w, stderr)
	}
	switch args[0] {
	case "help":
		return errHelp
	case "list":
		return list(args[1:], stdout)
	case "show":
		return show(args[1:], stdout)
	case "run":
		return runCommand(args[1:], stdout, stderr)
	case "check":
		return check(args[1:], stdout, stderr)
	case "fit":
		return fitCommand(args[1:], stdout, stderr)
	case "import":
		return importCommand(args[1:], stdout, stderr)
	case "export":
		return exportCommand(args[1:], stdout, stderr)
	case "explain":
		return explainCommand(args[1:], stdout)
	}
	var store storeFlag
	var logs logFlags
	operands, err := parseArgs("", args, append(logs.flags(), store.flag(), logs.until())...)
	if err != nil {
		return err
	}
	switch len(operands) {
	case 0:
		return explore(scenarios.Default, store, logs, stdout.w, stderr)
	case 1:
		logs.showProgress(stderr) // the screen is the explorer's only once the log is read
		return explore(operands[0], store, logs, stdout.w, stderr)
	}
	return errUsage{fmt.Errorf("unexpected arguments after %s (see ratelab help)", operands[0])}
}

// storeFlag is --store URL: the lanes decide in that Redis.
type storeFlag struct{ url string }

func (f *storeFlag) flag() flagDef {
	return flagDef{name: "store", set: func(v string) error {
		if v == "" {
			return errors.New("want a URL such as redis://127.0.0.1:6379/0")
		}
		f.url = v
		return nil
	}}
}

// open connects to the store, its calls pipelined, or returns nils
// without --store. The caller closes it (closeStore).
func (f storeFlag) open() (*redisstore.Store, model.Store, error) {
	if f.url == "" {
		return nil, nil, nil
	}
	st, err := redisstore.Open(f.url)
	if err != nil {
		return nil, nil, err
	}
	st.Pipeline(pipelined)
	return st, st.Maker, nil
}

// closeStore closes st, if there is one.
func closeStore(st *redisstore.Store) {
	if st != nil {
		st.Close()
	}
}

// failed is the store's failure, if it has one, once the calls still
// queued have been checked.
func failed(st *redisstore.Store) error {
	if st == nil {
		return nil
	}
	return st.Flush()
}

// pipelined is how many script calls are sent to Redis at once: nothing
// waits on a verdict (the lane's answer is memory's, Redis's checked
// against it when its batch returns), so a round trip a decision would
// only be slow. The explorer's view of a key sends the batch first.
const pipelined = 256

// errHelp asks for the usage text on stdout, with exit status 0.
var errHelp = errors.New("help requested")

// flagDef is one flag of a command. A bool flag takes no value ("--by-key",
// or "--by-key=false"); the others take one ("--format json" or
// "--format=json").
type flagDef struct {
	name   string
	isBool bool
	set    func(value string) error
}

// parseArgs sets cmd's flags from args and returns its operands. Flags may
// come before, between or after the operands, with one dash or two; "--"
// ends the flags (what follows are operands, even if they begin with a
// dash); -h or --help returns errHelp.
func parseArgs(cmd string, args []string, flags ...flagDef) (operands []string, err error) {
	if cmd != "" {
		cmd += ": "
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return append(operands, args[i+1:]...), nil
		}
		if len(arg) < 2 || arg[0] != '-' {
			operands = append(operands, arg)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(arg[1:], "-"), "=")
		if name == "h" || name == "help" {
			return nil, errHelp
		}
		k := slices.IndexFunc(flags, func(f flagDef) bool { return f.name == name })
		if k < 0 {
			return nil, errUsage{fmt.Errorf("%sunknown flag --%s (see ratelab help)", cmd, name)}
		}
		def := flags[k]
		switch {
		case def.isBool && !hasValue:
			value = "true"
		case !hasValue:
			if i+1 >= len(args) {
				return nil, errUsage{fmt.Errorf("%s--%s needs a value", cmd, name)}
			}
			i++
			value = args[i]
		}
		if err := def.set(value); err != nil {
			return nil, errUsage{fmt.Errorf("%s--%s: %v", cmd, name, err)}
		}
	}
	return operands, nil
}

func list(args []string, stdout io.Writer) error {
	args, err := parseArgs("list", args)
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return errUsage{errors.New("list takes no arguments")}
	}
	width := 0
	for _, info := range scenarios.List() {
		width = max(width, len(info.Name))
	}
	for _, info := range scenarios.List() {
		fmt.Fprintf(stdout, "%-*s  %s\n", width, info.Name, info.Title)
	}
	return nil
}

func show(args []string, stdout io.Writer) error {
	args, err := parseArgs("show", args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return errUsage{errors.New("usage: ratelab show NAME (see ratelab list)")}
	}
	src, ok := scenarios.Source(args[0])
	if !ok {
		return errUsage{fmt.Errorf("no canned scenario %q (see ratelab list)", args[0])}
	}
	_, err = stdout.Write(src)
	return err
}

// runUsage is the one-line usage of run.
const runUsage = "usage: ratelab run [--format table|json|summary] [--by-key] [--until DURATION] [--peak-window DURATION] [--store URL] SCENARIO"

func runCommand(args []string, stdout, stderr io.Writer) error {
	format := report.Table
	var until, peak time.Duration
	byKey, hasUntil := false, false
	var store storeFlag
	var logs logFlags
	var untilText string
	operands, err := parseArgs("run", args, append(logs.flags(), store.flag(),
		flagDef{name: "format", set: func(v string) (err error) {
			format, err = report.ParseFormat(v)
			return err
		}},
		flagDef{name: "by-key", isBool: true, set: func(v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("want true or false, got %q", v)
			}
			byKey = b
			return nil
		}},
		flagDef{name: "until", set: func(v string) error {
			hasUntil, untilText = true, v
			return nil
		}},
		flagDef{name: "peak-window", set: func(v string) (err error) {
			peak, err = scenarios.ParseDuration(v, true)
			return err
		}},
	)...)
	if err != nil {
		return err
	}
	if len(operands) != 1 {
		return errUsage{errors.New(runUsage)}
	}
	if byKey && format != report.Summary {
		return errUsage{fmt.Errorf("run: --by-key needs --format summary (the %s format already shows each request's key)", format)}
	}
	if hasUntil && isLog(operands[0]) {
		// A log is cut where it is read: --until is an instant of its
		// own clock, or a duration after its first line.
		logs.opt.Until, hasUntil = untilText, false
	} else if hasUntil {
		if until, err = scenarios.ParseDuration(untilText, false); err != nil {
			return errUsage{fmt.Errorf("run: --until: %v", err)}
		}
	}
	logs.showProgress(stderr)
	s, err := logs.open(operands[0])
	if err != nil {
		return err
	}
	sayConfigNotes(stderr, s)
	file := s // its keys head a table (a run by key lists those it saw)
	if hasUntil && until == 0 {
		// Every request arrives at or after 0: none is run. (The runner
		// reads a zero Until as no limit.)
		empty := *s
		empty.Traffic = nil
		s = &empty
	}
	lanes := model.LanesOf(s)
	if peak == 0 {
		peak = model.DefaultPeakWindow(lanes)
	}
	st, backend, err := store.open()
	if err != nil {
		return err
	}
	defer closeStore(st)
	opt := model.Options{Until: until, PeakWindow: peak, Store: backend}
	// A store that failed stops the run at the next record. Without a
	// store and a writer that wants records (a summary), the run gets no
	// emit at all: a record built and passed for nothing, six times a
	// request, was a good part of a plain run.
	stopped := func(emit func(model.Record) error) func(model.Record) error {
		if st == nil {
			return emit
		}
		return func(r model.Record) error {
			if st != nil && st.Err() != nil {
				return st.Err()
			}
			if emit == nil {
				return nil
			}
			return emit(r)
		}
	}
	if byKey {
		keys, err := model.RunKeys(s, opt, stopped(nil))
		if err == nil {
			err = failed(st)
		}
		if err != nil {
			return err
		}
		w := bufio.NewWriter(stdout)
		report.WriteSummaryKeys(w, lanes, peak, keys)
		if len(s.Clients) > 0 {
			report.WriteClientsKeys(w, lanes, keys)
		}
		report.WriteLogs(w, s.Logs)
		return w.Flush()
	}
	w := report.New(format, stdout, lanes, file.Keys(), s.Clients)
	stats, err := model.Run(s, opt, stopped(report.Emit(w)))
	if err == nil {
		err = failed(st)
	}
	if err != nil {
		return err
	}
	if err := w.Close(stats); err != nil {
		return err
	}
	// A log's lines and resolution close the table and the summary; JSON
	// Lines keep stdout to records, so they go to stderr.
	if format == report.JSON {
		return report.WriteLogs(stderr, s.Logs)
	}
	return report.WriteLogs(stdout, s.Logs)
}

// sayConfigNotes says on stderr, once, what the scenario's lanes written
// in a product's words model otherwise than the product (as import does).
func sayConfigNotes(stderr io.Writer, s *scenarios.Scenario) {
	for _, n := range s.ConfigNotes() {
		fmt.Fprintln(stderr, "note:", oneLine(n))
	}
}

// checkFailed is returned when an expectation failed; the failures are
// already printed.
type checkFailed struct{ n int }

func (c checkFailed) Error() string {
	return fmt.Sprintf("%d expectations or quiz moments failed", c.n)
}

// brokenFiles is returned by check when some files could not be loaded or
// run; each one's error is printed already, and the others were checked.
type brokenFiles struct{ n int }

func (b brokenFiles) Error() string { return fmt.Sprintf("%d scenarios could not be checked", b.n) }

// check checks every scenario named, even after one that cannot be loaded:
// each such one gets its error on stderr, and the exit status is then 2.
func check(args []string, stdout, stderr io.Writer) error {
	var store storeFlag
	args, err := parseArgs("check", args, store.flag())
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return errUsage{errors.New("usage: ratelab check [--store URL] SCENARIO...")}
	}
	st, backend, err := store.open()
	if err != nil {
		return err
	}
	defer closeStore(st)
	failures, broken := 0, 0
	for _, arg := range args {
		s, err := scenarios.Open(arg)
		var fails []model.Failure
		if err == nil {
			fails, err = model.CheckOn(s, backend)
		}
		if storeErr := failed(st); storeErr != nil {
			// The store failed: the scenarios after this one cannot run
			// on it, and each would only say so again.
			fmt.Fprintln(stderr, "ratelab:", oneLine(storeErr.Error()))
			return brokenFiles{broken + 1}
		}
		if err != nil {
			fmt.Fprintln(stderr, "ratelab:", oneLine(err.Error()))
			broken++
			continue
		}
		sayConfigNotes(stderr, s)
		for _, f := range fails {
			fmt.Fprintln(stdout, "FAIL", oneLine(f.Error()))
		}
		if len(fails) == 0 {
			fmt.Fprintf(stdout, "ok   %s: %s, %s\n", oneLine(s.Name), counted(len(s.Expect), "expectation holds", "expectations hold"), counted(len(s.Quiz), "quiz moment exists", "quiz moments exist"))
		}
		failures += len(fails)
	}
	switch {
	case broken > 0:
		return brokenFiles{broken}
	case failures > 0:
		return checkFailed{failures}
	}
	return nil
}

// oneLine keeps a message on one line whatever a file put in it: line
// breaks and tabs (a multi-line why, a file name with a newline) become
// spaces, and other control characters and the bidirectional formatting
// characters are escaped, so no text can fake a line of output or reorder
// the terminal's display.
func oneLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || scenarios.IsBidiControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// explore opens the explorer on a scenario, starting on its about text.
// The store is opened first (a wrong URL is said before the screen
// changes); the scenario is loaded by the explorer, which reads the keys
// typed meanwhile, and shows a long timeline's building on stderr.
func explore(name string, store storeFlag, logs logFlags, stdout, stderr io.Writer) error {
	st, backend, err := store.open()
	if err != nil {
		return err
	}
	defer closeStore(st)
	opts := ui.Options{About: true, Output: stdout, Progress: stderr, Store: backend}
	if st != nil {
		opts.StoreName = "redis " + st.Where()
	}
	load := func() (*scenarios.Scenario, error) { return logs.open(name) }
	switch err := ui.Run(load, opts); {
	case errors.Is(err, ui.ErrQuitWhileBusy):
		return nil // the store's last calls are not waited for
	case err != nil:
		return err
	}
	return failed(st)
}

// counted is "1 expectation holds" or "n expectations hold".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
