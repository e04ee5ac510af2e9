package docs

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"ratelab/algorithms"
)

var update = flag.Bool("update", false, "rewrite the generated parts of the documentation")

// The markers around the generated part of algorithms.md; everything
// outside them is written by hand.
const (
	beginGenerated = "<!-- generated: algorithms -->"
	endGenerated   = "<!-- end generated -->"
)

// TestAlgorithmsReference: the reference in algorithms.md is what the
// algorithms' descriptions generate. After adding or changing an
// algorithm, `go test ./docs -update` rewrites it.
func TestAlgorithmsReference(t *testing.T) {
	const path = "algorithms.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	before, rest, ok := strings.Cut(text, beginGenerated)
	if !ok {
		t.Fatalf("%s has no %s marker", path, beginGenerated)
	}
	old, after, ok := strings.Cut(rest, endGenerated)
	if !ok {
		t.Fatalf("%s has no %s marker after %s", path, endGenerated, beginGenerated)
	}
	want := "\n" + algorithmsReference() + "\n"
	if old == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(before+beginGenerated+want+endGenerated+after), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the generated part of %s", path)
		return
	}
	oldLines, wantLines := strings.Split(old, "\n"), strings.Split(want, "\n")
	for i := range max(len(oldLines), len(wantLines)) {
		var o, w string
		if i < len(oldLines) {
			o = oldLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if o != w {
			t.Fatalf("%s's generated reference is not what the descriptions say (go test ./docs -update rewrites it); "+
				"line %d of the generated part is\n%s\nand should be\n%s", path, i+1, o, w)
		}
	}
}

// TestAlgorithmsReferenceNamesEveryAlgorithm: the generator leaves out no
// algorithm, and gives each its own heading.
func TestAlgorithmsReferenceNamesEveryAlgorithm(t *testing.T) {
	ref := algorithmsReference()
	for _, a := range algorithms.Algorithms {
		if !strings.Contains(ref, "\n#### `"+string(a)+"`\n") {
			t.Errorf("no heading for %s", a)
		}
	}
}

// algorithmsReference is the generated part of algorithms.md: a table of
// every algorithm, then a section for each, family by family, in
// algorithms.Algorithms' order.
func algorithmsReference() string {
	var b strings.Builder
	b.WriteString("<!-- Written by `go test ./docs -update` from the algorithms' descriptions (algorithms/describe.go and each algorithm's file); edit those, not this. -->\n\n")
	b.WriteString("| algorithm | family | parameters | a rejection answers | delays |\n|---|---|---|---|---|\n")
	for _, a := range algorithms.Algorithms {
		d := algorithms.Describe(a)
		var params []string
		for _, q := range d.Params {
			name := "`" + q.Name + "`"
			if q.Optional {
				name += " (optional)"
			}
			params = append(params, name)
		}
		delays := "no"
		if d.Delays() {
			delays = "yes"
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", a, anchor(string(a)), d.Family, cell(strings.Join(params, ", ")), cell(status(d)), delays)
	}
	families := []struct {
		family  algorithms.Family
		heading string
		about   string
	}{
		{algorithms.Textbook, "Textbook algorithms and variants", "Exact: integer arithmetic throughout, a wait rounded up to a whole nanosecond."},
		{algorithms.Library, "Libraries", "A library's rule, with its parameter names and its own arithmetic, rounding included."},
		{algorithms.Mistake, "Mistakes", "A classic mistake, as code that makes it decides; run beside its exact twin, which takes the same parameters."},
	}
	for _, f := range families {
		fmt.Fprintf(&b, "\n### %s\n\n%s\n", f.heading, f.about)
		for _, a := range algorithms.Algorithms {
			if d := algorithms.Describe(a); d.Family == f.family {
				describe(&b, d)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// describe writes d's section.
func describe(b *strings.Builder, d *algorithms.Description) {
	fmt.Fprintf(b, "\n#### `%s`\n\n", d.Algorithm)
	if d.Source != "" {
		fmt.Fprintf(b, "- **Follows**: %s.\n", strings.TrimSuffix(d.Source, "."))
	}
	if d.Twin != "" {
		fmt.Fprintf(b, "- **Exact twin**: [`%s`](#%s), with the same parameters.\n", d.Twin, anchor(string(d.Twin)))
	}
	fmt.Fprintf(b, "- **Rule**, for a request of cost c at now: %s.\n", strings.TrimSuffix(d.Rule, "."))
	fmt.Fprintf(b, "- **Largest cost it can admit**: %s.\n", largestCost(d))
	if d.Delays() {
		b.WriteString("- **Delays**: yes: it can hold an admitted request back, as a shaper does.\n")
	} else {
		b.WriteString("- **Delays**: no: it admits at once or rejects.\n")
	}
	fmt.Fprintf(b, "- **A rejection answers**: %s.\n", status(d))
	if m := algorithms.MistakesOf(d.Algorithm); len(m) > 0 {
		var links []string
		for _, a := range m {
			links = append(links, fmt.Sprintf("[`%s`](#%s)", a, anchor(string(a))))
		}
		fmt.Fprintf(b, "- **Its mistakes** (`M` in the explorer adds them beside it): %s.\n", strings.Join(links, ", "))
	}
	if s := stateForms(d); s != "" {
		fmt.Fprintf(b, "- **State per key**, as a store keeps it: %s.\n", s)
	}
	if len(d.Params) > 0 {
		b.WriteString("\n| parameter | kind | what it must be |\n|---|---|---|\n")
		for _, q := range d.Params {
			kind := kindName(q.Kind)
			if q.Optional {
				kind += ", optional"
			}
			want := q.Want
			if q.Amount {
				want += " (an amount: a `split` store divides it among the gateways)"
			}
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", q.Name, kind, cell(want))
		}
	}
}

// largestCost says which parameters bound the cost of one request.
func largestCost(d *algorithms.Description) string {
	switch {
	case d.Size == "" && d.CostCap > 0:
		return fmt.Sprintf("%d, its library's own bound (a cost above it is refused); its parameters bound no cost", d.CostCap)
	case d.Size == "":
		return "any: it bounds no cost"
	case d.InFlight > 0:
		return fmt.Sprintf("`%s` + %d", d.Size, d.InFlight)
	}
	return "`" + d.Size + "`"
}

// status is the HTTP answer to a rejection.
func status(d *algorithms.Description) string {
	code := d.RejectStatus()
	s := fmt.Sprintf("%d %s", code, http.StatusText(code))
	if d.NoRetryAfter {
		return s + ", no `Retry-After`"
	}
	return s + " with `Retry-After`"
}

// stateForms names the numbers a key's state is written as; for an
// algorithm whose form depends on its parameters, the form of each
// optional count or flag set.
func stateForms(d *algorithms.Description) string {
	if d.StateFor == nil {
		return stateForm(d.State)
	}
	base := algorithms.Policy{Algorithm: d.Algorithm}
	first := d.StateFor(base)
	forms := []string{stateForm(first)}
	for _, q := range d.Params {
		if !q.Optional {
			continue
		}
		p := base
		switch q.Kind {
		case algorithms.Count:
			*q.CountOf(&p) = 2
		case algorithms.Flag:
			*q.FlagOf(&p) = true
		default:
			continue
		}
		form := d.StateFor(p)
		if s := stateForm(form); !slices.Contains(forms, s) {
			forms = append(forms, fmt.Sprintf("with `%s` %s, %s", q.Name, setWord(q), s))
		}
	}
	return strings.Join(forms, "; ")
}

func setWord(q algorithms.Param) string {
	if q.Kind == algorithms.Flag {
		return "true"
	}
	return "above 1"
}

func stateForm(f algorithms.StateForm) string {
	var parts []string
	if len(f.Fields) > 0 {
		parts = append(parts, codes(f.Fields))
	}
	if f.Log != "" {
		parts = append(parts, fmt.Sprintf("a log `%s`, an item each of %s", f.Log, codes(f.Item)))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", and ")
}

func codes(names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, "`"+n+"`")
	}
	return strings.Join(out, ", ")
}

func kindName(k algorithms.ParamKind) string {
	switch k {
	case algorithms.Count:
		return "count"
	case algorithms.Duration:
		return "duration"
	case algorithms.RateKind:
		return "rate N/D"
	case algorithms.Flag:
		return "true or false"
	case algorithms.Bytes:
		return "size (10m, 64k)"
	}
	return "?"
}

// cell is s fit for a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// anchor is the fragment GitHub gives a heading of `name`.
func anchor(name string) string { return slug(name) }
