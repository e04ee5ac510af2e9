package main

import (
	"errors"
	"io"
	"os"
	"strconv"

	"ratelab/progress"
	"ratelab/scenarios"
)

// logFlags are the flags that say how a log named on the command line is
// replayed (ratelab PATH.log, run PATH.log, fit PATH.log); each is the log
// item's field of the same name (docs/logs.md).
type logFlags struct {
	opt   scenarios.LogOptions
	lanes string // --lanes: a scenario whose lanes replace the default six
}

// flags are the flags' definitions.
func (f *logFlags) flags() []flagDef {
	text := func(name string, to *string) flagDef {
		return flagDef{name: name, set: func(v string) error {
			if v == "" {
				return errors.New("want a value")
			}
			*to = v
			return nil
		}}
	}
	return []flagDef{
		text("log-format", &f.opt.Format),
		text("key", &f.opt.Key),
		text("cost", &f.opt.Cost),
		text("spread", &f.opt.Spread),
		text("look-behind", &f.opt.LookBehind),
		text("from", &f.opt.From),
		text("lanes", &f.lanes),
		{name: "strict", isBool: true, set: func(v string) (err error) {
			f.opt.Strict, err = strconv.ParseBool(v)
			return err
		}},
	}
}

// until is --until for the explorer, where it cuts a log (run's own
// --until is a duration of any scenario, or cuts a log the same way).
func (f *logFlags) until() flagDef {
	return flagDef{name: "until", set: func(v string) error {
		f.opt.Until = v
		return nil
	}}
}

// isLog reports whether name is a log to replay: a file there whose name
// does not end in .yaml or .yml.
func isLog(name string) bool {
	if !scenarios.IsLogPath(name) {
		return false
	}
	info, err := os.Stat(name)
	return err == nil && info.Mode().IsRegular()
}

// showProgress makes every read of the log show its progress on stderr,
// when stderr is a terminal (and nothing when it is not).
func (f *logFlags) showProgress(stderr io.Writer) {
	if !progress.IsTerminal(stderr) {
		return
	}
	f.opt.Progress = func(size int64) (func(lines, bytes int64), func()) {
		m := progress.New(stderr, size, true)
		return m.Update, m.Done
	}
}

// open reads the scenario name: a log replayed as the flags say, or a
// canned scenario or a scenario file (with which the flags are refused).
func (f *logFlags) open(name string) (*scenarios.Scenario, error) {
	if !isLog(name) {
		if f.opt.Format+f.opt.Key+f.opt.Cost+f.opt.Spread+f.opt.LookBehind+f.opt.From+f.opt.Until+f.lanes != "" || f.opt.Strict {
			return nil, errUsage{errors.New(name + " is not a log: the log flags (--log-format, --key, --lanes, …) apply to a log only")}
		}
		s, err := scenarios.Open(name)
		if err != nil {
			return nil, errUsage{err}
		}
		return s, nil
	}
	var lanes *scenarios.Scenario
	if f.lanes != "" {
		var err error
		if lanes, err = scenarios.Open(f.lanes); err != nil {
			return nil, errUsage{err}
		}
	}
	s, err := scenarios.ReplayLog(name, f.opt, lanes)
	if err != nil {
		return nil, errUsage{err}
	}
	return s, nil
}
