package products

import (
	"fmt"
	"strings"

	"ratelab/algorithms"
	"ratelab/products/registry"
	"ratelab/scenarios"
)

// Exported is a lane in a product's words.
type Exported struct {
	// Text is the product's configuration.
	Text string
	// Differs says, one line each, where the configuration decides
	// otherwise than the lane (none when it is exact).
	Differs []string
	// Side is the scenario with the lane (lane 0) and the configuration
	// as a lane (lane 1) side by side on its traffic, to measure how many
	// decisions differ (model.Compare).
	Side *scenarios.Scenario
}

// Export writes lane (a name of s's lanes; "" when s has one) as product's
// configuration: exactly where the product can say it, else the nearest
// configuration on the safe side, with what differs.
func Export(s *scenarios.Scenario, lane, product string) (*Exported, error) {
	l, err := pickLane(s, lane)
	if err != nil {
		return nil, err
	}
	pr := registry.Lookup(product)
	if pr == nil {
		return nil, fmt.Errorf("unknown product %q: want one of %s", product, strings.Join(registry.Names(), ", "))
	}
	var (
		layers  []algorithms.Layer
		differs []string
	)
	from := l.Stack
	if from == nil {
		from = []algorithms.Layer{{Name: l.Name, Policy: l.Policy}}
	}
	for _, x := range from {
		p, d, err := pr.Nearest(x.Policy)
		if err != nil {
			return nil, fmt.Errorf("lane %s: %w", l.Name, err)
		}
		for _, line := range d {
			if len(from) > 1 {
				line = x.Name + ": " + line
			}
			differs = append(differs, line)
		}
		x.Policy = p
		if pr.OneForAll && !x.AllKeys {
			x.AllKeys = true
			differs = append(differs, fmt.Sprintf("%s's limit is one for every request it sees; %s keeps one a client", pr.Title, x.Name))
		}
		layers = append(layers, x)
	}
	if !l.Fleet.Plain() {
		differs = append(differs, fmt.Sprintf("the lane stands for %d gateways; the configuration is one instance's", l.Fleet.Gateways))
	}
	text, err := pr.Write(l.Name, layers)
	if err != nil {
		return nil, fmt.Errorf("lane %s: %w", l.Name, err)
	}
	twin := scenarios.Lane{Name: twinName(l.Name, pr.Name), Policy: layers[0].Policy}
	if len(layers) > 1 || layers[0].AllKeys {
		twin.Stack = layers
	}
	side := *s
	side.Lanes = []scenarios.Lane{l, twin}
	side.Notes, side.Quiz, side.Expect = nil, nil, nil
	side.Duration = max(side.Duration, twin.Horizon())
	return &Exported{Text: text, Differs: differs, Side: &side}, nil
}

// pickLane is s's lane called name, or its only lane when name is "".
func pickLane(s *scenarios.Scenario, name string) (scenarios.Lane, error) {
	var names []string
	for _, l := range s.Lanes {
		if l.Name == name {
			return l, nil
		}
		names = append(names, l.Name)
	}
	if name == "" && len(s.Lanes) == 1 {
		return s.Lanes[0], nil
	}
	if name == "" {
		return scenarios.Lane{}, fmt.Errorf("which lane? give --lane, one of %s", strings.Join(names, ", "))
	}
	return scenarios.Lane{}, fmt.Errorf("no lane %q: the lanes are %s", name, strings.Join(names, ", "))
}

// twinName is the name of a lane's exported twin: NAME-PRODUCT, cut to a
// lane name's length.
func twinName(name, product string) string {
	suffix := "-" + product
	if len(name)+len(suffix) > maxNameLen {
		name = strings.TrimRight(name[:maxNameLen-len(suffix)], "-")
	}
	return name + suffix
}
