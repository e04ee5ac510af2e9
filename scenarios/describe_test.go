package scenarios

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

// TestEveryAlgorithmInTheFormat writes a lane of every described algorithm,
// with values made from its parameters' kinds alone, and reads it back: the
// format knows an algorithm from its description, with no table of its own.
// A missing parameter is reported with the description's words.
func TestEveryAlgorithmInTheFormat(t *testing.T) {
	for _, a := range algorithms.Algorithms {
		p := algorithms.Policy{Algorithm: a}
		var fields []string
		for _, q := range algorithms.Describe(a).Params {
			switch q.Kind {
			case algorithms.Count:
				n := int64(3)
				if q.Name == "sub_windows" {
					n = 2 // it must divide the window, 2s
				}
				*q.CountOf(&p) = n
				fields = append(fields, q.Name+": "+strconv.FormatInt(n, 10))
			case algorithms.Duration:
				*q.DurationOf(&p) = 2 * time.Second
				fields = append(fields, q.Name+": 2s")
			case algorithms.RateKind:
				*q.RateOf(&p) = algorithms.Rate{N: 2, Per: time.Second}
				fields = append(fields, q.Name+": 2/s")
			case algorithms.Flag:
				*q.FlagOf(&p) = true
				fields = append(fields, q.Name+": true")
			}
		}
		if p.Validate() != nil {
			// A flag may exclude a count (nginx's nodelay and delay=): try
			// the flags left out.
			for i, q := range algorithms.Describe(a).Params {
				if q.Kind == algorithms.Flag {
					*q.FlagOf(&p) = false
					fields[i] = q.Name + ": false"
				}
			}
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: the values 3, 2s, 2/s and true (or false) make no valid policy (%v): choose ones that do for it here", a, err)
			continue
		}
		s := &Scenario{Title: "t", Step: time.Second, Duration: time.Minute, Lanes: []Lane{{Name: "lane", Policy: p}}}
		back := roundTrip(t, s, nil)
		if !reflect.DeepEqual(back.Lanes, s.Lanes) {
			t.Errorf("%s: read back %+v, want %+v", a, back.Lanes, s.Lanes)
		}
		// Each parameter left out is asked for in its description's words.
		for i, q := range algorithms.Describe(a).Params {
			if q.Optional {
				continue // left out is its zero
			}
			rest := append(append([]string{}, fields[:i]...), fields[i+1:]...)
			src := "title: t\nlimiters:\n  - {name: lane, algorithm: " + string(a) + ", " + strings.Join(rest, ", ") + "}\n"
			_, err := Parse("x.yaml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), string(a)+" needs "+q.Name+", "+q.Want) {
				t.Errorf("%s without %s: %v", a, q.Name, err)
			}
		}
	}
}
