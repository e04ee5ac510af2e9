// Package products reads a rate-limiting product's configuration into a
// scenario whose lanes are that configuration (ratelab import): each lane
// stands for the places where one set of rules is in force, and says
// where it came from and what it models otherwise than the product would
// run it. The products' own readers are its subpackages.
package products

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"ratelab/algorithms"
	"ratelab/products/nginx"
	"ratelab/scenarios"
)

// Names are the products Import reads.
var Names = []string{"nginx"}

// Imported is a configuration read as a scenario.
type Imported struct {
	// Scenario is the scenario, as Text reads back.
	Scenario *scenarios.Scenario
	// Text is the scenario file: its about names each lane's places and
	// notes.
	Text []byte
	// Notes are the lanes' notes, "lane: note", and what was left out.
	Notes []string
}

// demoKey is the key of the imported scenario's requests.
const demoKey = "client"

// ImportFile reads product's configuration from path ("-" for text read
// from stdin, given as data) and makes its scenario. product "" guesses
// it from the text.
func ImportFile(product, path string, data []byte) (*Imported, error) {
	if product == "" {
		product = guess(data)
		if product == "" {
			return nil, fmt.Errorf("%s: which product's configuration is it? give --product %s", path, strings.Join(Names, "|"))
		}
	}
	switch product {
	case "nginx":
		var cfg *nginx.Config
		var err error
		if path == "-" {
			cfg, err = nginx.Parse("stdin", data)
		} else {
			cfg, err = nginx.ReadFile(path)
		}
		if err != nil {
			return nil, err
		}
		return fromNginx(filepath.Base(path), cfg)
	}
	return nil, fmt.Errorf("unknown product %q: want one of %s", product, strings.Join(Names, ", "))
}

// guess is the product whose directives the text holds, "" if none.
func guess(data []byte) string {
	if bytes.Contains(data, []byte("limit_req")) {
		return "nginx"
	}
	return ""
}

// fromNginx is the scenario of an nginx configuration's limit_req rules.
func fromNginx(name string, cfg *nginx.Config) (*Imported, error) {
	lanes, left, err := cfg.Lanes()
	if err != nil {
		return nil, err
	}
	if len(lanes) == 0 {
		return nil, errors.New(name + ": no server or location has a limit_req in force")
	}
	s := &scenarios.Scenario{
		Title: "nginx limit_req from " + name,
		Step:  scenarios.DefaultStep,
	}
	var about strings.Builder
	fmt.Fprintf(&about, "The limit_req rules of %s, a lane for each set of rules in force. A request's key stands for the client address ($binary_remote_addr). The traffic is a burst from one client at 0s; add your own, or replay a log with --lanes.\n", name)
	var notes []string
	most := int64(1)
	for _, l := range lanes {
		lane := scenarios.Lane{Name: l.Name, Policy: l.Layers[0].Policy}
		if len(l.Layers) > 1 || l.Layers[0].AllKeys {
			lane.Stack = l.Layers
		}
		s.Lanes = append(s.Lanes, lane)
		s.Duration = max(s.Duration, lane.Horizon())
		for _, layer := range l.Layers {
			most = max(most, layer.Policy.MaxCost())
		}
		var places []string
		for _, p := range l.Places {
			places = append(places, fmt.Sprintf("%s (%s)", p.Name(), p.Pos))
		}
		fmt.Fprintf(&about, "\n%s: %s.\n", l.Name, strings.Join(places, "; "))
		for _, layer := range l.Layers {
			fmt.Fprintf(&about, "- zone %s, %s: %s.\n", layer.Name, scopeWords(layer), layer.Policy)
		}
		for _, n := range l.Notes {
			fmt.Fprintf(&about, "- Note: %s.\n", n)
			notes = append(notes, l.Name+": "+n)
		}
	}
	if len(left) > 0 {
		n := fmt.Sprintf("ratelab shows at most %d lanes; left out: %s", nginx.MaxLanes, strings.Join(left, "; "))
		fmt.Fprintf(&about, "\n%s.\n", n)
		notes = append(notes, n)
	}
	s.About = about.String()
	// A burst of two more than any lane admits at once.
	s.Traffic = []scenarios.Traffic{{Form: scenarios.Burst, Count: most + 2, Key: demoKey, Cost: 1, Line: 0}}
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
		return readAll(os.Stdin)
	}
	return os.ReadFile(path)
}

func readAll(f *os.File) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}
