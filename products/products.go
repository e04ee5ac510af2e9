// Package products reads rate-limiting products' configurations into
// scenarios whose lanes are those configurations (ratelab import), and
// writes a lane back in a product's words (ratelab export). Each lane
// says where it came from and what it models otherwise than the product
// would run it. The products' own readers and writers are its
// subpackages; registry.Products lists them, with what their words mean.
package products

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ratelab/algorithms"
	"ratelab/products/bucket"
	"ratelab/products/nginx"
	"ratelab/products/registry"
	"ratelab/scenarios"
)

// Imported is a configuration read as a scenario.
type Imported struct {
	// Scenario is the scenario, as Text reads back.
	Scenario *scenarios.Scenario
	// Text is the scenario file: its about names each lane's source and
	// notes.
	Text []byte
	// Notes are the lanes' notes, "lane: note", and what was left out.
	Notes []string
}

// demoKey is the key of the imported scenario's requests, and
// maxDemoBurst bounds their number.
const (
	demoKey      = "client"
	maxDemoBurst = 10_000
)

// The bounds of a scenario's lanes.
const (
	maxLanes   = scenarios.MaxLanes
	maxNameLen = scenarios.MaxNameLen
)

// ImportFile reads product's configuration from path ("-" for text read
// from stdin, given as data) and makes its scenario. product "" guesses
// it from the text.
func ImportFile(product, path string, data []byte) (*Imported, error) {
	var p *registry.Product
	if product == "" {
		if p = registry.Guess(data); p == nil {
			return nil, fmt.Errorf("%s: which product's configuration is it? give --product %s", path, strings.Join(registry.Names(), "|"))
		}
	} else if p = registry.Lookup(product); p == nil {
		return nil, fmt.Errorf("unknown product %q: want one of %s", product, strings.Join(registry.Names(), ", "))
	}
	file := path
	if path == "-" {
		file = ""
	}
	lanes, left, err := p.Read(file, data)
	if err != nil {
		if path == "-" {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		return nil, err
	}
	name := filepath.Base(path)
	if path == "-" {
		name = "stdin"
	}
	if len(lanes) == 0 {
		return nil, errors.New(name + ": " + p.None)
	}
	return scenarioOf(p, name, lanes, left)
}

// scenarioOf is the scenario of a product's lanes read from name.
func scenarioOf(p *registry.Product, name string, lanes []registry.Lane, left []string) (*Imported, error) {
	s := &scenarios.Scenario{Title: p.Title + " from " + name, Step: scenarios.DefaultStep}
	var about strings.Builder
	fmt.Fprintf(&about, "%s %s, a lane for each. %s The traffic is a burst from one client at 0s; add your own, or replay a log with --lanes.\n", p.What, name, p.Keys)
	var notes []string
	most := int64(1)
	var slowest time.Duration // the longest interval of a lane that delays
	taken := map[string]bool{}
	for _, l := range lanes {
		l.Name = nginx.UniqueName(l.Name, taken)
		lane := scenarios.Lane{Name: l.Name, Policy: l.Layers[0].Policy}
		if len(l.Layers) > 1 || l.Layers[0].AllKeys {
			lane.Stack = l.Layers
		}
		s.Lanes = append(s.Lanes, lane)
		s.Duration = max(s.Duration, lane.Horizon())
		atOnce := l.Layers[0].Policy.MaxCost() // every layer must admit it
		for _, layer := range l.Layers {
			atOnce = min(atOnce, layer.Policy.MaxCost())
			// A limiter that grants every request (Guava's acquire)
			// admits any cost: its burst is what it passes without a
			// wait, its bucket's size.
			if b, _, err := bucket.Of(layer.Policy, p.Name); err == nil {
				atOnce = min(atOnce, b.Size)
				if b.Delays {
					slowest = max(slowest, b.Rate.Per/time.Duration(b.Rate.N))
				}
			}
		}
		most = max(most, atOnce)
		fmt.Fprintf(&about, "\n%s: %s.\n", l.Name, l.From)
		for _, layer := range l.Layers {
			fmt.Fprintf(&about, "- %s %s, %s: %s.\n", p.Part, layer.Name, scopeWords(layer), layer.Policy)
		}
		for _, n := range l.Notes {
			fmt.Fprintf(&about, "- Note: %s.\n", n)
			notes = append(notes, l.Name+": "+n)
		}
	}
	if len(left) > 0 {
		n := fmt.Sprintf("ratelab shows at most %d lanes; left out: %s", maxLanes, strings.Join(left, "; "))
		fmt.Fprintf(&about, "\n%s.\n", n)
		notes = append(notes, n)
	}
	s.About = about.String()
	// A burst of two more than any lane admits at once.
	s.Traffic = []scenarios.Traffic{{Form: scenarios.Burst, Count: min(most+2, maxDemoBurst), Key: demoKey, Cost: 1}}
	// Long enough to see the last of them passed by a lane that delays.
	s.Duration = max(s.Duration, slowest*time.Duration(s.Traffic[0].Count))
	text, err := scenarios.Marshal(s, nil)
	if err != nil {
		return nil, err
	}
	back, err := scenarios.Parse(name+".yaml", text)
	if err != nil {
		return nil, fmt.Errorf("the scenario made from %s does not read back: %w", name, err)
	}
	return &Imported{Scenario: back, Text: text, Notes: notes}, nil
}

// scopeWords says whose requests a layer counts together.
func scopeWords(l algorithms.Layer) string {
	if l.AllKeys {
		return "one allowance for every client"
	}
	return "one allowance a client"
}

// ReadInput is path's bytes, or stdin's for "-".
func ReadInput(path string) ([]byte, error) {
	if path == "-" {
		var b bytes.Buffer
		_, err := b.ReadFrom(os.Stdin)
		return b.Bytes(), err
	}
	return os.ReadFile(path)
}
