package main

import (
	"errors"
	"fmt"
	"io"

	"ratelab/algorithms"
	"ratelab/model"
	"ratelab/products"
	"ratelab/safewrite"
)

// exportUsage is the one-line usage of export.
const exportUsage = "usage: ratelab export [--lane NAME] [--to P] [--save FILE] SCENARIO"

// exportCommand writes a scenario's lane as a product's configuration
// (package products) to stdout or --save's file, then says on stderr what
// the configuration decides otherwise and how many of the scenario's
// requests it decides differently, measured side by side (model.Compare).
func exportCommand(args []string, stdout, stderr io.Writer) error {
	lane, product, save := "", "nginx", ""
	var logs logFlags
	flags := append(logs.flags(), logs.until(),
		flagDef{name: "lane", set: func(v string) error { lane = v; return nil }},
		flagDef{name: "to", set: func(v string) error { product = v; return nil }},
		flagDef{name: "save", set: func(v string) error {
			if v == "" {
				return errors.New("want a file name such as limits.conf")
			}
			save = v
			return nil
		}})
	operands, err := parseArgs("export", args, flags...)
	if err != nil {
		return err
	}
	if len(operands) != 1 {
		return errUsage{errors.New(exportUsage)}
	}
	s, err := logs.open(operands[0])
	if err != nil {
		return err
	}
	ex, err := products.Export(s, lane, product)
	if err != nil {
		return err
	}
	if save == "" {
		if _, err := io.WriteString(stdout, ex.Text); err != nil {
			return err
		}
	} else if err := safewrite.WriteFile(save, []byte(ex.Text), 0o644); err != nil {
		return err
	}
	for _, d := range ex.Differs {
		fmt.Fprintln(stderr, "differs:", d)
	}
	c, err := model.Compare(ex.Side, 0, 1)
	if err != nil {
		return err
	}
	a, b := ex.Side.Lanes[0].Name, ex.Side.Lanes[1].Name
	switch {
	case c.Requests == 0:
		fmt.Fprintf(stderr, "measured: %s has no traffic to compare %s and %s on\n", operands[0], a, b)
	case c.Differ() == 0:
		fmt.Fprintf(stderr, "measured: %s and %s decide all %d requests of %s alike\n", a, b, c.Requests, operands[0])
	default:
		fmt.Fprintf(stderr, "measured: %d of %d requests of %s decided differently, the first at %s: %d admitted by %s and refused by %s, %d the reverse, %d delayed otherwise\n",
			c.Differ(), c.Requests, operands[0], algorithms.FormatSeconds(c.First), c.OnlyA, a, b, c.OnlyB, c.Delays)
	}
	if save != "" {
		fmt.Fprintf(stdout, "saved %s\n", save)
	}
	return nil
}
