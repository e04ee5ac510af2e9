package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"ratelab/products"
)

// explainUsage is the one-line usage of explain.
const explainUsage = "usage: ratelab explain PRODUCT 'CONFIGURATION'"

// explainCommand says what a product's configuration promises, lane by
// lane (products.Explain), and which other products' configurations say
// the same.
func explainCommand(args []string, stdout io.Writer) error {
	operands, err := parseArgs("explain", args)
	if err != nil {
		return err
	}
	if len(operands) != 2 {
		return errUsage{errors.New(explainUsage)}
	}
	ps, err := products.Explain(operands[0], operands[1])
	if err != nil {
		return err
	}
	for i, p := range ps {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s: %s, %s\n", p.Lane, p.Policy, p.Scope)
		fmt.Fprintf(stdout, "  at once:    %s\n", p.AtOnce)
		fmt.Fprintf(stdout, "  sustained:  %s\n", p.Sustained)
		fmt.Fprintf(stdout, "  waits:      %s\n", p.Waits)
		fmt.Fprintf(stdout, "  refused:    %s\n", p.Refused)
		for _, n := range p.Notes {
			fmt.Fprintf(stdout, "  note:       %s\n", n)
		}
		if len(p.Same) > 0 {
			fmt.Fprintf(stdout, "  the same:   %s\n", strings.Join(p.Same, "; "))
		}
		for _, o := range p.Other {
			fmt.Fprintf(stdout, "  otherwise:  %s\n", o)
		}
	}
	return nil
}
