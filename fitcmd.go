package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"ratelab/algorithms"
	"ratelab/fit"
	"ratelab/report"
	"ratelab/safewrite"
	"ratelab/scenarios"
)

// fitUsage is the one-line usage of fit.
const fitUsage = "usage: ratelab fit [--algorithm A,...] [--rate R,...] [--window D,...] [--reject-at-most P%] [--by-key] [--key-share P%] [--save FILE.yaml] [log flags] LOG|SCENARIO"

// fitCommand fits the smallest policies to a log's or a scenario's
// traffic (package fit) and writes them (report.WriteFit); --save writes
// a scenario of the knees' lanes over the same traffic.
func fitCommand(args []string, stdout, stderr io.Writer) error {
	var o fit.Options
	var logs logFlags
	var save string
	flags := append(logs.flags(), logs.until(),
		flagDef{name: "algorithm", set: func(v string) error {
			for _, a := range strings.Split(v, ",") {
				a := algorithms.Algorithm(strings.TrimSpace(a))
				if !slices.Contains(fit.Supported, a) {
					return fmt.Errorf("%q is not an algorithm fit can fit (it fits %s)", a, fit.SupportedWords())
				}
				o.Algorithms = append(o.Algorithms, a)
			}
			return nil
		}},
		flagDef{name: "rate", set: func(v string) error {
			for _, r := range strings.Split(v, ",") {
				rate, err := algorithms.ParseRate(strings.TrimSpace(r))
				if err != nil {
					return err
				}
				o.Rates = append(o.Rates, rate)
			}
			return nil
		}},
		flagDef{name: "window", set: func(v string) error {
			for _, w := range strings.Split(v, ",") {
				d, err := scenarios.ParseDuration(strings.TrimSpace(w), true)
				if err != nil {
					return err
				}
				o.Windows = append(o.Windows, d)
			}
			return nil
		}},
		flagDef{name: "reject-at-most", set: func(v string) (err error) {
			o.RejectAtMost, err = parseShare(v)
			return err
		}},
		flagDef{name: "key-share", set: func(v string) (err error) {
			o.KeyShare, err = parseShare(v)
			if err == nil && o.KeyShare == 0 {
				err = errors.New("want a share above 0%")
			}
			return err
		}},
		flagDef{name: "by-key", isBool: true, set: func(v string) (err error) {
			o.ByKey, err = strconv.ParseBool(v)
			return err
		}},
		flagDef{name: "save", set: func(v string) error {
			if v == "" {
				return errors.New("want a file name such as fitted.yaml")
			}
			save = v
			return nil
		}},
	)
	operands, err := parseArgs("fit", args, flags...)
	if err != nil {
		return err
	}
	if len(operands) != 1 {
		return errUsage{errors.New(fitUsage)}
	}
	logs.showProgress(stderr)
	if isLog(operands[0]) {
		// The log is surveyed as it is read: the fit then makes no pass
		// of its own for it.
		o.Survey = fit.NewSurvey(o.ByKey)
		logs.opt.Observe = o.Survey.Add
	}
	s, err := logs.open(operands[0])
	if err != nil {
		return err
	}
	r, err := fit.Fit(fit.ScenarioSource(s), o)
	if err != nil {
		return err
	}
	if err := report.WriteFit(stdout, r, report.FitView{}); err != nil {
		return err
	}
	if err := report.WriteLogs(stdout, s.Logs); err != nil {
		return err
	}
	if save == "" {
		return nil
	}
	saved, left := fit.Saved(s, r)
	if len(saved.Lanes) == 0 {
		return errors.New("fit: no policy to save (no frontier has a knee)")
	}
	data, err := scenarios.Marshal(saved, nil)
	if err != nil {
		return err
	}
	if err := safewrite.WriteFile(save, data, 0o644); err != nil {
		return err
	}
	if len(left) > 0 {
		fmt.Fprintf(stdout, "left out of %s: %s, which delays, cannot be one allowance for every key (fit --by-key saves it per key)\n", save, strings.Join(left, ", "))
	}
	_, err = fmt.Fprintf(stdout, "saved %s: the knees' lanes over the same traffic;\n  ratelab check %s checks what the fit measured\n", save, save)
	return err
}

// parseShare reads a share written as a percentage with up to four
// decimals, "1%", "0.5%", "99.9%", as parts per million (fit.PPM), in
// integers.
func parseShare(v string) (int64, error) {
	num, ok := strings.CutSuffix(strings.TrimSpace(v), "%")
	whole, frac, _ := strings.Cut(num, ".")
	if !ok || whole == "" || len(frac) > 4 {
		return 0, fmt.Errorf("want a percentage such as 1%% or 0.5%%, got %q", v)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || w < 0 || w > 100 {
		return 0, fmt.Errorf("want a percentage from 0%% to 100%%, got %q", v)
	}
	ppm := w * 10_000
	if frac != "" {
		f, err := strconv.ParseInt(frac+strings.Repeat("0", 4-len(frac)), 10, 64)
		if err != nil || f < 0 {
			return 0, fmt.Errorf("want a percentage such as 0.5%%, got %q", v)
		}
		ppm += f
	}
	if ppm > fit.PPM {
		return 0, fmt.Errorf("want a percentage from 0%% to 100%%, got %q", v)
	}
	return ppm, nil
}
