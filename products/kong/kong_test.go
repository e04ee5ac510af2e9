package kong

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratelab/algorithms"
)

func window(n int64, w time.Duration) algorithms.Policy {
	return algorithms.Policy{Algorithm: algorithms.FixedWindow, Limit: n, Window: w}
}

func TestRead(t *testing.T) {
	decK := `_format_version: "3.0"
services:
- name: orders
  plugins:
  - name: rate-limiting
    config:
      second: 5
      hour: 10000
      month: 100000
      policy: redis
`
	fs, err := Read(decK)
	if err != nil || len(fs) != 1 {
		t.Fatalf("%+v %v", fs, err)
	}
	f := fs[0]
	if f.Var != "orders" || len(f.Layers) != 2 || f.Layers[0].Policy != window(5, time.Second) || f.Layers[1].Policy != window(10000, time.Hour) {
		t.Errorf("%+v", f)
	}
	notes := strings.Join(f.Notes, "; ")
	for _, want := range []string{"config.month is left out", "policy redis: the counts are shared"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	form, err := Read(`curl -X POST http://localhost:8001/services/orders/plugins --data "name=rate-limiting" --data "config.minute=5" --data "config.policy=local"`)
	if err != nil || len(form[0].Layers) != 1 || form[0].Layers[0].Policy != window(5, time.Minute) || !strings.Contains(strings.Join(form[0].Notes, ""), "policy local") {
		t.Errorf("%+v %v", form, err)
	}
	for _, c := range []struct{ src, want string }{
		{"plugins: [{name: rate-limiting, config: {policy: local}}]", "at least one of these fields must be non-empty"},
		{"plugins: [{name: rate-limiting, config: {minute: 0}}]", "config.minute: expected a number greater than 0"},
		{"plugins: [{name: cors}]", "no rate-limiting plugin"},
	} {
		if _, err := Read(c.src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
}

func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for range 100 {
		var layers []algorithms.Layer
		for _, p := range periods {
			if r.IntN(2) == 0 {
				layers = append(layers, algorithms.Layer{Name: p.name, Policy: window(1+r.Int64N(1000), p.window)})
			}
		}
		if len(layers) == 0 {
			continue
		}
		text, err := Write("orders", layers)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := Read(text)
		if err != nil || len(fs) != 1 || len(fs[0].Layers) != len(layers) {
			t.Fatalf("%+v %v\n%s", fs, err, text)
		}
		for i := range layers {
			if fs[0].Layers[i].Policy != layers[i].Policy {
				t.Fatalf("layer %d: %v, want %v\n%s", i, fs[0].Layers[i].Policy, layers[i].Policy, text)
			}
		}
	}
}

func TestNearest(t *testing.T) {
	got, differs, err := Nearest(algorithms.Policy{Algorithm: algorithms.TokenBucket, Capacity: 10, Rate: algorithms.Rate{N: 1, Per: 7 * time.Second}})
	if err != nil || got != window(8, time.Minute) || len(differs) != 1 {
		t.Errorf("%v %q %v", got, differs, err)
	}
}
