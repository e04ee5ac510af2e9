package scenarios

import (
	"cmp"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

//go:embed canned/*.yaml canned/logs/*.log
var cannedFS embed.FS

// Default is the canned scenario the explorer opens when given none.
const Default = "boundary"

// teachingOrder is the order List presents the canned lessons in: the
// textbook's algorithms, then the libraries' rules, then the mistakes and
// what no single limiter protects. A canned file missing here would come
// after these, by name; TestCanned requires every file to be placed.
var teachingOrder = []string{
	"boundary",
	"dashboard",
	"counter-blind-spot",
	"finer-sub-windows",
	"memory-price",
	"shaping-vs-policing",
	"costly-requests",
	"retries-refill",
	"retry-storm",
	"retry-after-not-a-reservation",
	"jitter-spreads-retries",
	"gcra-is-token-bucket",
	"empty-start",
	"lumpy-refill",
	"burst-admits-eleven",
	"same-words",
	"same-words-windows",
	"nginx-config",
	"pay-later",
	"deadlines-and-cancel",
	"promise-first",
	"table-from-runs",
	"which-burst",
	"sliding-estimate",
	"memory-fleet",
	"float-drift",
	"whole-token-refill",
	"attempts-counted",
	"collapsing-members",
	"expiry-reset",
	"accounts-together",
	"global-cap",
	"crawler-per-host",
	"four-gateways",
	"racy-store",
	"refusal-writes",
	"synced-counters",
	"store-outage",
	"idle-expiry",
	"clock-skew",
}

// Info names a canned scenario.
type Info struct {
	Name, Title string
}

// names lists the canned scenarios in teaching order.
func names() []string {
	entries, err := fs.ReadDir(cannedFS, "canned")
	if err != nil {
		panic(err) // the embedded directory is always there
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, name)
		}
	}
	rank := func(name string) int {
		if i := slices.Index(teachingOrder, name); i >= 0 {
			return i
		}
		return len(teachingOrder)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
	})
	return names
}

// catalog parses every canned scenario once, for List.
var catalog = sync.OnceValue(func() []Info {
	var infos []Info
	for _, name := range names() {
		s, err := Canned(name)
		if err != nil {
			panic(fmt.Sprintf("scenarios: embedded scenario %s is invalid: %v", name, err))
		}
		infos = append(infos, Info{Name: name, Title: s.Title})
	}
	return infos
})

// List describes the canned scenarios in teaching order.
func List() []Info {
	return slices.Clone(catalog())
}

// Source is the YAML of the canned scenario name, for `ratelab show`.
func Source(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, `/\.`) {
		return nil, false
	}
	data, err := cannedFS.ReadFile(path.Join("canned", name+".yaml"))
	if err != nil {
		return nil, false
	}
	return data, true
}

// Canned parses the canned scenario name; each call returns a new Scenario.
func Canned(name string) (*Scenario, error) {
	data, ok := Source(name)
	if !ok {
		return nil, fmt.Errorf("no canned scenario is called %q (canned: %s)", name, cannedNames())
	}
	return parseCanned(name, data)
}

// parseCanned parses data, the source of the canned scenario name.
func parseCanned(name string, data []byte) (*Scenario, error) {
	s, err := Parse(name+".yaml", data)
	if err != nil {
		return nil, err
	}
	s.Name = name
	return s, nil
}

func cannedNames() string {
	return strings.Join(names(), ", ")
}

// Open opens a canned scenario by name, or else the scenario file at
// nameOrPath. A canned name wins over a file of the same name: write
// ./boundary to open the file.
func Open(nameOrPath string) (*Scenario, error) {
	if data, ok := Source(nameOrPath); ok {
		return parseCanned(nameOrPath, data)
	}
	s, err := Load(nameOrPath)
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\.`) {
		return nil, fmt.Errorf("no canned scenario is called %q (canned: %s) and there is no file of that name", nameOrPath, cannedNames())
	}
	return s, err
}
