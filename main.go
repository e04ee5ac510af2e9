// Command ratelab is a terminal explorer for rate-limiting algorithms.
//
//	ratelab [SCENARIO]                 the explorer (default scenario: boundary)
//	ratelab list                       the canned scenarios
//	ratelab show NAME                  a canned scenario's YAML
//	ratelab run [flags] SCENARIO       every decision, as a table, JSON Lines or a summary
//	ratelab check SCENARIO...          verify the scenarios' expectations
//
// SCENARIO is a canned scenario's name or a YAML file's path.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"ratelab/model"
	"ratelab/report"
	"ratelab/scenarios"
	"ratelab/ui"
)

const usage = `ratelab — explore rate-limiting algorithms side by side

usage:
  ratelab [SCENARIO]            open the explorer (default: %s)
  ratelab list                  list the canned scenarios
  ratelab show NAME             print a canned scenario's YAML
  ratelab run [flags] SCENARIO  print every lane's decision on every request
      --format table|json|summary   (default table)
      --until DURATION              stop before the first request at or after it
      --peak-window DURATION        window of the "peak" statistic (default: longest lane window)
  ratelab check SCENARIO...     run the scenarios' expectations; exit 1 if any fails

SCENARIO is a canned scenario's name or the path of a YAML file.
`

// errUsage marks bad input: exit status 2.
type errUsage struct{ error }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status: 0 on success,
// 1 when a check fails, 2 on bad input.
func run(args []string, stdout, stderr io.Writer) int {
	err := dispatch(args, stdout)
	if err == nil {
		return 0
	}
	var failed checkFailed
	if errors.As(err, &failed) {
		return 1
	}
	fmt.Fprintln(stderr, "ratelab:", err)
	return 2
}

func dispatch(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return explore(scenarios.Default, stdout)
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		fmt.Fprintf(stdout, usage, scenarios.Default)
		return nil
	case "list":
		return list(args[1:], stdout)
	case "show":
		return show(args[1:], stdout)
	case "run":
		return runCommand(args[1:], stdout)
	case "check":
		return check(args[1:], stdout)
	}
	if len(args) > 1 {
		return errUsage{fmt.Errorf("unexpected arguments after %s (see ratelab help)", args[0])}
	}
	return explore(args[0], stdout)
}

func list(args []string, stdout io.Writer) error {
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
	if len(args) != 1 {
		return errUsage{errors.New("usage: ratelab show NAME (see ratelab list)")}
	}
	src, ok := scenarios.Source(args[0])
	if !ok {
		return errUsage{fmt.Errorf("no canned scenario %q (see ratelab list)", args[0])}
	}
	_, err := stdout.Write(src)
	return err
}

func runCommand(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", string(report.Table), "table, json or summary")
	until := fs.Duration("until", 0, "stop before the first request at or after this time")
	peak := fs.Duration("peak-window", 0, "window of the peak statistic")
	if err := fs.Parse(args); err != nil {
		return errUsage{fmt.Errorf("run: %v", err)}
	}
	if fs.NArg() != 1 {
		return errUsage{errors.New("usage: ratelab run [--format table|json|summary] [--until DURATION] SCENARIO")}
	}
	f, err := report.ParseFormat(*format)
	if err != nil {
		return errUsage{err}
	}
	if *until < 0 || *peak < 0 {
		return errUsage{errors.New("--until and --peak-window must not be negative")}
	}
	s, err := scenarios.Open(fs.Arg(0))
	if err != nil {
		return errUsage{err}
	}
	w := report.New(f, stdout, model.LanesOf(s), s.Keys())
	stats, err := model.Run(s, model.Options{Until: *until, PeakWindow: *peak}, w.Record)
	if err != nil {
		return err
	}
	return w.Close(stats)
}

// checkFailed is returned when an expectation failed; the failures are
// already printed.
type checkFailed struct{ n int }

func (c checkFailed) Error() string { return fmt.Sprintf("%d expectations failed", c.n) }

func check(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errUsage{errors.New("usage: ratelab check SCENARIO...")}
	}
	failed := 0
	for _, arg := range args {
		s, err := scenarios.Open(arg)
		if err != nil {
			return errUsage{err}
		}
		failures, err := model.Check(s)
		if err != nil {
			return errUsage{err}
		}
		for _, f := range failures {
			fmt.Fprintln(stdout, "FAIL", f.Error())
		}
		if len(failures) == 0 {
			fmt.Fprintf(stdout, "ok   %s: %d expectations hold\n", s.Name, len(s.Expect))
		}
		failed += len(failures)
	}
	if failed > 0 {
		return checkFailed{failed}
	}
	return nil
}

// explore opens the explorer on a scenario, starting on its about text.
func explore(name string, stdout io.Writer) error {
	s, err := scenarios.Open(name)
	if err != nil {
		return errUsage{err}
	}
	return ui.Run(s, ui.Options{About: true, Output: stdout})
}
