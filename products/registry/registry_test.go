package registry

import (
	"errors"
	"slices"
	"testing"
)

// A refusal names the text's line where its reader names one, nginx's by
// its position and the others' by "line N: ".
func TestRefusal(t *testing.T) {
	for _, c := range []struct {
		product, text string
		line          int
		reason        string
	}{
		{"nginx", "limit_req_zone $binary_remote_addr zone=one:10m rate=10r/s;\nlimit_req zone=one burst=x;", 2, `invalid burst value "burst=x"`},
		{"nginx", "http {\n\n limit_req zone=z;\n}", 3, `zero size shared memory zone "z" (no limit_req_zone defines it)`},
		{"x-time-rate", "// a limiter\nlim := rate.NewLimiter(10, -5)", 2, "rate.NewLimiter(10, -5): the burst is not a whole number of 0 or more"},
		{"aws", "throttle: {rateLimit: x, burstLimit: 5}", 0, "rate limit x is not a number"},
	} {
		_, _, err := Lookup(c.product).ReadText(c.text)
		if err == nil {
			t.Errorf("%s %q read", c.product, c.text)
			continue
		}
		if line, reason := Refusal(err); line != c.line || reason != c.reason {
			t.Errorf("%s %q: line %d, %q; want %d, %q", c.product, c.text, line, reason, c.line, c.reason)
		}
	}
	if line, reason := Refusal(errors.New("line x: no")); line != 0 || reason != "line x: no" {
		t.Errorf("%d %q", line, reason)
	}
}

// An nginx fragment is read as its http block's rules; a text with an
// http block as it is, $http_ variables being no block.
func TestReadTextOfAnNginxFragment(t *testing.T) {
	for _, text := range []string{
		"limit_req_zone $http_x_key zone=one:10m rate=10r/s; limit_req zone=one;",
		"http { limit_req_zone $http_x_key zone=one:10m rate=10r/s; server { limit_req zone=one; } }",
	} {
		lanes, _, err := Lookup("nginx").ReadText(text)
		if err != nil || len(lanes) != 1 || lanes[0].Layers[0].Policy.Rate.N != 10 {
			t.Errorf("%q: %+v, %v", text, lanes, err)
		}
	}
}

// Every product is found by its name, once, and its name is a lane name.
func TestNames(t *testing.T) {
	names := Names()
	if len(names) != len(Products) || len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
		t.Errorf("names %q", names)
	}
	for _, n := range names {
		if Lookup(n) == nil || slug(n) != n {
			t.Errorf("%q", n)
		}
	}
	if Lookup("haproxy") != nil {
		t.Error("haproxy found")
	}
}
