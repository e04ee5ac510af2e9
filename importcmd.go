package main

import (
	"errors"
	"fmt"
	"io"

	"ratelab/products"
	"ratelab/safewrite"
)

// importUsage is the one-line usage of import.
const importUsage = "usage: ratelab import [--product P] [--save FILE.yaml] CONFIG|-"

// importCommand reads a product's configuration (package products) and
// writes the scenario of its lanes to stdout, or to --save's file; each
// lane's notes (what it models otherwise than the product runs it) go to
// stderr, one a line.
func importCommand(args []string, stdout, stderr io.Writer) error {
	var product, save string
	operands, err := parseArgs("import", args,
		flagDef{name: "product", set: func(v string) error { product = v; return nil }},
		flagDef{name: "save", set: func(v string) error {
			if v == "" {
				return errors.New("want a file name such as mine.yaml")
			}
			save = v
			return nil
		}})
	if err != nil {
		return err
	}
	if len(operands) != 1 {
		return errUsage{errors.New(importUsage)}
	}
	data, err := products.ReadInput(operands[0])
	if err != nil {
		return err
	}
	im, err := products.ImportFile(product, operands[0], data)
	if err != nil {
		return err
	}
	for _, n := range im.Notes {
		fmt.Fprintln(stderr, "note:", n)
	}
	if save == "" {
		_, err = stdout.Write(im.Text)
		return err
	}
	if err := safewrite.WriteFile(save, im.Text, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "saved %s with %s · ratelab %s opens it\n", save, counted(len(im.Scenario.Lanes), "lane", "lanes"), save)
	return nil
}
